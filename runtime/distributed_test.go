package runtime

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/bglua/bglua/internal/mpinet"
)

// localNet is a process of an mpinet.NewLocal job as the engine's Net.
func localNet(n mpinet.Net) Net { return mpinet.Engine{Net: n} }

// note is an event of the test model: it is logged where it runs and, while
// hops are left, goes on to the next partition.
type note struct {
	at         *Engine // the partition it runs on
	m          *distModel
	from, seq  int
	hops, tied int
}

func (n *note) Act(now Time) {
	i := n.at.Part()
	n.m.log[i] = append(n.m.log[i], fmt.Sprintf("%d: from %d #%d hops %d", now, n.from, n.seq, n.hops))
	if n.hops > 0 {
		n.m.send(n.at, (i+1)%len(n.m.log), now+distLook+Time(n.seq%3), n.seq*7+i, n.hops-1, n.tied)
	}
}

const distLook = 10

// distModel is the test model on one process's Group: processes in each
// of its partitions send notes to the others, some at the same cycle from
// several partitions, with and without tie keys.
type distModel struct {
	g   *Group
	log [][]string // per partition
}

func (m *distModel) send(from *Engine, to int, t Time, seq, hops, tied int) {
	n := &note{at: m.g.Part(to), m: m, from: from.Part(), seq: seq, hops: hops, tied: tied}
	if tied != 0 {
		from.SendKey(m.g.Part(to), t, PrioModel, uint64(seq%5), n)
		return
	}
	from.Send(m.g.Part(to), t, PrioModel, n)
}

func (m *distModel) codec() Codec {
	return Codec{
		Type: reflect.TypeOf(&note{}),
		Append: func(b []byte, a Action, _ int) ([]byte, error) {
			n := a.(*note)
			for _, v := range [...]int{n.from, n.seq, n.hops, n.tied} {
				b = binary.AppendVarint(b, int64(v))
			}
			return b, nil
		},
		Read: func(b []byte, _ int, dst *Engine) (Action, []byte, error) {
			n := &note{at: dst, m: m}
			for _, p := range [...]*int{&n.from, &n.seq, &n.hops, &n.tied} {
				v, k := binary.Varint(b)
				if k <= 0 {
					return nil, b, errors.New("short note")
				}
				*p, b = int(v), b[k:]
			}
			return n, b, nil
		},
	}
}

// build spawns the model's processes in the partitions local says are
// this process's.
func (m *distModel) build(local func(int) bool) {
	parts := len(m.log)
	for i := range parts {
		if !local(i) {
			continue
		}
		e := m.g.Part(i)
		e.Spawn(i, 0, func(p *Proc) {
			for k := range 6 {
				p.Sleep(Time(3 + k%2*4)) // every partition sends at the same cycles
				for j := range parts {
					if j != i {
						m.send(e, j, p.Now()+distLook, 100*i+10*k+j, k%3, k%2)
					}
				}
				m.log[i] = append(m.log[i], fmt.Sprintf("%d: process %d step %d", p.Now(), i, k))
			}
		})
	}
}

// TestDistributedGroup: a model of three partitions run by two processes
// (goroutines of an mpinet.NewLocal job), each its Group's share, logs in
// every partition what a run in one process logs there, event for event,
// whichever partitions each process owns and on one or two threads.
func TestDistributedGroup(t *testing.T) {
	const parts = 3
	one := &distModel{g: NewGroup(parts, distLook), log: make([][]string, parts)}
	one.build(func(int) bool { return true })
	if err := one.g.Run(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	for i, l := range one.log {
		if len(l) < 20 {
			t.Fatalf("partition %d logged only %d lines", i, len(l))
		}
	}
	for _, tc := range []struct {
		owner   []int
		threads int
	}{
		{[]int{0, 1, 1}, 1},
		{[]int{1, 0, 1}, 2},
		{[]int{0, 1, 0}, 1},
	} {
		t.Run(fmt.Sprint(tc.owner, tc.threads), func(t *testing.T) {
			nets := mpinet.NewLocal(2)
			models := make([]*distModel, 2)
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for p := range 2 {
				m := &distModel{g: NewGroup(parts, distLook), log: make([][]string, parts)}
				m.g.Distribute(localNet(nets[p]), tc.owner, []Codec{m.codec()})
				m.build(m.g.Local)
				models[p] = m
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[p] = m.g.Run(context.Background(), tc.threads)
				}()
			}
			wg.Wait()
			for p, err := range errs {
				if err != nil {
					t.Fatalf("process %d: %v", p, err)
				}
			}
			for p, m := range models {
				if m.g.Now() != one.g.Now() || m.g.Events() != one.g.Events() || m.g.Crossings() != one.g.Crossings() {
					t.Errorf("process %d ends at %d after %d events and %d crossings, one process at %d after %d and %d",
						p, m.g.Now(), m.g.Events(), m.g.Crossings(), one.g.Now(), one.g.Events(), one.g.Crossings())
				}
			}
			for i := range parts {
				got, want := strings.Join(models[tc.owner[i]].log[i], "\n"), strings.Join(one.log[i], "\n")
				if got != want {
					t.Errorf("partition %d (process %d) logged\n%s\nin one process\n%s", i, tc.owner[i], got, want)
				}
				if other := models[1-tc.owner[i]].log[i]; len(other) != 0 {
					t.Errorf("partition %d ran in process %d too: %v", i, 1-tc.owner[i], other)
				}
			}
		})
	}
}

// TestDistributedNoCodec: an event of a type without a codec, sent to
// another process's partition, stops every process.
func TestDistributedNoCodec(t *testing.T) {
	nets := mpinet.NewLocal(2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for p := range 2 {
		g := NewGroup(2, distLook)
		g.Distribute(localNet(nets[p]), []int{0, 1}, nil)
		if p == 0 {
			e := g.Part(0)
			e.Spawn(0, 0, func(pr *Proc) {
				pr.Sleep(1)
				var log []string
				e.Send(g.Part(1), pr.Now()+distLook, PrioModel, logAction{&log, "x"})
			})
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[p] = g.Run(context.Background(), 1)
		}()
	}
	wg.Wait()
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "no codec for") || !errors.Is(errs[1], ErrRemote) {
		t.Fatalf("errors %v, %v; want no codec, and the other process stopped", errs[0], errs[1])
	}
}

// nudge is an event of the error tests that does nothing.
type nudge struct{}

func (*nudge) Act(Time) {}

var nudgeCodec = Codec{
	Type:   reflect.TypeOf(&nudge{}),
	Append: func(b []byte, a Action, _ int) ([]byte, error) { return b, nil },
	Read:   func(b []byte, _ int, dst *Engine) (Action, []byte, error) { return &nudge{}, b, nil },
}

// testErr is an error of the error tests, with a wire form.
type testErr struct{ what string }

func (e *testErr) Error() string { return e.what }

var testErrWire = ErrorWire{
	Append: func(b []byte, err error) ([]byte, bool) {
		var te *testErr
		if !errors.As(err, &te) {
			return b, false
		}
		return append(b, te.what...), true
	},
	Read: func(b []byte) (error, error) { return &testErr{string(b)}, nil },
}

// runDist runs a group of parts partitions built by build in one process
// and, with the partitions owned as owner says, in two (mpinet.NewLocal),
// with wire as the error's wire form if set; it returns the one-process
// group and error, and each process's.
func runDist(t *testing.T, parts int, owner []int, wire *ErrorWire, build func(g *Group, local func(int) bool)) (*Group, error, [2]*Group, [2]error) {
	t.Helper()
	one := NewGroup(parts, distLook)
	build(one, func(int) bool { return true })
	oneErr := one.Run(context.Background(), 1)
	nets := mpinet.NewLocal(2)
	var gs [2]*Group
	var errs [2]error
	var wg sync.WaitGroup
	for p := range 2 {
		g := NewGroup(parts, distLook)
		g.Distribute(localNet(nets[p]), owner, []Codec{nudgeCodec})
		if wire != nil {
			g.SetErrorWire(*wire)
		}
		build(g, g.Local)
		gs[p] = g
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[p] = g.Run(context.Background(), 1)
		}()
	}
	wg.Wait()
	return one, oneErr, gs, errs
}

// A distributed run ends on every process with the error a run in one
// process ends with: the first by time, then by partition, whichever
// process had it; without a wire form for it, the other processes end
// with ErrRemote at its time.
func TestDistributedErrorAgreed(t *testing.T) {
	const parts = 3
	for _, tc := range []struct {
		name  string
		stops map[int]Time // per partition: when it stops the run
		owner []int
		wire  bool
		want  string
	}{
		{"earliest wins", map[int]Time{0: 50, 2: 30}, []int{0, 0, 1}, true, "stop of partition 2 at 30"},
		{"earliest wins, other way", map[int]Time{0: 30, 2: 50}, []int{0, 0, 1}, true, "stop of partition 0 at 30"},
		{"same time: the lower partition", map[int]Time{1: 40, 2: 40}, []int{0, 1, 0}, true, "stop of partition 1 at 40"},
		{"same time, processes swapped", map[int]Time{1: 40, 2: 40}, []int{1, 0, 1}, true, "stop of partition 1 at 40"},
		{"no wire form", map[int]Time{0: 50, 2: 30}, []int{0, 0, 1}, false, "stop of partition 2 at 30"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			build := func(g *Group, local func(int) bool) {
				for i := range parts {
					if !local(i) {
						continue
					}
					e := g.Part(i)
					e.Spawn(i, 0, func(p *Proc) {
						for k := range 20 {
							p.Sleep(7)
							if at, ok := tc.stops[i]; ok && p.Now() >= at {
								e.Stop(&testErr{fmt.Sprintf("stop of partition %d at %d", i, at)})
								return
							}
							if k%3 == 0 { // traffic between the partitions
								e.Send(g.Part((i+1)%parts), p.Now()+distLook, PrioModel, &nudge{})
							}
						}
					})
				}
			}
			var wire *ErrorWire
			if tc.wire {
				wire = &testErrWire
			}
			one, oneErr, gs, errs := runDist(t, parts, tc.owner, wire, build)
			_ = one
			if oneErr == nil || oneErr.Error() != tc.want {
				t.Fatalf("one process: %v, want %s", oneErr, tc.want)
			}
			at, part := one.ErrAt()
			for p := range 2 {
				pat, ppart := gs[p].ErrAt()
				winner := tc.owner[part] == p
				switch {
				case tc.wire || winner:
					if errs[p] == nil || errs[p].Error() != tc.want {
						t.Errorf("process %d: %v, want %s", p, errs[p], tc.want)
					}
				default:
					if !errors.Is(errs[p], ErrRemote) {
						t.Errorf("process %d: %v, want ErrRemote", p, errs[p])
					}
				}
				if pat != at || ppart != part {
					t.Errorf("process %d: error at %d in partition %d, one process: %d in %d", p, pat, ppart, at, part)
				}
			}
		})
	}
}

// A distributed run that ends with processes blocked everywhere reports,
// on every process, the deadlock a run in one process reports: every
// blocked process in ID order, what it waits for and where it stands.
func TestDistributedDeadlock(t *testing.T) {
	const parts = 3
	build := func(g *Group, local func(int) bool) {
		g.Locate = func(p *Proc) string { return fmt.Sprintf("line %d", 10+p.ID) }
		for i := range parts {
			if !local(i) {
				continue
			}
			e := g.Part(i)
			for k := range 2 {
				id := 10*k + i
				e.Spawn(id, 0, func(p *Proc) {
					p.Sleep(Time(5 + 11*id))
					p.Block(fmt.Sprintf("a message for %d", id))
				})
			}
		}
	}
	for _, owner := range [][]int{{0, 1, 1}, {1, 0, 1}} {
		_, oneErr, _, errs := runDist(t, parts, owner, nil, build)
		var want *DeadlockError
		if !errors.As(oneErr, &want) || len(want.Blocked) != 2*parts {
			t.Fatalf("one process: %v", oneErr)
		}
		describe := func(d *DeadlockError) string {
			var b strings.Builder
			fmt.Fprintf(&b, "at %d:", d.Time)
			for i, p := range d.Blocked {
				fmt.Fprintf(&b, " %d (%v, %s)", p.ID, waitText(d.Waits[i]), d.Where[i])
			}
			return b.String()
		}
		for p, err := range errs {
			var got *DeadlockError
			if !errors.As(err, &got) {
				t.Fatalf("owner %v, process %d: %v, want a deadlock", owner, p, err)
			}
			if g, w := describe(got), describe(want); g != w {
				t.Errorf("owner %v, process %d:\n%s\none process:\n%s", owner, p, g, w)
			}
		}
	}
}

// countNet counts a process's collective calls.
type countNet struct {
	Net
	exchanges, mins, sums int
}

func (c *countNet) Exchange(out [][]byte) ([][]byte, error) {
	c.exchanges++
	return c.Net.Exchange(out)
}
func (c *countNet) Min(v []int64) error { c.mins++; return c.Net.Min(v) }
func (c *countNet) Sum(v []int64) error { c.sums++; return c.Net.Sum(v) }

// runModelDist runs the test model of three partitions over two processes,
// partitions owned as owner says, each process's Net made by net and its
// codec by codec.
func runModelDist(owner []int, net func(p int, n Net) Net, codec func(m *distModel) Codec) ([2]*Group, [2]error) {
	const parts = 3
	nets := mpinet.NewLocal(2)
	var gs [2]*Group
	var errs [2]error
	var wg sync.WaitGroup
	for p := range 2 {
		m := &distModel{g: NewGroup(parts, distLook), log: make([][]string, parts)}
		m.g.Distribute(net(p, localNet(nets[p])), owner, []Codec{codec(m)})
		m.build(m.g.Local)
		gs[p] = m.g
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[p] = m.g.Run(context.Background(), 1)
		}()
	}
	wg.Wait()
	return gs, errs
}

// A window of a distributed run costs one collective call, its exchange;
// the barrier that finds the run over one more, and the end of the run
// three (the blocked processes, the time, the counts).
func TestDistributedOneCallAWindow(t *testing.T) {
	var cs [2]*countNet
	gs, errs := runModelDist([]int{0, 1, 1}, func(p int, n Net) Net {
		cs[p] = &countNet{Net: n}
		return cs[p]
	}, (*distModel).codec)
	for p := range 2 {
		if errs[p] != nil {
			t.Fatalf("process %d: %v", p, errs[p])
		}
		w := int(gs[p].Windows())
		if c := cs[p]; w < 5 || c.exchanges != w+2 || c.mins != 1 || c.sums != 1 {
			t.Errorf("process %d: %d windows, %d exchanges, %d min and %d sum reductions; want %d, 1, 1",
				p, w, c.exchanges, c.mins, c.sums, w+2)
		}
	}
}

// A process that cannot read what another sent stops, and so does every
// other, at the next exchange, with the error's time and partition agreed.
func TestDistributedUnreadableStops(t *testing.T) {
	gs, errs := runModelDist([]int{0, 1, 1}, func(_ int, n Net) Net { return n }, func(m *distModel) Codec {
		c := m.codec()
		read := c.Read
		c.Read = func(b []byte, from int, dst *Engine) (Action, []byte, error) {
			a, rest, err := read(b, from, dst)
			if err == nil && a.(*note).seq == 120 {
				return nil, b, errors.New("note 120 is unreadable")
			}
			return a, rest, err
		}
		return c
	})
	bad := -1
	for p, err := range errs {
		if err != nil && strings.Contains(err.Error(), "note 120 is unreadable") {
			bad = p
		}
	}
	if bad < 0 || !errors.Is(errs[1-bad], ErrRemote) {
		t.Fatalf("errors %v and %v: want one unreadable note, and the other process stopped", errs[0], errs[1])
	}
	at0, part0 := gs[0].ErrAt()
	at1, part1 := gs[1].ErrAt()
	if at0 != at1 || part0 != part1 {
		t.Errorf("errors at %d in %d and at %d in %d", at0, part0, at1, part1)
	}
}

// pendingNote is what a process tells another between windows in
// TestDistributedPendingTold: its share of the pending events at a
// window's end.
type pendingNote struct {
	end Time
	n   int
}

func (*pendingNote) Act(Time) { panic("told, never run") }

// Every process's share of the pending events at a window's end (Pending,
// in AfterWindow) adds up to what one process counts there, and what a
// process tells another between windows (TellBetween) is read with the
// window's exchange, before the next window ends.
func TestDistributedPendingTold(t *testing.T) {
	const parts = 3
	one := &distModel{g: NewGroup(parts, distLook), log: make([][]string, parts)}
	one.build(func(int) bool { return true })
	want := map[Time]int{}
	one.g.AfterWindow = func(end Time) { want[end] = one.g.Pending() }
	if err := one.g.Run(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	owner := []int{0, 1, 1}
	nets := mpinet.NewLocal(2)
	var mine [2]map[Time]int
	told := map[Time]int{}
	var lastEnd Time // process 0's window before the one that ends
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for p := range 2 {
		m := &distModel{g: NewGroup(parts, distLook), log: make([][]string, parts)}
		mine[p] = map[Time]int{}
		codec := Codec{
			Type: reflect.TypeOf(&pendingNote{}),
			Append: func(b []byte, a Action, _ int) ([]byte, error) {
				n := a.(*pendingNote)
				return binary.AppendUvarint(binary.AppendVarint(b, int64(n.end)), uint64(n.n)), nil
			},
			Read: func(b []byte, _ int, _ *Engine) (Action, []byte, error) {
				end, k := binary.Varint(b)
				n, j := binary.Uvarint(b[max(k, 0):])
				if k <= 0 || j <= 0 {
					return nil, b, errors.New("short pendingNote")
				}
				told[Time(end)] = int(n)
				return nil, b[k+j:], nil
			},
		}
		m.g.Distribute(localNet(nets[p]), owner, []Codec{m.codec(), codec})
		m.g.AfterWindow = func(end Time) {
			mine[p][end] = m.g.Pending()
			if p == 1 {
				m.g.TellBetween(1, 0, &pendingNote{end: end, n: mine[p][end]})
			} else if lastEnd != 0 {
				if _, ok := told[lastEnd]; !ok {
					t.Errorf("at the end of the window to %d, the share of the window before (to %d) is not in", end, lastEnd)
				}
			}
			if p == 0 {
				lastEnd = end
			}
		}
		m.build(m.g.Local)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[p] = m.g.Run(context.Background(), 1)
		}()
	}
	wg.Wait()
	for p, err := range errs {
		if err != nil {
			t.Fatalf("process %d: %v", p, err)
		}
	}
	if len(want) < 5 || len(mine[0]) != len(want) || len(mine[1]) != len(want) {
		t.Fatalf("%d windows in one process, %d and %d over two", len(want), len(mine[0]), len(mine[1]))
	}
	some := false
	for end, n := range want {
		if got := mine[0][end] + mine[1][end]; got != n {
			t.Errorf("window to %d: %d + %d pending over two processes, %d in one", end, mine[0][end], mine[1][end], n)
		}
		if told[end] != mine[1][end] {
			t.Errorf("window to %d: process 1 told %d, had %d", end, told[end], mine[1][end])
		}
		some = some || mine[1][end] > 0 && mine[0][end] > 0
	}
	if !some {
		t.Error("no window with events pending in both processes")
	}
}
