package msglayer

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// unitLog is a UnitRunner that logs every run as "name unit start-clock-end"
// and takes the item's cost after its clock.
type unitLog struct {
	lines []string
}

type unitWork struct {
	name string
	cost Time
}

func (l *unitLog) RunOnUnit(it *Item, unit int, now, clock Time) Time {
	w := it.Data.(unitWork)
	end := clock + w.cost
	l.lines = append(l.lines, fmt.Sprintf("%s u%d %d-%d-%d", w.name, unit, now, clock, end))
	return end
}

type unitPost struct {
	name string
	node int
	at   Time
	cat  Category
	cost Time
}

func TestUnits(t *testing.T) {
	const us = 1000
	comm, worker := CommCategory, WorkerCategory
	cases := []struct {
		name                  string
		comm, worker, handoff int
		dispatch              Time
		posts                 []unitPost
		want                  []string // runs in the order they start: name unit start-clock-end
	}{
		{name: "two comm units overlap", comm: 2, dispatch: us,
			posts: []unitPost{{"a", 0, 0, comm, 0}, {"b", 0, 0, comm, 0}},
			want:  []string{"a u0 0-1000-1000", "b u1 0-1000-1000"}},
		{name: "one comm unit is serial", comm: 1, dispatch: us,
			posts: []unitPost{{"a", 0, 0, comm, 0}, {"b", 0, 0, comm, 0}},
			want:  []string{"a u0 0-1000-1000", "b u0 1000-2000-2000"}},
		{name: "InBuffer is FIFO", comm: 1, dispatch: 100,
			posts: []unitPost{{"a", 0, 0, comm, 500}, {"b", 0, 10, comm, 0}, {"c", 0, 5, comm, 0}, {"d", 0, 700, comm, 0}},
			want:  []string{"a u0 0-100-600", "c u0 600-700-700", "b u0 700-800-800", "d u0 800-900-900"}},
		{name: "posted while the unit is busy: taken when it is free", comm: 1, dispatch: 100,
			posts: []unitPost{{"a", 0, 0, comm, 5000}, {"b", 0, 2000, comm, 0}, {"c", 0, 9000, comm, 0}},
			want:  []string{"a u0 0-100-5100", "b u0 5100-5200-5200", "c u0 9000-9100-9100"}},
		{name: "nodes are independent", comm: 1, dispatch: us,
			posts: []unitPost{{"a", 0, 0, comm, 0}, {"b", 1, 0, comm, 0}},
			want:  []string{"a u0 0-1000-1000", "b u0 0-1000-1000"}},
		{name: "idle unit free the longest, ties lowest index", comm: 3, dispatch: 0,
			posts: []unitPost{{"a", 0, 0, comm, 500}, {"b", 0, 0, comm, 200}, {"c", 0, 1000, comm, 0}, {"d", 0, 1000, comm, 0}, {"e", 0, 1000, comm, 0}},
			want:  []string{"a u0 0-0-500", "b u1 0-0-200", "c u2 1000-1000-1000", "d u1 1000-1000-1000", "e u0 1000-1000-1000"}},
		{name: "worker work is handed to a worker after the dispatch", comm: 1, worker: 2, dispatch: 100,
			posts: []unitPost{{"w1", 0, 0, worker, 1000}, {"w2", 0, 0, worker, 1000}, {"c", 0, 0, comm, 0}},
			want:  []string{"w1 u1 100-100-1100", "w2 u2 200-200-1200", "c u0 200-300-300"}},
		{name: "all workers busy: the comm unit waits and takes nothing else", comm: 1, worker: 1, dispatch: 100,
			posts: []unitPost{{"w1", 0, 0, worker, 1000}, {"w2", 0, 0, worker, 1000}, {"c", 0, 0, comm, 0}},
			want:  []string{"w1 u1 100-100-1100", "w2 u1 1100-1100-2100", "c u0 1100-1200-1200"}},
		{name: "a second comm unit takes the work the waiting one cannot", comm: 2, worker: 1, dispatch: 100,
			posts: []unitPost{{"w1", 0, 0, worker, 1000}, {"w2", 0, 0, worker, 1000}, {"c", 0, 0, comm, 0}},
			want:  []string{"w1 u2 100-100-1100", "c u0 100-200-200", "w2 u2 1100-1100-2100"}},
		{name: "hand-off cost", comm: 1, worker: 1, dispatch: 100, handoff: 50,
			posts: []unitPost{{"w", 0, 0, worker, 1000}, {"c", 0, 0, comm, 0}},
			want:  []string{"w u1 100-150-1150", "c u0 150-250-250"}},
		{name: "no workers: the comm unit runs worker work", comm: 1, dispatch: 100,
			posts: []unitPost{{"w", 0, 0, worker, 1000}, {"c", 0, 0, comm, 0}},
			want:  []string{"w u0 0-100-1100", "c u0 1100-1200-1200"}},
		{name: "idle workers: free the longest, ties lowest index", comm: 1, worker: 3, dispatch: 0,
			posts: []unitPost{{"a", 0, 0, worker, 300}, {"b", 0, 0, worker, 100}, {"c", 0, 500, worker, 0}, {"d", 0, 500, worker, 0}},
			want:  []string{"a u1 0-0-300", "b u2 0-0-100", "c u3 500-500-500", "d u2 500-500-500"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &hw.Machine{CommThreads: c.comm, WorkerThreads: c.worker, MLDispatchCycles: c.dispatch, HandoffCycles: int64(c.handoff)}
			eng := runtime.New()
			log := &unitLog{}
			u := NewUnits(m, 2, eng, log)
			for _, p := range c.posts {
				u.Post(p.at, &Item{Node: p.node, Category: p.cat, Data: unitWork{p.name, p.cost}})
			}
			if err := eng.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got, want := strings.Join(log.lines, "\n"), strings.Join(c.want, "\n"); got != want {
				t.Errorf("runs:\n%s\nwant:\n%s", got, want)
			}
			if u.Ran != int64(len(c.posts)) || u.Queued(0) != 0 || u.Queued(1) != 0 {
				t.Errorf("ran %d of %d, %d and %d left", u.Ran, len(c.posts), u.Queued(0), u.Queued(1))
			}
		})
	}
}

func TestUnitsNoneOnBGL(t *testing.T) {
	if u := NewUnits(hw.BGL(), 4, runtime.New(), &unitLog{}); u != nil {
		t.Errorf("BG/L has thread units: %+v", u)
	}
	u := NewUnits(hw.BGC(), 4, runtime.New(), &unitLog{})
	if u == nil || u.Kind(0) != CommCategory || u.Kind(u.Comm-1) != CommCategory || u.Kind(u.Comm) != WorkerCategory {
		t.Errorf("bgc units: %+v", u)
	}
}

func TestParseCategory(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Category
		ok   bool
	}{{"comm", CommCategory, true}, {"worker", WorkerCategory, true}, {"Worker", 0, false}, {"", 0, false}} {
		got, ok := ParseCategory(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseCategory(%q) = %v, %v", c.in, got, ok)
		}
		if ok && got.String() != c.in {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
}
