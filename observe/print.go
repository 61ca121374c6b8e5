package observe

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"sort"
	"strconv"

	"github.com/bglua/bglua/runtime"
)

// Printer orders the output of all ranks by (virtual time, rank). Ranks print
// in the engine's order, which is virtual time order but not rank order among
// equal times, so lines of the current time wait until time moves on.
type Printer struct {
	w      *bufio.Writer
	prefix bool
	t      runtime.Time
	lines  []line
	// Lines counts the lines written.
	Lines int64

	// In partitions (SetPartitions): lines kept per partition until the
	// window that printed them ends (Window).
	partOf func(rank int) int
	parts  [][]pline
	merged []pline

	// Over several processes (Remote): lines printed in this process are
	// handed to forward (a process other than the one that writes), or
	// the lines of other processes come in by Insert a window late, and
	// Window writes those printed before the window before (done).
	forward func(t runtime.Time, part, rank int, text string)
	remote  bool
	done    runtime.Time
}

// pline is a line printed in a partition.
type pline struct {
	t    runtime.Time
	part int
	line
}

type line struct {
	rank, seq int
	text      string
}

// NewPrinter writes to w; prefix adds "[rank] " to every line.
func NewPrinter(w io.Writer, prefix bool) *Printer {
	return &Printer{w: bufio.NewWriterSize(w, 64<<10), prefix: prefix}
}

// SetPartitions makes p keep the lines of each of n partitions apart, rank
// r's in partition partOf(r), until Window or Finish writes them: each
// partition prints from its own thread, and the lines are written in the
// order of a run of one partition, (time, rank, the rank's own order).
func (p *Printer) SetPartitions(n int, partOf func(rank int) int) {
	p.partOf = partOf
	p.parts = make([][]pline, n)
}

// Remote makes p one process's printer in a run over several processes
// (after SetPartitions): with forward set, every line printed here goes to
// forward (called on the printing partition's thread), for the process
// that writes; without, p writes, and the other processes' lines come in
// by Insert at the end of the window after the one that printed them.
func (p *Printer) Remote(forward func(t runtime.Time, part, rank int, text string)) {
	p.forward, p.remote = forward, true
}

// Insert adds a line that another process printed in partition part (with
// every partition at rest).
func (p *Printer) Insert(t runtime.Time, part, rank int, text string) {
	p.parts[part] = append(p.parts[part], pline{t: t, part: part, line: line{rank: rank, text: text}})
}

// Window writes the lines of every partition, all printed before end (the
// end of a window of a runtime.Group, every partition at rest). Over
// several processes it writes those printed before the previous window's
// end: the others' lines of the window just over are still on their way.
func (p *Printer) Window(end runtime.Time) {
	if !p.remote {
		p.merge(func(pline) bool { return true })
		return
	}
	done := p.done
	p.done = end
	p.merge(func(l pline) bool { return l.t < done })
}

// Finish writes, after a run in partitions that ended with an error raised
// in partition errPart at errAt (runtime.Group.ErrAt), the lines printed
// before it, and drops those of the same window printed after it: at (t,
// part) after (errAt, errPart). A run in one partition never printed them. A
// negative errPart (a deadlock, a limit) keeps every line.
func (p *Printer) Finish(errAt runtime.Time, errPart int) {
	p.merge(func(l pline) bool { return beforeErr(l.t, l.part, errAt, errPart) })
}

// beforeErr reports whether what partition part recorded at t comes before
// an error raised in partition errPart at errAt (a negative errPart: every
// record does), in the order of a run of one partition.
func beforeErr(t runtime.Time, part int, errAt runtime.Time, errPart int) bool {
	return errPart < 0 || t < errAt || t == errAt && part <= errPart
}

// takeSplit appends to all the records of box that keep accepts and leaves
// the others in box, in order.
func takeSplit[T any](all []T, box *[]T, keep func(T) bool) []T {
	left := (*box)[:0]
	for _, r := range *box {
		if keep(r) {
			all = append(all, r)
		} else {
			left = append(left, r)
		}
	}
	clear((*box)[len(left):])
	*box = left
	return all
}

func (p *Printer) merge(keep func(pline) bool) {
	all := p.merged[:0]
	for i := range p.parts {
		if len(p.parts[i]) > 0 {
			// (Lines keep rejects stay: over processes those of a later
			// window; after an error, those never written.)
			all = takeSplit(all, &p.parts[i], keep)
		}
	}
	if len(all) == 0 {
		return // most windows print nothing
	}
	// A rank prints in one partition, its lines in order: a stable sort by
	// (time, rank) keeps its order.
	slices.SortStableFunc(all, func(a, b pline) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.rank, b.rank)
	})
	for _, l := range all {
		p.lines = append(p.lines, l.line)
		p.flushLines()
	}
	clear(all)
	p.merged = all[:0]
}

// Print queues one line of rank at time t.
func (p *Printer) Print(t runtime.Time, rank int, text string) {
	if p.parts != nil {
		i := p.partOf(rank)
		if p.forward != nil {
			p.forward(t, i, rank, text)
			return
		}
		p.parts[i] = append(p.parts[i], pline{t: t, part: i, line: line{rank: rank, text: text}})
		return
	}
	if t != p.t {
		p.flushLines()
		p.t = t
	}
	p.lines = append(p.lines, line{rank: rank, seq: len(p.lines), text: text})
}

func (p *Printer) flushLines() {
	sort.SliceStable(p.lines, func(i, j int) bool { return p.lines[i].rank < p.lines[j].rank })
	for _, l := range p.lines {
		if p.prefix {
			p.w.WriteByte('[')
			p.w.WriteString(strconv.Itoa(l.rank))
			p.w.WriteString("] ")
		}
		p.w.WriteString(l.text)
		p.w.WriteByte('\n')
		p.Lines++
	}
	p.lines = p.lines[:0]
}

// Flush writes everything queued.
func (p *Printer) Flush() error {
	p.flushLines()
	return p.w.Flush()
}
