package mpi

import (
	"fmt"

	"github.com/bglua/bglua/bcs"
)

// The collectives of the bcs runtime (see bcs.go): every member posts its
// part, the runtime schedules the operation in the slice after the last
// post, and the results are computed once, in rank order, as the reference
// algorithms compute them. A reduction with a user operator cannot run on
// the network side (it runs no Lua): it takes the automatic point-to-point
// algorithm over the bcs transport instead, and the run counts the fallback.

const bcsUserOp = "user operator (the network side runs no Lua)"

// compute works out every rank's result and the network work of o.
func (o *bcsOp) compute(job *bcs.Coll) error {
	switch o.coll {
	case "barrier":
		job.Phase = bcs.PhaseBcast
	case "bcast":
		o.one = o.vals[o.root]
		job.Phase, job.Bytes = bcs.PhaseBcast, o.one.Size
	case "reduce", "allreduce":
		acc, err := fold(o.op, o.vals)
		if err != nil {
			return err
		}
		o.one = acc
		job.Phase, job.Bytes, job.Elems, job.AllToo = bcs.PhaseReduce, maxSize(o.vals), Elements(acc), o.coll == "allreduce"
	case "scan", "exscan":
		o.each = make([]Value, o.n)
		var acc Value
		for i, v := range o.vals {
			if o.coll == "exscan" {
				o.each[i] = acc
			}
			if i == 0 {
				acc = v
			} else {
				var err error
				if acc, err = o.op.Combine(acc, v); err != nil {
					return err
				}
			}
			if o.coll == "scan" {
				o.each[i] = acc
			}
		}
		job.Phase, job.Bytes, job.Elems = bcs.PhaseReduce, maxSize(o.vals), Elements(acc)
	case "gather", "allgather":
		o.all = o.vals
		job.Phase, job.Bytes = bcs.PhaseVolume, sumSize(o.vals)
	case "scatter":
		o.each = o.vecs[o.root]
		job.Phase, job.Bytes = bcs.PhaseVolume, sumSize(o.each)
	case "alltoall":
		o.a2a = make([][]Value, o.n)
		most := 0
		for i := range o.a2a {
			row := make([]Value, o.n)
			in := 0
			for j := range row {
				row[j] = o.vecs[j][i]
				in += row[j].Size
			}
			o.a2a[i] = row
			most = max(most, in, sumSize(o.vecs[i]))
		}
		job.Phase, job.Bytes = bcs.PhaseVolume, most
	case "reduce_scatter":
		o.each = make([]Value, o.n)
		most := 0
		for i := range o.each {
			col := make([]Value, o.n)
			for j := range col {
				col[j] = o.vecs[j][i]
			}
			acc, err := fold(o.op, col)
			if err != nil {
				return err
			}
			o.each[i] = acc
			most = max(most, sumSize(o.vecs[i]))
			job.Elems = max(job.Elems, Elements(acc))
		}
		job.Phase, job.Bytes = bcs.PhaseReduce, most
	default:
		return fmt.Errorf("mpi: %s is not a bcs collective", o.coll)
	}
	return nil
}

func fold(op Op, vs []Value) (Value, error) {
	acc := vs[0]
	for _, v := range vs[1:] {
		var err error
		if acc, err = op.Combine(acc, v); err != nil {
			return Value{}, err
		}
	}
	return acc, nil
}

func maxSize(vs []Value) int {
	m := 0
	for _, v := range vs {
		m = max(m, v.Size)
	}
	return m
}

func sumSize(vs []Value) int {
	s := 0
	for _, v := range vs {
		s += v.Size
	}
	return s
}

// bcsUserFallback records that a reduction with a user operator ran over
// point-to-point instead (once per call, at rank 0).
func (c *Comm) bcsUserFallback(coll string, op Op) bool {
	if _, ok := op.(*Builtin); ok {
		return false
	}
	c.noteFallback(coll, "bcs", bcsUserOp)
	if c.rank == 0 {
		c.r.w.tree().record(coll, "bcs", bcsUserOp)
	}
	return true
}

// result is what the call o gives the member of rank rank, as the
// blocking form returns it: one value, or one per rank (gather at the root,
// allgather, alltoall).
func (o *bcsOp) result(rank int) (Value, []Value, error) {
	if o.err != nil {
		return Value{}, nil, o.err
	}
	switch o.coll {
	case "bcast", "allreduce":
		return o.one, nil, nil
	case "reduce":
		if rank == o.root {
			return o.one, nil, nil
		}
	case "gather":
		if rank == o.root {
			return Value{}, append([]Value(nil), o.all...), nil
		}
	case "allgather":
		return Value{}, append([]Value(nil), o.all...), nil
	case "alltoall":
		return Value{}, o.a2a[rank], nil
	case "scatter", "reduce_scatter", "scan", "exscan":
		return o.each[rank], nil, nil
	}
	return Value{}, nil, nil
}

// bcsDo posts this rank's part of a collective, waits for it and returns
// the rank's result.
func (c *Comm) bcsDo(call bcsCall) (Value, []Value, error) {
	return c.bcsRun(call).result(c.rank)
}

func bcsBarrier(c *Comm) error {
	_, _, err := c.bcsDo(bcsCall{coll: "barrier", root: -1})
	return err
}

func bcsBcast(c *Comm, v Value, root int) (Value, error) {
	x, _, err := c.bcsDo(bcsCall{coll: "bcast", root: root, v: v})
	return x, err
}

func bcsReduce(c *Comm, v Value, op Op, root int) (Value, error) {
	if c.bcsUserFallback("reduce", op) {
		return reduceBinomial(c, v, op, root)
	}
	x, _, err := c.bcsDo(bcsCall{coll: "reduce", root: root, op: op, v: v})
	return x, err
}

func bcsAllreduce(c *Comm, v Value, op Op) (Value, error) {
	if c.bcsUserFallback("allreduce", op) {
		return p2pAllreduce(c, v, op)
	}
	x, _, err := c.bcsDo(bcsCall{coll: "allreduce", root: -1, op: op, v: v})
	return x, err
}

func bcsGather(c *Comm, v Value, root int) ([]Value, error) {
	_, xs, err := c.bcsDo(bcsCall{coll: "gather", root: root, v: v})
	return xs, err
}

func bcsScatter(c *Comm, vs []Value, root int) (Value, error) {
	x, _, err := c.bcsDo(bcsScatterCall(c, vs, root))
	return x, err
}

// bcsScatterCall is a scatter's part: the values at the root only.
func bcsScatterCall(c *Comm, vs []Value, root int) bcsCall {
	call := bcsCall{coll: "scatter", root: root}
	if c.rank == root {
		call.vs = vs
	}
	return call
}

func bcsAllgather(c *Comm, v Value) ([]Value, error) {
	_, xs, err := c.bcsDo(bcsCall{coll: "allgather", root: -1, v: v})
	if me, ok := err.(*MismatchError); ok {
		// Only a disagreement fails an allgather: its entry point's
		// catch returns it (agree.go).
		panic(mismatch{me})
	}
	return xs, nil
}

func bcsAlltoall(c *Comm, vs []Value) ([]Value, error) {
	_, xs, err := c.bcsDo(bcsCall{coll: "alltoall", root: -1, vs: vs})
	return xs, err
}

func bcsReduceScatter(c *Comm, vs []Value, op Op) (Value, error) {
	if c.bcsUserFallback("reduce_scatter", op) {
		return reduceScatterPairwise(c, vs, op)
	}
	x, _, err := c.bcsDo(bcsCall{coll: "reduce_scatter", root: -1, op: op, vs: vs})
	return x, err
}

func bcsScan(c *Comm, v Value, op Op) (Value, error) {
	if c.bcsUserFallback("scan", op) {
		return scanLinear(c, v, op)
	}
	x, _, err := c.bcsDo(bcsCall{coll: "scan", root: -1, op: op, v: v})
	return x, err
}

func bcsExscan(c *Comm, v Value, op Op) (Value, error) {
	if c.bcsUserFallback("exscan", op) {
		return exscanLinear(c, v, op)
	}
	x, _, err := c.bcsDo(bcsCall{coll: "exscan", root: -1, op: op, v: v})
	return x, err
}
