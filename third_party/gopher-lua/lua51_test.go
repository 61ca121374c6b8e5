package lua

import (
	"os/exec"
	"strings"
	"testing"
)

// lua51Case is a chunk and what Lua 5.1 prints running it: the expected
// output of every case was observed from the reference interpreter (lua5.1
// 5.1.5 on x86-64 Linux). differs, if set, says why this VM's output is not
// the reference's.
type lua51Case struct{ name, src, want, differs string }

// runLua51 runs each case in a fresh state whose print writes to a buffer.
// Where lua5.1 is installed, it also checks that the reference prints want.
func runLua51(t *testing.T, cases []lua51Case) {
	t.Helper()
	ref, _ := exec.LookPath("lua5.1")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if ref != "" && c.differs == "" {
				out, err := exec.Command(ref, "-e", c.src).CombinedOutput()
				if err != nil || string(out) != c.want {
					t.Errorf("lua5.1 printed %q (%v), the test wants %q", out, err, c.want)
				}
			}
			L := NewState()
			defer L.Close()
			var out strings.Builder
			L.SetGlobal("print", L.NewFunction(func(L *LState) int {
				for i := 1; i <= L.GetTop(); i++ {
					if i > 1 {
						out.WriteByte('\t')
					}
					out.WriteString(L.ToStringMeta(L.Get(i)).String())
				}
				out.WriteByte('\n')
				return 0
			}))
			if err := L.DoString(c.src); err != nil {
				out.WriteString("error: " + err.Error() + "\n")
			}
			if got := out.String(); got != c.want {
				t.Errorf("%s\nprinted %q\nwant    %q", c.src, got, c.want)
			}
		})
	}
}

// A multiple assignment evaluates every expression before it assigns (#440).
func TestMultipleAssignment(t *testing.T) {
	runLua51(t, []lua51Case{
		{"locals", `local mask, partner = 1, 3; mask, partner = mask * 2, partner - mask; print(mask, partner)`, "2\t2\n", ""},
		{"locals read both", `local a, b = 0, 1; a, b = a + 1, a + b; print(a, b)`, "1\t1\n", ""},
		{"swap locals", `local a, b = 1, 2; a, b = b, a; print(a, b)`, "2\t1\n", ""},
		{"rotate locals", `local c, d, e = 1, 2, 3; c, d, e = e, c, d; print(c, d, e)`, "3\t1\t2\n", ""},
		{"swap fields", `local t = {10, 20, 30}; local i, j = 1, 3; t[i], t[j] = t[j], t[i]; print(t[1], t[2], t[3])`, "30\t20\t10\n", ""},
		{"key read before the local changes", `local t = {}; local i = 3; i, t[i] = i+1, 20; print(i, t[3], t[4])`, "4\t20\tnil\n", ""},
		{"value read before the local changes", `local t = {}; local x = 1; t[1], x = x, 5; print(t[1], x)`, "1\t5\n", ""},
		{"table read before the local changes", `local r = {a = 1}; local old = r; r.a, r = 2, {a = 5}; print(r.a, old.a)`, "5\t2\n", ""},
		{"table local assigned first", `local s = {}; local old = s; s, s.x = {}, 3; print(s.x, old.x)`, "nil\t3\n", ""},
		{"globals", `g1, g2 = 1, 2; g1, g2 = g2, g1; print(g1, g2)`, "2\t1\n", ""},
		{"upvalues", `local u1, u2 = 1, 2; local function h() u1, u2 = u1 + u2, u1 - u2; return u1, u2 end; print(h())`, "3\t-1\n", ""},
		{"fewer values", `local p, q = 1, 2; p, q = q; print(p, q)`, "2\tnil\n", ""},
		{"call fills the rest", `local function mr() return 5, 6, 7 end; local p, q = 1, 2; p, q = q, mr(); print(p, q)`, "2\t5\n", ""},
		{"mixed targets", `local t = {}; local p, q = 1, 2; p, q, t[1] = q, p, p; print(p, q, t[1])`, "2\t1\t1\n", ""},
		{"field from a local, then a local", `local a, d, f = {}, 'e', 1; f, a.d = f, d; print(f, a.d)`, "1\te\n", ""},
		{"local, then field from a local", `local a, d, f, w = {}, 'e', 1, 2; a.d, f = d, w; print(f, a.d)`, "2\te\n", ""},
		{"single assignment", `local x = 1; x = x + 1; print(x)`, "2\n", ""},
	})
}

// An integer key far past the array part goes to the hash part, as in Lua
// 5.1, where gopher-lua grew the array up to it.
func TestFarIntegerKeys(t *testing.T) {
	runLua51(t, []lua51Case{
		{"set", `local t = {}; t[10000000] = 1; print(#t, t[10000000], next(t))`, "0\t1\t10000000\t1\n", ""},
		{"rawset", `local f = {}; rawset(f, 5000000, true); print(rawget(f, 5000000), #f)`, "true\t0\n", ""},
		{"insert", `local d = {}; table.insert(d, 1000000, "x"); print(#d, d[1000000], table.maxn(d))`, "0\tx\t1000000\n", ""},
		{"constructor", `local e = {[1]=1, [2]=2, [100]=100, [3]=3}; print(#e, e[100]); e[100] = nil; print(e[100])`, "3\t100\nnil\n", ""},
		{"filled backwards", `local b = {}; for i = 10, 1, -1 do b[i] = i end; local n = 0; for k in pairs(b) do n = n + 1 end
			local s = ""; for _, v in ipairs(b) do s = s .. v .. " " end; print(#b, n, s)`, "10\t10\t1 2 3 4 5 6 7 8 9 10 \n", ""},
		{"gap filled", `local h = {}; h[1]=1 h[2]=2 h[4]=4; h[3]=3; local n = 0; for k in pairs(h) do n = n + 1 end; print(#h, h[4], n, table.maxn(h))`, "4\t4\t4\t4\n", ""},
		{"sparse", `local s = {}; for i = 1, 100 do s[i * 2] = i end; local m = 0; for k in pairs(s) do m = m + 1 end; print(m, s[200])`, "100\t100\n", ""},
		{"insert in the middle", `local c = {1,2,3}; c[5] = 5; c[4] = 4; table.insert(c, 1, 0); print(#c, table.concat(c, ","))`, "6\t0,1,2,3,4,5\n", ""},
		{"other keys", `local z = {}; z[0] = 0; z[-1] = -1; z[1.5] = 1.5; z[1] = 1; print(#z, z[0], z[-1], z[1.5])`, "1\t0\t-1\t1.5\n", ""},
		{"powers of two", `local a = {}; for i=0,50 do a[2^i] = true end; local n = 0; for k in pairs(a) do n = n + 1 end; print(a[#a], #a, n)`, "true\t4\t51\n", ""},
		{"far keys iterate", `local t = {1, 2}; t[1e7] = 3; t[2e7] = 4; local n, s = 0, 0; for k, v in pairs(t) do n = n + 1; s = s + v end; print(n, s, #t)`, "4\t10\t2\n", ""},
	})
}

func TestFarIntegerKeyMemory(t *testing.T) {
	L := NewState()
	defer L.Close()
	if err := L.DoString(`t = {}; t[10000000] = 1; t[2^25] = 2; u = {[50000000] = 1}; table.insert(u, 60000000, 2)
		p = {}; for i = 0, 50 do p[2^i] = true end`); err != nil {
		t.Fatal(err)
	}
	for name, most := range map[string]int{"t": 0, "u": 0, "p": 4} {
		if n := len(L.GetGlobal(name).(*LTable).array); n > most {
			t.Errorf("%s has an array part of %d slots", name, n)
		}
	}
}

// Strings convert to numbers as in Lua 5.1, in tonumber and wherever Lua
// converts implicitly.
func TestStringToNumber(t *testing.T) {
	conv := func(cases ...string) string {
		var b strings.Builder
		for i, c := range cases {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("tonumber(\"" + c + "\")")
		}
		return "print(" + b.String() + ")"
	}
	runLua51(t, []lua51Case{
		{"exponents", conv("5e-4", "1e3", "1E+2", ".5", "5.", "1e+3", "-.5", "+.5e1"), "0.0005\t1000\t100\t0.5\t5\t1000\t-0.5\t5\n", ""},
		{"hex", conv("0x1A", "0X1a", "  -0x1A  ", "-0x10"), "26\t26\t-26\t-16\n", ""},
		{"blanks", `print(tonumber("  12  "), tonumber("\t\n12\n"), tonumber("\v5\f"), tonumber("5 "))`, "12\t12\t5\t5\n", ""},
		{"not numbers", conv("1e", "", " ", "0x", "1 2", "- 5", "0x 1", "1.5e+", "..5", "12a", "0xg", "5e5x", "1_000", "0b101", "0o17"),
			"nil\tnil\tnil\tnil\tnil\tnil\tnil\tnil\tnil\tnil\tnil\tnil\tnil\tnil\tnil\n", ""},
		{"not numerals", conv("inf", "nan", "-inf", "0x1p4", "0x1.8"), "nil\tnil\tnil\tnil\tnil\n",
			"lua5.1 reads these with glibc's strtod (inf nan -inf 16 1.5); they are not Lua numerals"},
		{"leading zero is decimal", conv("017", "+5"), "17\t5\n", ""},
		{"bases", `print(tonumber("ff", 16), tonumber("FF", 16), tonumber("z", 36), tonumber("101", 2), tonumber("2", 2), tonumber(" 11 ", 2), tonumber("7fffffff", 16), tonumber("0x10", 16), tonumber("", 10), tonumber("1.5", 10), tonumber("+10", 8), tonumber(10, 16))`,
			"255\t255\t35\t5\tnil\t3\t2147483647\t16\tnil\t1.5\t8\t16\n", ""},
		{"base out of range", `print(select(2, pcall(function() return tonumber("10", 1) end)):match(":1: (.*)")); print(select(2, pcall(function() return tonumber("10", 37) end)):match(":1: (.*)"))`,
			"bad argument #2 to 'tonumber' (base out of range)\nbad argument #2 to 'tonumber' (base out of range)\n", ""},
		{"not strings", `print(tonumber(nil), tonumber(true), tonumber({}), tonumber(7))`, "nil\tnil\tnil\t7\n", ""},
		{"arithmetic", `print("10" + 1, "1e3" * 1, "0x10" + 0, " 5 " * 2, "-.5" + 0, -"2", 10 == "10")`, "11\t1000\t16\t10\t-0.5\t-2\tfalse\n", ""},
		{"for bounds", `local s = ""; for i = "1", "3" do s = s .. i .. " " end; for i = 1, "1e1", "2.5" do s = s .. i .. " " end; print(s)`, "1 2 3 1 3.5 6 8.5 \n", ""},
		{"for bound not a number", `print(select(2, pcall(function() for i = 1, "x" do end end)):match(":1: (.*)"))`, "'for' limit must be a number\n", ""},
		{"library arguments", `print(math.floor("3.7"), string.rep("x", "3"), ("10"):rep(2), string.sub("abcdef", "2", "3.5"))`, "3\txxx\t1010\tbc\n", ""},
	})
}

// Numbers become strings as Lua 5.1 writes them ("%.14g"), everywhere.
func TestNumberToString(t *testing.T) {
	runLua51(t, []lua51Case{
		{"print", `print(1e15, 2^53, 0.1, 1/3, -0.0, math.huge, -math.huge, 0/0, -(0/0), 1e14, 123456789012345, 1e100, 1e-5, 0.0001, -1e15, 2^63, 100, -7, 3.0, 12345678901234567, 0.1+0.2, 5e-324)`,
			"1e+15\t9.007199254741e+15\t0.1\t0.33333333333333\t-0\tinf\t-inf\t-nan\tnan\t1e+14\t1.2345678901234e+14\t1e+100\t1e-05\t0.0001\t-1e+15\t9.2233720368548e+18\t100\t-7\t3\t1.2345678901235e+16\t0.3\t4.9406564584125e-324\n", ""},
		{"integers", `print(99999999999999, -99999999999999, 2^31, -2^31, 2^32+0.5, 123.456, -0.5, 100/3, 7/2, -1e-7, 0 * -1, 0/-1)`,
			"99999999999999\t-99999999999999\t2147483648\t-2147483648\t4294967296.5\t123.456\t-0.5\t33.333333333333\t3.5\t-1e-07\t-0\t-0\n", ""},
		{"tostring, .., concat, format", `print(tostring(0/0), 1e15 .. "", table.concat({1e15, 0.5, 0/0}, ","), string.format("%s %s", 1e15, 1/3), ("%5s|%-8s|"):format(1/3, 2^53))`,
			"-nan\t1e+15\t1e+15,0.5,-nan\t1e+15 0.33333333333333\t0.33333333333333|9.007199254741e+15|\n", ""},
		{"errors", `print(pcall(error, 1e15)); print(select(2, pcall(error, 0.1)) .. "")`, "false\t1e+15\n0.1\n", ""},
		{"keys", `local t = {}; t[1.5] = 1; t[1e15] = 2; local s = {}; for k in pairs(t) do s[#s+1] = tostring(k) end; table.sort(s); print(table.concat(s, " "))`, "1.5 1e+15\n", ""},
	})
}

// string.format formats as Lua 5.1 does with C's sprintf. Every expected
// string was printed by lua5.1 (5.1.5, x86-64 Linux, glibc).
func TestStringFormat(t *testing.T) {
	runLua51(t, []lua51Case{
		{"string.format(\"%g\", 2^53)", `print(string.format("%g", 2^53))`, "9.0072e+15\n", ""},
		{"string.format(\"%g %g %g %g %g\", 0.1, 1e20, 1e-5, 123456, 1234567)", `print(string.format("%g %g %g %g %g", 0.1, 1e20, 1e-5, 123456, 1234567))`, "0.1 1e+20 1e-05 123456 1.23457e+06\n", ""},
		{"string.format(\"%g %G %g\", 100000, 1e-10, 0)", `print(string.format("%g %G %g", 100000, 1e-10, 0))`, "100000 1E-10 0\n", ""},
		{"string.format(\"%.3g|%.10g|%.0g|%#g|%#.3g\", math.pi, 1/3, 2.5, 1, 100)", `print(string.format("%.3g|%.10g|%.0g|%#g|%#.3g", math.pi, 1/3, 2.5, 1, 100))`, "3.14|0.3333333333|2|1.00000|100.\n", ""},
		{"string.format(\"%e|%E|%.2e|%.0e|%#.0e|%12.3e|%-12.3e|\", math.pi, 12345.678, 0, 5, 5, -1.5, 1.5)", `print(string.format("%e|%E|%.2e|%.0e|%#.0e|%12.3e|%-12.3e|", math.pi, 12345.678, 0, 5, 5, -1.5, 1.5))`, "3.141593e+00|1.234568E+04|0.00e+00|5e+00|5.e+00|  -1.500e+00|1.500e+00   |\n", ""},
		{"string.format(\"%f|%.2f|%.0f|%#.0f|%10.3f|%-10.3f|%010.3f|%+f|% f\", math.pi, 2.675, 2.5, 3, -math.pi, math.pi, -math.pi, 1, 1)", `print(string.format("%f|%.2f|%.0f|%#.0f|%10.3f|%-10.3f|%010.3f|%+f|% f", math.pi, 2.675, 2.5, 3, -math.pi, math.pi, -math.pi, 1, 1))`, "3.141593|2.67|2|3.|    -3.142|3.142     |-00003.142|+1.000000| 1.000000\n", ""},
		{"string.format(\"%d %d %d %d %i\", 2.7, -2.7, 3.5, -0.5, 42)", `print(string.format("%d %d %d %d %i", 2.7, -2.7, 3.5, -0.5, 42))`, "2 -2 3 0 42\n", ""},
		{"string.format(\"%5d|%-5d|%05d|%+d|% d|%.3d|%5.3d|%-+5d|%.0d|\", 42, 42, -42, 42, 42, 7, 7, 7, 0)", `print(string.format("%5d|%-5d|%05d|%+d|% d|%.3d|%5.3d|%-+5d|%.0d|", 42, 42, -42, 42, 42, 7, 7, 7, 0))`, "   42|42   |-0042|+42| 42|007|  007|+7   ||\n", ""},
		{"string.format(\"%x %X %o %u\", 255, 255, 8, 42)", `print(string.format("%x %X %o %u", 255, 255, 8, 42))`, "ff FF 10 42\n", ""},
		{"string.format(\"%#x %#X %#o %#x %#o\", 255, 255, 8, 0, 0)", `print(string.format("%#x %#X %#o %#x %#o", 255, 255, 8, 0, 0))`, "0xff 0XFF 010 0 0\n", ""},
		{"string.format(\"%x %u %X\", -1, -1, -255)", `print(string.format("%x %u %X", -1, -1, -255))`, "ffffffffffffffff 18446744073709551615 FFFFFFFFFFFFFF01\n", ""},
		{"string.format(\"%08x|%-8x|%.4x|%+x|% u\", 255, 255, 255, 255, 255)", `print(string.format("%08x|%-8x|%.4x|%+x|% u", 255, 255, 255, 255, 255))`, "000000ff|ff      |00ff|ff|255\n", ""},
		{"string.format(\"%c%c%c\", 76, 117, 97)", `print(string.format("%c%c%c", 76, 117, 97))`, "Lua\n", ""},
		{"string.format(\"%5c|%-5c|\", 65, 66)", `print(string.format("%5c|%-5c|", 65, 66))`, "    A|B    |\n", ""},
		{"string.format(\"[%c]\", 0)", `print(string.format("[%c]", 0))`, "[]\n", ""},
		{"string.format(\"[%5c]\", 0)", `print(string.format("[%5c]", 0))`, "[    ]\n", ""},
		{"string.format(\"%c\", 321)", `print(string.format("%c", 321))`, "A\n", ""},
		{"string.format(\"%s %s %s\", \"x\", 1, 1.5)", `print(string.format("%s %s %s", "x", 1, 1.5))`, "x 1 1.5\n", ""},
		{"string.format(\"%10s|%-10s|%.2s|%5.1s|\", \"abc\", \"abc\", \"abc\", \"abc\")", `print(string.format("%10s|%-10s|%.2s|%5.1s|", "abc", "abc", "abc", "abc"))`, "       abc|abc       |ab|    a|\n", ""},
		{"string.format(\"%s\", 1e15) .. string.format(\"%s\", 1/3)", `print(string.format("%s", 1e15) .. string.format("%s", 1/3))`, "1e+150.33333333333333\n", ""},
		{"string.format(\"%5s\", \"a\\0b\")", `print(string.format("%5s", "a\0b"))`, "    a\n", ""},
		{"#string.format(\"%s\", \"a\\0b\")", `print(#string.format("%s", "a\0b"))`, "1\n", ""},
		{"#string.format(\"%s\", string.rep(\"a\", 99) .. \"\\0b\")", `print(#string.format("%s", string.rep("a", 99) .. "\0b"))`, "101\n", ""},
		{"#string.format(\"%s\", string.rep(\"a\", 100) .. \"\\0b\")", `print(#string.format("%s", string.rep("a", 100) .. "\0b"))`, "102\n", ""},
		{"string.format(\"%q\", \"a\\nb\\rc\\0d\\\"e\\\\f\\tg\")", `print(string.format("%q", "a\nb\rc\0d\"e\\f\tg"))`, "\"a\\\nb\\rc\\000d\\\"e\\\\f\tg\"\n", ""},
		{"string.format(\"%q\", \"\\1\\127\\255\")", `print(string.format("%q", "\1\127\255"))`, "\"\x01\x7f\xff\"\n", ""},
		{"string.format(\"%q\", 1/3)", `print(string.format("%q", 1/3))`, "\"0.33333333333333\"\n", ""},
		{"string.format(\"%5.2f%%\", 99.5)", `print(string.format("%5.2f%%", 99.5))`, "99.50%\n", ""},
		{"string.format(\"%d\", \"10\")", `print(string.format("%d", "10"))`, "10\n", ""},
		{"string.format(\"%.14g\", 0.1)", `print(string.format("%.14g", 0.1))`, "0.1\n", ""},
		{"string.format(\"%.99f\", 1/3)", `print(string.format("%.99f", 1/3))`, "0.333333333333333314829616256247390992939472198486328125000000000000000000000000000000000000000000000\n", ""},
		{"string.format(\"%99.99f\", -1/3)", `print(string.format("%99.99f", -1/3))`, "-0.333333333333333314829616256247390992939472198486328125000000000000000000000000000000000000000000000\n", ""},
		{"string.format(\"%g %g %g %e %f\", 1/0, -1/0, 0/0, 1/0, -(0/0))", `print(string.format("%g %g %g %e %f", 1/0, -1/0, 0/0, 1/0, -(0/0)))`, "inf -inf -nan inf nan\n", ""},
		{"string.format(\"%5g|%-6g|%06g|%+g|%G\", 1/0, -1/0, 1/0, 1/0, 0/0)", `print(string.format("%5g|%-6g|%06g|%+g|%G", 1/0, -1/0, 1/0, 1/0, 0/0))`, "  inf|-inf  |   inf|+inf|-NAN\n", ""},
		{"string.format(\"%010.3f|%-010d|%0-10d|\", 1.5, 5, 5)", `print(string.format("%010.3f|%-010d|%0-10d|", 1.5, 5, 5))`, "000001.500|5         |5         |\n", ""},
		{"string.format(\"%+.3d|% .3d|%+05d|% 05d\", 5, 5, 5, 5)", `print(string.format("%+.3d|% .3d|%+05d|% 05d", 5, 5, 5, 5))`, "+005| 005|+0005| 0005\n", ""},
		{"string.format(\"%d\", 2^53)", `print(string.format("%d", 2^53))`, "9007199254740992\n", ""},
		{"string.format(\"%d %d\", 2^63, -2^63)", `print(string.format("%d %d", 2^63, -2^63))`, "-9223372036854775808 -9223372036854775808\n", ""},
		{"string.format(\"%x\", 2^63)", `print(string.format("%x", 2^63))`, "8000000000000000\n", ""},
		{"string.format(\"%.3x|%#.3x|%#5o|%#.5o\", 10, 10, 8, 8)", `print(string.format("%.3x|%#.3x|%#5o|%#.5o", 10, 10, 8, 8))`, "00a|0x00a|  010|00010\n", ""},
		{"string.format(\"%x\", 2^64)", `print(string.format("%x", 2^64))`, "0\n", ""},
		{"string.format(\"%x %d\", 0/0, 0/0)", `print(string.format("%x %d", 0/0, 0/0))`, "8000000000000000 -9223372036854775808\n", ""},
		{"string.format(\"%x\", -0.5)", `print(string.format("%x", -0.5))`, "0\n", ""},
		{"string.format(\"%5.3s|\", \"abcdef\")", `print(string.format("%5.3s|", "abcdef"))`, "  abc|\n", ""},
		{"string.format(\"%.0s|\", \"abc\")", `print(string.format("%.0s|", "abc"))`, "|\n", ""},
		{"string.format(\"%-5.0f|\", 2.5)", `print(string.format("%-5.0f|", 2.5))`, "2    |\n", ""},
		{"string.format(\"%#x|%#o\", 1, 1)", `print(string.format("%#x|%#o", 1, 1))`, "0x1|01\n", ""},
		{"string.format(\"%g|%g|%g\", 1e-4, 1e-5, 123456789)", `print(string.format("%g|%g|%g", 1e-4, 1e-5, 123456789))`, "0.0001|1e-05|1.23457e+08\n", ""},
		{"string.format(\"%.20g\", 0.1)", `print(string.format("%.20g", 0.1))`, "0.10000000000000000555\n", ""},
		{"string.format(\"%.3G|%.3E\", 1e-10, 1e-10)", `print(string.format("%.3G|%.3E", 1e-10, 1e-10))`, "1E-10|1.000E-10\n", ""},
		{"string.format(\"%s\", true and \"ok\")", `print(string.format("%s", true and "ok"))`, "ok\n", ""},
		{"string.format(\"no args\")", `print(string.format("no args"))`, "no args\n", ""},
		{"string.format(\"%s-%s\", \"a\", \"b\", \"c\")", `print(string.format("%s-%s", "a", "b", "c"))`, "a-b\n", ""},
		{"string.format(\"%-5x|\", 255)", `print(string.format("%-5x|", 255))`, "ff   |\n", ""},
		{"string.format(\"%#-8x|%#08x|\", 255, 255)", `print(string.format("%#-8x|%#08x|", 255, 255))`, "0xff    |0x0000ff|\n", ""},
		{"string.format(\"%i\", -0.0)", `print(string.format("%i", -0.0))`, "0\n", ""},
		{"string.format(\"%f %e %g\", -0.0, -0.0, -0.0)", `print(string.format("%f %e %g", -0.0, -0.0, -0.0))`, "-0.000000 -0.000000e+00 -0\n", ""},
		{"long strings are kept whole", `print(#string.format("%s", string.rep("a", 100) .. "\0b"), #string.format("%s", string.rep("a", 99) .. "\0b"), #string.format("%-99s", string.rep("a", 100)))`, "102\t101\t100\n", ""},
	})
}

// string.format's errors are Lua 5.1's.
func TestStringFormatErrors(t *testing.T) {
	runLua51(t, []lua51Case{
		{"string.format(\"%99999999d\", 1)", `print(select(2, pcall(function() return string.format("%99999999d", 1) end)):match(":1: (.*)"))`, "invalid format (width or precision too long)\n", ""},
		{"string.format(\"%100d\", 1)", `print(select(2, pcall(function() return string.format("%100d", 1) end)):match(":1: (.*)"))`, "invalid format (width or precision too long)\n", ""},
		{"string.format(\"%.100f\", 1)", `print(select(2, pcall(function() return string.format("%.100f", 1) end)):match(":1: (.*)"))`, "invalid format (width or precision too long)\n", ""},
		{"string.format(\"%y\", 1)", `print(select(2, pcall(function() return string.format("%y", 1) end)):match(":1: (.*)"))`, "invalid option '%y' to 'format'\n", ""},
		{"string.format(\"%\", 1)", `print(select(2, pcall(function() return string.format("%", 1) end)):match(":1: (.*)"))`, "invalid option '%' to 'format'\n", ""},
		{"string.format(\"%d\")", `print(select(2, pcall(function() return string.format("%d") end)):match(":1: (.*)"))`, "bad argument #2 to 'format' (no value)\n", ""},
		{"string.format(\"%d\", \"x\")", `print(select(2, pcall(function() return string.format("%d", "x") end)):match(":1: (.*)"))`, "bad argument #2 to 'format' (number expected, got string)\n", ""},
		{"string.format(\"%s\", {})", `print(select(2, pcall(function() return string.format("%s", {}) end)):match(":1: (.*)"))`, "bad argument #2 to 'format' (string expected, got table)\n", ""},
		{"string.format(\"%------d\", 1)", `print(select(2, pcall(function() return string.format("%------d", 1) end)):match(":1: (.*)"))`, "invalid format (repeated flags)\n", ""},
		{"string.format(\"%s\")", `print(select(2, pcall(function() return string.format("%s") end)):match(":1: (.*)"))`, "bad argument #2 to 'format' (no value)\n", ""},
		{"string.format(\"%ld\", 1)", `print(select(2, pcall(function() return string.format("%ld", 1) end)):match(":1: (.*)"))`, "invalid option '%l' to 'format'\n", ""},
		{"string.format(\"%5\", 1)", `print(select(2, pcall(function() return string.format("%5", 1) end)):match(":1: (.*)"))`, "invalid option '%' to 'format'\n", ""},
		{"string.format(\"%d\", nil)", `print(select(2, pcall(function() return string.format("%d", nil) end)):match(":1: (.*)"))`, "bad argument #2 to 'format' (number expected, got nil)\n", ""},
		{"string.format(\"%s\", nil)", `print(select(2, pcall(function() return string.format("%s", nil) end)):match(":1: (.*)"))`, "bad argument #2 to 'format' (string expected, got nil)\n", ""},
		{"string.format(\"%q\", nil)", `print(select(2, pcall(function() return string.format("%q", nil) end)):match(":1: (.*)"))`, "bad argument #2 to 'format' (string expected, got nil)\n", ""},
		{"string.format(\"%c\", \"x\")", `print(select(2, pcall(function() return string.format("%c", "x") end)):match(":1: (.*)"))`, "bad argument #2 to 'format' (number expected, got string)\n", ""},
	})
}

// table.foreach, foreachi and setn are Lua 5.1's (deprecated there).
func TestTableForeach(t *testing.T) {
	runLua51(t, []lua51Case{
		{"foreach", `local a = {x = 90, 1, 2}; print(table.foreach(a, function(i, v) if i == 'x' then return v end end)); local n = 0; table.foreach(a, function() n = n + 1 end); print(n)`, "90\n3\n", ""},
		{"foreachi", `local s = ""; print(table.foreachi({5, 6, 7, x = 1}, function(i, v) s = s .. i .. v; if v == 6 then return "stop" end end), s)`, "stop\t1526\n", ""},
		{"setn", `print(select(2, pcall(function() table.setn({}, 3) end)):match(":1: (.*)"))`, "'setn' is obsolete\n", ""},
	})
}

// tonumber(s, base) with a sign gives a negative number, as the Lua 5.1 test
// suite expects (math.lua).
func TestToNumberNegativeInBase(t *testing.T) {
	runLua51(t, []lua51Case{
		{"negative", `print(tonumber('\n  -10  \n', 36), tonumber('-fFfa', 16), tonumber('-fffffFFFFF', 16) - 1 == -2^40)`, "-36\t-65530\ttrue\n",
			"lua5.1 on 64-bit Linux reads it with strtoul and wraps around 2^64"},
	})
}

// a % b is Lua 5.1's a - floor(a/b)*b.
func TestModulo(t *testing.T) {
	runLua51(t, []lua51Case{
		{"signs", `print(5 % -3, -5 % 3, 5.5 % 2, -5.5 % 2, -7 % 2.5, 7 % -2.5)`, "-1\t1\t1.5\t0.5\t0.5\t-0.5\n", ""},
		{"infinities and zero", `local h = math.huge; print(5 % h, -5 % h, h % 2, 1 % 0, 0 % 0)`, "-nan\t-nan\t-nan\t-nan\t-nan\n", ""},
		{"constants folded", `print(1 % 0, 5.3 % 1, 2^53 % 3)`, "-nan\t0.3\t2\n", ""},
	})
}

// table.insert and table.remove are Lua 5.1's, by #t, also after t[#t] = nil.
func TestTableInsertRemove(t *testing.T) {
	runLua51(t, []lua51Case{
		{"remove after a hole at the end", `local t = {1, 2, 3}; t[3] = nil; table.remove(t); print(#t, t[1], t[2])`, "1\t1\tnil\n", ""},
		{"remove returns nothing out of range", `print(select('#', table.remove({})), select('#', table.remove({1}, 5)), table.remove({1, 2, 3}, 1))`, "0\t0\t1\n", ""},
		{"insert at a position", `local t = {1, 2, 3}; table.insert(t, 2, 9); table.insert(t, 6, 7); print(#t, table.concat(t, ",", 1, 4), t[5], t[6])`, "6\t1,9,2,3\tnil\t7\n", ""},
		{"queue", `local q = {}; for i = 1, 5 do table.insert(q, i) end; local s = ""; while #q > 0 do s = s .. table.remove(q, 1) end; print(s)`, "12345\n", ""},
		{"wrong number of arguments", `print(select(2, pcall(function() table.insert({}, 1, 2, 3) end)):match(":1: (.*)"))`, "wrong number of arguments to 'insert'\n", ""},
	})
}

// table.concat is Lua 5.1's: bounds as given, any size.
func TestTableConcat(t *testing.T) {
	runLua51(t, []lua51Case{
		{"bounds", `print(table.concat({1,2,3}, ",", 3, 2), table.concat({1,2,3}, ",", 2), table.concat({1, 2.5, "x"}, "-"), table.concat({[0]=0, 1}, ",", 0))`, "\t2,3\t1-2.5-x\t0,1\n", ""},
		{"past #t", `print(select(2, pcall(function() return table.concat({1,2}, ",", 1, 3) end)):match(":1: (.*)"))`, "invalid value (nil) at index 3 in table for 'concat'\n", ""},
		{"not a string", `print(select(2, pcall(function() return table.concat({1, {}, 3}) end)):match(":1: (.*)"))`, "invalid value (table) at index 2 in table for 'concat'\n", ""},
		{"a million", `local t = {} for i = 1, 1000000 do t[i] = "a" end print(#table.concat(t), #table.concat(t, ", "))`, "1000000\t2999998\n", ""},
	})
}

// table.sort sorts t[1..#t].
func TestTableSort(t *testing.T) {
	runLua51(t, []lua51Case{
		{"after t[#t] = nil", `local t = {3, 1, 2}; t[3] = nil; table.sort(t); print(t[1], t[2], t[3])`, "1\t3\tnil\n", ""},
		{"order function", `local t = {3, 1, 2}; table.sort(t, function(a, b) return a > b end); print(table.concat(t, " "))`, "3 2 1\n", ""},
	})
}

// string.find's start and string.upper/lower are Lua 5.1's.
func TestStringFindUpper(t *testing.T) {
	runLua51(t, []lua51Case{
		{"find past the end", `print(string.find("abc", "", 10)); print(string.find("abc", "", 2)); print(string.find("abc", "b", 10, true)); print(string.find("abc", "b", -10))`, "4\t3\n2\t1\nnil\n2\t2\n", ""},
		{"upper and lower", `print(string.upper("a\195\169z"), string.lower("A\195\137Z"))`, "A\xc3\xa9Z\ta\xc3\x89z\n", ""},
	})
}

// A pattern that ends in '%' is malformed, as in Lua 5.1.
func TestPatternEndsWithPercent(t *testing.T) {
	runLua51(t, []lua51Case{
		{"malformed", `print(select(2, pcall(function() return string.gsub("abc", "%", "x") end)):match(":1: (.*)"))`, "malformed pattern (ends with '%')\n", ""},
		{"escaped", `print(string.find("a%", "%%"), string.gsub("50%", "%%", " percent"))`, "2\t50 percent\t1\n", ""},
	})
}

// A constructor's list items are in the array part, holes included, as Lua
// 5.1 sizes it.
func TestConstructorListItems(t *testing.T) {
	runLua51(t, []lua51Case{
		{"holes", `print(unpack({nil, 2})); print(#{nil, nil, 3}, #{1, nil}, select("#", unpack({nil, nil})))`, "nil\t2\n3\t1\t0\n", ""},
		{"varargs", `local function f(...) return {...} end; local a = f(nil, 5); print(#a, a[2])`, "2\t5\n", ""},
		{"list items after keys", `local t = {[2] = "h", [3] = "x", 1, 2}; print(t[1], t[2], t[3], #t)`, "1\t2\tx\t3\n", ""},
	})
}

// # of a table is its own length: Lua 5.1 calls __len for userdata only.
func TestLengthOfTable(t *testing.T) {
	runLua51(t, []lua51Case{
		{"__len ignored", `local a = setmetatable({1, 2}, {__len = function() return 99 end}); print(#a)`, "2\n", ""},
		{"not a table", `print(select(2, pcall(function() return #5 end)):match(":1: (.*)"))`, "attempt to get length of a number value\n", ""},
	})
}

// Random table operations (sets and nils over key ranges from 8 to 100,000,
// rawset, pairs, table.insert and table.remove at random positions) give
// the checksum lua5.1 gives.
func TestTableOperationsAsLua51(t *testing.T) {
	runLua51(t, []lua51Case{
		{"random operations", `local seed, h = 7, 0
local function rnd(n) seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n end
local function mix(x) h = (h * 31 + x) % 4294967296 end
for trial = 1, 60 do
  local t = {}
  local range = ({8, 40, 300, 5000, 100000})[rnd(5) + 1]
  for op = 1, 300 do
    local r, k = rnd(10), rnd(range) + 1
    if r < 5 then t[k] = op elseif r < 8 then t[k] = nil else rawset(t, k, -op) end
    if op % 30 == 0 then
      local cnt, ks, vs = 0, 0, 0
      for kk, vv in pairs(t) do cnt = cnt + 1; ks = ks + kk; vs = vs + vv end
      mix(cnt); mix(ks % 4294967296); mix(vs % 4294967296)
      for i = 1, 10 do mix((t[rnd(range) + 1] or 0) % 4294967296) end
    end
  end
  local a = {}
  for op = 1, 150 do
    local r, n = rnd(6), #a
    if r == 0 then table.insert(a, op)
    elseif r == 1 then table.insert(a, rnd(n + 1) + 1, op)
    elseif r == 2 then if n > 0 then table.remove(a) end
    elseif r == 3 then if n > 0 then table.remove(a, rnd(n) + 1) end
    elseif r == 4 then a[n + 1] = op
    else if n > 0 then a[n] = nil end end
  end
  mix(#a); for i, v in ipairs(a) do mix(i * v) end
end
print(h)`, "1632971172\n", ""},
	})
}

// next with a key the table does not have is an error, as in Lua 5.1, and
// a traversal may clear the fields it visits.
func TestNextKeys(t *testing.T) {
	runLua51(t, []lua51Case{
		{"absent string key", `print(pcall(next, {a = 1}, "zz"))`, "false\tinvalid key to 'next'\n", ""},
		{"absent integer key", `print(pcall(next, {1, 2, 3}, 10))`, "false\tinvalid key to 'next'\n", ""},
		{"clearing while walking", `local t = {a = 1, b = 2, c = 3, 4, 5}; local n = 0
for k in pairs(t) do t[k] = nil; n = n + 1 end; print(n, next(t))`, "5\tnil\n", ""},
		{"every key once", `local t = {}; for i = 1, 20 do t["k" .. i] = i end; for i = 1, 20, 2 do t["k" .. i] = nil end
local s, n = 0, 0; for _, v in pairs(t) do s = s + v; n = n + 1 end; print(n, s)`, "10\t110\n", ""},
	})
}
