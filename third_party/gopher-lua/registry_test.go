package lua

import "testing"

type overflowCount struct{ n int }

func (o *overflowCount) registryOverflow() { o.n++ }

// A registry grows to what is asked and its grow step (or an eighth more
// once that is more), rounded up to its allocation's size class, and never
// past its largest size unless forced.
func TestRegistryGrowth(t *testing.T) {
	for _, c := range []struct {
		grow, max, need int
	}{
		{8, 1 << 20, 36}, {8, 1 << 20, 33}, {32, 1 << 20, 36}, {8, 1 << 20, 1000},
		{8, 1 << 20, 4000}, {64, 1 << 20, 100}, {8, 1 << 20, 10000}, {8, 40, 36}, {8, 37, 36},
	} {
		h := &overflowCount{}
		rg := newRegistry(h, 32, c.grow, c.max, nil)
		rg.SetTop(c.need)
		want := min(c.need+max(c.grow, c.need/8), c.max)
		// Size classes are at most an eighth apart past 512 bytes.
		most := min(want+want/8+8, c.max)
		if got := cap(rg.array); got < want || got > most || len(rg.array) != got {
			t.Errorf("step %d, largest %d: %d slots needed gave len %d, cap %d, want %d to %d", c.grow, c.max, c.need, len(rg.array), got, want, most)
		}
		if h.n != 0 {
			t.Errorf("step %d, largest %d: %d slots needed overflowed", c.grow, c.max, c.need)
		}
	}
	h := &overflowCount{}
	rg := newRegistry(h, 32, 8, 40, nil)
	rg.SetTop(40)
	if rg.resize(41); h.n != 1 {
		t.Errorf("41 slots with a largest 40: %d overflows, want 1", h.n)
	}
	rg.forceResize(41) // an error's message past the largest size
	if cap(rg.array) < 41 {
		t.Errorf("forced to 41 slots past a largest 40: cap %d", cap(rg.array))
	}
}
