package runtime

import (
	"context"
	"testing"
)

// An event that stands for nothing (Void) is not counted and leaves the
// clock where the event before left it, even as the last event of a run.
func TestVoid(t *testing.T) {
	for _, c := range []struct {
		name   string
		void   bool
		now    Time
		events uint64
		ran    []Time
	}{
		{"counted", false, 50, 3, []Time{10, 20, 50}},
		{"voided", true, 20, 2, []Time{10, 20, 50}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := New()
			var seen []Time
			e.At(10, ActionFunc(func(now Time) { seen = append(seen, now) }))
			e.At(20, ActionFunc(func(now Time) { seen = append(seen, now) }))
			e.At(50, ActionFunc(func(now Time) {
				seen = append(seen, now)
				if c.void {
					e.Void()
				}
			}))
			if err := e.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if e.Now() != c.now || e.Events() != c.events || len(seen) != len(c.ran) {
				t.Errorf("now %d, events %d, ran at %v; want now %d, events %d", e.Now(), e.Events(), seen, c.now, c.events)
			}
		})
	}
}
