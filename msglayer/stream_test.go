package msglayer

import (
	"context"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// streamRec is a StreamSink that records when its packet left and arrived,
// and reads it at once unless hold.
type streamRec struct {
	l           *Layer
	dst         int
	hold        bool
	left, first Time
	in          StreamSlot
	arrived     *int
}

func (r *streamRec) StreamLeft(now Time) { r.left = now }

func (r *streamRec) StreamArrived(now Time, in StreamSlot) {
	r.first, r.in = now, in
	*r.arrived++
	if !r.hold {
		r.l.StreamRead(r.dst, now, 240, in)
	}
}

// streamSend writes a stream packet at its time.
type streamSend struct {
	l    *Layer
	p    StreamPacket
	sink StreamSink
}

func (s *streamSend) Act(now Time) { s.l.StreamSend(s.p, now, s.sink) }

func newStreamLayer(t *testing.T, tor hw.Torus) (*Layer, *runtime.Group) {
	t.Helper()
	mp, err := hw.MapXYZT(tor, tor.Nodes(), 1)
	if err != nil {
		t.Fatal(err)
	}
	g := runtime.NewGroup(1, hw.BGL().HopCycles)
	return New(hw.BGL(), mp, g.Part(0)), g
}

// A lone stream packet takes its links as soon as it reaches them, as a
// route reserved on an idle network does; its hint bit sends it the - way
// to a node half a ring away.
func TestStreamLonePacket(t *testing.T) {
	tor := hw.Torus{Dims: hw.Dims{X: 8, Y: 4, Z: 1}}
	for _, adaptive := range []bool{false, true} {
		l, g := newStreamLayer(t, tor)
		n := 0
		dst := tor.NodeIndex(4, 1, 0)
		rec := &streamRec{l: l, dst: dst, arrived: &n}
		l.Eng.At(1000, &streamSend{l: l, p: StreamPacket{Src: 0, Dst: dst, Payload: 240, Flip: 1, Adaptive: adaptive}, sink: rec})
		if err := g.Run(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		// The same route, reserved whole on an idle network: x- first
		// (the hint), then y+ (adaptive routing's first choice may be
		// y+ first: the same time on an idle network, one corner turn).
		ref := hw.NewNetwork(hw.BGL(), tor)
		route := []hw.Hop{{Node: 0, Dir: hw.XMinus}, {Node: int32(tor.NodeIndex(7, 0, 0)), Dir: hw.XMinus},
			{Node: int32(tor.NodeIndex(6, 0, 0)), Dir: hw.XMinus}, {Node: int32(tor.NodeIndex(5, 0, 0)), Dir: hw.XMinus},
			{Node: int32(tor.NodeIndex(4, 0, 0)), Dir: hw.YPlus}}
		left, arr := ref.Send(route, 1000, l.M.PacketBytes(240))
		if n != 1 || rec.left != left || rec.first != arr {
			t.Errorf("adaptive %v: arrived %d times, left %d, in at %d; want once, %d, %d", adaptive, n, rec.left, rec.first, left, arr)
		}
		minus, plus := 0, 0
		for node := range tor.Nodes() {
			if l.net.LinkFree(node, hw.XMinus) > 0 {
				minus++
			}
			if l.net.LinkFree(node, hw.XPlus) > 0 {
				plus++
			}
		}
		if minus != 4 || plus != 0 {
			t.Errorf("adaptive %v: %d x- links and %d x+ taken to a node half the x ring away, hint bit -; want 4 and 0", adaptive, minus, plus)
		}
	}
}

// A reader that does not read fills its reception FIFOs at the last link:
// no more packets cross it than the FIFOs hold until it reads.
func TestStreamReceptionRoom(t *testing.T) {
	tor := hw.Torus{Dims: hw.Dims{X: 4, Y: 1, Z: 1}}
	l, g := newStreamLayer(t, tor)
	room := l.M.ReceptionLinkFIFO()
	n := 0
	var recs []*streamRec
	for i := range 3 * room {
		rec := &streamRec{l: l, dst: 1, hold: true, arrived: &n}
		recs = append(recs, rec)
		l.Eng.At(Time(1000+100*i), &streamSend{l: l, p: StreamPacket{Src: 0, Dst: 1, Index: i, Payload: 240}, sink: rec})
	}
	if err := g.Run(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if n != room {
		t.Fatalf("%d packets in an unread reception FIFO of %d places", n, room)
	}
	// Reading them lets the rest in.
	l2, g2 := newStreamLayer(t, tor)
	n = 0
	for i := range 3 * room {
		rec := &streamRec{l: l2, dst: 1, arrived: &n}
		l2.Eng.At(Time(1000+100*i), &streamSend{l: l2, p: StreamPacket{Src: 0, Dst: 1, Index: i, Payload: 240}, sink: rec})
	}
	if err := g2.Run(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if n != 3*room {
		t.Fatalf("%d of %d packets in with their reader reading", n, 3*room)
	}
}
