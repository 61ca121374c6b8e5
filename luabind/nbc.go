package luabind

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/mpi"
	"github.com/bglua/bglua/observe"
	"github.com/bglua/bglua/runtime"
)

// Nonblocking collectives: mpi.ibarrier() ... mpi.iexscan(value [, op]), and
// as communicator methods. Each reads its arguments as its blocking form
// does and returns a request (mpi/nbc.go runs it); mpi.wait and friends give
// what the blocking form returns.
//
// A rank's collective runs on a progress context of the rank (its own
// process), unless the bcs runtime carries it out itself (mpi/nbc.go). The context may run Lua code of the rank: a Lua operator, or a
// Lua algorithm registered with mpi.coll.register and in force for the
// collective. It does so on a thread of the rank's state of its own
// (progressThread), never on the thread the rank is parked in, and the
// rank's bindings follow the context that runs (mpi.World.OnSwitch sets
// rankCtx.r): only one process of a partition runs at a time, so the state
// is never used by two at once, and a context that blocks inside Lua (a Lua
// algorithm's wait) parks on its own thread's stack.

var nbcFuncs = map[string]commFunc{
	"ibarrier":        (*rankCtx).ibarrier,
	"ibcast":          (*rankCtx).ibcast,
	"ireduce":         (*rankCtx).ireduce,
	"iallreduce":      (*rankCtx).iallreduce,
	"igather":         (*rankCtx).igather,
	"igatherv":        (*rankCtx).igatherv,
	"iscatter":        (*rankCtx).iscatter,
	"iscatterv":       (*rankCtx).iscatter,
	"iallgather":      (*rankCtx).iallgather,
	"iallgatherv":     (*rankCtx).iallgatherv,
	"ialltoall":       (*rankCtx).ialltoall,
	"ialltoallv":      (*rankCtx).ialltoall,
	"ireduce_scatter": (*rankCtx).ireduceScatter,
	"iscan":           (*rankCtx).iscan,
	"iexscan":         (*rankCtx).iexscan,
}

func init() {
	for k, f := range nbcFuncs {
		commFuncs[k] = f
	}
}

// started pushes the request of a nonblocking collective, or raises its
// error.
func (rk *rankCtx) started(L *lua.LState, fname string, q *mpi.Request, err error) int {
	check(L, fname, err)
	rk.pushRequest(L, q)
	return 1
}

func (rk *rankCtx) ibarrier(L *lua.LState, c *mpi.Comm, a int) int {
	q, err := mpi.Ibarrier(c)
	return rk.started(L, "ibarrier", q, err)
}

// bcastArgs reads (data [, root]) of mpi.fname: the data at the root only.
func bcastArgs(L *lua.LState, c *mpi.Comm, a int, fname string) (mpi.Value, int) {
	root := optMPIIntArg(L, a+1, 0, "mpi.", fname, "root")
	var v mpi.Value
	if c.Rank() == root {
		v = value(L, a, fname)
	}
	return v, root
}

// scatterArgs reads (t [, root]) of mpi.fname: t at the root only.
func scatterArgs(L *lua.LState, c *mpi.Comm, a int, fname string) ([]mpi.Value, int) {
	root := optMPIIntArg(L, a+1, 0, "mpi.", fname, "root")
	var vs []mpi.Value
	if c.Rank() == root {
		vs = values(L, a, c, fname)
	}
	return vs, root
}

func (rk *rankCtx) ibcast(L *lua.LState, c *mpi.Comm, a int) int {
	v, root := bcastArgs(L, c, a, "ibcast")
	q, err := mpi.Ibcast(c, v, root)
	return rk.started(L, "ibcast", q, err)
}

func (rk *rankCtx) ireduce(L *lua.LState, c *mpi.Comm, a int) int {
	v := value(L, a, "ireduce")
	op := rk.op(L, a+1, "ireduce")
	q, err := mpi.Ireduce(c, v, op, optIntArg(L, a+2, 0, "mpi.ireduce", "root"))
	return rk.started(L, "ireduce", q, err)
}

func (rk *rankCtx) iallreduce(L *lua.LState, c *mpi.Comm, a int) int {
	v := value(L, a, "iallreduce")
	q, err := mpi.Iallreduce(c, v, rk.op(L, a+1, "iallreduce"))
	return rk.started(L, "iallreduce", q, err)
}

func (rk *rankCtx) igather(L *lua.LState, c *mpi.Comm, a int) int {
	q, err := mpi.Igather(c, value(L, a, "igather"), optIntArg(L, a+1, 0, "mpi.igather", "root"), false)
	return rk.started(L, "igather", q, err)
}

func (rk *rankCtx) igatherv(L *lua.LState, c *mpi.Comm, a int) int {
	q, err := mpi.Igather(c, value(L, a, "igatherv"), optIntArg(L, a+1, 0, "mpi.igatherv", "root"), true)
	return rk.started(L, "igatherv", q, err)
}

func (rk *rankCtx) iscatter(L *lua.LState, c *mpi.Comm, a int) int {
	vs, root := scatterArgs(L, c, a, "iscatter")
	q, err := mpi.Iscatter(c, vs, root)
	return rk.started(L, "iscatter", q, err)
}

func (rk *rankCtx) iallgather(L *lua.LState, c *mpi.Comm, a int) int {
	q, err := mpi.Iallgather(c, value(L, a, "iallgather"), false)
	return rk.started(L, "iallgather", q, err)
}

func (rk *rankCtx) iallgatherv(L *lua.LState, c *mpi.Comm, a int) int {
	q, err := mpi.Iallgather(c, value(L, a, "iallgatherv"), true)
	return rk.started(L, "iallgatherv", q, err)
}

func (rk *rankCtx) ialltoall(L *lua.LState, c *mpi.Comm, a int) int {
	q, err := mpi.Ialltoall(c, values(L, a, c, "ialltoall"))
	return rk.started(L, "ialltoall", q, err)
}

func (rk *rankCtx) ireduceScatter(L *lua.LState, c *mpi.Comm, a int) int {
	vs := values(L, a, c, "ireduce_scatter")
	q, err := mpi.IreduceScatter(c, vs, rk.op(L, a+1, "ireduce_scatter"))
	return rk.started(L, "ireduce_scatter", q, err)
}

func (rk *rankCtx) iscan(L *lua.LState, c *mpi.Comm, a int) int {
	q, err := mpi.Iscan(c, value(L, a, "iscan"), rk.op(L, a+1, "iscan"))
	return rk.started(L, "iscan", q, err)
}

func (rk *rankCtx) iexscan(L *lua.LState, c *mpi.Comm, a int) int {
	q, err := mpi.Iexscan(c, value(L, a, "iexscan"), rk.op(L, a+1, "iexscan"))
	return rk.started(L, "iexscan", q, err)
}

// progressModel is mpi.progress_model(): who progresses this rank's
// nonblocking collectives, "coprocessor" or "inline" (the model in force:
// inline where there is no coprocessor).
func (rk *rankCtx) progressModel(L *lua.LState) int {
	L.Push(lua.LString(rk.r.Home().ProgressModel().String()))
	return 1
}

// pushCollResult pushes what q, the request of a nonblocking collective,
// gives once complete, as its blocking form returns it, and a nil status.
func pushCollResult(L *lua.LState, q *mpi.Request) {
	if err := q.Err(); err != nil {
		if _, ok := err.(*mpi.MismatchError); ok {
			L.RaiseError("%s", err.Error())
		}
		L.RaiseError("mpi.%s: %s", q.Collective(), err.Error())
	}
	v, vs, many := q.Result()
	if many {
		pushValues(L, vs)
	} else {
		L.Push(Decode(L, v.Data))
	}
	L.Push(lua.LNil)
}

// progressThread is the thread of the rank's state that progress context x
// runs Lua code on, made on first use and kept with the context.
func (rk *rankCtx) progressThread(x *mpi.Rank) *lua.LState {
	if th, ok := x.Ext.(*lua.LState); ok {
		return th
	}
	th, _ := rk.L.NewThread()
	x.Ext = th
	return th
}

// luaThread is the thread Lua code called from Go runs on for the context
// that runs now: L, or a progress context's own thread.
func (rk *rankCtx) luaThread(L *lua.LState) *lua.LState {
	if rk.r.IsProgress() {
		return rk.progressThread(rk.r)
	}
	return L
}

// call calls the function under nargs arguments on L's stack with nret
// results, as L.Call. On a progress context's thread there is no Lua code
// of the rank's below to take an error: it comes back as an error (the
// collective's, raised where the rank waits for it).
func (rk *rankCtx) call(L *lua.LState, nargs, nret int) error {
	if !rk.r.IsProgress() {
		L.Call(nargs, nret)
		return nil
	}
	if err := L.PCall(nargs, nret, nil); err != nil {
		if ae, ok := err.(*lua.ApiError); ok {
			return fmt.Errorf("%s", ErrorObjectString(ae.Object))
		}
		return err
	}
	return nil
}

// followContexts makes the rank's bindings follow the context that runs,
// and, with statistics or a trace, counts and draws each nonblocking
// collective when it completes: a row "mpi.iallreduce (ring)" from its
// start to its end, the calls a Lua algorithm made in it nested under it,
// a slice on the progress context's own track.
func (h *Host) followContexts() {
	h.W.OnSwitch = func(r *mpi.Rank) {
		if rk, ok := r.Home().Ext.(*rankCtx); ok {
			rk.r = r
		}
	}
	if !h.opt.Stats && h.opt.Trace == nil {
		return
	}
	h.W.OnCollective = func(x *mpi.Rank, track int, coll, alg string, start runtime.Time, bytes int64) {
		end := x.Now()
		name := "mpi." + coll
		if h.opt.Stats {
			h.nestedStat(x.Part(), statKey{name: name, alg: alg}).Add(end-start, bytes)
		}
		if tr := h.opt.Trace; tr != nil {
			tr.ProgressSlice(name, x.ID, track, start, end, observe.CallArgs{Bytes: bytes, Algorithm: alg})
		}
	}
}
