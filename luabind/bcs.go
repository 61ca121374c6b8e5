package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/bcs"
	"github.com/bglua/bglua/mpi"
)

// The bcs module: the core primitives of buffered coscheduling ([BCS]
// section 2) and the rank's monitoring counters. Valid with --runtime bcs;
// elsewhere every function raises an error that says so.

func (h *Host) bcsTable() *lua.LTable {
	return funcTable(map[string]lua.LGFunction{
		"xfer_and_signal":   h.bind((*rankCtx).bcsXfer),
		"test_event":        h.bind((*rankCtx).bcsTestEvent),
		"compare_and_write": h.bind((*rankCtx).bcsCAW),
		"timeslice":         h.bind((*rankCtx).bcsTimeslice),
		"slice_length":      h.bind((*rankCtx).bcsSliceLength),
		"stats":             h.bind((*rankCtx).bcsStats),
		"set":               h.bind((*rankCtx).bcsSet),
		"get":               h.bind((*rankCtx).bcsGet),
	})
}

func (rk *rankCtx) sched(L *lua.LState, fn string) *bcs.Sched {
	s := rk.h.W.BCS()
	if s == nil {
		L.RaiseError("bcs.%s needs the buffered coscheduling runtime: run with --runtime bcs", fn)
	}
	return s
}

// eventName turns an event argument (string or integer) into its name.
func eventName(L *lua.LState, n int, fn string) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return "#" + v.String()
	}
	L.RaiseError("bcs.%s: argument %d is %s, want an event name (string or integer)", fn, n, L.Get(n).Type())
	return ""
}

// ranksArg reads a rank or an array of ranks.
func (rk *rankCtx) ranksArg(L *lua.LState, n int, fn string) []int {
	size := rk.h.W.Size()
	check := func(v lua.LValue) int {
		r, bad := toInt(v)
		if bad != "" {
			L.RaiseError("bcs.%s: destination must be an integer, got %s", fn, bad)
		}
		if r < 0 || r >= size {
			L.RaiseError("bcs.%s: destination %d is not a rank of the job (0 to %d)", fn, r, size-1)
		}
		return r
	}
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return []int{check(v)}
	case *lua.LTable:
		out := make([]int, 0, v.Len())
		for i := 1; i <= v.Len(); i++ {
			out = append(out, check(v.RawGetInt(i)))
		}
		if len(out) == 0 {
			L.RaiseError("bcs.%s: empty set of destinations", fn)
		}
		return out
	}
	L.RaiseError("bcs.%s: argument %d is %s, want a rank or an array of ranks", fn, n, L.Get(n).Type())
	return nil
}

// bcs.xfer_and_signal(dests, data, remote_event [, local_event])
func (rk *rankCtx) bcsXfer(L *lua.LState) int {
	s := rk.sched(L, "xfer_and_signal")
	dests := rk.ranksArg(L, 1, "xfer_and_signal")
	p, size, err := Encode(L.Get(2))
	if err != nil {
		L.RaiseError("bcs.xfer_and_signal: %s", err.Error())
	}
	remote := eventName(L, 3, "xfer_and_signal")
	local := ""
	if L.GetTop() >= 4 && L.Get(4) != lua.LNil {
		local = eventName(L, 4, "xfer_and_signal")
	}
	rk.r.Call()
	s.XferAndSignal(rk.r.ID, dests, p, size, remote, local)
	return 0
}

// bcs.test_event(event [, block]) -> signalled, data, source
func (rk *rankCtx) bcsTestEvent(L *lua.LState) int {
	s := rk.sched(L, "test_event")
	name := eventName(L, 1, "test_event")
	block := L.OptBool(2, false)
	rk.r.Call()
	for {
		if sig, ok := s.TestEvent(rk.r.ID, name); ok {
			L.Push(lua.LTrue)
			L.Push(Decode(L, sig.Payload))
			L.Push(lua.LNumber(sig.Src))
			return 3
		}
		if !block {
			L.Push(lua.LFalse)
			return 1
		}
		s.AwaitEvent(rk.r.ID, name)
		rk.r.Block(mpi.WaitInfo{Call: "bcs.test_event " + name, Peer: mpi.NoPeer})
	}
}

// bcs.compare_and_write(dests, var, cmp, value [, write_var, write_value]) -> bool
func (rk *rankCtx) bcsCAW(L *lua.LState) int {
	s := rk.sched(L, "compare_and_write")
	dests := rk.ranksArg(L, 1, "compare_and_write")
	name := L.CheckString(2)
	op := L.CheckString(3)
	cmp := bcs.Compares[op]
	if cmp == nil {
		L.RaiseError("bcs.compare_and_write: unknown comparison %q (want ==, ~=, <, <=, > or >=)", op)
	}
	value := float64(L.CheckNumber(4))
	write, wv := "", 0.0
	if L.GetTop() >= 5 && L.Get(5) != lua.LNil {
		write = L.CheckString(5)
		wv = float64(L.CheckNumber(6))
	}
	rk.r.Call()
	rk.r.Proc.Sleep(s.P.CAW) // the global query's latency; compared and written when it completes
	L.Push(lua.LBool(s.CompareAndWrite(dests, name, cmp, value, write, wv)))
	return 1
}

// bcs.set(var, value): write this rank's global variable (read by
// compare_and_write); bcs.get(var [, rank]) reads one.
func (rk *rankCtx) bcsSet(L *lua.LState) int {
	s := rk.sched(L, "set")
	s.SetVar(rk.r.ID, L.CheckString(1), float64(L.CheckNumber(2)))
	return 0
}

func (rk *rankCtx) bcsGet(L *lua.LState) int {
	s := rk.sched(L, "get")
	r := optIntArg(L, 2, rk.r.ID, "bcs.get", "rank")
	if r < 0 || r >= rk.h.W.Size() {
		L.RaiseError("bcs.get: rank %d is not a rank of the job (0 to %d)", r, rk.h.W.Size()-1)
	}
	L.Push(lua.LNumber(s.Var(r, L.CheckString(1))))
	return 1
}

// bcs.timeslice() -> the number of the current slice
func (rk *rankCtx) bcsTimeslice(L *lua.LState) int {
	s := rk.sched(L, "timeslice")
	L.Push(lua.LNumber(s.SliceAt(rk.r.Now())))
	return 1
}

// bcs.slice_length() -> the time slice in seconds (--timeslice)
func (rk *rankCtx) bcsSliceLength(L *lua.LState) int {
	s := rk.sched(L, "slice_length")
	L.Push(lua.LNumber(rk.h.W.Machine().Seconds(s.P.Slice)))
	return 1
}

// bcs.stats() -> { primitives = { ["mpi.send"] = {count=, min=, max=, total=, avg=} (seconds) },
// computation = s, communication = s, slice = n }
func (rk *rankCtx) bcsStats(L *lua.LState) int {
	s := rk.sched(L, "stats")
	h := rk.h
	t := L.NewTable()
	prims := L.NewTable()
	sec := func(c int64) lua.LNumber { return lua.LNumber(h.W.Machine().Seconds(c)) }
	if h.mds != nil {
		m := &h.mds[rk.r.ID]
		for _, st := range m.Calls() {
			e := L.NewTable()
			e.RawSetString("count", lua.LNumber(st.Count))
			e.RawSetString("min", sec(st.Min))
			e.RawSetString("max", sec(st.Max))
			e.RawSetString("total", sec(st.Total))
			e.RawSetString("avg", lua.LNumber(h.W.Machine().Seconds(st.Total)/float64(max(st.Count, 1))))
			prims.RawSetString(st.Name, e)
		}
		comp, comm := m.Times(rk.r.Now())
		t.RawSetString("computation", sec(comp))
		t.RawSetString("communication", sec(comm))
	}
	t.RawSetString("primitives", prims)
	t.RawSetString("slice", lua.LNumber(s.SliceAt(rk.r.Now())))
	L.Push(t)
	return 1
}
