package luabind

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/mpi"
)

const (
	commTypeName    = "mpi.comm"
	requestTypeName = "mpi.request"
	opTypeName      = "mpi.op"
)

// commFunc is a binding that works on a communicator: mpi.f(...) on
// COMM_WORLD, comm:f(...) on comm. a is the stack index of the first argument.
type commFunc func(rk *rankCtx, L *lua.LState, c *mpi.Comm, a int) int

var commFuncs = map[string]commFunc{
	"rank":           func(rk *rankCtx, L *lua.LState, c *mpi.Comm, a int) int { L.Push(lua.LNumber(c.Rank())); return 1 },
	"size":           func(rk *rankCtx, L *lua.LState, c *mpi.Comm, a int) int { L.Push(lua.LNumber(c.Size())); return 1 },
	"send":           (*rankCtx).send,
	"recv":           (*rankCtx).recv,
	"isend":          (*rankCtx).isend,
	"irecv":          (*rankCtx).irecv,
	"sendrecv":       (*rankCtx).sendrecv,
	"probe":          (*rankCtx).probe,
	"iprobe":         (*rankCtx).iprobe,
	"ssend":          (*rankCtx).ssend,
	"issend":         (*rankCtx).issend,
	"mprobe":         (*rankCtx).mprobe,
	"improbe":        (*rankCtx).improbe,
	"send_init":      (*rankCtx).sendInit,
	"recv_init":      (*rankCtx).recvInit,
	"barrier":        (*rankCtx).barrier,
	"bcast":          (*rankCtx).bcast,
	"reduce":         (*rankCtx).reduce,
	"allreduce":      (*rankCtx).allreduce,
	"gather":         (*rankCtx).gather,
	"gatherv":        (*rankCtx).gatherv,
	"allgather":      (*rankCtx).allgather,
	"allgatherv":     (*rankCtx).allgatherv,
	"scatter":        (*rankCtx).scatter,
	"scatterv":       (*rankCtx).scatter,
	"alltoall":       (*rankCtx).alltoall,
	"alltoallv":      (*rankCtx).alltoall,
	"reduce_scatter": (*rankCtx).reduceScatter,
	"scan":           (*rankCtx).scan,
	"exscan":         (*rankCtx).exscan,
	"split":          (*rankCtx).split,
	"dup":            (*rankCtx).dup,
	"world_rank":     (*rankCtx).worldRank,
	"torus_coords":   (*rankCtx).commCoords,
	"torus_bounds":   (*rankCtx).commBounds,
}

// memberArg reads argument i of mpi.fname (comm:fname), a rank of c (c's own
// rank when absent).
func memberArg(L *lua.LState, c *mpi.Comm, i int, fname string) int {
	if L.Get(i) == lua.LNil {
		return c.Rank()
	}
	r := mpiIntArg(L, i, "mpi.", fname, "rank")
	if r < 0 || r >= c.Size() {
		L.RaiseError("mpi.%s: rank %d out of range 0..%d of %s", fname, r, c.Size()-1, c.Name)
	}
	return r
}

// worldRank is comm:world_rank([r]): the COMM_WORLD rank of member r.
func (rk *rankCtx) worldRank(L *lua.LState, c *mpi.Comm, a int) int {
	L.Push(lua.LNumber(c.World(memberArg(L, c, a, "world_rank"))))
	return 1
}

// commCoords is comm:torus_coords([r]): member r's node x, y, z and its slot t.
func (rk *rankCtx) commCoords(L *lua.LState, c *mpi.Comm, a int) int {
	p := rk.h.W.Layer().Map.Coord(c.World(memberArg(L, c, a, "torus_coords")))
	for _, v := range []int{p.X, p.Y, p.Z, p.T} {
		L.Push(lua.LNumber(v))
	}
	return 4
}

// commBounds is comm:torus_bounds(): the smallest box of nodes that holds every
// member, as x, y, z of its low corner and of its high corner.
func (rk *rankCtx) commBounds(L *lua.LState, c *mpi.Comm, a int) int {
	mp := rk.h.W.Layer().Map
	lo := mp.Coord(c.World(0))
	hi := lo
	for r := 1; r < c.Size(); r++ {
		p := mp.Coord(c.World(r))
		lo.X, lo.Y, lo.Z = min(lo.X, p.X), min(lo.Y, p.Y), min(lo.Z, p.Z)
		hi.X, hi.Y, hi.Z = max(hi.X, p.X), max(hi.Y, p.Y), max(hi.Z, p.Z)
	}
	for _, v := range []int{lo.X, lo.Y, lo.Z, hi.X, hi.Y, hi.Z} {
		L.Push(lua.LNumber(v))
	}
	return 6
}

// buildMPI builds the shared mpi table and the metatables of communicators,
// requests and operators.
func (h *Host) buildMPI() {
	sh := h.sh
	mod := map[string]lua.LGFunction{}
	meth := map[string]lua.LGFunction{}
	for name, f := range commFuncs {
		f, name := f, name
		mod[name] = func(L *lua.LState) int {
			rk := h.rankOf(L)
			return f(rk, L, rk.r.World, 1)
		}
		meth[name] = func(L *lua.LState) int {
			rk := h.rankOf(L)
			return f(rk, L, rk.checkComm(L, 1, name), 2)
		}
	}
	reqFuncs := map[string]lua.LGFunction{"wait": h.bind((*rankCtx).wait), "test": h.bind((*rankCtx).test)}
	h.buildMPI3(mod, meth, reqFuncs)
	cartCreate, dimsCreate := h.buildCart(meth)
	sh.commMT = newTable()
	methods := funcTable(meth)
	suggestMPI4py(methods, "comm:", "method")
	sh.commMT.RawSetString("__index", methods)
	sh.commMT.RawSetString("__tostring", gfunc(h.bind(func(rk *rankCtx, L *lua.LState) int {
		c := rk.checkComm(L, 1, "tostring")
		L.Push(lua.LString(fmt.Sprintf("mpi.comm(%s, rank %d of %d)", c.Name, c.Rank(), c.Size())))
		return 1
	})))
	sh.commMT.RawSetString("__metatable", lua.LString(commTypeName))

	sh.reqMT = newTable()
	reqMethods := funcTable(reqFuncs)
	suggestMPI4py(reqMethods, "req:", "method")
	sh.reqMT.RawSetString("__index", reqMethods)
	sh.reqMT.RawSetString("__metatable", lua.LString(requestTypeName))

	sh.statusMT = newTable()
	sh.statusMT.RawSetString("__index", gfunc(statusIndex))
	sh.statusMT.RawSetString("__tostring", gfunc(statusString))
	sh.statusMT.RawSetString("__metatable", lua.LString("mpi.status"))

	sh.opMT = newTable()
	sh.opMT.RawSetString("__tostring", gfunc(func(L *lua.LState) int {
		L.Push(lua.LString("mpi." + L.CheckUserData(1).Value.(mpi.Op).Name()))
		return 1
	}))
	sh.opMT.RawSetString("__call", gfunc(h.bind((*rankCtx).opCall)))
	sh.opMT.RawSetString("__metatable", lua.LString(opTypeName))

	for k, f := range map[string]func(*rankCtx, *lua.LState) int{
		"wait": (*rankCtx).wait, "waitall": (*rankCtx).waitall, "waitany": (*rankCtx).waitany,
		"test": (*rankCtx).test, "testall": (*rankCtx).testall, "wtime": (*rankCtx).wtime,
		"cycles": (*rankCtx).cycles, "compute": (*rankCtx).compute, "abort": (*rankCtx).abort,
		"bytes": (*rankCtx).bytes, "trace_begin": (*rankCtx).traceBegin, "trace_end": (*rankCtx).traceEnd,
		"progress_model": (*rankCtx).progressModel,
	} {
		mod[k] = h.bind(f)
	}
	mod["cart_create"], mod["dims_create"] = cartCreate, dimsCreate
	t := funcTable(mod)
	t.RawSetString("coll", h.buildColl())
	consts := []struct {
		k string
		v lua.LValue
	}{
		{"ANY_SOURCE", lua.LNumber(mpi.AnySource)},
		{"ANY_TAG", lua.LNumber(mpi.AnyTag)},
		{"PROC_NULL", lua.LNumber(mpi.ProcNull)},
		{"UNDEFINED", lua.LNumber(mpi.Undefined)},
	}
	for _, c := range consts {
		t.RawSetString(c.k, c.v)
	}
	for _, op := range mpi.Builtins {
		t.RawSetString(op.Name(), &lua.LUserData{Value: mpi.Op(op), Env: newTable(), Metatable: sh.opMT})
	}
	// One COMM_WORLD for all ranks: checkComm resolves it to the caller's.
	suggestMPI4py(t, "mpi.", "function")
	sh.world = &lua.LUserData{Value: worldComm{}, Env: newTable(), Metatable: sh.commMT}
	t.RawSetString("COMM_WORLD", sh.world)
	sh.addLib("mpi", t)
}

func (rk *rankCtx) newComm(L *lua.LState, c *mpi.Comm) *lua.LUserData {
	return &lua.LUserData{Value: c, Env: L.Env, Metatable: rk.h.sh.commMT}
}

// worldComm marks the shared COMM_WORLD userdata.
type worldComm struct{}

func (rk *rankCtx) checkComm(L *lua.LState, i int, fname string) *mpi.Comm {
	if c := rk.commOf(L.Get(i)); c != nil {
		return c
	}
	L.RaiseError("comm:%s: called on %s, not a communicator (use comm:%s(...), not comm.%s(...))", fname, L.Get(i).Type(), fname, fname)
	return nil
}

// value encodes argument i as a payload; nil is an empty message.
func value(L *lua.LState, i int, fname string) mpi.Value {
	p, size, err := Encode(L.Get(i))
	if err != nil {
		L.RaiseError("mpi.%s: %s", fname, err.Error())
	}
	return mpi.Value{Data: p, Size: size}
}

// values encodes a Lua array with one value per rank of c. Its length is t.n
// if set, else its largest integer key, so values at the end may be nil.
func values(L *lua.LState, i int, c *mpi.Comm, fname string) []mpi.Value {
	t, ok := L.Get(i).(*lua.LTable)
	if !ok {
		L.RaiseError("mpi.%s: want a table with one value per rank, got %s", fname, L.Get(i).Type())
	}
	if n := count(t); n != c.Size() {
		L.RaiseError("mpi.%s: table has %d values, want %d (one per rank of %s)", fname, n, c.Size(), c.Name)
	}
	vs := make([]mpi.Value, c.Size())
	for k := range vs {
		p, size, err := Encode(t.RawGetInt(k + 1))
		if err != nil {
			L.RaiseError("mpi.%s: value for rank %d: %s", fname, k, err.Error())
		}
		vs[k] = mpi.Value{Data: p, Size: size}
	}
	return vs
}

func pushValues(L *lua.LState, vs []mpi.Value) {
	if vs == nil {
		L.Push(lua.LNil)
		return
	}
	L.Push(valuesTable(L, vs))
}

// optInt reads optional argument i of mpi.fname, named what, as an integer.
func optInt(L *lua.LState, i, def int, fname, what string) int {
	return optMPIIntArg(L, i, def, "mpi.", fname, what)
}

// sendTag reads the tag of a send: absent is 0; a tag is never negative
// (mpi.ANY_TAG is for receives only).
func sendTag(L *lua.LState, i int, fname, what string) int {
	t := optInt(L, i, 0, fname, what)
	if t < 0 {
		L.RaiseError("mpi.%s: %s must be 0 or more, got %d (mpi.ANY_TAG is for receives)", fname, what, t)
	}
	return t
}

// recvTag reads the tag of a receive or probe: absent is mpi.ANY_TAG.
func recvTag(L *lua.LState, i int, fname, what string) int {
	t := optInt(L, i, mpi.AnyTag, fname, what)
	if t < 0 && t != mpi.AnyTag {
		L.RaiseError("mpi.%s: %s must be 0 or more or mpi.ANY_TAG, got %d", fname, what, t)
	}
	return t
}

func check(L *lua.LState, fname string, err error) {
	if err != nil {
		if _, ok := err.(*mpi.MismatchError); ok { // names its collective itself
			L.RaiseError("%s", err.Error())
		}
		L.RaiseError("mpi.%s: %s", fname, err.Error())
	}
}

// statusFields are the fields of a status table, kept in its array part:
// a table with string keys costs gopher-lua two Go maps, which made status
// tables the largest cost of a receive. st.source, st.tag and st.bytes read
// through the shared metatable; assigning a field works as on any table.
var statusFields = map[string]int{"source": 1, "tag": 2, "bytes": 3}

// The status is result number pos of the binding: a caller that takes fewer
// results (local v = mpi.recv(src)) gets no table built, only a nil pushed
// in its place.
func (rk *rankCtx) pushStatus(L *lua.LState, st mpi.Status, pos int) {
	if !wants(L, pos) {
		L.Push(lua.LNil)
		return
	}
	t := L.CreateTable(3, 0)
	t.RawSetInt(1, lua.LNumber(st.Source))
	t.RawSetInt(2, lua.LNumber(st.Tag))
	t.RawSetInt(3, lua.LNumber(st.Bytes))
	t.Metatable = rk.h.sh.statusMT
	L.Push(t)
}

// wants reports whether the caller of the running binding takes its result
// number pos.
func wants(L *lua.LState, pos int) bool {
	n := L.Results()
	return n == lua.MultRet || n >= pos
}

func statusIndex(L *lua.LState) int {
	t := L.CheckTable(1)
	if i, ok := statusFields[L.OptString(2, "")]; ok {
		L.Push(t.RawGetInt(i))
		return 1
	}
	L.Push(lua.LNil)
	return 1
}

func statusString(L *lua.LState) int {
	t := L.CheckTable(1)
	c := ""
	if lua.LVAsBool(t.RawGetString("cancelled")) {
		c = ", cancelled=true"
	}
	L.Push(lua.LString(fmt.Sprintf("mpi.status{source=%v, tag=%v, bytes=%v%s}", t.RawGetInt(1), t.RawGetInt(2), t.RawGetInt(3), c)))
	return 1
}

func (rk *rankCtx) send(L *lua.LState, c *mpi.Comm, a int) int {
	v, dest, tag := sendArgs(L, a, "send")
	check(L, "send", c.Send(v, dest, tag))
	return 0
}

// sendArgs reads the arguments of mpi.fname, a send: data, dest [, tag].
func sendArgs(L *lua.LState, a int, fname string) (v mpi.Value, dest, tag int) {
	return value(L, a, fname), mpiIntArg(L, a+1, "mpi.", fname, "dest"), sendTag(L, a+2, fname, "tag")
}

// startSend binds mpi.fname, a send that returns a request (isend, issend,
// send_init).
func (rk *rankCtx) startSend(L *lua.LState, c *mpi.Comm, a int, fname string, f func(*mpi.Comm, mpi.Value, int, int) (*mpi.Request, error)) int {
	v, dest, tag := sendArgs(L, a, fname)
	q, err := f(c, v, dest, tag)
	check(L, fname, err)
	rk.pushRequest(L, q)
	return 1
}

// startRecv binds mpi.fname([source [, tag]]), a receive that returns a
// request (irecv, recv_init).
func (rk *rankCtx) startRecv(L *lua.LState, c *mpi.Comm, a int, fname string, f func(*mpi.Comm, int, int) (*mpi.Request, error)) int {
	q, err := f(c, optInt(L, a, mpi.AnySource, fname, "source"), recvTag(L, a+1, fname, "tag"))
	check(L, fname, err)
	rk.pushRequest(L, q)
	return 1
}

func (rk *rankCtx) recv(L *lua.LState, c *mpi.Comm, a int) int {
	v, st, err := c.Recv(optInt(L, a, mpi.AnySource, "recv", "source"), recvTag(L, a+1, "recv", "tag"))
	check(L, "recv", err)
	L.Push(Decode(L, v.Data))
	rk.pushStatus(L, st, 2)
	return 2
}

// sendHandle and recvHandle are a request's Lua handle and the request in
// one allocation (mpi.SendSlot).
type sendHandle struct {
	ud lua.LUserData
	s  mpi.SendSlot
}

type recvHandle struct {
	ud lua.LUserData
	s  mpi.RecvSlot
}

func (rk *rankCtx) isend(L *lua.LState, c *mpi.Comm, a int) int {
	v, dest, tag := sendArgs(L, a, "isend")
	h := &sendHandle{}
	q, err := c.IsendIn(&h.s, v, dest, tag)
	check(L, "isend", err)
	rk.pushRequestIn(L, &h.ud, q)
	return 1
}

func (rk *rankCtx) irecv(L *lua.LState, c *mpi.Comm, a int) int {
	h := &recvHandle{}
	q, err := c.IrecvIn(&h.s, optInt(L, a, mpi.AnySource, "irecv", "source"), recvTag(L, a+1, "irecv", "tag"))
	check(L, "irecv", err)
	rk.pushRequestIn(L, &h.ud, q)
	return 1
}

// sendrecv is mpi.sendrecv(data, dest [, source [, sendtag [, recvtag]]]),
// MPI_Sendrecv's order, or mpi.sendrecv{data=, dest=, source=, sendtag=,
// recvtag=, comm=}, mpi4py's keywords. An absent source is mpi.ANY_SOURCE,
// as in mpi4py.
func (rk *rankCtx) sendrecv(L *lua.LState, c *mpi.Comm, a int) int {
	if t, ok := L.Get(a).(*lua.LTable); ok && L.GetTop() == a {
		c = rk.sendrecvKeywords(L, t, c, a)
	}
	v := value(L, a, "sendrecv")
	got, st, err := c.Sendrecv(v, intArg(L, a+1, "mpi.sendrecv", "dest"), sendTag(L, a+3, "sendrecv", "sendtag"),
		optInt(L, a+2, mpi.AnySource, "sendrecv", "source"), recvTag(L, a+4, "sendrecv", "recvtag"))
	check(L, "sendrecv", err)
	L.Push(Decode(L, got.Data))
	rk.pushStatus(L, st, 2)
	return 2
}

// sendrecvKeys are the keys of mpi.sendrecv{...}, in the order of the
// positional arguments (comm aside).
var sendrecvKeys = []string{"data", "dest", "source", "sendtag", "recvtag"}

// sendrecvKeywords puts the fields of mpi.sendrecv's keyword table t (at
// stack index a) on the stack as positional arguments and returns the
// communicator: its comm key, else c.
func (rk *rankCtx) sendrecvKeywords(L *lua.LState, t *lua.LTable, c *mpi.Comm, a int) *mpi.Comm {
	const usage = "mpi.sendrecv{data=, dest=, source=, sendtag=, recvtag=, comm=} or mpi.sendrecv(data, dest [, source [, sendtag [, recvtag]]])"
	t.ForEach(func(k, _ lua.LValue) {
		name, ok := k.(lua.LString)
		if ok && name == "comm" {
			return
		}
		for _, key := range sendrecvKeys {
			if ok && string(name) == key {
				return
			}
		}
		L.RaiseError("mpi.sendrecv: key %s is not one of data, dest, source, sendtag, recvtag, comm (a table alone is the keyword form: %s; send a table positionally with its dest)", luaKey(k), usage)
	})
	if t.RawGetString("dest") == lua.LNil {
		L.RaiseError("mpi.sendrecv: the keyword form needs dest (%s)", usage)
	}
	if cv := t.RawGetString("comm"); cv != lua.LNil {
		if a > 1 {
			L.RaiseError("mpi.sendrecv: comm:sendrecv{...} takes its communicator from comm:, not a comm key")
		}
		if c = rk.commOf(cv); c == nil {
			L.RaiseError("mpi.sendrecv: comm is %s, want a communicator (mpi.COMM_WORLD, ...)", cv.Type())
		}
	}
	L.SetTop(a - 1)
	for _, key := range sendrecvKeys {
		L.Push(t.RawGetString(key))
	}
	return c
}

// luaKey writes a table key as Lua code would: a name, "[2]", `["a b"]`.
func luaKey(k lua.LValue) string {
	if s, ok := k.(lua.LString); ok {
		return fmt.Sprintf("%q", string(s))
	}
	return "[" + k.String() + "]"
}

func (rk *rankCtx) probe(L *lua.LState, c *mpi.Comm, a int) int {
	st, err := c.Probe(optInt(L, a, mpi.AnySource, "probe", "source"), recvTag(L, a+1, "probe", "tag"))
	check(L, "probe", err)
	rk.pushStatus(L, st, 1)
	return 1
}

func (rk *rankCtx) iprobe(L *lua.LState, c *mpi.Comm, a int) int {
	ok, st, err := c.Iprobe(optInt(L, a, mpi.AnySource, "iprobe", "source"), recvTag(L, a+1, "iprobe", "tag"))
	check(L, "iprobe", err)
	L.Push(lua.LBool(ok))
	if !ok {
		L.Push(lua.LNil)
	} else {
		rk.pushStatus(L, st, 2)
	}
	return 2
}

func (rk *rankCtx) pushRequest(L *lua.LState, q *mpi.Request) {
	rk.pushRequestIn(L, new(lua.LUserData), q)
}

// pushRequestIn is pushRequest with ud the request's handle.
func (rk *rankCtx) pushRequestIn(L *lua.LState, ud *lua.LUserData, q *mpi.Request) {
	*ud = lua.LUserData{Value: q, Env: L.Env, Metatable: rk.h.sh.reqMT}
	L.Push(ud)
}

func checkRequest(L *lua.LState, i int, fname string) *mpi.Request {
	return userArg[*mpi.Request](L, i, fname, "a request")
}

// userArg is argument i of mpi.fname, a userdata that holds a T; anything
// else is an error that says it is not what.
func userArg[T any](L *lua.LState, i int, fname, what string) T {
	if ud, ok := L.Get(i).(*lua.LUserData); ok {
		if v, ok := ud.Value.(T); ok {
			return v
		}
	}
	L.RaiseError("mpi.%s: argument %d is %s, not %s", fname, i, L.Get(i).Type(), what)
	var none T
	return none
}

func checkRequests(L *lua.LState, i int, fname string) []*mpi.Request {
	t, ok := L.Get(i).(*lua.LTable)
	if !ok {
		L.RaiseError("mpi.%s: want a table of requests, got %s", fname, L.Get(i).Type())
	}
	n := t.Len()
	qs := make([]*mpi.Request, n)
	for k := range qs {
		ud, ok := t.RawGetInt(k + 1).(*lua.LUserData)
		if ok {
			qs[k], ok = ud.Value.(*mpi.Request)
		}
		if !ok {
			L.RaiseError("mpi.%s: element %d is %s, not a request", fname, k+1, t.RawGetInt(k+1).Type())
		}
	}
	return qs
}

// pushResult pushes what a completed request gives: data and status for a
// receive, nothing useful for a send; the status is result number pos.
func (rk *rankCtx) pushResult(L *lua.LState, q *mpi.Request, pos int) {
	if q.Collective() != "" {
		pushCollResult(L, q)
		return
	}
	if err := q.Err(); err != nil {
		L.RaiseError("%s", err.Error())
	}
	if q.IsSend() {
		L.Push(lua.LNil)
		L.Push(lua.LNil)
		return
	}
	L.Push(Decode(L, q.Value.Data))
	rk.pushStatus(L, q.Status, pos)
	if t, ok := L.Get(-1).(*lua.LTable); ok && q.Cancelled() {
		t.RawSetString("cancelled", lua.LTrue)
	}
}

func (rk *rankCtx) wait(L *lua.LState) int {
	q := checkRequest(L, 1, "wait")
	rk.r.Wait(q)
	rk.pushResult(L, q, 2)
	return 2
}

func (rk *rankCtx) test(L *lua.LState) int {
	q := checkRequest(L, 1, "test")
	done := rk.r.Test(q)
	L.Push(lua.LBool(done))
	if !done {
		return 1
	}
	rk.pushResult(L, q, 3)
	return 3
}

func (rk *rankCtx) waitall(L *lua.LState) int {
	qs := checkRequests(L, 1, "waitall")
	rk.r.Waitall(qs)
	rk.pushResults(L, qs, 2)
	return 2
}

// pushResults pushes two arrays of what completed requests give: the data
// and the statuses (nil for sends), one per request; the statuses are
// result number pos (nil if the caller does not take it), the data the one
// before (nil, and nothing decoded, if the caller takes neither).
func (rk *rankCtx) pushResults(L *lua.LState, qs []*mpi.Request, pos int) {
	if !wants(L, pos-1) {
		// The caller takes neither array (mpi.waitall(reqs) as a
		// statement): the requests' errors are all it gets, raised as
		// below, and no data is decoded.
		for _, q := range qs {
			if err := q.Err(); err != nil {
				if q.Collective() != "" {
					pushCollResult(L, q) // raises it as a collective's
				}
				L.RaiseError("%s", err.Error())
			}
		}
		L.Push(lua.LNil)
		L.Push(lua.LNil)
		return
	}
	want := wants(L, pos)
	data := L.CreateTable(len(qs), 0)
	var sts *lua.LTable
	if want {
		sts = L.CreateTable(len(qs), 0)
	}
	for k, q := range qs {
		rk.pushResult(L, q, pos)
		if want {
			sts.RawSetInt(k+1, L.Get(-1))
		}
		data.RawSetInt(k+1, L.Get(-2))
		L.Pop(2)
	}
	L.Push(data)
	if want {
		L.Push(sts)
	} else {
		L.Push(lua.LNil)
	}
}

func (rk *rankCtx) waitany(L *lua.LState) int {
	qs := checkRequests(L, 1, "waitany")
	i := rk.r.Waitany(qs)
	if i < 0 {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LNumber(i + 1))
	rk.pushResult(L, qs[i], 3)
	return 3
}

// testall is mpi4py's Request.testall: false alone while any request is
// pending; once all are complete, true and what mpi.waitall would give,
// the data and the statuses, one per request.
func (rk *rankCtx) testall(L *lua.LState) int {
	qs := checkRequests(L, 1, "testall")
	if !rk.r.Testall(qs) {
		L.Push(lua.LFalse)
		return 1
	}
	L.Push(lua.LTrue)
	rk.pushResults(L, qs, 3)
	return 3
}

func (rk *rankCtx) wtime(L *lua.LState) int {
	L.Push(lua.LNumber(rk.seconds()))
	return 1
}

func (rk *rankCtx) cycles(L *lua.LState) int {
	L.Push(lua.LNumber(rk.r.Clock()))
	return 1
}

// compute(seconds) or compute{cycles=N} or compute{flops=N}.
func (rk *rankCtx) compute(L *lua.LState) int {
	if err := rk.r.Compute(rk.computeCycles(L)); err != nil {
		L.RaiseError("mpi.compute: %s", err.Error())
	}
	return 0
}

// computeCycles reads mpi.compute's argument as cycles (before the
// virtual-node penalty).
func (rk *rankCtx) computeCycles(L *lua.LState) int64 {
	return computeCycles(L, rk.h.W.Machine().ClockHz, rk.h.W.Machine().FlopsPerCycle)
}

func (rk *rankCtx) abort(L *lua.LState) int {
	var msg string
	var code int
	if _, isNum := L.Get(1).(lua.LNumber); isNum && L.GetTop() < 2 {
		// mpi.abort(code), as MPI_Abort and mpi4py's Abort(errorcode).
		msg, code = "aborted", intArg(L, 1, "mpi.abort", "code")
	} else {
		switch v := L.Get(1).(type) {
		case *lua.LNilType:
			msg = "aborted"
		case lua.LString:
			msg = string(v)
		default:
			L.RaiseError("mpi.abort: msg must be a string, got %s (mpi.abort(msg [, code]) or mpi.abort(code))", v.Type())
		}
		code = optIntArg(L, 2, 1, "mpi.abort", "code")
	}
	rk.h.Ends[rk.r.ID] = RankEnd{State: Aborted, Time: rk.r.Now()}
	rk.r.Proc.Engine().Stop(&AbortError{Rank: rk.r.ID, Seconds: rk.seconds(), Msg: msg, Code: code, Where: rk.h.where(L)})
	rk.r.Proc.Exit()
	return 0
}

func (rk *rankCtx) bytes(L *lua.LState) int {
	n := intArg(L, 1, "mpi.bytes", "size")
	if n < 0 {
		L.RaiseError("mpi.bytes: size must not be negative, got %d", n)
	}
	L.Push(NewPhantom(L, n))
	return 1
}

// op reads a reduction operator: one of mpi.SUM... or a Lua function(a, b).
// An absent operator is mpi.SUM, as in mpi4py.
func (rk *rankCtx) op(L *lua.LState, i int, fname string) mpi.Op {
	switch v := L.Get(i).(type) {
	case *lua.LNilType:
		return mpi.SUM
	case *lua.LUserData:
		if op, ok := v.Value.(mpi.Op); ok {
			return op
		}
	case *lua.LFunction:
		return &userOp{L: L, fn: v}
	}
	L.RaiseError("mpi.%s: argument %d is %s, want an operator (mpi.SUM, ...) or a function(a, b)", fname, i, L.Get(i).Type())
	return nil
}

// userOp is a reduction operator written in Lua; it runs in the state of the
// rank that combines, as MPI user operators do.
type userOp struct {
	L  *lua.LState // the thread that called the collective
	fn *lua.LFunction
}

// Name says where the function was written: ranks agree on a Lua operator
// when they pass functions of one prototype (closures of the same function
// expression), as MPI ranks create one MPI_Op from the same function.
func (o *userOp) Name() string {
	if p := o.fn.Proto; p != nil {
		return fmt.Sprintf("function at %s:%d", p.SourceName, p.LineDefined)
	}
	return "Go function"
}

func (o *userOp) Commutative() bool { return false }

func (o *userOp) Combine(a, b mpi.Value) (mpi.Value, error) {
	L := o.L
	rk, _ := L.G.Registry.RawGetInt(rankSlot).(*rankCtx)
	L = rk.luaThread(L) // a nonblocking collective's: its context's thread
	L.Push(o.fn)
	L.Push(Decode(L, a.Data))
	L.Push(Decode(L, b.Data))
	if err := rk.call(L, 2, 1); err != nil {
		return mpi.Value{}, fmt.Errorf("the operator (%s): %v", o.Name(), err)
	}
	v := L.Get(-1)
	L.Pop(1)
	if v == lua.LNil && (a.Data != nil || b.Data != nil) {
		// Most often a forgotten return; a reduction has no use for it.
		return mpi.Value{}, fmt.Errorf("the operator (%s) returned nil for operands that are not both nil (a missing return?)", o.Name())
	}
	p, size, err := Encode(v)
	if err != nil {
		return mpi.Value{}, fmt.Errorf("the operator's result: %v", err)
	}
	return mpi.Value{Data: p, Size: size}, nil
}

func (rk *rankCtx) barrier(L *lua.LState, c *mpi.Comm, a int) int {
	check(L, "barrier", mpi.Barrier(c))
	return 0
}

func (rk *rankCtx) bcast(L *lua.LState, c *mpi.Comm, a int) int {
	v, root := bcastArgs(L, c, a, "bcast")
	got, err := mpi.Bcast(c, v, root)
	check(L, "bcast", err)
	L.Push(Decode(L, got.Data))
	return 1
}

func (rk *rankCtx) reduce(L *lua.LState, c *mpi.Comm, a int) int {
	v := value(L, a, "reduce")
	op := rk.op(L, a+1, "reduce")
	got, err := mpi.Reduce(c, v, op, optIntArg(L, a+2, 0, "mpi.reduce", "root"))
	check(L, "reduce", err)
	L.Push(Decode(L, got.Data))
	return 1
}

func (rk *rankCtx) allreduce(L *lua.LState, c *mpi.Comm, a int) int {
	v := value(L, a, "allreduce")
	got, err := mpi.Allreduce(c, v, rk.op(L, a+1, "allreduce"))
	check(L, "allreduce", err)
	L.Push(Decode(L, got.Data))
	return 1
}

func (rk *rankCtx) gather(L *lua.LState, c *mpi.Comm, a int) int {
	v := value(L, a, "gather")
	vs, err := mpi.Gather(c, v, optIntArg(L, a+1, 0, "mpi.gather", "root"))
	check(L, "gather", err)
	pushValues(L, vs)
	return 1
}

func (rk *rankCtx) gatherv(L *lua.LState, c *mpi.Comm, a int) int {
	v := value(L, a, "gatherv")
	vs, err := mpi.Gatherv(c, v, optIntArg(L, a+1, 0, "mpi.gatherv", "root"))
	check(L, "gatherv", err)
	pushValues(L, vs)
	return 1
}

func (rk *rankCtx) allgather(L *lua.LState, c *mpi.Comm, a int) int {
	vs, err := mpi.AllgatherErr(c, value(L, a, "allgather"))
	check(L, "allgather", err)
	pushValues(L, vs)
	return 1
}

func (rk *rankCtx) allgatherv(L *lua.LState, c *mpi.Comm, a int) int {
	vs, err := mpi.AllgathervErr(c, value(L, a, "allgatherv"))
	check(L, "allgatherv", err)
	pushValues(L, vs)
	return 1
}

func (rk *rankCtx) scatter(L *lua.LState, c *mpi.Comm, a int) int {
	vs, root := scatterArgs(L, c, a, "scatter")
	got, err := mpi.Scatter(c, vs, root)
	check(L, "scatter", err)
	L.Push(Decode(L, got.Data))
	return 1
}

func (rk *rankCtx) alltoall(L *lua.LState, c *mpi.Comm, a int) int {
	vs, err := mpi.Alltoall(c, values(L, a, c, "alltoall"))
	check(L, "alltoall", err)
	pushValues(L, vs)
	return 1
}

func (rk *rankCtx) reduceScatter(L *lua.LState, c *mpi.Comm, a int) int {
	vs := values(L, a, c, "reduce_scatter")
	got, err := mpi.ReduceScatter(c, vs, rk.op(L, a+1, "reduce_scatter"))
	check(L, "reduce_scatter", err)
	L.Push(Decode(L, got.Data))
	return 1
}

func (rk *rankCtx) scan(L *lua.LState, c *mpi.Comm, a int) int {
	got, err := mpi.Scan(c, value(L, a, "scan"), rk.op(L, a+1, "scan"))
	check(L, "scan", err)
	L.Push(Decode(L, got.Data))
	return 1
}

func (rk *rankCtx) exscan(L *lua.LState, c *mpi.Comm, a int) int {
	got, err := mpi.Exscan(c, value(L, a, "exscan"), rk.op(L, a+1, "exscan"))
	check(L, "exscan", err)
	L.Push(Decode(L, got.Data))
	return 1
}

func (rk *rankCtx) split(L *lua.LState, c *mpi.Comm, a int) int {
	color := optInt(L, a, 0, "split", "color")
	if color < 0 && color != mpi.Undefined {
		L.RaiseError("mpi.split: color %d must be >= 0 or mpi.UNDEFINED", color)
	}
	n, err := c.SplitErr(color, optInt(L, a+1, c.Rank(), "split", "key"))
	check(L, "split", err)
	if n == nil {
		L.Push(lua.LNil)
	} else {
		L.Push(rk.newComm(L, n))
	}
	return 1
}

func (rk *rankCtx) dup(L *lua.LState, c *mpi.Comm, a int) int {
	d, err := c.Dup()
	check(L, "dup", err)
	L.Push(rk.newComm(L, d))
	return 1
}
