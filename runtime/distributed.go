package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"

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
	// Sum sets each element of v to its sum over the processes.
	Sum(v []int64) error
}

// A Codec puts the Actions of one type on the wire and back.
type Codec struct {
	Type reflect.Type // the Action's dynamic type
	// Append appends a's wire form for process to to b; an error stops the
	// run (an Action it cannot write).
	Append func(b []byte, a Action, to int) ([]byte, error)
	// Read reads an Action that process from sent to partition dst from
	// the start of b and returns the rest of b. A nil Action is nothing to
	// run: the record only told the receiving process something (a
	// message's envelope, which its later events find).
	Read func(b []byte, from int, dst *Engine) (Action, []byte, error)
}

// distributed is a Group's share of a run over several processes.
type distributed struct {
	net    Net
	owner  []int // per partition: the process that runs it
	codecs []Codec
	kind   map[reflect.Type]byte
	out    [][]byte // per process: the window's encoded events for it
	errs   ErrorWire
	agreed bool // every process has the run's error (agreeError)
	// unsent counts the events (not Tell's records) of the window just
	// ended that wait for the exchange to another process (Pending).
	unsent int
	// between are the records told between windows (TellBetween), sent
	// with the window's exchange.
	between []told
}

// told is a record told between windows by partition src to dst.
type told struct {
	src, dst int
	a        Action
}

// An ErrorWire puts on the wire the error that stops a distributed run, so
// that every process ends with the error a run in one process ends with.
// Append reports false for an error it has no wire form for: that error
// stays in its process, and the others end with ErrRemote.
type ErrorWire struct {
	Append func(b []byte, err error) ([]byte, bool)
	Read   func(b []byte) (error, error)
}

// SetErrorWire gives a distributed group (Distribute) the wire form of its
// errors; every process passes the same.
func (g *Group) SetErrorWire(w ErrorWire) { g.dist.errs = w }

// WaitText is what a blocked process of another process waits for, in a
// deadlock report: its Wait's text (String, or fmt's %v).
type WaitText string

func (w WaitText) String() string { return string(w) }

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

// Tell sends a, a record with something to tell rather than an event to
// run, to dst, a partition of another process: its codec's Read takes it
// in at the window's end and returns no Action. It is no crossing
// (Crossings), and it moves no window, so that a run over processes has the
// windows and crossings of a run in one.
func (e *Engine) Tell(dst *Engine, a Action) {
	g := e.part.g
	if g == nil || g.dist == nil || g.Local(dst.part.idx) {
		panic("runtime: Tell to a partition of this process")
	}
	e.send(dst, e.part.end, tellKey, a)
}

// tellKey is the key of a Tell's record (never run).
const tellKey = ^uint64(0)

// TellBetween is Tell made between windows, in AfterWindow: partition src
// of this process tells a to partition dst of another, which reads it with
// what the window just ended sent (as a Tell made in that window).
func (g *Group) TellBetween(src, dst int, a Action) {
	if g.dist == nil || !g.Local(src) || g.Local(dst) {
		panic("runtime: TellBetween from a partition of this process to another process's")
	}
	g.dist.between = append(g.dist.between, told{src: src, dst: dst, a: a})
}

// untold counts the events of box, Tell's records left out.
func untold(box []msg) int {
	n := 0
	for _, m := range box {
		if m.key != tellKey {
			n++
		}
	}
	return n
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
		var err error
		if b, err = d.codecs[k].Append(b, m.act, p); err != nil {
			return fmt.Errorf("runtime: writing a %T for process %d: %w", m.act, p, err)
		}
	}
	d.out[p] = b
	clear(*box)
	*box = (*box)[:0]
	return nil
}

// received decodes what process p sent: the outboxes of its partitions
// for this process's, put where the merge finds local ones (the source
// partition's outbox of parity old).
func (g *Group) received(p int, b []byte, old uint8) error {
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
		before := len(*box) // (a source's records may come in several blocks)
		for range n {
			kind := r.Byte()
			t, key := r.Varint(), r.Uvarint()
			if r.Bad || int(kind) >= len(g.dist.codecs) {
				return bad
			}
			c := &g.dist.codecs[kind]
			a, rest, err := c.Read(r.B, p, e)
			if err != nil {
				return fmt.Errorf("runtime: reading a %v: %w", c.Type, err)
			}
			r.B = rest
			if a == nil {
				continue
			}
			*box = append(*box, msg{t: Time(t), key: key, act: a})
			g.inMin[dst] = min(g.inMin[dst], Time(t))
		}
		if before == 0 && len(*box) > 0 {
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
// whether a process stopped. w and found are the least time queued in
// this process's partitions and inboxes.
//
// The exchange is the window's only collective. Every event of the run is
// queued in some process, or in an inbox, or on its way to another
// process, and its sender knows it: so each process puts at the head of
// what it sends every other the least time of its own events and of those
// it sends, whether it stopped, and the time of its error, and every
// process reads the same next window and the same stop from the heads.
// A process that cannot read what it received stops too, but the others
// learn it from the next exchange: until then it runs nothing.
func (g *Group) distBarrier(old uint8, localErr bool, w Time, found bool) (Time, bool) {
	d := g.dist
	var err error
	for _, s := range g.prev {
		src := &g.parts[s].part
		if src.out[old] == nil {
			continue
		}
		for dst := range g.parts {
			if !g.Local(dst) && len(src.out[old][dst]) > 0 {
				if t := src.outMin[old][dst]; t < Never { // (Never: only Tell's records)
					w, found = min(w, t), true
				}
				if err == nil {
					err = d.sendRemote(int(s), dst, &src.out[old][dst])
				}
				src.outMin[old][dst] = Never
			}
		}
	}
	for i, t := range d.between {
		if err == nil {
			box := []msg{{t: g.end, key: tellKey, act: t.a}}
			err = d.sendRemote(t.src, t.dst, &box)
		}
		d.between[i] = told{}
	}
	d.between, d.unsent = d.between[:0], 0
	if err != nil && g.err == nil {
		g.err, g.errAt = err, g.Now()
	}
	if !found {
		w = Never
	}
	stop, errAt := localErr || g.err != nil, Never
	if g.err != nil {
		errAt = g.errAt
	}
	out := d.framed(w, stop, errAt)
	in, xerr := d.net.Exchange(out)
	for p := range d.out {
		d.out[p] = d.out[p][:0]
	}
	if xerr != nil {
		if g.err == nil {
			g.err, g.errAt = xerr, g.Now()
		}
		return Never, true
	}
	for p, b := range in { // each head read, in[p] is p's events
		if p == d.net.Rank() {
			continue
		}
		hw, hstop, herr, rest, ok := readHead(b)
		if !ok && err == nil {
			err = fmt.Errorf("runtime: the head of what process %d sent does not read back", p)
		}
		w, stop, errAt = min(w, hw), stop || hstop, min(errAt, herr)
		in[p] = rest
	}
	// (Read also when the run stops: what they told, such as the lines
	// printed before the error, is kept up to it.)
	for p, b := range in {
		if p != d.net.Rank() && err == nil {
			err = g.received(p, b, old)
		}
	}
	if stop {
		if err := g.agreeError(errAt); err != nil {
			g.err = err
		}
		return w, true
	}
	for i := range g.inbox { // remote sources among local ones, by partition
		if len(g.inbox[i]) > 1 {
			slices.Sort(g.inbox[i])
		}
	}
	if err != nil && g.err == nil {
		g.err, g.errAt = err, g.Now() // the others learn it next (barrier runs nothing)
	}
	return w, false
}

// framed is what this process sends every other at a window's end: the
// head (the least time of its events, whether it stopped, the time of its
// error) and its events for that process.
func (d *distributed) framed(w Time, stop bool, errAt Time) [][]byte {
	var head []byte
	head = binary.AppendVarint(head, int64(w))
	f := byte(0)
	if stop {
		f = 1
	}
	head = append(head, f)
	head = binary.AppendVarint(head, int64(errAt))
	out := make([][]byte, len(d.out))
	for p := range out {
		if p != d.net.Rank() {
			out[p] = append(append(make([]byte, 0, len(head)+len(d.out[p])), head...), d.out[p]...)
		}
	}
	return out
}

// readHead reads the head framed put before b's events.
func readHead(b []byte) (w Time, stop bool, errAt Time, rest []byte, ok bool) {
	r := wire.Reader{B: b}
	w = Time(r.Varint())
	f := r.Byte()
	errAt = Time(r.Varint())
	if r.Bad || f > 1 {
		return Never, false, Never, nil, false
	}
	return w, f == 1, errAt, r.B, true
}

// agreeError makes every process end with the error a run in one process
// ends with, once one has stopped: the first by time, then by partition
// (the stop of a process that has no partition in it, a cancelled context,
// comes first among those of its time). at is the earliest time of an
// error, agreed; Never if the processes that stopped have none (a process
// that failed to exchange).
func (g *Group) agreeError(at Time) error {
	d := g.dist
	d.agreed = true
	mine := g.err != nil && g.errAt == at
	part := []int64{int64(Never)}
	if mine {
		part[0] = int64(g.errPart) + 1
	}
	if err := d.net.Min(part); err != nil {
		return err
	}
	mine = mine && int64(g.errPart)+1 == part[0]
	out := make([][]byte, d.net.Size())
	if mine && d.errs.Append != nil {
		if b, ok := d.errs.Append(nil, g.err); ok {
			for p := range out {
				if p != d.net.Rank() {
					out[p] = b
				}
			}
		}
	}
	in, err := d.net.Exchange(out)
	if err != nil {
		return err
	}
	if mine {
		return nil
	}
	for p, b := range in {
		if p == d.net.Rank() || len(b) == 0 {
			continue
		}
		e, rerr := d.errs.Read(b)
		if rerr != nil {
			return fmt.Errorf("runtime: reading the error of process %d: %w", p, rerr)
		}
		g.err, g.errAt, g.errPart = e, at, int(part[0])-1
		return nil
	}
	g.err, g.errAt, g.errPart = ErrRemote, at, int(part[0])-1
	if at == Never {
		g.errAt = g.Now()
	}
	return nil
}

// gatherBlocked is the deadlock of a distributed run that ended with
// nothing pending anywhere: the latest time any process reached, and the
// blocked processes of every process in process ID order, with what they
// wait for and where they stand (locate; nil: Where is nil): this
// process's own (mine), and the others' as placeholders whose Wait is a
// WaitText. nil if no process has any.
func (g *Group) gatherBlocked(mine []*Proc, locate func(*Proc) string) (*DeadlockError, error) {
	d := g.dist
	now := g.Now()
	var b []byte
	b = binary.AppendVarint(b, int64(now))
	b = binary.AppendUvarint(b, uint64(len(mine)))
	where := make([]string, 0, len(mine))
	for _, p := range mine {
		w := ""
		if locate != nil {
			w = locate(p)
		}
		where = append(where, w)
		b = binary.AppendVarint(b, int64(p.ID))
		b = wire.AppendText(b, w)
		b = wire.AppendText(b, waitText(p.Wait))
	}
	out := make([][]byte, d.net.Size())
	for p := range out {
		if p != d.net.Rank() {
			out[p] = b
		}
	}
	in, err := d.net.Exchange(out)
	if err != nil {
		return nil, err
	}
	all, allWhere := mine, where
	bad := errors.New("runtime: a process's blocked processes do not read back")
	for p, b := range in {
		if p == d.net.Rank() {
			continue
		}
		r := wire.Reader{B: b}
		now = max(now, Time(r.Varint()))
		n := r.Uvarint()
		for i := uint64(0); i < n && !r.Bad; i++ {
			id := r.Varint()
			w, text := r.Text(), r.Text()
			all = append(all, &Proc{ID: int(id), state: ProcBlocked, Wait: WaitText(text)})
			allWhere = append(allWhere, w)
		}
		if r.Bad || len(r.B) != 0 {
			return nil, bad
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return all[idx[i]].ID < all[idx[j]].ID })
	dl := &DeadlockError{Time: now}
	for _, k := range idx {
		dl.Blocked = append(dl.Blocked, all[k])
		dl.Waits = append(dl.Waits, all[k].Wait)
		if locate != nil {
			dl.Where = append(dl.Where, allWhere[k])
		}
	}
	return dl, nil
}

// waitText is what a process waits for, as text (its String, if it has one).
func waitText(w any) string {
	if w == nil {
		return ""
	}
	return fmt.Sprint(w)
}
