package lua

import (
	"fmt"
	"testing"
)

// A hint is a guess: whatever it holds, and whichever tables share it, a
// lookup with it gives what a lookup without it gives, through sets,
// clears and the compactions they cause.
func TestTableStringHint(t *testing.T) {
	seed := uint32(11)
	rnd := func(n int) int { seed = seed*1103515245 + 12345; return int(seed>>8) % n }
	for trial := 0; trial < 200; trial++ {
		span := []int{3, 9, 30, 200}[rnd(4)]
		tabs := []*LTable{newLTable(0, 0), newLTable(0, 0), newLTable(0, 0)}
		hints := make([]int32, 4)
		for op := 0; op < 300; op++ {
			tb := tabs[rnd(len(tabs))]
			k := fmt.Sprintf("k%d", rnd(span))
			var v LValue = LNumber(op)
			if rnd(4) == 0 {
				v = LNil
			}
			tb.RawSetString(k, v)
			for probe := 0; probe < 4; probe++ {
				tb := tabs[rnd(len(tabs))]
				h := &hints[rnd(len(hints))]
				if rnd(8) == 0 {
					*h = int32(rnd(span + 4)) // any place, even past the end
				}
				k := fmt.Sprintf("k%d", rnd(span))
				if got, want := tb.rawGetStringHint(k, h), tb.RawGetString(k); got != want {
					t.Fatalf("trial %d op %d: t[%q] with hint %d = %v, want %v", trial, op, k, *h, got, want)
				}
			}
		}
	}
}

// A function's field reads keep hints, one per instruction, and give the
// same values whatever table each call reads from.
func TestHintsPerInstruction(t *testing.T) {
	L := NewState()
	defer L.Close()
	if err := L.DoString(`
		local function get(t) return t.x, t.y, t:f() end
		local a = { y = 2, x = 1, f = function(self) return self.x + self.y end }
		local b = { a = 0, b = 0, c = 0, d = 0, e = 0, g = 0, h = 0, i = 0, j = 0, x = 10, y = 20, f = a.f }
		local c = setmetatable({ x = 100 }, { __index = b })
		local sum = 0
		for i = 1, 50 do
			for _, t in ipairs { a, b, c, a, c } do
				local x, y, s = get(t)
				sum = sum + x + y + s
			end
		end
		result = sum`); err != nil {
		t.Fatal(err)
	}
	// a: 1+2+3; b: 10+20+30; c: 100+20+120, per round: 2a + b + 2c.
	if got, want := L.GetGlobal("result"), LNumber(50*(2*6+60+2*240)); got != want {
		t.Fatalf("result %v, want %v", got, want)
	}
}
