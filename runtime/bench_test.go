package runtime

import (
	"context"
	"fmt"
	"testing"
)

// runner is where a benchmark runs: a lone engine, or the one partition of a
// group (which must cost nothing more).
type runner struct {
	name string
	new  func() (*Engine, func() error)
}

var lone = runner{"engine", func() (*Engine, func() error) {
	e := New()
	return e, func() error { return e.Run(context.Background()) }
}}

var groupOfOne = runner{"group1", func() (*Engine, func() error) {
	g := NewGroup(1, 1)
	return g.Part(0), func() error { return g.Run(context.Background(), 1) }
}}

// chain reschedules itself: one push, one pop and one dispatch per event, with
// a queue holding `width` events at all times. With x set (a xorshift
// state), it comes back a pseudo-random 1 to 512 cycles later with a
// pseudo-random tie key, as the model's events do (a link's next
// arbitration, a packet's arrival): which of a heap node's children is
// least is then as good as random.
type chain struct {
	e    *Engine
	left *int
	step Time
	x    uint64
}

func (c *chain) Act(now Time) {
	if *c.left <= 0 {
		return
	}
	*c.left--
	if c.x == 0 {
		c.e.At(now+c.step, c)
		return
	}
	c.x ^= c.x << 13
	c.x ^= c.x >> 7
	c.x ^= c.x << 17
	c.e.AtKey(now+1+Time(c.x%512), c.x>>20, c)
}

// BenchmarkEvents measures push+pop+dispatch with 1,024 events queued.
func BenchmarkEvents(b *testing.B) { benchEvents(b, lone) }

// BenchmarkGroupOneEvents is BenchmarkEvents on a group of one partition.
func BenchmarkGroupOneEvents(b *testing.B) { benchEvents(b, groupOfOne) }

func benchEvents(b *testing.B, r runner) {
	e, run := r.new()
	left := b.N
	for i := 0; i < 1024; i++ {
		e.At(Time(i), &chain{e: e, left: &left, step: Time(1000 + i%7)})
	}
	b.ResetTimer()
	if err := run(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(e.Events())/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkEventsLarge is BenchmarkEvents with a million events queued, as
// in a run of 131,072 ranks: the heap no longer fits any cache.
func BenchmarkEventsLarge(b *testing.B) { benchEventsLarge(b, lone) }

// BenchmarkGroupOneEventsLarge is BenchmarkEventsLarge on a group of one partition.
func BenchmarkGroupOneEventsLarge(b *testing.B) { benchEventsLarge(b, groupOfOne) }

func benchEventsLarge(b *testing.B, r runner) {
	e, run := r.new()
	left := b.N
	const width = 1 << 20
	for i := 0; i < width; i++ {
		e.At(Time(i%4096), &chain{e: e, left: &left, step: Time(4096 + i%8191)})
	}
	b.ResetTimer()
	if err := run(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(e.Events())/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkProcessSwitch measures a process handoff: two processes wake each
// other in turn, so every event is a goroutine switch.
func BenchmarkProcessSwitch(b *testing.B) { benchProcessSwitch(b, lone) }

// BenchmarkGroupOneProcessSwitch is BenchmarkProcessSwitch on a group of one partition.
func BenchmarkGroupOneProcessSwitch(b *testing.B) { benchProcessSwitch(b, groupOfOne) }

func benchProcessSwitch(b *testing.B, r runner) {
	e, run := r.new()
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
	if err := run(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(e.Events())/b.Elapsed().Seconds(), "switches/s")
}

// BenchmarkSleepFastPath measures a process advancing its clock with nothing
// else due: no switch at all.
func BenchmarkSleepFastPath(b *testing.B) { benchSleepFastPath(b, lone) }

// BenchmarkGroupOneSleepFastPath is BenchmarkSleepFastPath on a group of one partition.
func BenchmarkGroupOneSleepFastPath(b *testing.B) { benchSleepFastPath(b, groupOfOne) }

func benchSleepFastPath(b *testing.B, r runner) {
	e, run := r.new()
	e.Spawn(0, 0, func(p *Proc) {
		for n := 0; n < b.N; n++ {
			p.Sleep(10)
		}
	})
	b.ResetTimer()
	if err := run(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkEventsRandom measures push+pop+dispatch with `width` events queued
// at pseudo-random times and tie keys: the sizes of a run's queues (a few
// hundred to a few thousand), whose sift-downs take unpredictable turns.
func BenchmarkEventsRandom(b *testing.B) {
	for _, width := range []int{256, 1024, 4096} {
		b.Run(fmt.Sprint(width), func(b *testing.B) {
			e := New()
			left := b.N
			for i := range width {
				e.AtKey(Time(i%64), uint64(i), &chain{e: e, left: &left, x: uint64(i)*0x9e3779b97f4a7c15 | 1})
			}
			b.ResetTimer()
			if err := e.Run(context.Background()); err != nil {
				b.Fatal(err)
			}
		})
	}
}
