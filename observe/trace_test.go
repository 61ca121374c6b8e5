package observe

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Names with quotes, backslashes, control characters, non-ASCII and bytes
// that are not UTF-8 come out as JSON strings that decode to the name (the
// bad bytes as U+FFFD), in the names of slices and processes and in the
// args of slices.
func TestTraceNamesAreJSON(t *testing.T) {
	names := []string{`plain`, `handler "q"`, `back\slash`, "nl\ntab\tcr\r", "nul\x00bell\avt\vdel\x7f",
		"é ü 中", "emoji \U0001F600", "line sep \u2028", "bad \xff\xfe byte", ""}
	var b bytes.Buffer
	tr := NewTracer(&b, 1e6, func(r int) int { return r }, nil)
	tr.Names(len(names), func(n int) string { return names[n] })
	for r, n := range names {
		tr.Slice(n, r, 0, 1, CallArgs{Bytes: 8, Algorithm: n})
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	var events []struct {
		Name string
		Ph   string
		Pid  int
		Args struct{ Name, Algorithm string }
	}
	if err := json.Unmarshal(b.Bytes(), &events); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	var slices, procs int
	for _, e := range events {
		want := string([]rune(names[e.Pid-1])) // each bad byte U+FFFD
		switch {
		case e.Ph == "X":
			slices++
			if e.Name != want {
				t.Errorf("slice name %q, want %q", e.Name, want)
			}
			if e.Args.Algorithm != want {
				t.Errorf("slice arg %q, want %q", e.Args.Algorithm, want)
			}
		case e.Name == "process_name":
			procs++
			if e.Args.Name != want {
				t.Errorf("process name %q, want %q", e.Args.Name, want)
			}
		}
	}
	if slices != len(names) || procs != len(names) {
		t.Errorf("%d slices and %d process names, want %d of each", slices, procs, len(names))
	}
}
