package observe

import (
	"bufio"
	"cmp"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bglua/bglua/runtime"
)

// Tracer writes a Chrome trace-event JSON timeline (opens in Perfetto and
// chrome://tracing): one process per node (pid node+1) and one thread per
// rank (tid rank+1), a slice for every mpi and ml call, and a flow arrow from
// each send to the receive that completes it; every event has a category.
// Events are written in the engine's order, so the file is the same byte for
// byte on every run.
type Tracer struct {
	w       *bufio.Writer
	clockHz float64
	node    func(rank int) int
	keep    func(rank int) bool
	n       int
	err     error

	// Counters: every Window cycles of virtual time, at the next message,
	// the share of torus link time reserved in the window and the number of
	// pending events. Sampling at messages adds no event to the run.
	Window   runtime.Time
	Sample   func() (linkBusy int64, links int, pending int)
	next     runtime.Time
	lastT    runtime.Time
	lastBusy int64
	// SampleDims, if set, gives the link time reserved so far per
	// dimension (x, y, z) and how many links each has: a counter of each
	// dimension's share in the window, beside the whole torus's.
	SampleDims func() (busy [3]int64, links [3]int)
	lastDims   [3]int64
	// Links, if set, gives the busiest links at the end of the run and the
	// run's end: each gets a counter track of its own, its share of the run
	// held from the start to the end (linkCounters).
	Links    func() (end runtime.Time, links []LinkBusy)
	counting bool            // the machine's process is named
	units    map[[2]int]bool // (node, unit): the thread unit's thread is named
	progs    map[[2]int]bool // (rank, context): the progress context's thread is named
	progMu   sync.Mutex
	// starts are the flow starts of messages not complete yet, by id: a
	// start is written with its end, so that every arrow has both.
	starts map[int64]string

	// In partitions (SetPartitions): records kept per partition until the
	// window that made them ends, then those to write (ready).
	partOf func(rank int) int
	parts  []traceBuf
	ready  []Record

	// Over several processes (Remote): records made in this process are
	// handed to forward (a process other than the one that writes), or the
	// other processes' come in by Insert a window late, and WindowEnd
	// writes those of the window before (remote).
	forward func(Record)
	remote  bool
}

// traceBuf is a partition's records of the current window.
type traceBuf struct {
	b    strings.Builder
	recs []Record
}

// A Record is one record of a trace in partitions (a JSON object, Text),
// made in partition Part at time T; a message flow's start or end (Flow,
// Start) carries its message's ID.
type Record struct {
	T           runtime.Time
	Part        int
	Text        string
	Flow, Start bool
	ID          int64
}

// tw is where a record is written: the file, or a partition's buffer.
type tw interface {
	WriteString(string) (int, error)
	WriteByte(byte) error
}

// SetPartitions makes t keep the records of each of n partitions apart, rank
// r's in partition partOf(r), until WindowEnd or Finish writes them in (time,
// partition, order) order: the same file for every thread count. The
// counters (Sample) are sampled between windows, when the first record at or
// after the next sampling time is written, with the values of that moment.
func (t *Tracer) SetPartitions(n int, partOf func(rank int) int) {
	t.partOf = partOf
	t.parts = make([]traceBuf, n)
}

// Remote makes t one process's tracer in a run over several processes
// (after SetPartitions): with forward set, every record made here goes to
// forward (called on the recording partition's thread), for the process
// that writes; without, t writes, and the other processes' records come in
// by Insert with the exchange at the end of the window that made them, so
// that WindowEnd writes the records of the window before, and its counters
// (Sample) must give the values at that window's end.
func (t *Tracer) Remote(forward func(Record)) {
	t.forward, t.remote = forward, true
}

// Insert adds a record that another process made (with every partition at
// rest, before the next WindowEnd).
func (t *Tracer) Insert(r Record) { t.ready = append(t.ready, r) }

// add keeps r, made in its partition's thread, until its window's end.
func (t *Tracer) add(r Record) {
	if t.forward != nil {
		t.forward(r)
		return
	}
	p := &t.parts[r.Part]
	p.recs = append(p.recs, r)
}

// readyAll makes every partition's records of the current window ready to
// write.
func (t *Tracer) readyAll() {
	for i := range t.parts {
		p := &t.parts[i]
		t.ready = append(t.ready, p.recs...)
		clear(p.recs)
		p.recs = p.recs[:0]
	}
}

// record starts a record of rank's; done ends it, made at time at.
func (t *Tracer) record(rank int) tw {
	if t.parts == nil {
		t.begin()
		return t.w
	}
	b := &t.parts[t.partOf(rank)].b
	b.Reset()
	return b
}

func (t *Tracer) done(rank int, at runtime.Time) {
	if t.parts == nil {
		return
	}
	i := t.partOf(rank)
	t.add(Record{T: at, Part: i, Text: t.parts[i].b.String()})
}

// WindowEnd writes the records of every partition, all made before end (the end
// of a window of a runtime.Group, every partition at rest). Over several
// processes (Remote) it writes those of the window before, and keeps this
// window's until the others' are in.
func (t *Tracer) WindowEnd(end runtime.Time) {
	if !t.remote {
		t.readyAll()
		t.merge(func(Record) bool { return true })
		return
	}
	t.merge(func(Record) bool { return true })
	t.readyAll()
}

// Finish writes, after a run in partitions that ended with an error raised
// in partition errPart at errAt, the records made before it (see
// Printer.Finish), and over several processes those of the last window.
func (t *Tracer) Finish(errAt runtime.Time, errPart int) {
	t.readyAll()
	t.merge(func(r Record) bool { return beforeErr(r.T, r.Part, errAt, errPart) })
}

// merge writes the records ready that keep accepts, in (time, partition,
// order) order, and drops the others.
func (t *Tracer) merge(keep func(Record) bool) {
	all := t.ready[:0]
	for _, r := range t.ready {
		if keep(r) {
			all = append(all, r)
		}
	}
	clear(t.ready[len(all):])
	slices.SortStableFunc(all, func(a, b Record) int {
		return cmp.Or(cmp.Compare(a.T, b.T), cmp.Compare(a.Part, b.Part))
	})
	for _, r := range all {
		if r.Flow && r.Start {
			t.starts[r.ID] = r.Text
		}
	}
	for _, r := range all {
		if t.Sample != nil && t.Window > 0 && r.T >= t.next {
			t.counters(r.T)
		}
		switch {
		case !r.Flow:
		case r.Start:
			continue // written with its end
		case !t.takeStart(r.ID):
			continue
		}
		t.begin()
		t.w.WriteString(r.Text)
	}
	clear(all)
	t.ready = all[:0]
}

// NewTracer starts a trace on w. node maps a rank to its node (the trace's
// process); keep selects the ranks written (nil: all).
func NewTracer(w io.Writer, clockHz float64, node func(int) int, keep func(int) bool) *Tracer {
	t := &Tracer{w: bufio.NewWriterSize(w, 1<<16), clockHz: clockHz, node: node, keep: keep, starts: map[int64]string{}}
	t.w.WriteString("[\n")
	return t
}

// Times are written in microseconds with 4 decimals. A slice's duration is
// the difference of its rounded ends, not its rounded length, so that slices
// that nest or are disjoint in cycles still do in the file.

// ticks is c in units of the last decimal (0.1 ns), rounded.
func (t *Tracer) ticks(c runtime.Time) int64 {
	return int64(math.Round(float64(c) / t.clockHz * 1e10))
}

// us is time c.
func (t *Tracer) us(c runtime.Time) string { return usOf(t.ticks(c)) }

// dur is the length of the slice from start to end.
func (t *Tracer) dur(start, end runtime.Time) string { return usOf(t.ticks(end) - t.ticks(start)) }

// usOf writes n ticks (n >= 0) as microseconds.
func usOf(n int64) string {
	var b [24]byte
	s := strconv.AppendInt(b[:0], n/1e4, 10)
	f := n % 1e4
	s = append(s, '.', byte('0'+f/1000), byte('0'+f/100%10), byte('0'+f/10%10), byte('0'+f%10))
	return string(s)
}

func (t *Tracer) begin() {
	if t.n > 0 {
		t.w.WriteString(",\n")
	}
	t.n++
}

func (t *Tracer) ids(rank int) { t.idsTo(t.w, rank) }

func (t *Tracer) idsTo(w tw, rank int) {
	w.WriteString(`,"pid":`)
	w.WriteString(strconv.Itoa(t.node(rank) + 1))
	w.WriteString(`,"tid":`)
	w.WriteString(strconv.Itoa(rank + 1))
	w.WriteByte('}')
}

// Names labels the process of each node and the thread of each rank kept.
func (t *Tracer) Names(ranks int, nodeName func(node int) string) {
	seen := map[int]bool{}
	for r := 0; r < ranks; r++ {
		if t.keep != nil && !t.keep(r) {
			continue
		}
		if n := t.node(r); !seen[n] {
			seen[n] = true
			t.begin()
			t.w.WriteString(`{"name":"process_name","cat":"__metadata","ph":"M","args":{"name":` + jsonString(nodeName(n)) + `}`)
			t.ids(r)
			t.begin()
			t.w.WriteString(`{"name":"process_sort_index","cat":"__metadata","ph":"M","args":{"sort_index":` + strconv.Itoa(n) + `}`)
			t.ids(r)
		}
		t.begin()
		t.w.WriteString(`{"name":"thread_name","cat":"__metadata","ph":"M","args":{"name":"rank ` + strconv.Itoa(r) + `"}`)
		t.ids(r)
	}
}

// CallArgs are what a call's slice shows as its args; zero values are left
// out.
type CallArgs struct {
	Bytes int64 // payload bytes the rank sent during the call
	// The call's one message, when it sent or received exactly one: the
	// other rank (in COMM_WORLD), the tag (HasTag), and the protocol.
	HasPeer, HasTag bool
	Peer, Tag       int
	Protocol        string
	Algorithm       string // a collective's algorithm
}

// Slice records a call of name by rank from start to end.
func (t *Tracer) Slice(name string, rank int, start, end runtime.Time, a CallArgs) {
	if t.keep != nil && !t.keep(rank) {
		return
	}
	w := t.record(rank)
	t.slice(w, name, "call", start, end)
	a.write(w)
	t.idsTo(w, rank)
	t.done(rank, end)
}

// write writes a's fields as the event's args, if it has any.
func (a CallArgs) write(w tw) {
	var b argWriter
	if a.Bytes != 0 {
		b.int(w, "bytes", a.Bytes)
	}
	if a.HasPeer {
		b.int(w, "peer", int64(a.Peer))
	}
	if a.HasTag {
		b.int(w, "tag", int64(a.Tag))
	}
	b.str(w, "protocol", a.Protocol)
	b.str(w, "algorithm", a.Algorithm)
	b.end(w)
}

// argWriter writes an event's "args" object one field at a time, the
// object opened by the first and left out without any.
type argWriter struct{ n int }

func (b *argWriter) key(w tw, k string) {
	if b.n == 0 {
		w.WriteString(`,"args":{`)
	} else {
		w.WriteByte(',')
	}
	b.n++
	w.WriteString(`"` + k + `":`)
}

func (b *argWriter) int(w tw, k string, v int64) {
	b.key(w, k)
	w.WriteString(strconv.FormatInt(v, 10))
}

// str writes a string field unless v is "".
func (b *argWriter) str(w tw, k, v string) {
	if v == "" {
		return
	}
	b.key(w, k)
	w.WriteString(jsonString(v))
}

func (b *argWriter) end(w tw) {
	if b.n > 0 {
		w.WriteByte('}')
	}
}

// RegionSlice records a region of rank's program (mpi.trace_begin and
// mpi.trace_end), name, from start to end: a slice of category region on
// the rank's thread, around the calls made in it.
func (t *Tracer) RegionSlice(name string, rank int, start, end runtime.Time) {
	if t.keep != nil && !t.keep(rank) {
		return
	}
	w := t.record(rank)
	t.slice(w, name, "region", start, end)
	t.idsTo(w, rank)
	t.done(rank, end)
}

// UnitSlice records a handler or micro-task, name, that thread unit unit
// (of category kind) of rank's node ran for rank from start to end. It is
// drawn on a thread of the unit's own in the node's process (tid 1<<30 +
// unit), since the units of a node run at once and beside the rank. Thread
// units run in one partition only.
func (t *Tracer) UnitSlice(name string, rank, unit int, kind string, start, end runtime.Time) {
	if t.keep != nil && !t.keep(rank) {
		return
	}
	node := t.node(rank)
	ids := `,"pid":` + strconv.Itoa(node+1) + `,"tid":` + strconv.Itoa(1<<30+unit) + `}`
	w := t.record(rank)
	if k := [2]int{node, unit}; !t.units[k] {
		if t.units == nil {
			t.units = map[[2]int]bool{}
		}
		t.units[k] = true
		w.WriteString(`{"name":"thread_name","cat":"__metadata","ph":"M","args":{"name":` +
			jsonString("unit "+strconv.Itoa(unit)+" ("+kind+")") + `}` + ids + ",\n")
	}
	t.slice(w, name, "call", start, end)
	w.WriteString(ids)
	t.done(rank, end)
}

// ProgressSlice records a nonblocking collective, name, that progress
// context ctx of rank ran from start to end: on a thread of its own in the
// node's process (tid 1<<29 + rank<<4 + ctx, ctx at most 15), since it runs
// beside the rank's calls.
func (t *Tracer) ProgressSlice(name string, rank, ctx int, start, end runtime.Time, a CallArgs) {
	if t.keep != nil && !t.keep(rank) {
		return
	}
	ctx = min(ctx, 15)
	node := t.node(rank)
	ids := `,"pid":` + strconv.Itoa(node+1) + `,"tid":` + strconv.Itoa(1<<29+rank<<4+ctx) + `}`
	w := t.record(rank)
	t.progMu.Lock() // partitions record at once
	k := [2]int{rank, ctx}
	named := t.progs[k]
	if !named {
		if t.progs == nil {
			t.progs = map[[2]int]bool{}
		}
		t.progs[k] = true
	}
	t.progMu.Unlock()
	if !named {
		w.WriteString(`{"name":"thread_name","cat":"__metadata","ph":"M","args":{"name":` +
			jsonString("rank "+strconv.Itoa(rank)+" progress "+strconv.Itoa(ctx)) + `}` + ids + ",\n")
	}
	t.slice(w, name, "call", start, end)
	a.write(w)
	w.WriteString(ids)
	t.done(rank, end)
}

// slice writes a slice of category cat from start to end, all but its ids.
func (t *Tracer) slice(w tw, name, cat string, start, end runtime.Time) {
	w.WriteString(`{"name":`)
	w.WriteString(jsonString(name))
	w.WriteString(`,"cat":"` + cat + `","ph":"X","ts":`)
	w.WriteString(t.us(start))
	w.WriteString(`,"dur":`)
	w.WriteString(t.dur(start, end))
}

// Flow records a message leaving its sender (start) or completing at its
// receiver, rank, whose peer is the other end; the viewer draws an arrow
// between the enclosing slices. An arrow needs both ends: only a message
// both of whose ranks are kept is drawn, and its start is written with its
// end, so that a message never received has none. Both ends show the
// message's payload bytes and tag as args, the start also its protocol and
// the collective and algorithm that sent it, if any ("" left out).
func (t *Tracer) Flow(start bool, id int64, rank, peer int, at runtime.Time, bytes, tag int, protocol, coll string) {
	if t.parts == nil && t.Sample != nil && t.Window > 0 && at >= t.next {
		t.counters(at)
	}
	if t.keep != nil && (!t.keep(rank) || !t.keep(peer)) {
		return
	}
	var b strings.Builder
	b.WriteString(`{"name":"message","cat":"message","id":`)
	b.WriteString(strconv.FormatInt(id, 10))
	if start {
		b.WriteString(`,"ph":"s","ts":`)
	} else {
		b.WriteString(`,"ph":"f","bp":"e","ts":`)
	}
	b.WriteString(t.us(at))
	var a argWriter
	a.int(&b, "bytes", int64(bytes))
	a.int(&b, "tag", int64(tag))
	a.int(&b, "peer", int64(peer))
	a.str(&b, "protocol", protocol)
	a.str(&b, "algorithm", coll)
	a.end(&b)
	t.idsTo(&b, rank)
	if t.parts != nil {
		t.add(Record{T: at, Part: t.partOf(rank), Text: b.String(), Flow: true, Start: start, ID: id})
		return
	}
	switch {
	case start:
		t.starts[id] = b.String()
	case t.takeStart(id):
		t.begin()
		t.w.WriteString(b.String())
	}
}

// takeStart writes the start of message id's flow, if it was recorded, and
// reports whether it was.
func (t *Tracer) takeStart(id int64) bool {
	s, ok := t.starts[id]
	if ok {
		delete(t.starts, id)
		t.begin()
		t.w.WriteString(s)
	}
	return ok
}

func (t *Tracer) counters(at runtime.Time) {
	t.nameMachine()
	busy, links, pending := t.Sample()
	if span := at - t.lastT; span > 0 && links > 0 {
		util := float64(busy-t.lastBusy) / float64(span) / float64(links) * 100
		t.begin()
		t.w.WriteString(`{"name":"torus links busy %","cat":"machine","ph":"C","ts":`)
		t.w.WriteString(t.us(at))
		t.w.WriteString(`,"pid":` + machinePid + `,"tid":1,"args":{"busy":`)
		t.w.WriteString(strconv.FormatFloat(util, 'f', 2, 64))
		t.w.WriteString(`}}`)
	}
	if t.SampleDims != nil {
		dims, links := t.SampleDims()
		if span := at - t.lastT; span > 0 {
			var a argWriter
			t.begin()
			t.w.WriteString(`{"name":"torus links busy % by dimension","cat":"machine","ph":"C","ts":`)
			t.w.WriteString(t.us(at))
			t.w.WriteString(`,"pid":` + machinePid + `,"tid":1`)
			for d, name := range [3]string{"x", "y", "z"} {
				util := 0.0
				if links[d] > 0 {
					util = float64(dims[d]-t.lastDims[d]) / float64(span) / float64(links[d]) * 100
				}
				a.key(t.w, name)
				t.w.WriteString(strconv.FormatFloat(util, 'f', 2, 64))
			}
			a.end(t.w)
			t.w.WriteByte('}')
		}
		t.lastDims = dims
	}
	t.begin()
	t.w.WriteString(`{"name":"pending events","cat":"machine","ph":"C","ts":`)
	t.w.WriteString(t.us(at))
	t.w.WriteString(`,"pid":` + machinePid + `,"tid":1,"args":{"events":`)
	t.w.WriteString(strconv.Itoa(pending))
	t.w.WriteString(`}}`)
	t.lastT, t.lastBusy = at, busy
	t.next = at + t.Window
}

// nameMachine names the machine's process in the trace, once.
func (t *Tracer) nameMachine() {
	if !t.counting {
		t.counting = true
		t.begin()
		t.w.WriteString(`{"name":"process_name","cat":"__metadata","ph":"M","pid":` + machinePid + `,"tid":1,"args":{"name":"machine"}}`)
	}
}

// LinkBusy is one link's share of the run (Tracer.Links).
type LinkBusy struct {
	Name string  // "(3,1,0)+x"
	Busy float64 // percent of the run's virtual time it was held
}

// linkCounters writes a counter track for each of the busiest links: its
// busy share over the run, from time 0 to the run's end.
func (t *Tracer) linkCounters() {
	if t.Links == nil {
		return
	}
	end, links := t.Links()
	if len(links) > 0 {
		t.nameMachine()
	}
	for _, l := range links {
		for _, p := range [2]struct {
			at   runtime.Time
			busy float64
		}{{0, l.Busy}, {end, 0}} {
			t.begin()
			t.w.WriteString(`{"name":`)
			t.w.WriteString(jsonString("link " + l.Name + " busy %"))
			t.w.WriteString(`,"cat":"machine","ph":"C","ts":`)
			t.w.WriteString(t.us(p.at))
			t.w.WriteString(`,"pid":` + machinePid + `,"tid":1,"args":{"busy":`)
			t.w.WriteString(strconv.FormatFloat(p.busy, 'f', 2, 64))
			t.w.WriteString(`}}`)
		}
	}
}

// The trace processes besides the nodes': the bcs runtime's slices, and the
// machine's counters.
const (
	bcsPid     = "1073741824" // 1<<30
	machinePid = "1073741825"
)

// BCSSlice draws bcs slice k as the phases that marks end (see
// bcs.Sched.OnSlice) on a track of their own.
func (t *Tracer) BCSSlice(k int64, marks [7]runtime.Time) {
	if k == 1 {
		t.begin()
		t.w.WriteString(`{"name":"process_name","cat":"__metadata","ph":"M","pid":` + bcsPid + `,"tid":1,"args":{"name":"bcs runtime"}}`)
	}
	names := [...]string{"strobe", "descriptor exchange", "message scheduling", "point-to-point", "broadcast and barrier", "reduce"}
	for i, name := range names {
		if i == 0 {
			name = "slice " + strconv.FormatInt(k, 10) + " strobe"
		}
		t.begin()
		t.slice(t.w, name, "bcs", marks[i], marks[i+1])
		t.w.WriteString(`,"pid":` + bcsPid + `,"tid":1}`)
	}
}

// Close ends the JSON array and flushes.
func (t *Tracer) Close() error {
	t.linkCounters()
	t.w.WriteString("\n]\n")
	return t.w.Flush()
}

// jsonString is s as a JSON string: quotes, backslashes and control
// characters escaped, bytes that are not UTF-8 replaced by U+FFFD, the rest
// as it is. (Go's quoting writes \x01, \v and \U0001F600, which JSON has not.)
func jsonString(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+n]...)
			}
			i += n
			continue
		}
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\t':
			b = append(b, `\t`...)
		case c == '\r':
			b = append(b, `\r`...)
		case c < 0x20 || c == 0x7f:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
		i++
	}
	return string(append(b, '"'))
}

const hex = "0123456789abcdef"
