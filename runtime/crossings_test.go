package runtime

import (
	"context"
	"testing"
)

// Crossings counts the events one partition sends another (Send, and Wake
// of another partition's process), not those it schedules on itself.
func TestGroupCrossings(t *testing.T) {
	const look = 10
	for threads := 1; threads <= 2; threads++ {
		g := NewGroup(3, look)
		var got []Time
		a := g.Part(0).Spawn(0, 0, func(p *Proc) {
			p.Block("woken by partition 2")
			got = append(got, p.Now())
		})
		e1, e2 := g.Part(1), g.Part(2)
		e1.At(5, ActionFunc(func(now Time) {
			e1.Send(e2, now+look, PrioModel, ActionFunc(func(now Time) { got = append(got, now) })) // 1
			e1.Send(e1, now+1, PrioModel, ActionFunc(func(Time) {}))                                // itself: not a crossing
			e1.Send(e2, now+look+1, PrioModel, ActionFunc(func(now Time) {                          // 2
				e2.Wake(a, now+look) // 3
			}))
		}))
		if err := g.Run(context.Background(), threads); err != nil {
			t.Fatal(err)
		}
		if n := g.Crossings(); n != 3 {
			t.Errorf("%d threads: %d crossings, want 3", threads, n)
		}
		if len(got) != 2 || got[0] != 15 || got[1] != 26 {
			t.Errorf("%d threads: events at %v, want [15 26]", threads, got)
		}
	}
	if n := NewGroup(1, look).Crossings(); n != 0 {
		t.Errorf("a group of one partition: %d crossings", n)
	}
}
