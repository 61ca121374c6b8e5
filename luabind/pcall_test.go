package luabind

import "testing"

// pcall keeps Lua 5.1's semantics where gopher-lua's does not
// (yuin/gopher-lua#448): a caught error closes only the upvalues of the
// frames it unwinds.
func TestPCall(t *testing.T) {
	cases := []printCase{
		{"live upvalues stay shared (#448)", `
			local n = 0; local inc = function() n = n + 1 end
			print(pcall(error, "x", 0)); inc(); inc(); print(n)`, "[0] false\tx\n[0] 2\n"},
		{"upvalues of the unwound frames keep their values", `
			local g
			local ok = pcall(function() local y = 5; g = function() y = y + 1; return y end; error("e") end)
			local a, b = 10, 20
			print(ok, g(), g(), a, b)`, "[0] false\t6\t7\t10\t20\n"},
		{"nested pcalls, inner error", `
			local n = 0; local inc = function() n = n + 1 end
			local ok, v = pcall(function() local ok2, e = pcall(error, "in", 0); inc(); return e end)
			inc(); print(ok, v, n)`, "[0] true\tin\t2\n"},
		{"results and nils pass through", `
			print(pcall(function(...) return select('#', ...), ... end, nil, 2, nil))`, "[0] true\t3\tnil\t2\tnil\n"},
		{"error values are kept", `
			local ok, e = pcall(error, {code = 7}); print(ok, e.code)`, "[0] false\t7\n"},
		{"not callable", `print(pcall(42))`, "[0] false\tattempt to call a number value\n"},
		{"callable table", `print(pcall(setmetatable({}, {__call = function(_, a) return 2 * a end}), 21))`, "[0] true\t42\n"},
		{"runaway through pcall", `
			local function f() local ok, e = pcall(f); error(e, 0) end
			print(pcall(f))`, "[0] false\tstack overflow (pcalls nested too deep)\n"},
		{"no yield across pcall", `
			local co = coroutine.wrap(function() return pcall(function() return coroutine.yield(1) + 1 end) end)
			print(co())`, "[0] false\tt.lua:2: can not yield from outside of a coroutine\n"},
		{"blocking inside pcall", `
			local n = 0; local inc = function() n = n + 1 end
			print(pcall(function() mpi.barrier(); error("after", 0) end)); inc(); print(n)`, "[0] false\tafter\n[0] 1\n"},
	}
	runPrinting(t, cases)
}

// error's level counts as in Lua 5.1: 1 the function that called error, 2
// its caller, 0 no position; a Go function has no line to give.
func TestErrorLevel(t *testing.T) {
	const f = "local function f(l, m) error(m or \"x\", l) end\n"
	cases := []printCase{
		{"level 1 (the default)", f + `print(pcall(function() error("x") end))`, "[0] false\tt.lua:2: x\n"},
		{"level 1", f + `print(pcall(f, 1))`, "[0] false\tt.lua:1: x\n"},
		{"level 2 is the caller", f + `
			local function g() f(2) end
			print(pcall(g))`, "[0] false\tt.lua:3: x\n"}, // g's line (line 2 is empty)
		{"level 3", f + `
			local function g() f(3) end
			local function h() g() end
			print(pcall(h))`, "[0] false\tt.lua:4: x\n"}, // h's line
		{"level 0", f + `print(pcall(f, 0))`, "[0] false\tx\n"},
		{"a Go caller gives no position", f + `print(pcall(f, 2))`, "[0] false\tx\n"},
		{"non-string values are kept", f + `local ok, e = pcall(f, 2, {code = 7}); print(ok, e.code)`, "[0] false\t7\n"},
		// As lua5.1 prints them:
		{"a number gets a position", f + `print(pcall(function() error(42) end))`, "[0] false\tt.lua:2: 42\n"},
		{"no value is nil", f + `print(pcall(function() error() end)); print(select("#", pcall(error)))`, "[0] false\tnil\n[0] 2\n"},
	}
	runPrinting(t, cases)
}

// printCase is a one-rank program and what it prints.
type printCase struct{ name, src, want string }

func runPrinting(t *testing.T, cases []printCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runRanks(t, 1, c.src)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if out != c.want {
				t.Fatalf("printed %q, want %q", out, c.want)
			}
		})
	}
}
