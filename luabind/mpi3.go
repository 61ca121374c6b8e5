package luabind

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/mpi"
)

// The point-to-point calls of MPI-3 (issue 22): synchronous sends, matched
// probes, cancel, persistent requests, neighbourhood collectives. Their
// semantics are the mpi package's; these only read arguments and push
// results.

const messageTypeName = "mpi.message"

func (rk *rankCtx) ssend(L *lua.LState, c *mpi.Comm, a int) int {
	v, dest, tag := sendArgs(L, a, "ssend")
	check(L, "ssend", c.Ssend(v, dest, tag))
	return 0
}

func (rk *rankCtx) issend(L *lua.LState, c *mpi.Comm, a int) int {
	return rk.startSend(L, c, a, "issend", (*mpi.Comm).Issend)
}

func (rk *rankCtx) sendInit(L *lua.LState, c *mpi.Comm, a int) int {
	return rk.startSend(L, c, a, "send_init", (*mpi.Comm).SendInit)
}

func (rk *rankCtx) recvInit(L *lua.LState, c *mpi.Comm, a int) int {
	return rk.startRecv(L, c, a, "recv_init", (*mpi.Comm).RecvInit)
}

// mprobe is mpi.mprobe([source [, tag]]) -> msg, status.
func (rk *rankCtx) mprobe(L *lua.LState, c *mpi.Comm, a int) int {
	msg, err := c.Mprobe(optInt(L, a, mpi.AnySource, "mprobe", "source"), recvTag(L, a+1, "mprobe", "tag"))
	check(L, "mprobe", err)
	rk.pushMessage(L, msg)
	rk.pushStatus(L, msg.Status(), 2)
	return 2
}

// improbe is mpi.improbe([source [, tag]]) -> msg, status, or nil when no
// message matches.
func (rk *rankCtx) improbe(L *lua.LState, c *mpi.Comm, a int) int {
	msg, ok, err := c.Improbe(optInt(L, a, mpi.AnySource, "improbe", "source"), recvTag(L, a+1, "improbe", "tag"))
	check(L, "improbe", err)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	rk.pushMessage(L, msg)
	rk.pushStatus(L, msg.Status(), 2)
	return 2
}

func (rk *rankCtx) pushMessage(L *lua.LState, msg *mpi.Message) {
	L.Push(&lua.LUserData{Value: msg, Env: L.Env, Metatable: rk.h.sh.msgMT})
}

func checkMessage(L *lua.LState, i int, fname string) *mpi.Message {
	return userArg[*mpi.Message](L, i, fname, "a message handle (from mpi.mprobe or mpi.improbe)")
}

// mrecv is mpi.mrecv(msg) -> data, status, and msg:recv().
func (rk *rankCtx) mrecv(L *lua.LState) int {
	v, st, err := rk.r.Mrecv(checkMessage(L, 1, "mrecv"))
	check(L, "mrecv", err)
	L.Push(Decode(L, v.Data))
	rk.pushStatus(L, st, 2)
	return 2
}

// imrecv is mpi.imrecv(msg) -> req, and msg:irecv().
func (rk *rankCtx) imrecv(L *lua.LState) int {
	q, err := rk.r.Imrecv(checkMessage(L, 1, "imrecv"))
	check(L, "imrecv", err)
	rk.pushRequest(L, q)
	return 1
}

// cancel is mpi.cancel(req) and req:cancel().
func (rk *rankCtx) cancel(L *lua.LState) int {
	check(L, "cancel", rk.r.Cancel(checkRequest(L, 1, "cancel")))
	return 0
}

// start is mpi.start(req) and req:start().
func (rk *rankCtx) start(L *lua.LState) int {
	check(L, "start", rk.r.Start(checkRequest(L, 1, "start")))
	return 0
}

func (rk *rankCtx) startall(L *lua.LState) int {
	check(L, "startall", rk.r.Startall(checkRequests(L, 1, "startall")))
	return 0
}

// cartNeighborAllgather is cart:neighbor_allgather(value) -> t: what each
// neighbour sent, for each dimension the one a step down then the one a
// step up; nil where there is none. t.n is their number, 2 per dimension.
func (rk *rankCtx) cartNeighborAllgather(L *lua.LState, cc *cartComm) int {
	vs, err := mpi.NeighborAllgather(cc.c, cc.g, cartValue(L, 2, "neighbor_allgather"))
	checkCartCall(L, "neighbor_allgather", err)
	L.Push(valuesTable(L, vs))
	return 1
}

// cartNeighborAlltoall is cart:neighbor_alltoall(t) -> t: t[i] goes to
// neighbour i (order as neighbor_allgather's), and what neighbour i sent
// comes back at i.
func (rk *rankCtx) cartNeighborAlltoall(L *lua.LState, cc *cartComm) int {
	const fname = "neighbor_alltoall"
	n := 2 * cc.g.NDims()
	t, ok := L.Get(2).(*lua.LTable)
	if !ok {
		L.RaiseError("cart:%s: want a table with one value per neighbour (%d: 2 per dimension), got %s", fname, n, L.Get(2).Type())
	}
	if got := count(t); got != n {
		L.RaiseError("cart:%s: table has %d values, want %d (2 per dimension, %d dimensions)", fname, got, n, cc.g.NDims())
	}
	out := make([]mpi.Value, n)
	for k := range out {
		p, size, err := Encode(t.RawGetInt(k + 1))
		if err != nil {
			L.RaiseError("cart:%s: value for neighbour %d: %s", fname, k+1, err.Error())
		}
		out[k] = mpi.Value{Data: p, Size: size}
	}
	vs, err := mpi.NeighborAlltoall(cc.c, cc.g, out)
	checkCartCall(L, fname, err)
	L.Push(valuesTable(L, vs))
	return 1
}

// cartValue encodes argument i of cart:fname as a payload.
func cartValue(L *lua.LState, i int, fname string) mpi.Value {
	p, size, err := Encode(L.Get(i))
	if err != nil {
		L.RaiseError("cart:%s: %s", fname, err.Error())
	}
	return mpi.Value{Data: p, Size: size}
}

func checkCartCall(L *lua.LState, fname string, err error) {
	if err != nil {
		if _, ok := err.(*mpi.MismatchError); ok {
			L.RaiseError("%s", err.Error())
		}
		L.RaiseError("cart:%s: %s", fname, err.Error())
	}
}

// notCart is comm:fname on a communicator without a grid: an error that
// says so (checkCart raises it).
func (h *Host) notCart(fname string) lua.LGFunction {
	return func(L *lua.LState) int {
		checkCart(L, fname)
		return 0
	}
}

// buildMPI3 adds the module functions and methods of this file that are
// not communicator functions, and the metatable of message handles.
func (h *Host) buildMPI3(mod, meth, req map[string]lua.LGFunction) {
	for k, f := range map[string]func(*rankCtx, *lua.LState) int{
		"mrecv": (*rankCtx).mrecv, "imrecv": (*rankCtx).imrecv, "cancel": (*rankCtx).cancel,
		"start": (*rankCtx).start, "startall": (*rankCtx).startall,
	} {
		mod[k] = h.bind(f)
	}
	for _, k := range []string{"neighbor_allgather", "neighbor_alltoall"} {
		meth[k] = h.notCart(k)
	}
	req["cancel"], req["start"] = h.bind((*rankCtx).cancel), h.bind((*rankCtx).start)

	mt := newTable()
	methods := funcTable(map[string]lua.LGFunction{"recv": h.bind((*rankCtx).mrecv), "irecv": h.bind((*rankCtx).imrecv)})
	suggestMPI4py(methods, "msg:", "method")
	mt.RawSetString("__index", methods)
	mt.RawSetString("__tostring", gfunc(func(L *lua.LState) int {
		m := checkMessage(L, 1, "tostring")
		st := m.Status()
		state := ""
		if m.Received() {
			state = ", received"
		}
		L.Push(lua.LString(fmt.Sprintf("mpi.message(source=%d, tag=%d, bytes=%d%s)", st.Source, st.Tag, st.Bytes, state)))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString(messageTypeName))
	h.sh.msgMT = mt
}
