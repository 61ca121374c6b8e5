package luabind

// Measurements for one design choice: how a blocking Lua binding (mpi.recv and
// friends) suspends a rank.
//
//  1. Goroutine per rank, baton handoff (package runtime): the binding calls
//     Proc.Sleep or Proc.Block from Go, deep inside the Lua VM, and the rank's
//     goroutine stack keeps the whole Lua and Go call chain while it is parked.
//  2. gopher-lua coroutines: each rank's main function runs in a thread
//     (L.NewThread) resumed by one scheduler goroutine; the binding returns
//     L.Yield(). gopher-lua is Lua 5.1 and cannot yield across pcall,
//     metamethods or for-in iterators (yuin/gopher-lua#45, #306).
//
// Run with
//
//	go test -run 'Yield|GoroutineBlock' ./luabind
//	go test -run XXX -bench 'Switch|Parked' -benchtime 200000x ./luabind
//
// Every identifier here starts with sb so that the file cannot collide with the
// rest of the package.

import (
	"context"
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	sim "github.com/bglua/bglua/runtime"
)

// sbLoop is the rank program of the switch benchmarks: n blocking calls.
const sbLoop = `local n = ... for i = 1, n do block() end`

// sbDefaultOpts is what the brief prescribes: default registry and call stack.
func sbDefaultOpts() lua.Options { return lua.Options{SkipOpenLibs: true} }

// sbSmallOpts mirrors the package's stateOptions (state.go) at the time of
// writing: small, growable registry and call stack. Copied, not referenced, so
// that this file keeps compiling while state.go changes.
func sbSmallOpts() lua.Options {
	return lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       200,
		MinimizeStackMemory: true,
		RegistrySize:        256,
		RegistryMaxSize:     1 << 20,
		RegistryGrowStep:    256,
	}
}

func sbCompile(tb testing.TB, name, src string) *lua.FunctionProto {
	tb.Helper()
	chunk, err := parse.Parse(strings.NewReader(src), name)
	if err != nil {
		tb.Fatal(err)
	}
	proto, err := lua.Compile(chunk, name)
	if err != nil {
		tb.Fatal(err)
	}
	return proto
}

// sbNewState is a state with the base library only.
func sbNewState(opts lua.Options) *lua.LState {
	L := lua.NewState(opts)
	L.Push(L.NewFunction(lua.OpenBase))
	L.Push(lua.LString(lua.BaseLibName))
	L.Call(1, 0)
	return L
}

// sbShare splits total blocking calls over ranks; the shares add up to total.
func sbShare(total, ranks, r int) int {
	n := total / ranks
	if r < total%ranks {
		n++
	}
	return n
}

// sbSwitchCounter counts how often consecutive blocking calls come from
// different ranks, to check that a benchmark really switches at every step.
type sbSwitchCounter struct {
	last, switches int
}

func (c *sbSwitchCounter) enter(rank int) {
	if rank != c.last {
		c.switches++
		c.last = rank
	}
}

func sbReport(b *testing.B, ranks int, c *sbSwitchCounter) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "switches/s")
	if ranks > 1 && c.switches < b.N-ranks {
		b.Fatalf("%d rank changes for %d blocking calls: the ranks did not alternate", c.switches, b.N)
	}
}

// ---- Option 1: goroutine per rank --------------------------------------------

func BenchmarkSwitchGoroutine(b *testing.B) {
	for _, ranks := range []int{2, 64} {
		b.Run(fmt.Sprintf("ranks=%d", ranks), func(b *testing.B) { sbBenchGoroutine(b, ranks) })
	}
}

// BenchmarkSwitchSleepFastPath is one rank: Sleep finds nothing else due and
// just moves the clock, so no goroutine switch happens.
func BenchmarkSwitchSleepFastPath(b *testing.B) { sbBenchGoroutine(b, 1) }

func sbBenchGoroutine(b *testing.B, ranks int) {
	proto := sbCompile(b, "loop", sbLoop)
	e := sim.New()
	c := &sbSwitchCounter{last: -1}
	states := make([]*lua.LState, ranks)
	for r := range ranks {
		L := sbNewState(sbDefaultOpts())
		states[r] = L
		n := sbShare(b.N, ranks, r)
		fn := L.NewFunctionFromProto(proto)
		p := e.Spawn(r, 0, func(p *sim.Proc) {
			L.Push(fn)
			L.Push(lua.LNumber(n))
			if err := L.PCall(1, 0, nil); err != nil {
				e.Stop(err)
			}
		})
		L.SetGlobal("block", L.NewFunction(func(*lua.LState) int {
			c.enter(r)
			p.Sleep(1)
			return 0
		}))
	}
	b.ReportAllocs()
	b.ResetTimer()
	err := e.Run(context.Background())
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	sbReport(b, ranks, c)
	for _, L := range states {
		L.Close()
	}
}

// ---- Option 2: coroutines driven by one goroutine -----------------------------

type sbCoRank struct {
	id      int
	L, co   *lua.LState
	fn      *lua.LFunction
	n       int
	started bool
	done    bool
}

// resume runs the rank until it yields or ends; it reports whether it ended.
func (r *sbCoRank) resume() (bool, error) {
	var st lua.ResumeState
	var err error
	if !r.started {
		r.started = true
		st, err, _ = r.L.Resume(r.co, r.fn, lua.LNumber(r.n))
	} else {
		st, err, _ = r.L.Resume(r.co, r.fn)
	}
	switch st {
	case lua.ResumeYield:
		return false, nil
	case lua.ResumeOK:
		r.done = true
		return true, nil
	default:
		return true, err
	}
}

func sbCoRanks(b *testing.B, ranks int, c *sbSwitchCounter) []*sbCoRank {
	proto := sbCompile(b, "loop", sbLoop)
	rs := make([]*sbCoRank, ranks)
	for i := range ranks {
		L := sbNewState(sbDefaultOpts())
		co, _ := L.NewThread()
		r := &sbCoRank{id: i, L: L, co: co, fn: L.NewFunctionFromProto(proto), n: sbShare(b.N, ranks, i)}
		L.SetGlobal("block", L.NewFunction(func(L *lua.LState) int {
			c.enter(i)
			return L.Yield()
		}))
		rs[i] = r
	}
	return rs
}

// BenchmarkSwitchCoroutine resumes the ranks' coroutines round-robin from a
// plain Go loop (no event queue).
func BenchmarkSwitchCoroutine(b *testing.B) {
	for _, ranks := range []int{2, 64} {
		b.Run(fmt.Sprintf("ranks=%d", ranks), func(b *testing.B) {
			c := &sbSwitchCounter{last: -1}
			rs := sbCoRanks(b, ranks, c)
			b.ReportAllocs()
			b.ResetTimer()
			for live := ranks; live > 0; {
				for _, r := range rs {
					if r.done {
						continue
					}
					ended, err := r.resume()
					if err != nil {
						b.Fatal(err)
					}
					if ended {
						live--
					}
				}
			}
			b.StopTimer()
			sbReport(b, ranks, c)
			for _, r := range rs {
				r.L.Close()
			}
		})
	}
}

// sbCoAction resumes a coroutine rank from the engine's event loop: the same
// queue as option 1, so the difference to BenchmarkSwitchGoroutine is the
// switch itself.
type sbCoAction struct {
	r *sbCoRank
	e *sim.Engine
}

func (a *sbCoAction) Act(now sim.Time) {
	ended, err := a.r.resume()
	if err != nil {
		a.e.Stop(err)
		return
	}
	if !ended {
		a.e.Schedule(now+1, sim.PrioProc, a)
	}
}

// BenchmarkSwitchCoroutineEngine is BenchmarkSwitchCoroutine with the
// coroutines resumed by runtime.Engine events instead of a round-robin loop.
func BenchmarkSwitchCoroutineEngine(b *testing.B) {
	for _, ranks := range []int{2, 64} {
		b.Run(fmt.Sprintf("ranks=%d", ranks), func(b *testing.B) {
			c := &sbSwitchCounter{last: -1}
			rs := sbCoRanks(b, ranks, c)
			e := sim.New()
			for _, r := range rs {
				e.Schedule(0, sim.PrioProc, &sbCoAction{r: r, e: e})
			}
			b.ReportAllocs()
			b.ResetTimer()
			err := e.Run(context.Background())
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			sbReport(b, ranks, c)
			for _, r := range rs {
				r.L.Close()
			}
		})
	}
}

// ---- Memory of parked ranks ------------------------------------------------

const sbParkedRanks = 10000

func sbMem() goruntime.MemStats {
	goruntime.GC()
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m
}

// sbMemDelta reports the growth from before to during per rank.
func sbMemDelta(b *testing.B, before, during *goruntime.MemStats, ranks int) {
	stack := float64(int64(during.StackInuse)-int64(before.StackInuse)) / float64(ranks)
	heap := float64(int64(during.HeapInuse)-int64(before.HeapInuse)) / float64(ranks)
	b.ReportMetric(0, "ns/op") // one fixed-size measurement, not a per-op time
	b.ReportMetric(stack+heap, "B/rank")
	b.ReportMetric(stack, "stackB/rank")
	b.ReportMetric(heap, "heapB/rank")
}

// BenchmarkParkedRankMemory parks 10,000 ranks and measures StackInuse and
// HeapInuse growth per rank. It ignores b.N. Variants:
//
//	goroutine          state per rank + goroutine parked in p.Block inside pcall
//	coroutine-own      state per rank + one thread, suspended in a yield
//	coroutine-shared   one state, one thread per rank (the thread alone)
//
// each with the default options and with the small growable options of
// state.go. Everything a rank holds (state, closures, proc, goroutine) counts.
func BenchmarkParkedRankMemory(b *testing.B) {
	for _, o := range []struct {
		name string
		opts func() lua.Options
	}{{"default", sbDefaultOpts}, {"small", sbSmallOpts}} {
		b.Run("goroutine/"+o.name, func(b *testing.B) { sbParkGoroutines(b, o.opts) })
		b.Run("coroutine-own/"+o.name, func(b *testing.B) { sbParkCoroutines(b, o.opts, false) })
		b.Run("coroutine-shared/"+o.name, func(b *testing.B) { sbParkCoroutines(b, o.opts, true) })
	}
}

func sbParkGoroutines(b *testing.B, opts func() lua.Options) {
	proto := sbCompile(b, "park", `
		local ok, err = pcall(function() park() end)
		assert(ok, err)
		resumed = true`)
	before := sbMem()
	e := sim.New()
	states := make([]*lua.LState, sbParkedRanks)
	for r := range states {
		L := sbNewState(opts())
		states[r] = L
		fn := L.NewFunctionFromProto(proto)
		p := e.Spawn(r, 0, func(p *sim.Proc) {
			L.Push(fn)
			if err := L.PCall(0, 0, nil); err != nil {
				e.Stop(err)
			}
		})
		L.SetGlobal("park", L.NewFunction(func(*lua.LState) int {
			p.Block("park")
			return 0
		}))
	}
	var during goruntime.MemStats
	parked := 0
	e.At(1, sim.ActionFunc(func(now sim.Time) {
		during = sbMem()
		for _, p := range e.Procs() {
			if e.Wake(p, now+1) {
				parked++
			}
		}
	}))
	if err := e.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	if parked != sbParkedRanks {
		b.Fatalf("%d ranks parked, want %d", parked, sbParkedRanks)
	}
	for _, L := range states {
		if L.GetGlobal("resumed") != lua.LTrue {
			b.Fatal("a rank did not run to its end")
		}
	}
	sbMemDelta(b, &before, &during, sbParkedRanks)
	for _, L := range states {
		L.Close()
	}
}

func sbParkCoroutines(b *testing.B, opts func() lua.Options, shared bool) {
	// No pcall here: option 2 cannot yield across it.
	proto := sbCompile(b, "park", `
		local function f() park() end
		f()
		resumed = true`)
	var parent *lua.LState
	before := sbMem()
	if shared {
		parent = sbNewState(opts())
		parent.SetGlobal("park", parent.NewFunction(func(L *lua.LState) int { return L.Yield() }))
	}
	rs := make([]*sbCoRank, sbParkedRanks)
	for i := range rs {
		L := parent
		if !shared {
			L = sbNewState(opts())
			L.SetGlobal("park", L.NewFunction(func(L *lua.LState) int { return L.Yield() }))
		}
		co, _ := L.NewThread()
		rs[i] = &sbCoRank{id: i, L: L, co: co, fn: L.NewFunctionFromProto(proto)}
		if ended, err := rs[i].resume(); ended || err != nil {
			b.Fatalf("rank %d did not suspend: %v", i, err)
		}
	}
	during := sbMem()
	for _, r := range rs {
		if ended, err := r.resume(); !ended || err != nil {
			b.Fatalf("rank %d did not end: %v", r.id, err)
		}
	}
	if !shared && rs[0].L.GetGlobal("resumed") != lua.LTrue {
		b.Fatal("a rank did not run to its end")
	}
	sbMemDelta(b, &before, &during, sbParkedRanks)
	goruntime.KeepAlive(rs)
	if shared {
		parent.Close()
	} else {
		for _, r := range rs {
			r.L.Close()
		}
	}
}

// ---- Option 2's limit: no yield across pcall, metamethods or iterators -------

// sbYieldRun runs src as the main function of a coroutine whose block()
// binding yields, resuming it up to max times. It returns the resume states,
// the error of the last resume, and a Go panic that escaped L.Resume, if any.
func sbYieldRun(t *testing.T, src string, max int) (L *lua.LState, sts []lua.ResumeState, rerr error, panicked any) {
	t.Helper()
	L = sbNewState(sbDefaultOpts())
	L.SetGlobal("block", L.NewFunction(func(L *lua.LState) int { return L.Yield(lua.LString("yielded")) }))
	fn := L.NewFunctionFromProto(sbCompile(t, "rank", src))
	co, _ := L.NewThread()
	defer func() { panicked = recover() }()
	for range max {
		st, err, _ := L.Resume(co, fn)
		sts = append(sts, st)
		rerr = err
		if st == lua.ResumeError {
			break
		}
	}
	return L, sts, rerr, nil
}

const sbNoYield = "can not yield from outside of a coroutine"

func TestYieldAcrossPcallFails(t *testing.T) {
	t.Run("control: yield outside pcall suspends", func(t *testing.T) {
		L, sts, err, p := sbYieldRun(t, `block() block() after = true`, 3)
		defer L.Close()
		want := []lua.ResumeState{lua.ResumeYield, lua.ResumeYield, lua.ResumeOK}
		if p != nil || err != nil || fmt.Sprint(sts) != fmt.Sprint(want) || L.GetGlobal("after") != lua.LTrue {
			t.Fatalf("states %v err %v panic %v", sts, err, p)
		}
	})

	// The first yield inside pcall does not suspend the rank: pcall returns
	// true at once, the rest of the program runs in the same Resume, and
	// Resume reports ResumeOK (finished) with the yielded values as results.
	// The thread is not marked dead: the next Resume starts the main function
	// again from the top.
	t.Run("pcall: no suspension, program restarts", func(t *testing.T) {
		L, sts, err, p := sbYieldRun(t, `
			runs = (runs or 0) + 1
			local ok, e = pcall(block)
			after = tostring(ok) .. "," .. tostring(e)`, 2)
		defer L.Close()
		if p != nil || err != nil {
			t.Fatalf("err %v panic %v", err, p)
		}
		if sts[0] != lua.ResumeOK {
			t.Fatalf("first resume: state %v, want ResumeOK (the yield did not suspend)", sts[0])
		}
		if got := L.GetGlobal("after").String(); got != "true,nil" {
			t.Fatalf("code after pcall saw %q", got)
		}
		if got := L.GetGlobal("runs"); got != lua.LNumber(2) {
			t.Fatalf("runs = %v after two resumes, want 2 (restart from the top)", got)
		}
		t.Logf("states %v; pcall returned %s; main function ran %v times", sts, L.GetGlobal("after"), L.GetGlobal("runs"))
	})

	// The mishandled yield leaves the thread without a parent, so the next
	// yield, inside pcall, raises the error, which pcall catches.
	t.Run("pcall in a loop: error text", func(t *testing.T) {
		L, sts, err, p := sbYieldRun(t, `
			for i = 1, 3 do
				local ok, e = pcall(block)
				results = (results or "") .. tostring(ok) .. ":" .. tostring(e) .. ";"
			end`, 1)
		defer L.Close()
		if p != nil || err != nil {
			t.Fatalf("err %v panic %v", err, p)
		}
		got := L.GetGlobal("results").String()
		if !strings.HasPrefix(got, "true:nil;false:") || !strings.Contains(got, sbNoYield) {
			t.Fatalf("pcall results %q", got)
		}
		t.Logf("states %v; pcall results %q", sts, got)
	})

	// A yield outside pcall after one inside pcall raises the error out of
	// L.Resume as a Go panic: the scheduler itself must recover it.
	t.Run("pcall then block: Go panic out of Resume", func(t *testing.T) {
		L, sts, err, p := sbYieldRun(t, `
			pcall(block)
			block()`, 2)
		defer L.Close()
		aerr, ok := p.(*lua.ApiError)
		if !ok || !strings.Contains(aerr.Error(), sbNoYield) {
			t.Fatalf("states %v err %v panic %#v", sts, err, p)
		}
		t.Logf("panic %T: %v", p, aerr)
	})

	// A yield inside an __index function behaves as inside pcall.
	t.Run("metamethod", func(t *testing.T) {
		L, sts, err, p := sbYieldRun(t, `
			local t = setmetatable({}, {__index = function(t, k) block() return k end})
			local v = t.x
			block()`, 2)
		defer L.Close()
		aerr, ok := p.(*lua.ApiError)
		if !ok || !strings.Contains(aerr.Error(), sbNoYield) {
			t.Fatalf("states %v err %v panic %#v", sts, err, p)
		}
		t.Logf("panic %T: %v", p, aerr)
	})

	// A yield inside a for-in iterator crashes the VM with a nil dereference.
	t.Run("iterator", func(t *testing.T) {
		L, sts, err, p := sbYieldRun(t, `
			local s = 0
			for v in function(_, c) if c < 3 then block() return c + 1 end end, nil, 0 do
				s = s + v
			end`, 3)
		defer L.Close()
		rerr, ok := p.(goruntime.Error)
		if !ok || !strings.Contains(rerr.Error(), "nil pointer dereference") {
			t.Fatalf("states %v err %v panic %#v", sts, err, p)
		}
		t.Logf("panic %T: %v", p, rerr)
	})
}

// ---- Option 1 blocks anywhere -------------------------------------------------

// sbMailbox is a minimal blocking receive: recv parks the rank with p.Block
// until a send from another rank wakes it.
type sbMailbox struct {
	e      *sim.Engine
	procs  []*sim.Proc
	queues [][]lua.LValue
	parks  int // receives that really parked
}

func (m *sbMailbox) recv(r int) lua.LValue {
	p := m.procs[r]
	for len(m.queues[r]) == 0 {
		m.parks++
		p.Block("recv")
	}
	v := m.queues[r][0]
	m.queues[r] = m.queues[r][1:]
	return v
}

func (m *sbMailbox) send(dst int, v lua.LValue) {
	m.queues[dst] = append(m.queues[dst], v)
	m.e.Wake(m.procs[dst], m.e.Now()+1)
}

func TestGoroutineBlockInsidePcall(t *testing.T) {
	receiver := `
		-- inside pcall
		local ok, v = pcall(function() return recv() * 10 end)
		assert(ok, v)
		r_pcall = v

		-- an error raised after a block is still caught by pcall
		local ok2, e = pcall(function() error("boom " .. recv(), 0) end)
		r_error = tostring(ok2) .. ":" .. e

		-- inside an __index metamethod
		local t = setmetatable({}, {__index = function(t, k) return k .. "=" .. recv() end})
		r_meta = t.x

		-- inside an iterator of a generic for
		local sum = 0
		for _, v in function(_, i) if i < 3 then return i + 1, recv() end end, nil, 0 do
			sum = sum + v
		end
		r_iter = sum

		-- sleep inside a pcall inside a metamethod
		local s = setmetatable({}, {__index = function() return select(2, pcall(function() sleep(7) return now() end)) end})
		r_sleep = s.anything
	`
	sender := `for _, v in ipairs({4, 5, 6, 7, 8, 9}) do sleep(3) send(0, v) end`

	e := sim.New()
	m := &sbMailbox{e: e, queues: make([][]lua.LValue, 2)}
	states := make([]*lua.LState, 2)
	for r, src := range []string{receiver, sender} {
		L := sbNewState(sbDefaultOpts())
		states[r] = L
		fn := L.NewFunctionFromProto(sbCompile(t, fmt.Sprintf("rank%d", r), src))
		p := e.Spawn(r, 0, func(p *sim.Proc) {
			L.Push(fn)
			if err := L.PCall(0, 0, nil); err != nil {
				e.Stop(err)
			}
		})
		m.procs = append(m.procs, p)
		L.SetGlobal("recv", L.NewFunction(func(L *lua.LState) int {
			L.Push(m.recv(r))
			return 1
		}))
		L.SetGlobal("send", L.NewFunction(func(L *lua.LState) int {
			m.send(L.CheckInt(1), L.CheckAny(2))
			return 0
		}))
		L.SetGlobal("sleep", L.NewFunction(func(L *lua.LState) int {
			p.Sleep(sim.Time(L.CheckInt(1)))
			return 0
		}))
		L.SetGlobal("now", L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LNumber(p.Now()))
			return 1
		}))
	}
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	L := states[0]
	for name, want := range map[string]lua.LValue{
		"r_pcall": lua.LNumber(40),
		"r_error": lua.LString("false:boom 5"),
		"r_meta":  lua.LString("x=6"),
		"r_iter":  lua.LNumber(7 + 8 + 9),
		// The sixth message is sent at 18 and delivered at 19; sleep(7) ends at 26.
		"r_sleep": lua.LNumber(26),
	} {
		if got := L.GetGlobal(name); got.String() != want.String() {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	// Every receive found its mailbox empty: the sender sleeps before each send.
	if m.parks != 6 {
		t.Errorf("%d receives parked, want 6", m.parks)
	}
	for _, L := range states {
		L.Close()
	}
}
