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
		{"base out of range", `local ok, e = pcall(tonumber, "10", 1); print(ok, e:match("bad argument #2 .*base out of range")~=nil); ok, e = pcall(tonumber, "10", 37); print(ok, e:match("bad argument #2 .*base out of range")~=nil)`, "false\ttrue\nfalse\ttrue\n", ""}, // the message names the function as gopher-lua does
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
