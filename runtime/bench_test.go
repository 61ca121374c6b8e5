package runtime

import (
	"context"
	"testing"
)

// chain reschedules itself: one push, one pop and one dispatch per event, with
// a queue holding `width` events at all times.
type chain struct {
	e    *Engine
	left *int
	step Time
}

func (c *chain) Act(now Time) {
	if *c.left > 0 {
		*c.left--
		c.e.At(now+c.step, c)
	}
}

// BenchmarkEvents measures push+pop+dispatch with 1,024 events queued.
func BenchmarkEvents(b *testing.B) {
	e := New()
	left := b.N
	for i := 0; i < 1024; i++ {
		e.At(Time(i), &chain{e: e, left: &left, step: Time(1000 + i%7)})
	}
	b.ResetTimer()
	if err := e.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(e.Events())/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkEventsLarge is BenchmarkEvents with a million events queued, as
// in a run of 131,072 ranks: the heap no longer fits any cache.
func BenchmarkEventsLarge(b *testing.B) {
	e := New()
	left := b.N
	const width = 1 << 20
	for i := 0; i < width; i++ {
		e.At(Time(i%4096), &chain{e: e, left: &left, step: Time(4096 + i%8191)})
	}
	b.ResetTimer()
	if err := e.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(e.Events())/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkProcessSwitch measures a process handoff: two processes wake each
// other in turn, so every event is a goroutine switch.
func BenchmarkProcessSwitch(b *testing.B) {
	e := New()
	var ps [2]*Proc
	for i := range ps {
		ps[i] = e.Spawn(i, 0, func(p *Proc) {
			other := ps[1-p.ID]
			for n := 0; n < b.N/2; n++ {
				e.Wake(other, p.Now()+1)
				p.Block("ping")
			}
			e.Wake(other, p.Now()+1)
		})
	}
	b.ResetTimer()
	if err := e.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(e.Events())/b.Elapsed().Seconds(), "switches/s")
}

// BenchmarkSleepFastPath measures a process advancing its clock with nothing
// else due: no switch at all.
func BenchmarkSleepFastPath(b *testing.B) {
	e := New()
	e.Spawn(0, 0, func(p *Proc) {
		for n := 0; n < b.N; n++ {
			p.Sleep(10)
		}
	})
	b.ResetTimer()
	if err := e.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
}
