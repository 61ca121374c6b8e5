package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/mpi"
)

// The collective network and the global interrupt network, used directly:
// whole-partition operations of every rank of the job (mpi.Rank.TreeBcast,
// TreeAllreduce, GIBarrier). They never fall back to point-to-point: what
// the hardware cannot do is an error.

// mlTreeBcast: ml.tree_bcast(data, root) returns root's data on every rank.
func (rk *rankCtx) mlTreeBcast(L *lua.LState) int {
	root := intArg(L, 2, "ml.tree_bcast", "root")
	var v mpi.Value
	if root == rk.r.ID {
		p, size, err := Encode(L.Get(1))
		if err != nil {
			L.RaiseError("ml.tree_bcast: %s", err.Error())
		}
		v = mpi.Value{Data: p, Size: size}
	}
	got, err := rk.r.TreeBcast(v, root)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	L.Push(Decode(L, got.Data))
	return 1
}

// mlTreeReduce: ml.tree_reduce(value, op) combines every rank's value on the
// network's ALU and returns the result on every rank. op is a predefined
// operator the ALU can do (every one but mpi.PROD); value a number, an array
// of numbers or mpi.bytes(n).
func (rk *rankCtx) mlTreeReduce(L *lua.LState) int {
	var op mpi.Op
	switch o := L.Get(2).(type) {
	case *lua.LUserData:
		op, _ = o.Value.(mpi.Op)
	case *lua.LFunction:
		L.RaiseError("ml.tree_reduce: the collective network cannot run a Lua function (its ALU adds, compares and does bitwise logic); use mpi.allreduce")
	}
	if op == nil {
		L.RaiseError("ml.tree_reduce: argument 2 is %s, want an operator (mpi.SUM, mpi.MAX, ...)", L.Get(2).Type())
	}
	p, size, err := Encode(L.Get(1))
	if err != nil {
		L.RaiseError("ml.tree_reduce: %s", err.Error())
	}
	got, err := rk.r.TreeAllreduce(mpi.Value{Data: p, Size: size}, op)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	L.Push(Decode(L, got.Data))
	return 1
}

// mlGIBarrier: ml.gi_barrier() returns once every rank of the job has
// called it.
func (rk *rankCtx) mlGIBarrier(L *lua.LState) int {
	if err := rk.r.GIBarrier(); err != nil {
		L.RaiseError("%s", err.Error())
	}
	return 0
}
