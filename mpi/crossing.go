package mpi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"

	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"

	"github.com/bglua/bglua/internal/wire"
)

// Crossing is MPI's side of its messages that cross processes
// (msglayer.Above, docs/distributed.md), for the layer of w: their
// payloads by PayloadCodec(leaf), their collective signature (sigOf, which
// in one process follows the message to its sender's request) in its wire
// form, and the mirror's receiver, w's deliverer. A mirror's Sent is a
// stand-in request that holds only the signature, so that matching reads it
// as it reads the sender's request in one process; it is never run (only
// the sender's process runs a message's Sent).
//
// It also keeps the codec for the values of the hardware collectives'
// joins (TreeJoinCodec).
func (w *World) Crossing(leaf msglayer.PayloadCodec) msglayer.Above {
	w.payload = PayloadCodec(leaf)
	return crossing{PayloadCodec: w.payload, w: w}
}

// SetTell gives w, one process's share of a run over several, the way to
// tell every other process something from the partition of engine from
// (runtime.Engine.Tell to one of each's partitions): a member's entry of a
// communicator split, read with SplitCodec.
func (w *World) SetTell(tell func(from *runtime.Engine, a runtime.Action)) { w.tellAll = tell }

// SplitCodec is the codec of the split entries told to other processes.
func (w *World) SplitCodec() runtime.Codec {
	return runtime.Codec{Type: reflect.TypeOf(&splitEntry{}), Append: func(b []byte, a runtime.Action, _ int) ([]byte, error) {
		e := a.(*splitEntry)
		for _, v := range [...]int{e.ctx, e.seq, e.size, e.rank, e.color, e.key} {
			b = binary.AppendVarint(b, int64(v))
		}
		return b, nil
	}, Read: func(b []byte, _ int, _ *runtime.Engine) (runtime.Action, []byte, error) {
		r := wire.Reader{B: b}
		var e splitEntry
		for _, p := range [...]*int{&e.ctx, &e.seq, &e.size, &e.rank, &e.color, &e.key} {
			*p = r.Int()
		}
		if r.Bad || e.size <= 0 || e.size > len(w.ranks) || e.rank < 0 || e.rank >= e.size {
			return nil, b, errors.New("mpi: not a split entry's wire form")
		}
		w.readSplitEntry(&e)
		return nil, r.B, nil
	}}
}

// treeJoin is a member's join of an operation of the collective network or
// the global interrupt (or its decline), told to the other processes of a
// run over several: each keeps every operation's joins and completes it a
// window after the last (joinedParted), charging and waking its own
// members.
type treeJoin struct {
	ctx, seq, n, rank, id, root int
	coll, opName                string
	kind                        treeKind
	sig                         callSig
	co, declined                bool
	at, lastEnd                 Time
	v                           Value
}

func (*treeJoin) Act(Time) { panic("mpi: a join is read, never run") }

// tellJoin tells the other processes c's join of operation k (declined:
// its decline), made in its partition's window.
func (w *World) tellJoin(c *Comm, ctx int, call *treeCall, k opKey, declined bool) {
	e := c.r.Proc.Engine()
	w.tellAll(e, &treeJoin{ctx: ctx, seq: int(k.seq), n: c.size, rank: c.rank, id: c.r.ID, root: call.root,
		coll: call.coll, opName: opName(call.op), kind: call.kind, sig: joinSig(c, ctx, call),
		co: c.r.onCo, declined: declined, at: c.r.Now(), lastEnd: e.WindowEnd(), v: call.v})
}

// readTreeJoin applies j, a join of another process, to this process's
// operations (with every partition at rest). A process with no member of
// the communicator keeps nothing of it.
func (w *World) readTreeJoin(j *treeJoin) {
	c := w.memberOf(j.ctx)
	if c == nil {
		return
	}
	st := w.tree()
	st.mu.Lock()
	defer st.mu.Unlock()
	k := opKey{j.ctx, uint32(j.seq)}
	var op *Builtin
	for _, b := range Builtins {
		if b.name == j.opName {
			op = b
		}
	}
	o := st.opOf(k, j.n, j.coll, j.kind, j.root, op, j.opName)
	st.sign(o, c, j.rank, j.sig, nil, j.co)
	if j.declined {
		if o.declined++; o.declined == 1 || j.rank < o.declRank {
			o.declRank, o.declVal = j.rank, j.v
		}
	} else {
		st.arriveAt(w, o, j.rank, j.id, j.root, j.v, j.at)
	}
	o.lastEnd = max(o.lastEnd, j.lastEnd)
	if o.arrived+o.declined == o.n {
		delete(st.ops, k)
		st.ready = append(st.ready, readyOp{k, o})
	}
}

// memberOf is a handle of this process's ranks on the communicator of
// context ctx (its collectives' context included), nil if none has one;
// found once a communicator (a join of every rank comes to every process:
// a scan of the ranks each time would cost the ranks squared).
func (w *World) memberOf(ctx int) *Comm {
	if ctx == mlCtx {
		ctx = 0
	}
	ctx &^= 1
	if c, ok := w.members[ctx]; ok {
		return c
	}
	var c *Comm
	for _, r := range w.ranks {
		if r == nil {
			continue
		}
		if ctx == 0 {
			c = r.World
		} else {
			c = r.commOf(ctx)
		}
		if c != nil {
			break
		}
	}
	if c != nil || ctx == 0 {
		// (A communicator no rank here has yet may get one later: not kept.)
		if w.members == nil {
			w.members = map[int]*Comm{}
		}
		w.members[ctx] = c
	}
	return c
}

// TreeJoinCodec is the codec of the joins told to other processes.
func (w *World) TreeJoinCodec() runtime.Codec {
	return runtime.Codec{Type: reflect.TypeOf(&treeJoin{}), Append: func(b []byte, a runtime.Action, _ int) ([]byte, error) {
		j := a.(*treeJoin)
		for _, v := range [...]int{j.ctx, j.seq, j.n, j.rank, j.id, j.root, int(j.kind), j.sig.root, j.sig.size} {
			b = binary.AppendVarint(b, int64(v))
		}
		for _, s := range [...]string{j.coll, j.opName, j.sig.coll, j.sig.op} {
			b = wire.AppendText(b, s)
		}
		f := byte(0)
		if j.co {
			f |= 1
		}
		if j.declined {
			f |= 2
		}
		b = append(b, f)
		b = binary.AppendVarint(b, j.at)
		b = binary.AppendVarint(b, j.lastEnd)
		b = binary.AppendVarint(b, int64(j.v.Size))
		if w.payload == nil {
			return b, errors.New("mpi: no payload codec (World.Crossing)")
		}
		return w.payload.AppendPayload(b, j.v.Data)
	}, Read: func(b []byte, _ int, _ *runtime.Engine) (runtime.Action, []byte, error) {
		r := wire.Reader{B: b}
		var j treeJoin
		var kind int
		for _, p := range [...]*int{&j.ctx, &j.seq, &j.n, &j.rank, &j.id, &j.root, &kind, &j.sig.root, &j.sig.size} {
			*p = r.Int()
		}
		for _, p := range [...]*string{&j.coll, &j.opName, &j.sig.coll, &j.sig.op} {
			*p = r.Text()
		}
		f := r.Byte()
		j.at, j.lastEnd = r.Varint(), r.Varint()
		j.v.Size = r.Int()
		bad := errors.New("mpi: not a join's wire form")
		if r.Bad || f > 3 || kind > int(kindReduce) || j.n <= 0 || j.n > len(w.ranks) || j.rank < 0 || j.rank >= j.n || j.id < 0 || j.id >= len(w.ranks) {
			return nil, b, bad
		}
		j.kind, j.co, j.declined = treeKind(kind), f&1 != 0, f&2 != 0
		data, rest, err := w.payload.ReadPayload(r.B)
		if err != nil {
			return nil, b, err
		}
		j.v.Data = data
		w.readTreeJoin(&j)
		return nil, rest, nil
	}}
}

// IOCodecs are the codecs of the I/O node's crossings (a rank's print
// shipped to its pset's I/O node, and the node's reply), for a run over
// several processes: both name the rank by its number.
func (w *World) IOCodecs() []runtime.Codec {
	rank := func(n int) (*Rank, error) {
		if n < 0 || n >= len(w.ranks) || w.ranks[n] == nil {
			return nil, errIOWire
		}
		return w.ranks[n], nil
	}
	return []runtime.Codec{
		{Type: reflect.TypeOf(&ioWrite{}), Append: func(b []byte, a runtime.Action, _ int) ([]byte, error) {
			x := ioWriteWire(a.(*ioWrite))
			return appendIOWire(b, &x), nil
		}, Read: func(b []byte, _ int, _ *runtime.Engine) (runtime.Action, []byte, error) {
			var x ioWire
			rest, err := readIOWire(b, &x)
			if err != nil {
				return nil, b, err
			}
			if x.rank >= len(w.ranks) || x.ps*w.m.PsetNodes >= w.ml.Map.Torus.Nodes() {
				return nil, b, errIOWire
			}
			r := w.ranks[x.rank]
			if r == nil {
				r = &Rank{w: w, ID: x.rank} // another process's: the I/O node needs its number
			}
			return &ioWrite{r: r, ps: x.ps, bytes: x.bytes}, rest, nil
		}},
		{Type: reflect.TypeOf(&ioDone{}), Append: func(b []byte, a runtime.Action, _ int) ([]byte, error) {
			return appendIOWire(b, &ioWire{rank: (*Rank)(a.(*ioDone)).ID}), nil
		}, Read: func(b []byte, _ int, _ *runtime.Engine) (runtime.Action, []byte, error) {
			var x ioWire
			rest, err := readIOWire(b, &x)
			if err != nil {
				return nil, b, err
			}
			r, err := rank(x.rank)
			if err != nil {
				return nil, b, err
			}
			return (*ioDone)(r), rest, nil
		}},
	}
}

type crossing struct {
	msglayer.PayloadCodec
	w *World
}

func (crossing) AppendSig(b []byte, m *msglayer.Message) []byte {
	return appendSigWire(b, sigOf(m))
}

func (c crossing) Mirror(m *msglayer.Message, sig []byte) error {
	s, rest, err := readSigWire(sig, c.w)
	if err != nil || len(rest) != 0 {
		return fmt.Errorf("mpi: the signature of a message from rank %d to rank %d does not read back", m.Src, m.Dst)
	}
	if s.call != nil {
		m.Sent = &Request{sig: s.call, sigSeq: s.seq}
	}
	m.To = deliverer{c.w}
	return nil
}
