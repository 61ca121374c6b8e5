package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/bglua/bglua/internal/wire"
)

// A group whose partitions are in several processes (docs/distributed.md):
// each process builds the same Group, owns some of its partitions (it
// spawns processes and runs windows only there) and, at every window's
// end, sends what its partitions sent to the others' partitions, encoded by
// a codec per Action type, and agrees with the other processes on the next
// window by a reduction. The events received are merged with the local
// ones by source partition and send order, as in one process, so the run
// is the same event for event. Not used by the command yet: errors, limits
// and deadlocks are only agreed on as far as stopping together goes.

// A Net is what a distributed Group needs of the processes' communication
// (an mpinet.Net through a small adapter).
type Net interface {
	// Rank is this process's number among Size.
	Rank() int
	Size() int
	// Exchange sends out[p] to process p and returns what each sent this
	// one (in[p] from p).
	Exchange(out [][]byte) (in [][]byte, err error)
	// Min sets each element of v to its least value over the processes.
	Min(v []int64) error
}

// A Codec puts the Actions of one type on the wire and back.
type Codec struct {
	Type reflect.Type // the Action's dynamic type
	// Append appends a's wire form to b.
	Append func(b []byte, a Action) []byte
	// Read reads an Action sent to partition dst from the start of b and
	// returns the rest of b.
	Read func(b []byte, dst *Engine) (Action, []byte, error)
}

// distributed is a Group's share of a run over several processes.
type distributed struct {
	net    Net
	owner  []int // per partition: the process that runs it
	codecs []Codec
	kind   map[reflect.Type]byte
	out    [][]byte // per process: the window's encoded events for it
}

// ErrRemote is the error of a process whose run another process stopped
// (its error is that process's).
var ErrRemote = errors.New("runtime: another process of the run stopped it")

// Distribute makes g one process's share of a run over the processes of
// net: partition i runs in process owner[i], the events sent to another
// process's partitions go there by codecs (one per Action type that
// crosses; every process passes the same, in the same order). Call it
// before spawning and before Run, with every process's Group built alike.
func (g *Group) Distribute(net Net, owner []int, codecs []Codec) {
	if len(owner) != len(g.parts) || len(codecs) > 255 {
		panic("runtime: Distribute: an owner for every partition, at most 255 codecs")
	}
	d := &distributed{net: net, owner: owner, codecs: codecs, kind: map[reflect.Type]byte{}, out: make([][]byte, net.Size())}
	for i, c := range codecs {
		d.kind[c.Type] = byte(i)
	}
	g.dist = d
	g.forceWindows = true
}

// Local reports whether partition i runs in this process (every partition
// of a Group that is not distributed).
func (g *Group) Local(i int) bool { return g.dist == nil || g.dist.owner[i] == g.dist.net.Rank() }

// sendRemote encodes the events that local partition s sent to partition d
// of another process in the window that ended (box), and empties it.
func (d *distributed) sendRemote(s, dst int, box *[]msg) error {
	p := d.owner[dst]
	b := d.out[p]
	b = binary.AppendUvarint(b, uint64(s))
	b = binary.AppendUvarint(b, uint64(dst))
	b = binary.AppendUvarint(b, uint64(len(*box)))
	for _, m := range *box {
		k, ok := d.kind[reflect.TypeOf(m.act)]
		if !ok {
			return fmt.Errorf("runtime: no codec for %T, sent by partition %d to partition %d of process %d", m.act, s, dst, p)
		}
		b = append(b, k)
		b = binary.AppendVarint(b, int64(m.t))
		b = binary.AppendUvarint(b, m.key)
		b = d.codecs[k].Append(b, m.act)
	}
	d.out[p] = b
	clear(*box)
	*box = (*box)[:0]
	return nil
}

// received decodes what process p sent: the outboxes of its partitions
// for this process's, put where the merge finds local ones (the source
// partition's outbox of parity old).
func (g *Group) received(b []byte, old uint8) error {
	bad := fmt.Errorf("runtime: a distributed window's events do not read back")
	r := wire.Reader{B: b}
	for len(r.B) > 0 {
		s, dst, n := r.Uvarint(), r.Uvarint(), r.Uvarint()
		if r.Bad || s >= uint64(len(g.parts)) || dst >= uint64(len(g.parts)) || !g.Local(int(dst)) {
			return bad
		}
		src, e := &g.parts[s].part, g.parts[dst]
		if src.out[old] == nil {
			for k := range src.out {
				src.out[k] = make([][]msg, len(g.parts))
				src.outMin[k] = make([]Time, len(g.parts))
				for i := range src.outMin[k] {
					src.outMin[k][i] = Never
				}
			}
		}
		box := &src.out[old][dst]
		for range n {
			kind := r.Byte()
			t, key := r.Varint(), r.Uvarint()
			if r.Bad || int(kind) >= len(g.dist.codecs) {
				return bad
			}
			c := &g.dist.codecs[kind]
			a, rest, err := c.Read(r.B, e)
			if err != nil {
				return fmt.Errorf("runtime: reading a %v: %w", c.Type, err)
			}
			r.B = rest
			*box = append(*box, msg{t: Time(t), key: key, act: a})
			g.inMin[dst] = min(g.inMin[dst], Time(t))
		}
		if len(*box) > 0 {
			g.inbox[dst] = append(g.inbox[dst], int32(s))
		}
	}
	return nil
}

// distBarrier is the exchange and the agreement of a distributed group's
// barrier, after its local partitions' outboxes went to their local
// inboxes (remote: the boxes of g.prev for other processes' partitions,
// still to send): it sends and receives them, and returns the next
// window's start agreed on (Never: the run is over everywhere) and
// whether a process stopped.
func (g *Group) distBarrier(old uint8, localErr bool, w Time, found bool) (Time, bool) {
	d := g.dist
	var err error
	for _, s := range g.prev {
		src := &g.parts[s].part
		if src.out[old] == nil {
			continue
		}
		for dst := range g.parts {
			if !g.Local(dst) && len(src.out[old][dst]) > 0 && err == nil {
				err = d.sendRemote(int(s), dst, &src.out[old][dst])
				src.outMin[old][dst] = Never
			}
		}
	}
	in, xerr := d.net.Exchange(d.out)
	for p := range d.out {
		d.out[p] = d.out[p][:0]
	}
	if err == nil {
		err = xerr
	}
	for p, b := range in {
		if p != d.net.Rank() && err == nil {
			err = g.received(b, old)
		}
	}
	for i := range g.inbox { // remote sources among local ones, by partition
		if len(g.inbox[i]) > 1 {
			slices.Sort(g.inbox[i])
		}
		if len(g.inbox[i]) > 0 {
			w, found = min(w, g.inMin[i]), true
		}
	}
	if err != nil && g.err == nil {
		g.err, g.errAt = err, g.Now()
	}
	if !found {
		w = Never
	}
	stop := int64(1)
	if localErr || g.err != nil {
		stop = 0
	}
	v := []int64{int64(w), stop}
	if err := d.net.Min(v); err != nil {
		if g.err == nil {
			g.err = err
		}
		return Never, true
	}
	if v[1] == 0 && g.err == nil {
		g.err, g.errAt = ErrRemote, g.Now()
	}
	return Time(v[0]), v[1] == 0
}
