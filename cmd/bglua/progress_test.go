package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/bglua/bglua"
)

// Without a terminal the progress is a plain line at most every few
// seconds; on a terminal it is one line redrawn, cleared at the end.
func TestProgressLines(t *testing.T) {
	var plain, term bytes.Buffer
	p := newProgress(&plain, false)
	q := newProgress(&term, true)
	s := bglua.Progress{Seconds: 1.5e-3, Events: 4096, LiveRanks: 64}
	p.update(s)
	q.update(s)
	if plain.Len() != 0 || term.Len() != 0 {
		t.Fatalf("printed before any time passed: %q %q", plain.String(), term.String())
	}
	p.last = p.last.Add(-6 * time.Second)
	q.last = q.last.Add(-time.Second)
	p.update(s)
	q.update(s)
	if got := plain.String(); !strings.HasPrefix(got, "bglua: virtual 1.5ms, 4096 events") || !strings.HasSuffix(got, "64 ranks live, 0s\n") {
		t.Errorf("plain line %q", got)
	}
	if got := term.String(); !strings.HasPrefix(got, "\r\033[Kbglua: virtual 1.5ms") || strings.Contains(got, "\n") {
		t.Errorf("terminal line %q", got)
	}
	q.update(bglua.Progress{Done: true})
	if !strings.HasSuffix(term.String(), "\r\033[K") {
		t.Errorf("terminal line not cleared: %q", term.String())
	}
	if isTerminal(&plain) {
		t.Error("a buffer is not a terminal")
	}
}
