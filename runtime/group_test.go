package runtime

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// scenario is a model set up on one engine; the engine tests' scenarios,
// written once so that they run on a lone engine and on a group alike.
type scenario struct {
	name  string
	limit Time
	setup func(e *Engine, log *[]string)
}

var engineScenarios = []scenario{
	{name: "queue order", setup: func(e *Engine, log *[]string) {
		e.Schedule(5, PrioLate, logAction{log, "late5"})
		e.Schedule(5, PrioModel, logAction{log, "model5a"})
		e.Schedule(3, PrioLate, logAction{log, "late3"})
		e.Schedule(5, PrioModel, logAction{log, "model5b"})
		e.Schedule(0, PrioProc, logAction{log, "proc0"})
		e.Schedule(5, PrioProc, logAction{log, "proc5"})
	}},
	{name: "interleave", setup: func(e *Engine, log *[]string) {
		for id := 0; id < 3; id++ {
			e.Spawn(id, 0, func(p *Proc) {
				for i := 0; i < 3; i++ {
					*log = append(*log, fmt.Sprintf("%d:p%d", p.Now(), p.ID))
					p.Sleep(Time(10 * (p.ID + 1)))
				}
			})
		}
	}},
	{name: "block and wake", setup: func(e *Engine, log *[]string) {
		var waiter *Proc
		waiter = e.Spawn(0, 0, func(p *Proc) {
			p.Block("message")
			*log = append(*log, fmt.Sprintf("woken %d", p.Now()))
		})
		e.Spawn(1, 0, func(p *Proc) {
			p.Sleep(100)
			*log = append(*log, fmt.Sprint(e.Wake(waiter, p.Now()+7), e.Wake(waiter, p.Now()+9)))
		})
	}},
	{name: "sleep fast path", setup: func(e *Engine, log *[]string) {
		e.Spawn(0, 0, func(p *Proc) {
			e.At(50, logAction{log, "model"})
			p.SleepUntil(50)
			*log = append(*log, fmt.Sprintf("%d:proc", p.Now()))
			p.SleepUntil(60)
			*log = append(*log, fmt.Sprintf("%d:proc", p.Now()))
			p.SleepUntil(61)
			e.At(61, logAction{log, "same cycle"})
			p.SleepUntil(61)
			*log = append(*log, fmt.Sprintf("%d:proc", p.Now()))
		})
	}},
	{name: "deadlock", setup: func(e *Engine, log *[]string) {
		for id := 0; id < 4; id++ {
			e.Spawn(id, Time(id), func(p *Proc) {
				if p.ID%2 == 1 {
					p.Block(fmt.Sprintf("recv from %d", p.ID-1))
				}
			})
		}
	}},
	{name: "stop from process", setup: func(e *Engine, log *[]string) {
		e.Spawn(0, 0, func(p *Proc) { p.Block("forever") })
		e.Spawn(1, 0, func(p *Proc) {
			p.Sleep(5)
			e.Stop(errors.New("boom"))
			p.Exit()
		})
		e.Spawn(2, 100, func(p *Proc) { *log = append(*log, "ran") })
	}},
	{name: "panic", setup: func(e *Engine, log *[]string) {
		e.Spawn(0, 0, func(p *Proc) { p.Sleep(1); panic("bad") })
		e.Spawn(1, 0, func(p *Proc) { p.Block("x") })
	}},
	{name: "limit", limit: 1000, setup: func(e *Engine, log *[]string) {
		e.Spawn(0, 0, func(p *Proc) {
			for {
				*log = append(*log, fmt.Sprint(p.Now()))
				p.Sleep(300)
			}
		})
	}},
	{name: "limit on an action", limit: 20, setup: func(e *Engine, log *[]string) {
		for t := Time(0); t < 40; t += 7 {
			e.At(t, logAction{log, "a"})
		}
	}},
	{name: "trace", setup: func(e *Engine, log *[]string) {
		procs := make([]*Proc, 16)
		for id := range procs {
			procs[id] = e.Spawn(id, Time(id%3), func(p *Proc) {
				for i := 0; i < 20; i++ {
					next := procs[(p.ID*7+i)%len(procs)]
					e.Wake(next, p.Now()+Time((p.ID+i)%5))
					*log = append(*log, fmt.Sprintf("%d/%d", p.ID, p.Now()))
					if i%3 == 0 {
						p.Block("x")
					} else {
						p.Sleep(Time(i % 4))
					}
				}
			})
		}
	}},
	{name: "killed process", setup: func(e *Engine, log *[]string) {
		e.Spawn(0, 0, func(p *Proc) {
			defer func() {
				p.SleepUntil(p.Now() + 100)
				p.Block("again")
				*log = append(*log, fmt.Sprintf("cleaned %d", p.Now()))
			}()
			p.Sleep(3)
			p.Block("a message")
		})
		e.At(50, logAction{log, "pending"})
		e.Spawn(1, 10, func(p *Proc) {
			p.Sleep(5)
			e.Stop(errors.New("stopped"))
		})
	}},
}

// outcome is everything observable of a finished run.
func outcome(log []string, err error, e *Engine) string {
	msg := "<nil>"
	if err != nil {
		msg, _, _ = strings.Cut(err.Error(), "\n") // a panic's stack differs
	}
	var d *DeadlockError
	if errors.As(err, &d) {
		for i, p := range d.Blocked {
			msg += fmt.Sprintf(" [%d %v]", p.ID, d.Waits[i])
		}
	}
	var states []string
	for _, p := range e.Procs() {
		states = append(states, fmt.Sprint(p.State()))
	}
	return fmt.Sprintf("log %s\nerr %s\nnow %d events %d live %d pending %d states %s",
		strings.Join(log, " "), msg, e.Now(), e.Events(), e.Live(), e.Pending(), strings.Join(states, ","))
}

// A group of one partition runs as the lone engine does, whether it takes
// the engine's loop or runs in windows of any length on any thread count.
func TestGroupOnePartitionMatchesEngine(t *testing.T) {
	for _, sc := range engineScenarios {
		var log []string
		e := New()
		if sc.limit != 0 {
			e.SetLimit(sc.limit)
		}
		sc.setup(e, &log)
		want := outcome(log, e.Run(context.Background()), e)

		type variant struct {
			windows   bool
			lookahead Time
			threads   int
		}
		variants := []variant{{false, 1, 1}, {false, 1, 2}}
		for _, l := range []Time{1, 2, 7, 1000} {
			for th := 1; th <= 2; th++ {
				variants = append(variants, variant{true, l, th})
			}
		}
		for _, v := range variants {
			var log []string
			g := NewGroup(1, v.lookahead)
			g.forceWindows = v.windows
			if sc.limit != 0 {
				g.SetLimit(sc.limit)
			}
			p := g.Part(0)
			sc.setup(p, &log)
			err := g.Run(context.Background(), v.threads)
			if err != g.Err() {
				t.Errorf("%s %+v: Run returned %v, Err is %v", sc.name, v, err, g.Err())
			}
			if got := outcome(log, err, p); got != want {
				t.Errorf("%s %+v:\n got %s\nwant %s", sc.name, v, got, want)
			}
		}
	}
}

// node is one node of the synthetic model: a rank process that computes,
// sends to its neighbours and waits for their messages, round after round,
// and a listener process that other nodes' ranks wake directly.
type node struct {
	m        *model
	id       int
	e        *Engine
	rank     *Proc
	listener *Proc
	got      []int    // messages arrived per round
	sum      []uint64 // their values, summed: independent of arrival order
	hash     uint64   // every arrival, in order
	waiting  int      // the round the rank waits for, or -1
	out      []string // completions: (round, time, sum), for comparing partitionings
}

type model struct {
	look   Time
	rounds int
	nodes  []*node
	logs   [][]string // per partition
}

// arrival is a message reaching a node.
type arrival struct {
	n     *node
	round int
	from  int
	val   uint64
}

func (a *arrival) Act(now Time) {
	n := a.n
	n.got[a.round]++
	n.sum[a.round] += a.val
	n.hash = (n.hash ^ a.val ^ uint64(a.from)<<32) * 0x100000001b3
	n.m.log(n.e, now, fmt.Sprintf("n%d got r%d from n%d hash %x", n.id, a.round, a.from, n.hash))
	if n.waiting == a.round && n.got[a.round] == len(n.m.neighbours(n.id)) {
		n.e.Wake(n.rank, now)
	}
}

func (m *model) log(e *Engine, t Time, s string) {
	i := e.Part()
	m.logs[i] = append(m.logs[i], fmt.Sprintf("%d p%d %s", t, i, s))
}

func (m *model) neighbours(id int) []int {
	n := len(m.nodes)
	return []int{(id + 1) % n, (id + n - 1) % n, (id*7 + 3) % n}
}

// newModel lays nodes out on the partitions of g in blocks.
func newModel(g *Group, nodes, rounds int) *model {
	m := &model{look: g.Lookahead(), rounds: rounds, logs: make([][]string, g.Parts())}
	for id := range nodes {
		e := g.Part(id * g.Parts() / nodes)
		m.nodes = append(m.nodes, &node{m: m, id: id, e: e, got: make([]int, rounds), sum: make([]uint64, rounds), waiting: -1})
	}
	for _, n := range m.nodes {
		n.rank = n.e.Spawn(n.id, Time(n.id%3), n.runRank)
		n.listener = n.e.Spawn(1000+n.id, 0, n.runListener)
	}
	return m
}

func (n *node) runRank(p *Proc) {
	m := n.m
	var sum uint64 = uint64(n.id)
	for r := 0; r < m.rounds; r++ {
		p.Sleep(Time(1 + sum%13)) // compute
		for k, dst := range m.neighbours(n.id) {
			d := m.nodes[dst]
			lat := m.look + Time((sum+uint64(k))%3)*m.look/2 // ties are common
			val := sum*31 + uint64(n.id*7+k)
			n.e.Send(d.e, p.Now()+lat, PrioModel, &arrival{n: d, round: r, from: n.id, val: val})
		}
		other := m.nodes[(n.id+5)%len(m.nodes)]
		ok := n.e.Wake(other.listener, p.Now()+m.look+Time(r%2))
		m.log(n.e, p.Now(), fmt.Sprintf("n%d r%d sent, wake n%d: %v", n.id, r, other.id, ok))
		if n.got[r] < len(m.neighbours(n.id)) {
			n.waiting = r
			p.Block(fmt.Sprintf("round %d", r))
			n.waiting = -1
		}
		sum = n.sum[r]
		m.log(n.e, p.Now(), fmt.Sprintf("n%d r%d done sum %d", n.id, r, sum))
		n.out = append(n.out, fmt.Sprintf("n%d r%d t%d sum %d", n.id, r, p.Now(), sum))
	}
}

func (n *node) runListener(p *Proc) {
	for {
		p.Block("a wake")
		n.m.log(n.e, p.Now(), fmt.Sprintf("listener %d woken", n.id))
		if p.Now()%4 == 0 {
			p.Sleep(1) // sometimes busy when the next wake comes
		}
	}
}

// runModel runs the model on parts partitions and threads threads and
// returns the per-partition logs concatenated, the logs merged by (time,
// partition, order), the per-node completions, and the error.
func runModel(t *testing.T, parts, threads, nodes, rounds int, look Time) (perPart, merged, done string, g *Group) {
	t.Helper()
	g = NewGroup(parts, look)
	m := newModel(g, nodes, rounds)
	err := g.Run(context.Background(), threads)
	var d *DeadlockError
	if !errors.As(err, &d) || len(d.Blocked) != nodes {
		t.Fatalf("%d parts %d threads: want the listeners deadlocked, got %v", parts, threads, err)
	}
	var all []string
	for _, l := range m.logs {
		all = append(all, l...)
	}
	var b strings.Builder
	// Merge by key: time, then partition, then position in the partition's log.
	idx := make([]int, parts)
	for {
		best := -1
		var bt Time
		for p, l := range m.logs {
			if idx[p] == len(l) {
				continue
			}
			var tm Time
			fmt.Sscan(l[idx[p]], &tm)
			if best < 0 || tm < bt {
				best, bt = p, tm
			}
		}
		if best < 0 {
			break
		}
		b.WriteString(m.logs[best][idx[best]])
		b.WriteByte('\n')
		idx[best]++
	}
	var out []string
	for _, n := range m.nodes {
		out = append(out, n.out...)
	}
	return strings.Join(all, "\n"), b.String(), strings.Join(out, "\n"), g
}

// The same model gives byte-identical logs on every thread count, for every
// partitioning; what does not depend on the order of ties is the same for
// every partitioning as on one partition.
func TestGroupThreadsIdentical(t *testing.T) {
	const nodes, rounds, look = 24, 12, 8
	_, _, want, _ := runModel(t, 1, 1, nodes, rounds, look)
	if strings.Count(want, "\n") != nodes*rounds-1 {
		t.Fatalf("model incomplete:\n%s", want)
	}
	for _, parts := range []int{1, 2, 3, 5, 8, 24} {
		base, baseMerged, done, g := runModel(t, parts, 1, nodes, rounds, look)
		if done != want {
			t.Errorf("%d parts: completions differ from one partition's:\n%s\nwant\n%s", parts, done, want)
		}
		if parts > 1 && g.Windows() < 10 {
			t.Errorf("%d parts: only %d windows", parts, g.Windows())
		}
		for threads := 2; threads <= 4; threads++ {
			got, merged, _, _ := runModel(t, parts, threads, nodes, rounds, look)
			if got != base || merged != baseMerged {
				t.Errorf("%d parts: %d threads differ from 1 thread", parts, threads)
			}
		}
	}
}

// Messages reach their destination in (time, priority, source partition,
// source order), after the local events of the same time and priority that
// were queued before the barrier.
func TestGroupMergeOrder(t *testing.T) {
	const look = 10
	g := NewGroup(4, look)
	var log []string
	dst := g.Part(3)
	dst.At(look, logAction{&log, "local"})
	for src := 2; src >= 0; src-- {
		e := g.Part(src)
		e.At(0, ActionFunc(func(Time) {
			e.Send(dst, look, PrioLate, logAction{&log, fmt.Sprintf("late p%d", src)})
			e.Send(dst, look, PrioModel, logAction{&log, fmt.Sprintf("model p%d a", src)})
			e.Send(dst, look, PrioModel, logAction{&log, fmt.Sprintf("model p%d b", src)})
			e.Send(dst, look+1, PrioModel, logAction{&log, fmt.Sprintf("later p%d", src)})
			e.Send(e, look, PrioModel, logAction{&log, fmt.Sprintf("self p%d", src)})
		}))
	}
	// Sent before Run: merged at the first barrier, as from a window before it.
	g.Part(1).Send(dst, look, PrioModel, logAction{&log, "before run p1"})
	if err := g.Run(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	want := "10:self p0 10:self p1 10:self p2 10:local 10:before run p1 " +
		"10:model p0 a 10:model p0 b 10:model p1 a 10:model p1 b 10:model p2 a 10:model p2 b " +
		"10:late p0 10:late p1 10:late p2 11:later p0 11:later p1 11:later p2"
	if got := strings.Join(log, " "); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

// Windows start at the next event: empty time costs nothing.
func TestGroupSkipsEmptyTime(t *testing.T) {
	g := NewGroup(3, 10)
	logs := make([][]string, 3) // per partition
	g.Part(0).At(0, logAction{&logs[0], "a"})
	g.Part(2).At(5, logAction{&logs[2], "b"})
	g.Part(1).At(1_000_000, logAction{&logs[1], "c"})
	g.Part(2).At(1_000_009, logAction{&logs[2], "d"})
	g.Part(0).At(1_000_010, logAction{&logs[0], "e"})
	if err := g.Run(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(logs)
	if want := "[[0:a 1000010:e] [1000000:c] [5:b 1000009:d]]"; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
	if g.Windows() != 3 {
		t.Fatalf("%d windows, want 3", g.Windows())
	}
	if g.Now() != 1_000_010 || g.Events() != 5 || g.Pending() != 0 {
		t.Fatalf("now %d events %d pending %d", g.Now(), g.Events(), g.Pending())
	}
}

// A Wake of another partition's process is delivered at its time: it resumes
// the process if it is blocked then, and is dropped otherwise.
func TestGroupRemoteWake(t *testing.T) {
	const look = 20
	for threads := 1; threads <= 2; threads++ {
		g := NewGroup(2, look)
		var log0, log1 []string
		a := g.Part(0).Spawn(0, 0, func(p *Proc) {
			p.Block("first")
			log0 = append(log0, fmt.Sprintf("woken %d", p.Now()))
			p.Sleep(100) // busy: the second wake is lost
			p.Block("second")
			log0 = append(log0, fmt.Sprintf("woken again %d", p.Now()))
		})
		e1 := g.Part(1)
		e1.Spawn(1, 0, func(p *Proc) {
			p.Sleep(5)
			log1 = append(log1, fmt.Sprint(e1.Wake(a, p.Now()+look)))
			p.Sleep(50)
			log1 = append(log1, fmt.Sprint(e1.Wake(a, p.Now()+look+3)))
			p.Sleep(100)
			log1 = append(log1, fmt.Sprint(e1.Wake(a, p.Now()+look)))
		})
		if err := g.Run(context.Background(), threads); err != nil {
			t.Fatal(err)
		}
		got := strings.Join(log0, ",") + " | " + strings.Join(log1, ",")
		if want := "woken 25,woken again 175 | true,true,true"; got != want {
			t.Fatalf("%d threads: got %s want %s", threads, got, want)
		}
	}
}

// An event sent to another partition before the window's end is a model bug,
// reported as such; the run stops at the end of the window.
func TestGroupLookaheadViolation(t *testing.T) {
	for _, fromProc := range []bool{false, true} {
		g := NewGroup(3, 10)
		e, dst := g.Part(1), g.Part(2)
		var log, log0 []string // per partition
		send := func(now Time) {
			e.Send(dst, now+9, PrioModel, logAction{&log, "too early"})
			log = append(log, fmt.Sprintf("%d:after", now))
		}
		if fromProc {
			e.Spawn(0, 33, func(p *Proc) { send(p.Now()) })
		} else {
			e.At(33, ActionFunc(send))
		}
		e.At(35, logAction{&log, "same partition, same window"})
		g.Part(0).At(42, logAction{&log0, "other partition, same window"})
		g.Part(0).At(43, logAction{&log0, "next window"})
		err := g.Run(context.Background(), 2)
		var l *LookaheadError
		if !errors.As(err, &l) || *l != (LookaheadError{From: 1, To: 2, Now: 33, Time: 42, WindowEnd: 43}) {
			t.Fatalf("got %v", err)
		}
		if !strings.Contains(err.Error(), "partition 1 sent an event for cycle 42 to partition 2 at cycle 33") {
			t.Fatalf("message: %v", err)
		}
		if got, want := strings.Join(log0, " ")+" | "+strings.Join(log, " "), "42:other partition, same window | 33:after"; got != want {
			t.Fatalf("got %s want %s", got, want)
		}
		if at, part := g.ErrAt(); at != 33 || part != 1 {
			t.Fatalf("ErrAt %d %d", at, part)
		}
	}
}

// The first error by (time, partition) stops the run at the end of its
// window; the other partitions finish that window, nothing runs after it, and
// every parked process is stopped.
func TestGroupErrorOrder(t *testing.T) {
	type fail struct {
		part int
		at   Time
	}
	for _, tc := range []struct {
		name  string
		fails []fail
		want  string // the error
		log   string
	}{
		{"one", []fail{{2, 12}}, "fail p2 at 12", "0:p0 0:p1 0:p2 10:p0 10:p1 10:p2 15:p0 15:p1"},
		{"earlier wins", []fail{{0, 14}, {2, 12}}, "fail p2 at 12", "0:p0 0:p1 0:p2 10:p0 10:p1 10:p2 15:p1"},
		{"tie: lower partition", []fail{{2, 12}, {1, 12}}, "fail p1 at 12", "0:p0 0:p1 0:p2 10:p0 10:p1 10:p2 15:p0"},
		{"later window", []fail{{1, 12}, {0, 25}}, "fail p1 at 12", "0:p0 0:p1 0:p2 10:p0 10:p1 10:p2 15:p0 15:p2"},
		{"first window", []fail{{0, 0}}, "fail p0 at 0", "0:p1 0:p2"},
	} {
		for threads := 1; threads <= 3; threads++ {
			g := NewGroup(3, 10)
			logs := make([][]string, 3)
			cleaned := 0
			for i := range 3 {
				e := g.Part(i)
				var at Time = -1
				for _, f := range tc.fails {
					if f.part == i {
						at = f.at
					}
				}
				e.Spawn(i, 0, func(p *Proc) {
					defer func() { cleaned++ }()
					for _, d := range []Time{10, 5, 10, 0} {
						if p.Now() == at {
							e.Stop(fmt.Errorf("fail p%d at %d", i, at))
							p.Block("after the error")
						}
						if d == 0 {
							break
						}
						logs[i] = append(logs[i], fmt.Sprintf("%d:p%d", p.Now(), i))
						next := p.Now() + d
						if at > p.Now() && at < next {
							next = at
						}
						p.SleepUntil(next)
					}
					p.Block("forever")
				})
			}
			err := g.Run(context.Background(), threads)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("%s, %d threads: got %v, want %s", tc.name, threads, err, tc.want)
			}
			// Merge the partitions' logs by (time, partition).
			var all []string
			for tm := Time(0); tm <= 40; tm++ {
				for i := range logs {
					for _, s := range logs[i] {
						var ts Time
						fmt.Sscanf(s, "%d:", &ts)
						if ts == tm {
							all = append(all, s)
						}
					}
				}
			}
			if got := strings.Join(all, " "); got != tc.log {
				t.Errorf("%s, %d threads:\n got %s\nwant %s", tc.name, threads, got, tc.log)
			}
			if cleaned != 3 {
				t.Errorf("%s, %d threads: %d processes unwound, want 3", tc.name, threads, cleaned)
			}
			for i := range 3 {
				for _, p := range g.Part(i).Procs() {
					if p.State() != ProcDone {
						t.Errorf("%s: process %d left in state %d", tc.name, p.ID, p.State())
					}
				}
			}
		}
	}
}

// A deadlock is found when every partition is out of events, and names the
// blocked processes of all partitions.
func TestGroupDeadlock(t *testing.T) {
	for threads := 1; threads <= 3; threads++ {
		g := NewGroup(3, 5)
		g.Locate = func(p *Proc) string { return fmt.Sprintf("line %d", 10+p.ID) }
		var procs []*Proc
		for i := range 3 {
			e := g.Part(i)
			procs = append(procs, e.Spawn(i, 0, func(p *Proc) {
				if i == 1 {
					p.Sleep(100) // a wake sent to it arrives before it blocks
					p.Block("never woken")
					return
				}
				next := procs[(i+1)%3]
				e.Wake(next, p.Now()+5)
				p.Block(fmt.Sprintf("recv in p%d", i))
			}))
		}
		g.Part(1).Spawn(7, 3, func(p *Proc) {})
		err := g.Run(context.Background(), threads)
		var d *DeadlockError
		if !errors.As(err, &d) {
			t.Fatalf("got %v", err)
		}
		got := fmt.Sprint(d.Time)
		for i, p := range d.Blocked {
			got += fmt.Sprintf(" [%d %v %s]", p.ID, d.Waits[i], d.Where[i])
		}
		// p2 woke p0 at 5; p0 woke p1 at 5, but p1 was asleep until 100.
		if want := "100 [1 never woken line 11] [2 recv in p2 line 12]"; got != want {
			t.Fatalf("%d threads: got %s want %s", threads, got, want)
		}
		if g.Live() != 0 {
			t.Fatalf("%d processes live after the run", g.Live())
		}
	}
}

// The limit, a cancelled context and a panic stop a group as they stop an
// engine.
func TestGroupStops(t *testing.T) {
	for threads := 1; threads <= 2; threads++ {
		g := NewGroup(2, 50)
		g.SetLimit(1000)
		for i := range 2 {
			g.Part(i).Spawn(i, 0, func(p *Proc) {
				for {
					p.Sleep(Time(70 + 60*i))
				}
			})
		}
		err := g.Run(context.Background(), threads)
		var l *LimitError
		// Partition 0 is due at 1050, partition 1 at 1040.
		if !errors.As(err, &l) || *l != (LimitError{Limit: 1000, Time: 1040}) || g.Now() > 1000 {
			t.Fatalf("limit, %d threads: got %v at %d", threads, err, g.Now())
		}

		g = NewGroup(2, 50)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		for i := range 2 {
			e := g.Part(i)
			n := 0
			e.Spawn(i, 0, func(p *Proc) {
				for {
					if n++; n == 10 && i == 1 {
						cancel()
					}
					e.At(p.Now()+1, ActionFunc(func(Time) {}))
					p.Sleep(2)
				}
			})
		}
		if err := g.Run(ctx, threads); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancel, %d threads: got %v", threads, err)
		}

		g = NewGroup(2, 50)
		g.Part(0).Spawn(0, 0, func(p *Proc) { p.Block("x") })
		g.Part(1).Spawn(1, 0, func(p *Proc) { p.Sleep(1); panic("bad") })
		err = g.Run(context.Background(), threads)
		if err == nil || !strings.Contains(err.Error(), "internal error in process 1: bad") {
			t.Fatalf("panic, %d threads: got %v", threads, err)
		}
	}
}

// AfterWindow sees every window's end, after everything before it ran.
func TestGroupAfterWindow(t *testing.T) {
	g := NewGroup(2, 10)
	logs := make([][]Time, 2)
	for i := range 2 {
		e := g.Part(i)
		for _, at := range []Time{0, 3, 12, 40 + Time(i), 41} {
			e.At(at, ActionFunc(func(now Time) { logs[i] = append(logs[i], now) }))
		}
	}
	var got []string
	g.AfterWindow = func(end Time) {
		n := 0
		for _, l := range logs {
			for _, at := range l {
				if at >= end {
					t.Errorf("event at %d ran before the window ending at %d was over", at, end)
				}
			}
			n += len(l)
		}
		got = append(got, fmt.Sprintf("%d:%d", end, n))
	}
	if err := g.Run(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if s, want := strings.Join(got, " "), "10:4 22:6 50:10"; s != want {
		t.Fatalf("got %s want %s", s, want)
	}
}

// Progress is called between windows and at the end, with the group's
// figures.
func TestGroupProgress(t *testing.T) {
	g := NewGroup(2, 3)
	var seen []uint64
	g.Progress = func() { seen = append(seen, g.Events()) }
	for i := range 2 {
		e := g.Part(i)
		e.Spawn(i, 0, func(p *Proc) {
			for range 5000 {
				p.Sleep(2)
			}
		})
	}
	if err := g.Run(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if len(seen) < 2 || seen[len(seen)-1] != g.Events() || seen[0] < ctxCheckEvery {
		t.Fatalf("progress at %v, %d events", seen, g.Events())
	}
}

// Misuse is refused at once.
func TestGroupMisuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"no partitions", func() { NewGroup(0, 1) }},
		{"no lookahead", func() { NewGroup(2, 0) }},
		{"Run on a partition", func() { NewGroup(2, 1).Part(0).Run(context.Background()) }},
		{"SetLimit on a partition", func() { NewGroup(2, 1).Part(0).SetLimit(5) }},
		{"Send across groups", func() { NewGroup(2, 1).Part(0).Send(NewGroup(2, 1).Part(1), 5, 0, ActionFunc(func(Time) {})) }},
		{"Send from a lone engine", func() { New().Send(New(), 5, 0, ActionFunc(func(Time) {})) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			tc.f()
		}()
	}
}

// In stretches of windows too small to share, a run on two threads calls
// Narrow(true) with its other worker asleep, and Narrow(false) before a
// window worth sharing and at the end; what it computes is that of one
// thread.
func TestGroupNarrow(t *testing.T) {
	if goruntime.NumCPU() < 2 {
		t.Skip("workers poll, and Narrow is used, only with a core for each")
	}
	const look = 20
	run := func(threads int) (string, []bool) {
		g := NewGroup(2, look)
		var calls []bool
		g.Narrow = func(on bool) { calls = append(calls, on) }
		logs := make([][]string, 2)
		for part := range 2 {
			e := g.Part(part)
			// A process ticks alone in its windows (3 a window), before and
			// after 50 crowd every window, from 20,000 to 20,200.
			e.Spawn(part*1000, 0, func(p *Proc) {
				for range 800 {
					p.Sleep(3 * look)
				}
				logs[part] = append(logs[part], fmt.Sprintf("ticker done %d", p.Now()))
			})
			for k := 1; k <= 50; k++ {
				e.Spawn(part*1000+k, 0, func(p *Proc) {
					p.SleepUntil(20000)
					for range 200 {
						p.Sleep(1)
					}
					logs[part] = append(logs[part], fmt.Sprintf("%d done %d", k, p.Now()))
				})
			}
		}
		if err := g.Run(context.Background(), threads); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(logs), calls
	}
	want, calls1 := run(1)
	if len(calls1) != 0 {
		t.Errorf("one thread called Narrow %v", calls1)
	}
	got, calls := run(2)
	if got != want {
		t.Errorf("two threads computed\n%s\nwant\n%s", got, want)
	}
	if fmt.Sprint(calls) != "[true false true false]" {
		t.Errorf("Narrow calls %v, want narrow, widen for the crowd, narrow, widen at the end", calls)
	}
}

// TestGroupClaimAffinity: a worker takes the window's partitions that are
// its own (index mod threads) first, in order, then steals the others
// left; no partition is given twice in a window, and a new window starts
// the claims over.
func TestGroupClaimAffinity(t *testing.T) {
	g := NewGroup(5, 10)
	g.threads = 2
	g.claims = make([]claims, g.threads)
	g.taken = make([]atomic.Uint64, len(g.parts))
	idx := func(e *Engine) int {
		if e == nil {
			return -1
		}
		return e.part.idx
	}
	steps := []struct {
		worker, want int
	}{
		{1, 1}, {0, 0}, {0, 2}, {0, 4}, // worker 0's own, in order
		{0, 3}, // then it steals worker 1's
		{1, -1}, {0, -1},
	}
	g.tasks = []int32{0, 1, 2, 3, 4}
	for i, s := range steps {
		if got := idx(g.claim(s.worker)); got != s.want {
			t.Fatalf("window 1, claim %d by worker %d: partition %d, want %d", i, s.worker, got, s.want)
		}
	}
	g.windows++ // the next window: only partitions 1 and 2 have work
	g.tasks = []int32{1, 2}
	for i, s := range []struct{ worker, want int }{{0, 2}, {0, 1}, {1, -1}} {
		if got := idx(g.claim(s.worker)); got != s.want {
			t.Fatalf("window 2, claim %d by worker %d: partition %d, want %d", i, s.worker, got, s.want)
		}
	}
	g.windows++ // a window run alone (after a short one): index order
	g.alone = 1
	g.tasks = []int32{0, 1, 2}
	for i, s := range []struct{ worker, want int }{{1, 0}, {1, 1}, {1, 2}, {1, -1}} {
		if got := idx(g.claim(s.worker)); got != s.want {
			t.Fatalf("window run alone, claim %d by worker %d: partition %d, want %d", i, s.worker, got, s.want)
		}
	}
}
