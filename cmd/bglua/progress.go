package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/bglua/bglua"
)

// progress reports how far a long run has come: on a terminal, one line
// redrawn a few times a second; otherwise a plain line every few seconds.
// It reads the wall clock only to decide when to print, on stderr, so the
// run's results do not depend on it.
type progress struct {
	w        io.Writer
	terminal bool
	start    time.Time
	last     time.Time
	events   uint64
	drawn    bool
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func newProgress(w io.Writer, terminal bool) *progress {
	now := time.Now()
	return &progress{w: w, terminal: terminal, start: now, last: now}
}

func (p *progress) update(s bglua.Progress) {
	if s.Done {
		p.clear()
		return
	}
	now := time.Now()
	if !p.due(now) {
		return
	}
	rate := float64(s.Events-p.events) / now.Sub(p.last).Seconds()
	p.last, p.events = now, s.Events
	p.draw(fmt.Sprintf("bglua: virtual %s, %d events (%.3g/s), %d ranks live, %.0fs", bglua.FormatSeconds(s.Seconds), s.Events, rate, s.LiveRanks, now.Sub(p.start).Seconds()))
}

// due says whether a line is due at now: a few times a second on a
// terminal, every few seconds elsewhere.
func (p *progress) due(now time.Time) bool {
	every := 5 * time.Second
	if p.terminal {
		every = 200 * time.Millisecond
	}
	return now.Sub(p.last) >= every
}

// draw shows line: redrawn in place on a terminal, a line of its own
// elsewhere.
func (p *progress) draw(line string) {
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
	p.drawn = true
}

// clear takes the line off a terminal, for other output or the end.
func (p *progress) clear() {
	if p.drawn && p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}
