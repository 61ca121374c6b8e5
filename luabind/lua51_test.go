package luabind

import (
	"runtime"
	"strings"
	"testing"
)

// The Lua of a rank computes what Lua 5.1 computes. The expected output of
// every case here was observed from the reference interpreter, lua5.1.

func TestLua51MultipleAssignment(t *testing.T) {
	runPrinting(t, []printCase{
		{"locals", `local mask, partner = 1, 3; mask, partner = mask * 2, partner - mask; print(mask, partner)`, "[0] 2\t2\n"},
		{"locals read both", `local a, b = 0, 1; a, b = a + 1, a + b; print(a, b)`, "[0] 1\t1\n"},
		{"swap fields", `local t = {10, 20, 30}; local i, j = 1, 3; t[i], t[j] = t[j], t[i]; print(t[1], t[2], t[3])`, "[0] 30\t20\t10\n"},
		{"key read before the local changes", `local t = {}; local i = 3; i, t[i] = i+1, 20; print(i, t[3], t[4])`, "[0] 4\t20\tnil\n"},
		{"globals", `g1, g2 = 1, 2; g1, g2 = g2, g1; print(g1, g2)`, "[0] 2\t1\n"},
		{"upvalues", `local u1, u2 = 1, 2; local function h() u1, u2 = u1 + u2, u1 - u2; return u1, u2 end; print(h())`, "[0] 3\t-1\n"},
	})
}

// A far integer key is one hash entry, not an array up to it.
func TestLua51FarIntegerKeys(t *testing.T) {
	runPrinting(t, []printCase{
		{"set", `local t = {}; t[10000000] = 1; print(#t, t[10000000], next(t))`, "[0] 0\t1\t10000000\t1\n"},
		{"rawset", `local f = {}; rawset(f, 5000000, true); print(rawget(f, 5000000), #f)`, "[0] true\t0\n"},
		{"insert", `local d = {}; table.insert(d, 1000000, "x"); print(#d, d[1000000], table.maxn(d))`, "[0] 0\tx\t1000000\n"},
		{"constructor", `local e = {[1]=1, [2]=2, [100]=100, [3]=3}; print(#e, e[100])`, "[0] 3\t100\n"},
		{"arrays", `local b = {}; for i = 10, 1, -1 do b[i] = i end; local a = {}; for i = 1, 5 do a[#a + 1] = i end
			local s = 0; for _, v in ipairs(b) do s = s + v end; print(#b, s, #a, select('#', unpack(a)))`, "[0] 10\t55\t5\t5\n"},
	})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := runRanks(t, 1, `local t = {}; t[10000000] = 1; t[2^25] = 2; local u = {[50000000] = 3}; table.insert(u, 60000000, 4); rawset(u, 40000000, 5)`); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 32<<20 {
		t.Errorf("far keys allocated %d MiB", n>>20)
	}
}

// Strings convert to numbers as in Lua 5.1.
func TestLua51StringToNumber(t *testing.T) {
	runPrinting(t, []printCase{
		{"numerals", `print(tonumber("5e-4"), tonumber("1e3"), tonumber("1E+2"), tonumber(".5"), tonumber("5."), tonumber("0x1A"), tonumber(" 12\n"))`,
			"[0] 0.0005\t1000\t100\t0.5\t5\t26\t12\n"},
		{"not numerals", `print(tonumber("1e"), tonumber(""), tonumber(" "), tonumber("0x"), tonumber("1 2"), tonumber("inf"), tonumber("nan"))`,
			"[0] nil\tnil\tnil\tnil\tnil\tnil\tnil\n"},
		{"bases", `print(tonumber("ff", 16), tonumber("z", 36), tonumber("101", 2), tonumber("2", 2))`, "[0] 255\t35\t5\tnil\n"},
		{"implicit", `local s = 0; for i = "1", "1e1", "2.5" do s = s + i end; print("10" + 1, "1e3" * 1, s)`, "[0] 11\t1000\t19\n"},
	})
}

// Numbers print as in Lua 5.1 ("%.14g").
func TestLua51NumberToString(t *testing.T) {
	runPrinting(t, []printCase{
		{"print", `print(1e15, 2^53, 0.1, 1/3, -0.0, math.huge, -math.huge, 0/0, 99999999999999, 1e14, 0.1 + 0.2)`,
			"[0] 1e+15\t9.007199254741e+15\t0.1\t0.33333333333333\t-0\tinf\t-inf\t-nan\t99999999999999\t1e+14\t0.3\n"},
		{"concat and format", `print(1e15 .. "", table.concat({2^53, 1/3}, " "), string.format("%s", 1e15), tostring(-math.huge))`,
			"[0] 1e+15\t9.007199254741e+15 0.33333333333333\t1e+15\t-inf\n"},
		{"error values", `print(pcall(error, 1e15))`, "[0] false\t1e+15\n"},
	})
}

// string.format is Lua 5.1's (C's sprintf); expected strings from lua5.1.
func TestLua51StringFormat(t *testing.T) {
	runPrinting(t, []printCase{
		{"g", `print(string.format("%g|%g|%.3g|%G", 2^53, 0.1, math.pi, 1e-10))`, "[0] 9.0072e+15|0.1|3.14|1E-10\n"},
		{"e f", `print(string.format("%e|%.2f|%10.3f|%-8.1f|%+.0f", math.pi, 2.675, -math.pi, 1.25, 2.5))`, "[0] 3.141593e+00|2.67|    -3.142|1.2     |+2\n"},
		{"d truncates", `print(string.format("%d %d %5d|%-5d|%05d %x %X %o %c", 2.7, -2.7, 42, 42, -42, 255, -1, 8, 65))`,
			"[0] 2 -2    42|42   |-0042 ff FFFFFFFFFFFFFFFF 10 A\n"},
		{"q", `print(string.format("%q", "a\nb\rc\0d\"e\\f"))`, "[0] \"a\\\nb\\rc\\000d\\\"e\\\\f\"\n"},
		{"s", `print(string.format("%5s|%-5s|%.2s|%s", "ab", "ab", "abc", 1e15))`, "[0]    ab|ab   |ab|1e+15\n"},
		{"width too long", `print(pcall(function() return string.format("%99999999d", 1) end))`, "[0] false\tt.lua:1: invalid format (width or precision too long)\n"},
		{"unknown option", `print(pcall(function() return string.format("%y", 1) end))`, "[0] false\tt.lua:1: invalid option '%y' to 'format'\n"},
	})
}

// A first line starting with '#' and a UTF-8 byte order mark are skipped in
// programs and modules, and line numbers stay those of the file.
func TestLua51FileHeader(t *testing.T) {
	runPrinting(t, []printCase{
		{"shebang", "#!/usr/bin/env bglua\nprint(pcall(error, 'x'))\nprint(pcall(function() error('line 3') end))", "[0] false\tx\n[0] false\tt.lua:3: line 3\n"},
		{"byte order mark", "\xEF\xBB\xBFprint(pcall(function() error('line 1') end))", "[0] false\tt.lua:1: line 1\n"},
		{"both", "\xEF\xBB\xBF# a comment line\nprint(pcall(function() error('line 2') end))", "[0] false\tt.lua:2: line 2\n"},
		{"only a header", "#!/usr/bin/env bglua", ""},
		{"module", `print(pcall(require "headed"))`, "[0] false\theaded:3: here\n"},
		{"# elsewhere is an operator", "local t = {1, 2}\nprint(#t)", "[0] 2\n"},
	})
	if _, err := Compile("bad.lua", "", []byte("#!/usr/bin/env bglua\n\nlocal = 1")); err == nil || !strings.Contains(err.Error(), "bad.lua:3:") {
		t.Errorf("syntax error %v, want one on line 3", err)
	}
}

// Argument errors read as Lua 5.1's (as lua5.1 prints them).
func TestLua51ArgumentErrors(t *testing.T) {
	runPrinting(t, []printCase{
		{"named", `print(pcall(function() return string.rep() end))`, "[0] false\tt.lua:1: bad argument #1 to 'rep' (string expected, got no value)\n"},
		{"no value", `print(pcall(function() return string.format("%d") end))`, "[0] false\tt.lua:1: bad argument #2 to 'format' (no value)\n"},
	})
}

// table.concat joins any number of elements (gopher-lua's pushed them all on
// the rank's data stack, which holds a million slots).
func TestLua51TableConcat(t *testing.T) {
	runPrinting(t, []printCase{
		{"600,000 elements", `local t = {} for i = 1, 600000 do t[i] = "a" end print(#table.concat(t, ","))`, "[0] 1199999\n"},
		{"numbers as Lua 5.1 writes them", `print(table.concat({1, 0.1, 1e15, 2^53}, " "))`, "[0] 1 0.1 1e+15 9.007199254741e+15\n"},
	})
}
