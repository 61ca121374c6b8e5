package msglayer

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"

	"github.com/bglua/bglua/internal/mpinet"
)

// testAbove is the layer above of the tests over processes: the messages
// carry no payload, their signature is their ID's low byte (checked at the
// mirror), and a mirror's receiver is its rank's record in the receiver's
// process.
type testAbove struct{ recs []*parRec }

func (testAbove) AppendPayload(b []byte, v any) ([]byte, error) {
	if v != nil {
		return b, fmt.Errorf("a payload of type %T", v)
	}
	return b, nil
}

func (testAbove) ReadPayload(b []byte) (any, []byte, error) { return nil, b, nil }

func (testAbove) AppendSig(b []byte, m *Message) []byte { return append(b, byte(m.ID)) }

func (a testAbove) Mirror(m *Message, sig []byte) error {
	if len(sig) != 1 || sig[0] != byte(m.ID) {
		return fmt.Errorf("message %d: signature %x", m.ID, sig)
	}
	m.To = a.recs[m.Dst]
	return nil
}

// runProcs runs planTraffic's messages (its active messages all for the
// inbox) on a layer in DefaultBlocks over procs processes of
// mpinet.NewLocal, the blocks shared among them in contiguous ranges
// (procs 0: in one process, without Distributed), and returns every rank's
// record, the counters summed over the processes, the run's end and its
// events and crossings.
func runProcs(t *testing.T, dims hw.Dims, perNode, n, procs, threads int, routing Routing, co bool, seed uint32) ([]string, distReads) {
	t.Helper()
	tor := hw.Torus{Dims: dims}
	P := max(procs, 1)
	nets := mpinet.NewLocal(P)
	type proc struct {
		l     *Layer
		g     *runtime.Group
		recs  []*parRec
		kinds []*kindCount
		err   error
	}
	ps := make([]proc, P)
	var wg sync.WaitGroup
	for p := range P {
		l, g := blockLayer(t, tor, perNode, true, func(l *Layer) {
			l.Routing = routing
			l.Coprocessor = co
			l.net.SetSeed(int64(seed))
		})
		if g.Parts() < 2 {
			t.Fatalf("%d partitions", g.Parts())
		}
		ps[p].l, ps[p].g = l, g
		ps[p].recs = make([]*parRec, l.Map.Ranks())
		for i := range ps[p].recs {
			ps[p].recs[i] = &parRec{}
		}
		ps[p].kinds = make([]*kindCount, g.Parts())
		for i := range ps[p].kinds {
			ps[p].kinds[i] = &kindCount{}
			l.Part(i).Obs = ps[p].kinds[i]
		}
		if procs > 0 {
			owner := make([]int, g.Parts())
			for i := range owner {
				owner[i] = i * P / g.Parts()
			}
			codecs := l.Distributed(testAbove{ps[p].recs}, g.Local)
			g.Distribute(mpinet.Engine{Net: nets[p]}, owner, codecs)
		}
		for i, m := range planTraffic(tor, l.Map, n, seed) {
			part := l.net.BlockOf(l.Map.Node(m.src))
			if !g.Local(part) {
				continue
			}
			msg := &Message{Src: m.src, Dst: m.dst, Bytes: m.bytes, Header: 16, Protocol: m.proto, To: ps[p].recs[m.dst], ID: int64(i)}
			if m.am != 0 { // (thread units run in one partition: every active message to the inbox)
				msg.To = AM{L: l}
			}
			g.Part(part).At(m.at, &parSend{l: l, m: msg, recs: ps[p].recs})
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ps[p].err = g.Run(context.Background(), threads)
		}()
	}
	wg.Wait()
	var out []string
	var kinds kindCount
	var msgs, packets, wireB, busy int64
	var reads distReads
	for p := range P {
		if ps[p].err != nil {
			t.Fatalf("process %d: %v", p, ps[p].err)
		}
		g, l := ps[p].g, ps[p].l
		for r, rec := range ps[p].recs {
			if !g.Local(l.net.BlockOf(l.Map.Node(r))) {
				if len(rec.lines) > 0 {
					t.Fatalf("process %d recorded rank %d, another process's", p, r)
				}
				continue
			}
			for _, s := range rec.lines {
				out = append(out, fmt.Sprintf("rank %d: %s", r, s))
			}
			if ib := l.Inbox(r); len(ib.Ready) > 0 {
				for _, m := range ib.Ready {
					out = append(out, fmt.Sprintf("rank %d: inbox msg %d from %d", r, m.ID, m.Src))
				}
			}
		}
		for _, k := range ps[p].kinds {
			for i, c := range k {
				kinds[i] += c
			}
		}
		msgs += l.TotalMessages()
		pk, w, b := l.net.Totals()
		packets, wireB, busy = packets+pk, wireB+w, busy+b
		if l.dist != nil {
			rd := &l.dist.read
			t.Logf("process %d read %d envelopes, %d trains (%d passing through, %d control packets back)", p, rd.envelopes, rd.trains, rd.through, rd.back)
			reads.envelopes, reads.trains, reads.through, reads.back = reads.envelopes+rd.envelopes, reads.trains+rd.trains, reads.through+rd.through, reads.back+rd.back
		}
		if l.dist != nil && len(l.dist.refs.by) > 0 {
			t.Errorf("process %d still holds %d messages at the end", p, len(l.dist.refs.by))
		}
	}
	if procs > 1 && (reads.envelopes == 0 || reads.trains == 0 || reads.back == 0) {
		t.Errorf("%d processes read %+v: envelopes, trains and control packets back should all cross", procs, reads)
	}
	slices.Sort(out)
	g := ps[0].g
	out = append(out, fmt.Sprintf("kinds %v", kinds),
		fmt.Sprintf("messages=%d packets=%d wire=%d busy=%d now=%d events=%d crossings=%d", msgs, packets, wireB, busy, g.Now(), g.Events(), g.Crossings()))
	return out, reads
}

// distReads is what a layer over processes read from the others.
type distReads = struct{ envelopes, trains, through, back int64 }

// A layer over 2 and 3 processes gives what it gives in one, message by
// message: every protocol, rendezvous grants and confirmations coming back
// across processes, trains through a process that is neither end's,
// coprocessor and virtual-node mode, both routings.
func TestDistributedLayerIsOneProcess(t *testing.T) {
	for _, c := range []struct {
		name        string
		dims        hw.Dims
		perNode, n  int
		routing     Routing
		coprocessor bool
	}{
		{"16x8x8", hw.Dims{X: 16, Y: 8, Z: 8}, 1, 3000, PerProtocol, false},
		{"16x8x8-coprocessor", hw.Dims{X: 16, Y: 8, Z: 8}, 1, 3000, PerProtocol, true},
		{"16x16x8-vn-adaptive", hw.Dims{X: 16, Y: 16, Z: 8}, 2, 3000, AdaptiveRouting, false},
		{"16x16x8-deterministic", hw.Dims{X: 16, Y: 16, Z: 8}, 1, 2000, Deterministic, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			one, _ := runProcs(t, c.dims, c.perNode, c.n, 0, 1, c.routing, c.coprocessor, 5)
			t.Log(one[len(one)-1])
			for _, procs := range []int{2, 3} {
				got, reads := runProcs(t, c.dims, c.perNode, c.n, procs, 2, c.routing, c.coprocessor, 5)
				// Four blocks over three processes: some trains only pass
				// through the process of the middle ones.
				if blocks := hw.DefaultBlocks(hw.Torus{Dims: c.dims}).N(); procs == 3 && blocks == 4 && reads.through == 0 {
					t.Errorf("3 processes: no train passed through a process")
				}
				sameLines(t, fmt.Sprintf("%d processes", procs), "one process", one, got)
			}
		})
	}
}
