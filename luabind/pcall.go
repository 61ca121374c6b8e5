package luabind

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// gopher-lua's pcall, when it catches an error, closes every open upvalue of
// the state, those of the frames that are still live included
// (yuin/gopher-lua#448): after
//
//	local n = 0; local inc = function() n = n + 1 end
//	pcall(error, "x"); inc()
//
// n stays 0, because inc now has its own copy. bglua's pcall runs the
// function on a thread of its own (a gopher-lua thread: same globals, its
// own stack), so that the error closes only the upvalues of the frames it
// unwinds, as in Lua 5.1. A rank keeps the threads for reuse, so a pcall
// costs no allocation once warm; one in use (a rank parked inside a pcall
// while a thread unit runs a handler that calls pcall) is never shared.
// A coroutine cannot yield across it (Lua 5.1 cannot either; gopher-lua's
// own pcall let it yield but crashed when resumed): the yield is an error
// that the pcall returns.

// maxPCallDepth bounds pcalls nested in each other: each has a call stack of
// its own, so without it a runaway recursion through pcall would never hit
// the call-stack limit.
const maxPCallDepth = 200

// pcallState is a rank's pool of pcall threads.
type pcallState struct {
	free   []*lua.LState
	active []pcallFrame // the pcalls running now, innermost last
}

// pcallFrame is a pcall running now: its thread and the state that called it.
type pcallFrame struct{ th, caller *lua.LState }

// innermost is the state a parked rank runs in: its innermost pcall's
// thread, or its own state.
func (ps *pcallState) innermost(L *lua.LState) *lua.LState {
	if ps != nil && len(ps.active) > 0 {
		return ps.active[len(ps.active)-1].th
	}
	return L
}

// caller is the state that called the pcall running on thread th, or nil.
func (ps *pcallState) caller(th *lua.LState) *lua.LState {
	if ps != nil {
		for i := len(ps.active) - 1; i >= 0; i-- {
			if ps.active[i].th == th {
				return ps.active[i].caller
			}
		}
	}
	return nil
}

func (rk *rankCtx) pcall(L *lua.LState) int {
	L.CheckAny(1)
	v := L.Get(1)
	if v.Type() != lua.LTFunction && L.GetMetaField(v, "__call").Type() != lua.LTFunction {
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + v.Type().String() + " value"))
		return 2
	}
	ps := rk.pcalls
	if ps == nil {
		ps = &pcallState{}
		rk.pcalls = ps
	}
	if len(ps.active) >= maxPCallDepth {
		L.Push(lua.LFalse)
		L.Push(lua.LString("stack overflow (pcalls nested too deep)"))
		return 2
	}
	var th *lua.LState
	if n := len(ps.free); n > 0 {
		th = ps.free[n-1]
		ps.free = ps.free[:n-1]
	} else {
		th, _ = L.NewThread()
	}
	nargs := L.GetTop() - 1
	L.XMoveTo(th, nargs+1)
	ps.active = append(ps.active, pcallFrame{th, L})
	err := th.PCall(nargs, lua.MultRet, nil)
	ps.active = ps.active[:len(ps.active)-1]
	if err != nil {
		th.SetTop(0)
		ps.free = append(ps.free, th)
		if g := rk.h.opt.Guard; g.Stopped() {
			// A stop from outside is not the program's error to catch.
			rk.h.stoppedAt(g, L)
			L.Error(lua.LString("stopped"), 0)
		}
		L.Push(lua.LFalse)
		if aerr, ok := err.(*lua.ApiError); ok {
			msg, isStr := aerr.Object.(lua.LString)
			if fn, ok := v.(*lua.LFunction); ok && fn.IsG && isStr && strings.HasPrefix(string(msg), " ") {
				// A Go function called by pcall itself raised an error at
				// level 1: on the thread it has no Lua caller to name, so
				// name the pcall's, as gopher-lua's pcall does.
				if at := rk.h.where(L); at != "" {
					aerr.Object = lua.LString(at + ":" + string(msg))
				}
			}
			L.Push(aerr.Object)
		} else {
			L.Push(lua.LString(err.Error()))
		}
		return 2
	}
	n := th.GetTop()
	L.Push(lua.LTrue)
	th.XMoveTo(L, n)
	ps.free = append(ps.free, th)
	return n + 1
}
