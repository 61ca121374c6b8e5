package msglayer

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"sync"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"

	"github.com/bglua/bglua/internal/wire"
)

// A layer whose partitions live in several processes (docs/distributed.md):
// every process builds the same layer in partitions (SetPartitions) on its
// share of a distributed runtime.Group, and Distributed gives the codecs of
// the events that cross between processes.
//
// A message is shared by its two ends within a process; between processes
// each end keeps its own copy, found by a msgRef:
//
//   - the sender's original, which a control packet coming back (a
//     rendezvous grant, an adaptive eager confirmation, a synchronous
//     send's acknowledgement) finds;
//   - the receiver's mirror, made from the envelope, which its sender's
//     process tells the receiver's process when the message is sent
//     (Engine.Tell: no crossing, no window moved), before any of its
//     packets can get there; the mirror's flow is shaped from it as the
//     sender's is (shapeFlow), its reading CPU comes with the data trains,
//     and it is forgotten once its data are all read;
//   - in a process a train only passes through, a stand-in that holds what
//     the train's events read of their message there: its sender and place
//     among the sender's messages (full ties), and its name.
//
// Active messages cross as any message, their mirror's receiver the
// layer's own (AM), and deposit lines as their trains (with the active
// message they leave). The layers above's own packets (Carry) do not cross
// processes: their event has no codec, and a run that sends one to another
// process stops with an error that names it (their users run in one
// partition).

// Above is what the layer above gives the layer for messages that cross
// processes.
type Above interface {
	PayloadCodec
	// AppendSig appends to b the layer above's signature of m, the
	// sender's copy (what the receiver compares with its own call's; may
	// append nothing).
	AppendSig(b []byte, m *Message) []byte
	// Mirror readies m, a mirror whose envelope has just been read in the
	// receiver's process, for the layer: its receiver (To), from the
	// envelope and the signature sig.
	Mirror(m *Message, sig []byte) error
}

// Flags of an envelope told to another process.
const (
	envOrdered = 1 << iota // pinned to its pair's channel
	envAM                  // an active message (To: the layer's AM)
)

// Message.cross flags.
const (
	crossCounted uint8 = 1 << iota // an original whose crossing has been set up (keepOriginal)
	crossMirror                    // a mirror (its envelope read, unless crossPending)
	crossPending                   // a mirror a train made before its envelope was read
	crossStandIn                   // a stand-in (a train passing through)
)

// distLayer is what the views of a layer over several processes share.
type distLayer struct {
	above Above
	local func(part int) bool // whether a partition is this process's
	root  *Layer

	mu   sync.Mutex // refs: the partitions' threads drop, the barrier reads and writes
	refs msgRefs
	// The ordered mark of a mirror whose sender pinned it to its pair's
	// channel (deliver keeps the pair's order for it).
	ordered channel

	// What came in from other processes (read at the windows' ends): the
	// envelopes, the trains, those that only pass through, the control
	// packets back to their senders.
	read struct{ envelopes, trains, through, back int64 }
}

// Distributed makes l (in partitions, every process's built alike) one
// process's share of a run over several processes, local saying which
// partitions are this process's, and returns the codecs of its events
// that cross between processes, for runtime.Group.Distribute.
func (l *Layer) Distributed(above Above, local func(part int) bool) []runtime.Codec {
	root := l.Part(0)
	d := &distLayer{above: above, local: local, root: root, refs: msgRefs{next: make([]uint64, l.Map.Ranks())}}
	for i := range root.Partitions() {
		root.Part(i).dist = d
	}
	return []runtime.Codec{
		{Type: reflect.TypeOf(&envelopeAct{}), Append: d.appendEnvelope, Read: d.readEnvelope},
		{Type: reflect.TypeOf(&trainIn{}), Append: d.appendTrain, Read: func(b []byte, _ int, dst *runtime.Engine) (runtime.Action, []byte, error) {
			x, rest, err := d.readTrain(b, dst)
			return (*trainIn)(x), rest, err
		}},
		{Type: reflect.TypeOf(&trainHop{}), Append: d.appendTrain, Read: func(b []byte, _ int, dst *runtime.Engine) (runtime.Action, []byte, error) {
			x, rest, err := d.readTrain(b, dst)
			return (*trainHop)(x), rest, err
		}},
		{Type: reflect.TypeOf(&linkRelease{}), Append: func(b []byte, a runtime.Action, _ int) ([]byte, error) {
			return appendReleaseWire(b, a.(*linkRelease)), nil
		}, Read: d.readRelease},
		{Type: reflect.TypeOf(&depositTransit{}), Append: func(b []byte, a runtime.Action, _ int) ([]byte, error) {
			return appendDepositWire(b, a.(*depositTransit), d.above)
		}, Read: func(b []byte, _ int, _ *runtime.Engine) (runtime.Action, []byte, error) {
			x := &depositTransit{root: d.root}
			rest, err := readDepositWire(b, x, d.above)
			if err != nil {
				return nil, b, err
			}
			return x, rest, nil
		}},
	}
}

// remote reports whether node's partition is in another process.
func (d *distLayer) remote(node int) bool {
	return !d.local(d.root.net.BlockOf(node))
}

// envelopeAct is a message's envelope told to its receiver's process.
type envelopeAct Message

func (*envelopeAct) Act(Time) { panic("msglayer: an envelope is read, never run") }

// tellEnvelope tells m's envelope to the process of its receiver, if that
// is another (Send, in the sender's partition): before any of m's packets
// can get there, since a packet takes a hop (a window) at least to leave
// the sender's block.
func (l *Layer) tellEnvelope(m *Message) {
	if m.Protocol == Self || m.Protocol == VN {
		return
	}
	node := l.Map.Node(m.Dst)
	if !l.dist.remote(node) {
		return
	}
	l.Eng.Tell(l.on(node).Eng, (*envelopeAct)(m))
}

// expected is how many control packets come back to the sender of m.
func expected(m *Message) int8 {
	n := int8(0)
	switch m.Protocol {
	case Rendezvous:
		return 1 // the grant (which also says it matched)
	case Adaptive:
		n++ // the confirmation
	}
	if m.Sync {
		n++
	}
	return n
}

// keepOriginal names m, an original of this process crossing into another
// for the first time, and keeps it to be found for as long as anything of
// it may come back: its control packets, and (if its receiver is in this
// process) its trains, whose route may leave the process's blocks and come
// back. Under d.mu.
func (d *distLayer) keepOriginal(m *Message) msgRef {
	ref := d.refs.name(m)
	if m.cross != 0 {
		return ref
	}
	m.cross = crossCounted
	e := heldMsg{m: m, await: expected(m), recv: !d.remote(d.root.Map.Node(m.Dst))}
	if e.await > 0 || e.recv {
		d.refs.keep(ref, e)
	}
	return ref
}

// appendEnvelope writes an envelope told to process to.
func (d *distLayer) appendEnvelope(b []byte, a runtime.Action, to int) ([]byte, error) {
	m := (*Message)(a.(*envelopeAct))
	if am, ok := m.To.(AM); ok && am.U != nil {
		// (Thread units are modeled in one partition: never reached.)
		return b, fmt.Errorf("active message %d from rank %d to rank %d: thread units do not run over processes", m.ID, m.Src, m.Dst)
	}
	d.mu.Lock()
	ref := d.keepOriginal(m)
	d.mu.Unlock()
	b = appendRef(b, ref)
	b = binary.AppendUvarint(b, uint64(m.seq))
	b = binary.AppendUvarint(b, uint64(m.nth))
	f := byte(0)
	if m.pair != nil {
		f |= envOrdered
	}
	if !m.client() {
		f |= envAM
	}
	b = append(b, f)
	sig := d.above.AppendSig(nil, m)
	b, err := appendEnvelopeWire(b, m, sig, d.above)
	if err != nil {
		return b, fmt.Errorf("the envelope of message %d from rank %d to rank %d: %w", m.ID, m.Src, m.Dst, err)
	}
	return b, nil
}

// readEnvelope makes the mirror of the message whose envelope b holds (or
// fills the one a train of it made first), and returns no Action.
func (d *distLayer) readEnvelope(b []byte, _ int, _ *runtime.Engine) (runtime.Action, []byte, error) {
	r := wireIn{wire.Reader{B: b}}
	ref := r.ref()
	seq, nth := r.Uvarint(), r.Uvarint()
	f := r.Byte()
	if r.Bad || ref.seq == 0 || f&^(envOrdered|envAM) != 0 {
		return nil, b, errCrossWire
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	m := d.mirror(ref)
	if m.cross&crossPending == 0 {
		return nil, b, fmt.Errorf("a second envelope of message %d of rank %d", ref.seq, ref.src)
	}
	sig, rest, err := readEnvelopeWire(r.B, m, d.above)
	if err != nil {
		return nil, b, err
	}
	if m.Src != int(ref.src) || m.Dst < 0 || m.Dst >= d.root.Map.Ranks() || m.Src < 0 || m.Src >= d.root.Map.Ranks() {
		return nil, b, errCrossWire
	}
	m.seq, m.nth = uint32(seq), uint32(nth)
	if f&envOrdered != 0 {
		m.pair = &d.ordered
	}
	m.cross &^= crossPending
	d.read.envelopes++
	if f&envAM != 0 {
		m.To = AM{L: d.root} // an active message: filed in the receiver's inbox
	} else if err := d.above.Mirror(m, sig); err != nil {
		return nil, b, err
	}
	d.root.shapeFlow(m)
	return nil, rest, nil
}

// mirror is this process's mirror of the message named ref, made pending
// (its envelope still to be read) if there is none. Under d.mu.
func (d *distLayer) mirror(ref msgRef) *Message {
	if e := d.refs.find(ref); e != nil {
		return e.m
	}
	m := &Message{l: d.root, ref: ref, cross: crossMirror | crossPending}
	d.refs.keep(ref, heldMsg{m: m, recv: true})
	return m
}

// appendTrain writes a train crossing into another process: the train,
// its message's name, and its sender's place among the sender's messages.
func (d *distLayer) appendTrain(b []byte, a runtime.Action, _ int) ([]byte, error) {
	var x *train
	switch y := a.(type) {
	case *trainIn:
		x = (*train)(y)
	case *trainHop:
		x = (*train)(y)
	}
	m := x.m
	ref := m.ref
	if ref.seq == 0 {
		d.mu.Lock()
		ref = d.keepOriginal(m)
		d.mu.Unlock()
	}
	b = appendTrainWire(b, x, ref)
	return binary.AppendUvarint(b, uint64(m.nth)), nil
}

// readTrain reads a train that crossed into partition dst of this process.
func (d *distLayer) readTrain(b []byte, dst *runtime.Engine) (*train, []byte, error) {
	root := d.root
	x := root.newTrain()
	ref, rest, err := readTrainWire(b, x)
	if err != nil {
		return nil, b, err
	}
	r := wireIn{wire.Reader{B: rest}}
	nth := r.Uvarint()
	if r.Bad || ref.seq == 0 || ref.src < 0 || int(ref.src) >= root.Map.Ranks() || x.h.Dest() < 0 || x.h.Dest() >= root.Map.Torus.Nodes() {
		return nil, b, errCrossWire
	}
	x.root = root
	d.read.trains++
	switch back := x.ctl && x.kind != ctlScout; {
	case d.remote(x.h.Dest()):
		// Passing through.
		x.m = &Message{Src: int(ref.src), nth: uint32(nth), l: root, ref: ref, cross: crossStandIn}
		d.read.through++
	case back:
		d.read.back++
		d.mu.Lock()
		e := d.refs.find(ref)
		d.mu.Unlock()
		if e == nil || e.m.cross&crossMirror != 0 {
			return nil, b, fmt.Errorf("a %s packet of message %d of rank %d, which this process did not send", ctlNames[x.kind], ref.seq, ref.src)
		}
		x.m = e.m
	default:
		d.mu.Lock()
		x.m = d.mirror(ref)
		d.mu.Unlock()
		if !x.ctl {
			x.m.f.rx = x.rx
		}
	}
	return x, r.B, nil
}

// readRelease reads places given back to a link of this process.
func (d *distLayer) readRelease(b []byte, _ int, dst *runtime.Engine) (runtime.Action, []byte, error) {
	x := d.root.newRelease()
	rest, err := readReleaseWire(b, x)
	if err != nil || int(x.link) >= d.root.Map.Torus.Nodes()*hw.NumDirs || !d.local(d.root.net.BlockOf(int(x.link)/hw.NumDirs)) {
		return nil, b, errCrossWire
	}
	x.root = d.root
	return x, rest, nil
}

// controlBack counts a control packet of m come back to its sender's
// process; the original is forgotten once nothing more of it can come.
func (d *distLayer) controlBack(m *Message) {
	d.mu.Lock()
	if e := d.refs.find(m.ref); e != nil && e.m == m {
		e.await--
		if e.await <= 0 && !e.recv {
			d.refs.drop(m.ref)
		}
	}
	d.mu.Unlock()
}

// allRead forgets m, a message whose data have all been read at its
// destination in this process, once nothing more of it can come.
func (d *distLayer) allRead(m *Message) {
	if m.cross&crossPending != 0 {
		panic(fmt.Sprintf("msglayer: message %d of rank %d read before its envelope", m.ref.seq, m.ref.src))
	}
	d.mu.Lock()
	if e := d.refs.find(m.ref); e != nil && e.m == m {
		e.recv = false
		if e.await <= 0 {
			d.refs.drop(m.ref)
		}
	}
	d.mu.Unlock()
}
