package main

import (
	"fmt"
	"io"
	"strings"
)

// A case's result, as the output formats tell them.
const (
	resultOK = iota
	resultFail
	resultSkip
	resultInterrupted
)

// testOutput writes what `bglua test` says on stdout: text (docs/suites.md)
// or TAP.
type testOutput interface {
	start(planned int) // before any result: how many results will come
	note(line string)  // a line about the whole run (the shuffle seed)
	// result is one case (or a suite that does not load): its label, why
	// it failed or is skipped, and the output to show with it.
	result(kind int, label, detail, output string)
	end(summary string) // the last line
}

// textOutput is bglua's own: "ok   FILE: NAME", "FAIL FILE: NAME (why)",
// the output indented under it.
type textOutput struct{ w io.Writer }

func (o *textOutput) start(int)          {}
func (o *textOutput) note(line string)   { fmt.Fprintln(o.w, line) }
func (o *textOutput) end(summary string) { fmt.Fprintln(o.w, summary) }

func (o *textOutput) result(kind int, label, detail, output string) {
	switch kind {
	case resultOK:
		fmt.Fprintf(o.w, "ok   %s\n", label)
	case resultFail:
		fmt.Fprintf(o.w, "FAIL %s (%s)\n", label, detail)
	case resultSkip:
		fmt.Fprintf(o.w, "skip %s (%s)\n", label, detail)
	case resultInterrupted:
		fmt.Fprintf(o.w, "INTERRUPTED %s\n", label)
	}
	writeIndented(o.w, output)
}

// tapOutput is the Test Anything Protocol, version 13: the plan first,
// "ok N - FILE: NAME" or "not ok N - ...", pending cases as "# SKIP",
// details and output as comments, "Bail out!" on ^C.
type tapOutput struct {
	w io.Writer
	n int
}

func (o *tapOutput) start(planned int)  { fmt.Fprintf(o.w, "TAP version 13\n1..%d\n", planned) }
func (o *tapOutput) note(line string)   { fmt.Fprintf(o.w, "# %s\n", line) }
func (o *tapOutput) end(summary string) { fmt.Fprintf(o.w, "# %s\n", summary) }

// tapEscape keeps a label from ending in a directive: # starts one.
var tapEscape = strings.NewReplacer(`\`, `\\`, "#", `\#`)

func (o *tapOutput) result(kind int, label, detail, output string) {
	o.n++
	label = tapEscape.Replace(label)
	switch kind {
	case resultOK:
		fmt.Fprintf(o.w, "ok %d - %s\n", o.n, label)
	case resultSkip:
		fmt.Fprintf(o.w, "ok %d - %s # SKIP %s\n", o.n, label, detail)
	default:
		fmt.Fprintf(o.w, "not ok %d - %s\n", o.n, label)
	}
	if detail != "" && kind != resultSkip {
		for _, l := range strings.Split(detail, "\n") {
			fmt.Fprintf(o.w, "# %s\n", l)
		}
	}
	var b strings.Builder
	writeIndented(&b, output)
	for _, l := range strings.SplitAfter(b.String(), "\n") {
		if l != "" {
			fmt.Fprintf(o.w, "#%s", l)
		}
	}
	if kind == resultInterrupted {
		fmt.Fprintln(o.w, "Bail out! interrupted")
	}
}
