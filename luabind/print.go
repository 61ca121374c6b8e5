package luabind

import (
	"bufio"
	"io"
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
}

type line struct {
	rank, seq int
	text      string
}

// NewPrinter writes to w; prefix adds "[rank] " to every line.
func NewPrinter(w io.Writer, prefix bool) *Printer {
	return &Printer{w: bufio.NewWriterSize(w, 64<<10), prefix: prefix}
}

// Print queues one line of rank at time t.
func (p *Printer) Print(t runtime.Time, rank int, text string) {
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
