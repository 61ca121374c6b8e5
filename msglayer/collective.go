package msglayer

import (
	"math"

	"github.com/bglua/bglua/hw"
)

// Collective is a partition's collective network (tree) with its ALU and its
// global interrupt network, as the message layer offers them: operations
// timed by hw's models (hw.Tree, hw.GI), their CPU costs per node, and the
// ALU's arithmetic on columns of doubles. Callers (mpi's hardware
// collectives, the ml.tree_* and ml.gi_* bindings through mpi) decide who
// takes part and when every node is ready; the Collective answers when the
// operation ends and what each CPU pays, and charges it.
//
// Timing of one operation on the collective network (P packets of
// TreePacket bytes a pass):
//
//	pass = hw.Tree.Pass: write the first packet, 2*depth hops, one packet
//	       per max(serialization, write, read), read the last packet
//	reductions: every pass is preceded by elements x ReduceCyclesPerElement
//	       of conversion (to ALU words, exponents, aligned mantissas); a
//	       floating-point sum converts back at the end
type Collective struct {
	l    *Layer
	tree *hw.Tree
	gi   *hw.GI
	sum  hw.FloatSum
}

// NewCollective returns the idle collective and global interrupt networks of
// the layer's partition (every node of its torus).
func (l *Layer) NewCollective() *Collective {
	nodes := l.Map.Torus.Nodes()
	return &Collective{l: l, tree: hw.NewTree(l.M, nodes), gi: hw.NewGI(l.M, nodes)}
}

// Tree and GI are the models behind c, for their counts.
func (c *Collective) Tree() *hw.Tree { return c.tree }
func (c *Collective) GI() *hw.GI     { return c.gi }

// TreeCost is when an operation ends at every node and what each CPU pays.
type TreeCost struct {
	End Time
	// Work is the CPU cycles of a tree task (the task of a node that writes
	// and reads the packets); RootWork a broadcast root's instead.
	Work, RootWork int64
	// Copy is a virtual-node partner's: it copies the result's last packet
	// out of its tree task's buffer, after End.
	Copy int64
	// Combine is added to a tree task that shares its node: it combines
	// its partner's contribution first.
	Combine int64
}

// GIBarrier is a barrier on the global interrupt network whose last node
// arrives at ready.
func (c *Collective) GIBarrier(ready Time) TreeCost {
	return TreeCost{End: c.gi.Barrier(ready)}
}

// Barrier is a barrier on the collective network: one packet, every node
// ready at ready.
func (c *Collective) Barrier(ready Time) TreeCost {
	m := c.l.M
	return TreeCost{End: c.tree.Pass(ready, 0), Work: m.PacketWriteCycles + m.PacketReadCycles}
}

// Broadcast is a broadcast of size bytes on the collective network, every
// node ready at ready: the root writes the packets, every other tree task
// reads them.
func (c *Collective) Broadcast(ready Time, size int) TreeCost {
	m := c.l.M
	end := c.tree.Pass(ready, size)
	p := int64(m.TreePackets(size))
	return TreeCost{End: end, Work: p * m.PacketReadCycles, RootWork: p * m.PacketWriteCycles,
		Copy: m.CopyCycles(min(size, m.TreePacket))}
}

// Reduce is a reduction on the collective network: every node is ready at
// ready, and a task that shares its node at readyShared (-1: none does);
// elems numbers per node pass through the ALU in passes of the given bytes
// per node, converting back at the end if convertBack; the result is size
// bytes.
func (c *Collective) Reduce(ready, readyShared Time, elems int, passes []int, convertBack bool, size int) TreeCost {
	m := c.l.M
	wr, rd := m.PacketWriteCycles, m.PacketReadCycles
	var tc TreeCost
	per := int64(elems) * m.ReduceCyclesPerElement
	if readyShared >= 0 {
		ready = max(ready, readyShared+per)
		tc.Combine = per
	}
	end := ready
	for _, b := range passes {
		end = c.tree.Pass(end+per, b)
		tc.Work += int64(m.TreePackets(b))*(wr+rd) + per
	}
	if convertBack {
		end += per
		tc.Work += per
	}
	tc.End = end
	tc.Copy = m.CopyCycles(min(size, m.TreePacket))
	return tc
}

// Charge occupies rank's CPU (with co, its node's coprocessor where there
// is one: work the coprocessor progresses) with cost cycles of an operation
// that ends for it at done, or later if that CPU is busy until then, never
// before now, and returns when it is done.
func (c *Collective) Charge(rank int, co bool, done Time, cost int64, now Time) Time {
	cpu := c.l.CPU(rank)
	if co {
		if p := c.l.CoCPU(rank); p != nil {
			cpu = p
		}
	}
	done = max(done, cpu.Free, now)
	cpu.Free = done
	cpu.Busy += cost
	return done
}

// The ALU: integer add, max, min, and, or on 64-bit words. The methods below
// reduce a column of doubles, one per contribution, as the network does;
// their results do not depend on the order of the contributions.

// Sum is the exact sum of col rounded once (hw.FloatSum: exponents, then
// fixed-point mantissas).
func (c *Collective) Sum(col []float64) float64 {
	s := &c.sum
	s.Reset()
	for _, v := range col {
		s.Exponent(v)
	}
	for _, v := range col {
		s.Add(v)
	}
	return s.Sum()
}

// Max is the largest of col (the smallest if min), by the ALU's integer max
// (min) of the doubles' order-preserving images; NaN if any is NaN, as
// math.Max and math.Min.
func (c *Collective) Max(col []float64, min bool) float64 {
	alu, acc := hw.ALUMax, uint64(0)
	if min {
		alu = hw.ALUMin
	}
	acc = alu.Identity()
	for _, v := range col {
		if math.IsNaN(v) {
			return math.NaN()
		}
		acc = alu.Combine(acc, hw.FloatKey(v))
	}
	return hw.KeyFloat(acc)
}

// Logical is the logical and (or, if or) of col's values as 0/1 words: 1 or 0.
func (c *Collective) Logical(col []float64, or bool) float64 {
	alu := hw.ALUAnd
	if or {
		alu = hw.ALUOr
	}
	acc := alu.Identity() & 1
	for _, v := range col {
		var b uint64
		if v != 0 {
			b = 1
		}
		acc = alu.Combine(acc, b)
	}
	return float64(acc)
}

// Bitwise is the bitwise and (or, if or) of col's values as 64-bit integers.
func (c *Collective) Bitwise(col []float64, or bool) float64 {
	alu := hw.ALUAnd
	if or {
		alu = hw.ALUOr
	}
	acc := alu.Identity()
	for _, v := range col {
		acc = alu.Combine(acc, uint64(int64(v)))
	}
	return float64(int64(acc))
}

// Loc is MAXLOC (MINLOC if min) over n {value, index} pairs, pair(i) the
// i-th, in two ALU passes: the best value (max, or min, of the values'
// integer images; -0 counts as +0, as == does), then the smallest index
// among the pairs that hold it, with that pair's value (a zero keeps its
// sign).
func (c *Collective) Loc(n int, pair func(i int) (val, idx float64), min bool) (val, idx float64) {
	canon := func(x float64) uint64 {
		if x == 0 {
			x = 0
		}
		return hw.FloatKey(x)
	}
	alu := hw.ALUMax
	if min {
		alu = hw.ALUMin
	}
	best := alu.Identity()
	for i := 0; i < n; i++ {
		v, _ := pair(i)
		best = alu.Combine(best, canon(v))
	}
	ki, kv := hw.ALUMin.Identity(), hw.ALUMin.Identity()
	for i := 0; i < n; i++ {
		v, x := pair(i)
		if canon(v) != best {
			continue
		}
		if k, kx := hw.FloatKey(x), hw.FloatKey(v); k < ki || k == ki && kx < kv {
			ki, kv = k, kx
		}
	}
	return hw.KeyFloat(kv), hw.KeyFloat(ki)
}
