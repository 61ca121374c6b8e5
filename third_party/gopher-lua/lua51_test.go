package lua

import (
	"strings"
	"testing"
)

// lua51Case is a chunk and what Lua 5.1 prints running it: the expected
// output of every case was observed from the reference interpreter (lua5.1).
type lua51Case struct{ name, src, want string }

// runLua51 runs each case in a fresh state whose print writes to a buffer.
func runLua51(t *testing.T, cases []lua51Case) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
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
		{"locals", `local mask, partner = 1, 3; mask, partner = mask * 2, partner - mask; print(mask, partner)`, "2\t2\n"},
		{"locals read both", `local a, b = 0, 1; a, b = a + 1, a + b; print(a, b)`, "1\t1\n"},
		{"swap locals", `local a, b = 1, 2; a, b = b, a; print(a, b)`, "2\t1\n"},
		{"rotate locals", `local c, d, e = 1, 2, 3; c, d, e = e, c, d; print(c, d, e)`, "3\t1\t2\n"},
		{"swap fields", `local t = {10, 20, 30}; local i, j = 1, 3; t[i], t[j] = t[j], t[i]; print(t[1], t[2], t[3])`, "30\t20\t10\n"},
		{"key read before the local changes", `local t = {}; local i = 3; i, t[i] = i+1, 20; print(i, t[3], t[4])`, "4\t20\tnil\n"},
		{"value read before the local changes", `local t = {}; local x = 1; t[1], x = x, 5; print(t[1], x)`, "1\t5\n"},
		{"table read before the local changes", `local r = {a = 1}; local old = r; r.a, r = 2, {a = 5}; print(r.a, old.a)`, "5\t2\n"},
		{"table local assigned first", `local s = {}; local old = s; s, s.x = {}, 3; print(s.x, old.x)`, "nil\t3\n"},
		{"globals", `g1, g2 = 1, 2; g1, g2 = g2, g1; print(g1, g2)`, "2\t1\n"},
		{"upvalues", `local u1, u2 = 1, 2; local function h() u1, u2 = u1 + u2, u1 - u2; return u1, u2 end; print(h())`, "3\t-1\n"},
		{"fewer values", `local p, q = 1, 2; p, q = q; print(p, q)`, "2\tnil\n"},
		{"call fills the rest", `local function mr() return 5, 6, 7 end; local p, q = 1, 2; p, q = q, mr(); print(p, q)`, "2\t5\n"},
		{"mixed targets", `local t = {}; local p, q = 1, 2; p, q, t[1] = q, p, p; print(p, q, t[1])`, "2\t1\t1\n"},
		{"field from a local, then a local", `local a, d, f = {}, 'e', 1; f, a.d = f, d; print(f, a.d)`, "1\te\n"},
		{"local, then field from a local", `local a, d, f, w = {}, 'e', 1, 2; a.d, f = d, w; print(f, a.d)`, "2\te\n"},
		{"single assignment", `local x = 1; x = x + 1; print(x)`, "2\n"},
	})
}
