package luabind

import "testing"

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
