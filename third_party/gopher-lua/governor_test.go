package lua

import (
	"strings"
	"testing"
)

// A stopped governor ends every kind of loop, also one that catches errors
// with pcall, and a runaway tail call.
func TestGovernorStopsLoops(t *testing.T) {
	for _, src := range []string{
		`while true do end`,
		`repeat local x = 1 until false`,
		`for i = 1, math.huge do end`,
		`local t = {1, 2}; while true do for k, v in pairs(t) do end end`,
		`while true do pcall(function() while true do end end) end`,
		`local function f() return f() end; f()`,
		`local function f() local ok = pcall(f); f() end; f()`,
		`local co = coroutine.wrap(function() while true do end end); co()`,
	} {
		t.Run(src, func(t *testing.T) {
			L := NewState()
			defer L.Close()
			g := &Governor{Message: "stopped by the test"}
			L.SetGovernor(g)
			calls := 0
			g.OnStop = func(*LState) {
				calls++
			}
			// Stop once the script has run a while: the check at the
			// loop's back edge finds it then.
			n := 0
			L.SetGlobal("tick", L.NewFunction(func(L *LState) int {
				if n++; n == 1000 {
					g.Stop()
				}
				return 0
			}))
			src := strings.ReplaceAll(src, "while true do", "while true do tick()")
			src = strings.ReplaceAll(src, "for i = 1, math.huge do", "for i = 1, math.huge do tick()")
			src = strings.ReplaceAll(src, "until false", "tick() until false")
			src = strings.ReplaceAll(src, "return f()", "tick(); return f()")
			src = strings.ReplaceAll(src, "local ok = pcall(f)", "tick(); local ok = pcall(f)")
			err := L.DoString(src)
			if err == nil || !strings.Contains(err.Error(), "stopped by the test") {
				t.Fatalf("err = %v, want the governor's message", err)
			}
			if calls == 0 {
				t.Errorf("OnStop was not called")
			}
		})
	}
}

// Without a stop, the checks change nothing.
func TestGovernorIdle(t *testing.T) {
	L := NewState()
	defer L.Close()
	L.SetGovernor(&Governor{})
	if err := L.DoString(`local s = 0; for i = 1, 1000 do s = s + i end; assert(s == 500500)`); err != nil {
		t.Fatal(err)
	}
}

// Large values are asked of Alloc before they are built.
func TestGovernorAlloc(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int64
	}{
		{`local s = string.rep("x", 2^20); local t = s .. s`, 2 << 20},
		{`local s = string.rep("xy", 2^20)`, 2 << 20},
		{`local s = string.rep("x", 2^20); local t = table.concat({s, s, s}, "")`, 3 << 20},
		{`local s = string.rep("x", 2^10); local t = s:gsub("x", s)`, 1 << 20},
		{`local s = ("x"):rep(10) .. "y"`, 0}, // small: not asked
	} {
		L := NewState()
		var asked []int64
		L.SetGovernor(&Governor{Alloc: func(L *LState, n int64) {
			asked = append(asked, n)
			if n > 1<<20 {
				L.RaiseError("too large: %d", n)
			}
		}})
		err := L.DoString(c.src)
		L.Close()
		var max int64
		for _, n := range asked {
			max = maxInt64(max, n)
		}
		if max != c.want {
			t.Errorf("%s: largest allocation asked %d, want %d (asked %v)", c.src, max, c.want, asked)
		}
		if (c.want > 1<<20) != (err != nil) {
			t.Errorf("%s: err = %v", c.src, err)
		}
	}
}

func maxInt64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// gsub builds its result in one pass; the result is what Lua gives.
func TestGsubReplace(t *testing.T) {
	L := NewState()
	defer L.Close()
	for _, src := range []string{
		`assert(("hello world"):gsub("o", "0") == "hell0 w0rld")`,
		`assert(("abc"):gsub("", "-") == "-a-b-c-")`,
		`assert(("abc"):gsub("%w", {a = "1", c = false}) == "1bc")`,
		`assert(("abc"):gsub("(b)", function(x) return x:upper() .. x end) == "aBbc")`,
		`assert(("x = 1, y = 2"):gsub("(%w+) = (%w+)", "%2 = %1") == "1 = x, 2 = y")`,
		`local s, n = ("aaa"):gsub("a", "bb", 2); assert(s == "bbbba" and n == 2)`,
	} {
		if err := L.DoString(src); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
}
