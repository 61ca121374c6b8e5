package luabind

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/mpi"
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/observe"
)

// amState is a rank's side of the active-message interface, made when the
// rank first uses it.
type amState struct {
	handlers *lua.LTable // handler name or number -> function
	// loop is the advance loop: the callbacks of opts.done, the tasks of
	// ml.task, and the blocking in ml.advance and ml.wait.
	loop *mpi.AMLoop[*lua.LFunction]
	co   *coUnit // the coprocessor work unit being started, if any
}

// ml is the message layer as the rank sees it: in partitions, the view of
// its node's block, which holds its inbox and protocol choice.
func (rk *rankCtx) ml() *msglayer.Layer { return rk.h.W.Layer().ForRank(rk.r.ID) }

// am returns the rank's active-message state, hooking its inbox on first use.
func (rk *rankCtx) am() *amState {
	if rk.ams == nil {
		rk.ams = &amState{handlers: newTable()}
		if ut := rk.h.ut; ut != nil {
			ut.ranks[rk.r.ID] = rk // the units run its handlers from now on
		}
		rk.ams.loop = mpi.NewAMLoop[*lua.LFunction](rk.r, rk.ml().Inbox(rk.r.ID))
	}
	return rk.ams
}

// amPayload is what an active message carries: the Lua value and the name
// of its handler at the destination.
type amPayload struct {
	handler lua.LValue // LString or LNumber, which no state owns
	data    any
}

// mlRegister: ml.register(handler, fn).
func (rk *rankCtx) mlRegister(L *lua.LState) int {
	h := checkHandler(L, 1, "register")
	fn := L.CheckFunction(2)
	rk.am().handlers.RawSet(h, fn)
	if ut := rk.h.ut; ut != nil {
		ut.release(rk, h) // messages that came in before it
	}
	return 0
}

func checkHandler(L *lua.LState, i int, fname string) lua.LValue {
	switch v := L.Get(i).(type) {
	case lua.LString:
		return v
	case lua.LNumber:
		intArg(L, i, "ml."+fname, "handler id")
		return v
	}
	L.RaiseError("ml.%s: handler must be a name or a number, got %s", fname, L.Get(i).Type())
	return nil
}

// mlSend: ml.send(dest, handler, data [, opts]). Nonblocking: the call costs
// the CPU time of the send, and opts.done runs from a later advance.
// opts.category ("comm", the default, or "worker") says which units of the
// destination's node run the handler on a machine with thread units; it is
// checked and ignored on others. From a handler on a unit, the message
// leaves at the unit's clock.
func (rk *rankCtx) mlSend(L *lua.LState) int {
	if rk.h.ut != nil {
		rk.r.NeedOnePartition("ml.send to thread units")
	}
	ml := rk.ml()
	dest := intArg(L, 1, "ml.send", "dest")
	if dest < 0 || dest >= ml.Map.Ranks() {
		L.RaiseError("ml.send: destination rank %d out of range 0..%d", dest, ml.Map.Ranks()-1)
	}
	h := checkHandler(L, 2, "send")
	data, size, err := Encode(L.Get(3))
	if err != nil {
		L.RaiseError("ml.send: %s", err.Error())
	}
	proto := msglayer.Auto
	cat := msglayer.CommCategory
	var done *lua.LFunction
	if opts, ok := L.Get(4).(*lua.LTable); ok {
		if c := opts.RawGetString("category"); c != lua.LNil {
			cat = checkCategory(L, c, "send", "opts.category")
		}
		if p := opts.RawGetString("protocol"); p != lua.LNil {
			name := lua.LVAsString(p)
			var known bool
			if proto, known = msglayer.ParseProtocol(name); !known {
				L.RaiseError("ml.send: unknown protocol %q (valid: %s)", name, msglayer.ProtocolNames)
			}
		}
		if d, ok := opts.RawGetString("done").(*lua.LFunction); ok {
			done = d
		}
	} else if L.Get(4) != lua.LNil {
		L.RaiseError("ml.send: opts must be a table, got %s", L.Get(4).Type())
	}
	a := msglayer.AMSend{Src: rk.r.ID, Dst: dest, Bytes: size, Protocol: proto, Payload: amPayload{handler: h, data: data}}
	if done != nil {
		// opts.done runs from an advance once the send is complete.
		a.Sent = &amSent{rk: rk, fn: done}
	}
	if ut := rk.h.ut; ut != nil {
		a.Units, a.Category = ut.units, cat
	}
	if u := rk.h.onUnit(); u != nil {
		err = ml.SendAMFromUnit(u.Clock, a) // it leaves at the unit's clock
	} else if err = ml.SendAM(rk.r.Now(), a); err == nil {
		rk.r.Sync()
	}
	if err != nil {
		L.RaiseError("ml.send: %s", err.Error())
	}
	return 0
}

// checkCategory reads a thread category: "comm" or "worker".
func checkCategory(L *lua.LState, v lua.LValue, fname, what string) msglayer.Category {
	if s, ok := v.(lua.LString); ok {
		if c, ok := msglayer.ParseCategory(string(s)); ok {
			return c
		}
		L.RaiseError("ml.%s: %s must be %s, got %q", fname, what, msglayer.CategoryNames, string(s))
	}
	L.RaiseError("ml.%s: %s must be %s, got a %s", fname, what, msglayer.CategoryNames, v.Type())
	return 0
}

// amSent queues a send's completion callback when the message layer says
// the send is complete, and wakes the rank if it waits in ml.wait.
type amSent struct {
	rk *rankCtx
	fn *lua.LFunction
}

func (a *amSent) Act(msglayer.Time) {
	a.rk.am().loop.Complete(a.fn)
}

// mlSetProtocol: ml.set_protocol(name) -> previous. The protocol this rank's
// messages use when they name none: MPI's point-to-point messages and
// ml.send without opts.protocol. "auto" (the default) chooses by size.
func (rk *rankCtx) mlSetProtocol(L *lua.LState) int {
	name := L.CheckString(1)
	p, ok := msglayer.ParseProtocol(name)
	if !ok {
		L.RaiseError("ml.set_protocol: unknown protocol %q (valid: %s)", name, msglayer.ProtocolNames)
	}
	L.Push(lua.LString(rk.ml().Prefer(rk.r.ID, p).String()))
	return 1
}

// mlTask: ml.task(fn [, category]) queues a micro-task on this rank ([EMU]
// addMessage). On a machine with thread units it goes to the node's
// InBuffer, for a unit of its category ("worker" by default) to run, at the
// rank's time or, from a handler, at the unit's clock; on others the rank's
// advance loop runs it and the category is checked and ignored.
func (rk *rankCtx) mlTask(L *lua.LState) int {
	if rk.h.ut != nil {
		rk.r.NeedOnePartition("ml.task on thread units")
	}
	fn := L.CheckFunction(1)
	cat := msglayer.WorkerCategory
	if v := L.Get(2); v != lua.LNil {
		cat = checkCategory(L, v, "task", "category")
	}
	st := rk.am()
	if ut := rk.h.ut; ut != nil {
		rk.r.PostTask(ut.units, ut.now(rk), cat, unitTask{fn})
		return 0
	}
	st.loop.Post(fn)
	return 0
}

// advance runs the advance loop once: send-completion callbacks, then every
// message whose data is complete, then queued micro-tasks. It returns how
// many it ran. On a machine with thread units the messages and tasks go to
// the units: only the callbacks are left to it.
func (rk *rankCtx) advance(L *lua.LState) int {
	st := rk.am()
	n := 0
	for p := st.loop.Pass(); ; n++ {
		fn, m, ok := p.Next()
		switch {
		case !ok:
			return n
		case m != nil:
			rk.runHandler(L, m)
		default:
			L.Push(fn)
			L.Call(0, 0)
		}
	}
}

// runHandler calls the handler of an active message in the rank's code.
func (rk *rankCtx) runHandler(L *lua.LState, m *msglayer.Message) {
	p := m.Payload.(amPayload)
	fn, ok := rk.ams.handlers.RawGet(p.handler).(*lua.LFunction)
	if !ok {
		L.RaiseError("ml: rank %d has no handler %s registered (message from rank %d)", rk.r.ID, handlerName(p.handler), m.Src)
	}
	t0 := rk.r.Now()
	L.Push(fn)
	L.Push(lua.LNumber(m.Src))
	L.Push(Decode(L, p.data))
	nargs := 2
	if seesArg(fn, 3) { // the message's details, for a handler that takes them
		info := L.CreateTable(0, 2)
		info.RawSetString("bytes", lua.LNumber(m.Bytes))
		info.RawSetString("protocol", lua.LString(m.Protocol.String()))
		L.Push(info)
		nargs = 3
	}
	L.Call(nargs, 0)
	if tr := rk.h.opt.Trace; tr != nil {
		tr.Slice("handler "+handlerName(p.handler), rk.r.ID, t0, rk.r.Now(), observe.CallArgs{Bytes: int64(m.Bytes), HasPeer: true, Peer: m.Src, Protocol: m.Protocol.String()})
	}
}

func handlerName(h lua.LValue) string {
	if s, ok := h.(lua.LString); ok {
		return fmt.Sprintf("%q", string(s))
	}
	return h.String()
}

// mlAdvance: ml.advance() runs the advance loop once and returns how many
// callbacks, handlers and tasks it ran. When there was nothing to run, the
// rank waits in virtual time for the next thing that concerns it (as the
// machine's advance loop would spin until then) and runs that: a loop
// `while not done do ml.advance() end` lets time move, and one that waits
// for what never comes is a deadlock, not a hang.
func (rk *rankCtx) mlAdvance(L *lua.LState) int {
	n := rk.advance(L)
	if n == 0 {
		rk.am().loop.Await("ml.advance")
		n = rk.advance(L)
	}
	L.Push(lua.LNumber(n))
	return 1
}

// mlWait: ml.wait(pred) advances until pred() is true, blocking in virtual
// time while nothing is there to run.
func (rk *rankCtx) mlWait(L *lua.LState) int {
	pred := L.CheckFunction(1)
	for {
		rk.advance(L)
		L.Push(pred)
		L.Call(0, 1)
		ok := lua.LVAsBool(L.Get(-1))
		L.Pop(1)
		if ok {
			// What pred saw includes the work of the handlers run on thread
			// units so far: the rank goes on when the last has ended.
			rk.ams.loop.CatchUp()
			return 0
		}
		if !rk.ams.loop.HasWork() {
			rk.ams.loop.Block("ml.wait")
		}
	}
}

// HandlerOf is the handler an active message of ml.send was sent to, as
// messages name it ("name" or a number), or "" for another message.
func HandlerOf(m *msglayer.Message) string {
	if p, ok := m.Payload.(amPayload); ok {
		return handlerName(p.handler)
	}
	return ""
}
