package luabind

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/mpi"
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

// Thread units ([EMU]; msglayer/units.go). On a machine with thread units
// (comm_threads > 0) the handlers of active messages and the micro-tasks of
// ml.task run on the units of the destination's node, without the rank
// polling: a unit runs one synchronously, inside the event at which it
// starts, in the rank's Lua state. The rank's own code is then parked inside
// a Go binding (events only run while every rank is parked) or has returned,
// so a handler that runs to completion leaves the rank's stack as it was;
// the state of a rank that used ml is kept open after its program returns
// for the handlers still to come.
//
// While a handler runs, the rank's time is the unit's clock: it starts after
// the dispatch (or the hand-off), mpi.compute advances it, mpi.wtime,
// mpi.cycles and os.clock read it, ml.send leaves at it and ml.task files
// its task at it. Calls that wait or need the rank's own CPU (mpi.recv,
// ml.wait, collectives...) raise an error there. After a handler the rank,
// if it waits in ml.wait, is woken at the handler's end to test its
// predicate again.

// unitHost is the Lua side of the thread units of one run.
type unitHost struct {
	h     *Host
	units *msglayer.Units
	ranks []*rankCtx // per rank, set when the rank first uses ml
	cur   *unitRun   // the handler running now, if any
}

// unitRun is a handler or task running on a unit: the unit's clock and
// its arithmetic are mpi.UnitRun's.
type unitRun struct {
	*mpi.UnitRun
	rk *rankCtx
	// handler is the handler running (nil for a micro-task): what names
	// it, made only when needed (a trace, an error).
	handler lua.LValue
}

// what is `handler "name"` or "micro-task".
func (u *unitRun) what() string {
	if u.handler == nil {
		return "micro-task"
	}
	return "handler " + handlerName(u.handler)
}

// unitTask is the work of a micro-task on the units.
type unitTask struct{ fn *lua.LFunction }

// onUnit returns the handler running on a thread unit, or nil when the
// rank's own code runs (or the machine has no thread units).
func (h *Host) onUnit() *unitRun {
	if h.ut == nil {
		return nil
	}
	return h.ut.cur
}

// keepState is called when a rank's program has ended: it reports whether
// the rank's state must stay open (thread units may still run its
// handlers), and ends the run if messages wait for a handler the rank never
// registered.
func (h *Host) keepState(rank int) bool {
	ut := h.ut
	if ut == nil {
		return false
	}
	if it := h.W.Rank(rank).Held(ut.units); it != nil {
		// A message came in before its handler was registered, and the
		// program ended without registering it.
		m := it.Data.(*msglayer.Message)
		h.W.Eng.Stop(&RankError{Rank: rank, Time: h.W.Eng.Now(), Seconds: h.W.Machine().Seconds(h.W.Eng.Now()),
			Msg: fmt.Sprintf("ml: rank %d has no handler %s registered (message from rank %d)", rank, handlerName(m.Payload.(amPayload).handler), m.Src)})
	}
	return ut.ranks[rank] != nil
}

// now is the rank's time: its own or, inside a handler, the unit's clock.
func (ut *unitHost) now(rk *rankCtx) runtime.Time {
	if u := ut.cur; u != nil {
		return u.Clock
	}
	return rk.r.Now()
}

// release posts again, in order, the messages held for handler on rank rk
// (ml.register has just registered it).
func (ut *unitHost) release(rk *rankCtx, handler lua.LValue) {
	rk.r.ReleaseHeld(ut.units, ut.now(rk), func(it *msglayer.Item) bool {
		return it.Data.(*msglayer.Message).Payload.(amPayload).handler == handler
	})
}

// unitAllowed are the bindings a handler on a thread unit may call as they
// are: they neither wait nor use the rank's CPU. ml.send and ml.task see
// the unit themselves; unitOverrides lists those that read or advance the
// unit's clock instead of the rank's. Every other function of mpi, ml, bcs
// and the communicators raises an error there.
var unitAllowed = map[string]bool{
	"mpi.rank": true, "mpi.size": true, "mpi.bytes": true, "mpi.dims_create": true,
	"comm:rank": true, "comm:size": true,
	"ml.register": true, "ml.send": true, "ml.task": true, "ml.advance": true, "ml.coords": true, "ml.rank_of": true,
	"ml.dims": true, "ml.hops": true, "ml.node": true, "ml.mode": true, "ml.config": true, "ml.set_protocol": true,
	"ml.set_cohelp": true,
}

var unitOverrides = map[string]func(h *Host, u *unitRun, L *lua.LState) int{
	"mpi.wtime": func(h *Host, u *unitRun, L *lua.LState) int {
		L.Push(lua.LNumber(h.W.Machine().Seconds(u.Clock)))
		return 1
	},
	"mpi.cycles": func(h *Host, u *unitRun, L *lua.LState) int { L.Push(lua.LNumber(u.Clock)); return 1 },
	"os.clock": func(h *Host, u *unitRun, L *lua.LState) int {
		L.Push(lua.LNumber(h.W.Machine().Seconds(u.Clock)))
		return 1
	},
	"os.time": func(h *Host, u *unitRun, L *lua.LState) int {
		L.Push(lua.LNumber(math.Floor(h.W.Machine().Seconds(u.Clock))))
		return 1
	},
	"mpi.compute": (*Host).unitCompute,
	"mpi.abort":   (*Host).unitAbort,
}

// guardUnits sets up the thread units when the machine has them: it makes
// the units and wraps the shared bindings so that, inside a handler on a
// unit, they use the unit's clock or refuse to wait. On other machines it
// does nothing and the bindings stay as they are.
func (h *Host) guardUnits() {
	ut := &unitHost{h: h}
	ut.units = msglayer.NewUnits(h.W.Machine(), h.W.Layer().Map.Torus.Nodes(), h.W.Eng, ut)
	if ut.units == nil {
		return
	}
	ut.ranks = make([]*rankCtx, h.W.Size())
	h.ut = ut
	sh := h.sh
	for _, lib := range sh.libs {
		switch lib.name {
		case "mpi", "ml", "bcs", "os":
			ut.guard(lib.name+".", lib.table)
		}
	}
	if methods, ok := sh.commMT.RawGetString("__index").(*lua.LTable); ok {
		ut.guard("comm:", methods)
	}
	// print on a unit: ordered at the unit's clock; the line is not shipped
	// to an I/O node (that would make the unit wait for the reply).
	inner := h.print.GFunction
	h.print.GFunction = func(L *lua.LState) int {
		u := ut.cur
		if u == nil {
			return inner(L)
		}
		var b []byte
		for i := 1; i <= L.GetTop(); i++ {
			if i > 1 {
				b = append(b, '\t')
			}
			b = append(b, L.ToStringMeta(L.Get(i)).String()...)
		}
		h.Out.Print(u.Clock, u.rk.r.ID, string(b))
		return 0
	}
}

// guard wraps the Go functions of t (named prefix+key) by unitAllowed and
// unitOverrides.
func (ut *unitHost) guard(prefix string, t *lua.LTable) {
	for _, k := range sortedKeys(t) {
		f, ok := t.RawGetString(k).(*lua.LFunction)
		name := prefix + k
		if !ok || !f.IsG || unitAllowed[name] {
			continue
		}
		inner := f.GFunction
		if ov := unitOverrides[name]; ov != nil {
			t.RawSetString(k, gfunc(func(L *lua.LState) int {
				if u := ut.cur; u != nil {
					return ov(ut.h, u, L)
				}
				return inner(L)
			}))
			continue
		}
		t.RawSetString(k, gfunc(func(L *lua.LState) int {
			if ut.cur != nil {
				L.RaiseError("%s cannot block inside a handler running on a thread unit (a handler runs to completion: use ml.send, ml.task and mpi.compute there, and wait in the rank's own code)", name)
			}
			return inner(L)
		}))
	}
}

// unitCompute is mpi.compute on a unit: it advances the unit's clock.
func (h *Host) unitCompute(u *unitRun, L *lua.LState) int {
	if err := u.Compute(u.rk.computeCycles(L)); err != nil {
		L.RaiseError("mpi.compute: %s", err.Error())
	}
	return 0
}

// unitAbort is mpi.abort on a unit: it ends the run, and the handler with
// an error.
func (h *Host) unitAbort(u *unitRun, L *lua.LState) int {
	msg := L.OptString(1, "aborted")
	code := optIntArg(L, 2, 1, "mpi.abort", "code")
	id := u.rk.r.ID
	h.Ends[id] = RankEnd{State: Aborted, Time: u.Clock}
	h.W.Eng.Stop(&AbortError{Rank: id, Seconds: h.W.Machine().Seconds(u.Clock), Msg: msg, Code: code, Where: h.where(L)})
	L.RaiseError("mpi.abort: %s", msg)
	return 0
}

// RunOnUnit runs an active message's handler or a micro-task on a unit
// (msglayer.UnitRunner), in the rank's state, and returns when its work
// ends.
func (ut *unitHost) RunOnUnit(it *msglayer.Item, unit int, now, clock runtime.Time) runtime.Time {
	h := ut.h
	rk := ut.ranks[it.Rank]
	run := &unitRun{rk: rk}
	if rk != nil {
		run.UnitRun = rk.r.Home().OnUnit(unit, it.Node, clock) // the rank, whichever of its contexts ran last
	}
	var fn *lua.LFunction
	var m *msglayer.Message
	switch d := it.Data.(type) {
	case *msglayer.Message:
		m = d
		p := m.Payload.(amPayload)
		run.handler = p.handler
		if rk != nil {
			fn, _ = rk.ams.handlers.RawGet(p.handler).(*lua.LFunction)
		}
		if fn == nil {
			if h.Ends[it.Rank].State != NotStarted {
				h.W.Eng.Stop(&RankError{Rank: it.Rank, Time: now, Seconds: h.W.Machine().Seconds(now),
					Msg: fmt.Sprintf("ml: rank %d has no handler %s registered (message from rank %d)", it.Rank, handlerName(p.handler), m.Src)})
				return clock
			}
			// The rank's program runs and may register it yet: the unit
			// puts the message aside (having paid the dispatch), for
			// ml.register to release.
			ut.units.Hold(it)
			return clock
		}
	case unitTask:
		fn = d.fn
	}
	L := rk.L
	L.Push(fn)
	nargs := 0
	if m != nil {
		p := m.Payload.(amPayload)
		L.Push(lua.LNumber(m.Src))
		L.Push(Decode(L, p.data))
		nargs = 2
		if seesArg(fn, 3) {
			info := L.CreateTable(0, 4)
			info.RawSetString("bytes", lua.LNumber(m.Bytes))
			info.RawSetString("protocol", lua.LString(m.Protocol.String()))
			info.RawSetString("unit", lua.LNumber(unit))
			info.RawSetString("category", lua.LString(ut.units.Kind(unit).String()))
			L.Push(info)
			nargs = 3
		}
	}
	ut.cur = run
	// The rank may be parked inside one of its coroutines: the handler runs
	// on the main thread, and the rank finds its own as it left it.
	thread := L.G.CurrentThread
	L.G.CurrentThread = L
	err := L.PCall(nargs, 0, nil)
	L.G.CurrentThread = thread
	ut.cur = nil
	if err != nil {
		ut.fail(run, err)
		return run.Clock
	}
	if tr := h.opt.Trace; tr != nil {
		tr.UnitSlice(run.what(), rk.r.ID, unit, ut.units.Kind(unit).String(), clock, run.Clock)
	}
	// ml.wait tests its predicate again once the handler is over.
	rk.ams.loop.Ended(run.Clock)
	return run.Clock
}

// seesArg reports whether a call of fn can see its n-th argument: a Go
// function or a vararg one can, a Lua function only if it has n parameters
// (Lua drops the others). A handler that takes (src, data) is then spared
// the table of its message's details, which would be garbage at once.
func seesArg(fn *lua.LFunction, n int) bool {
	return fn.IsG || fn.Proto == nil || fn.Proto.IsVarArg != 0 || int(fn.Proto.NumParameters) >= n
}

// fail ends the run with the error a handler or task raised on a unit.
func (ut *unitHost) fail(run *unitRun, err error) {
	h := ut.h
	if h.W.Eng.Err() != nil {
		return // mpi.abort, or an earlier error: the first one stands
	}
	id := run.rk.r.ID
	if g := h.opt.Guard; g.Stopped() {
		g.ran(id)
		h.Ends[id] = RankEnd{State: Stopped, Time: run.Clock}
		h.W.Eng.Stop(g.Cause())
		return
	}
	e := &RankError{Rank: id, Time: run.Clock, Seconds: h.W.Machine().Seconds(run.Clock), Msg: err.Error()}
	if ae, ok := err.(*lua.ApiError); ok {
		e.Msg = ErrorObjectString(ae.Object)
		e.Traceback = ae.StackTrace
	}
	e.Msg += fmt.Sprintf(" (in %s on %s unit %d of node %d)", run.what(), ut.units.Kind(run.Unit), run.Unit, run.Node)
	h.Ends[id] = RankEnd{State: Failed, Time: run.Clock}
	h.W.Eng.Stop(e)
}
