package sweep

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bglua/bglua"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// small is a sweep of seconds: three broadcast algorithms, two rank
// counts, three sizes, written to out.
func small(t *testing.T, out string, jobs int) Spec {
	t.Helper()
	prog, err := bglua.ProgramFile("testdata/bcast.lua")
	if err != nil {
		t.Fatal(err)
	}
	var choices []Choice
	for _, alg := range []string{"binomial", "scatter_allgather", "tree"} {
		choices = append(choices, NewChoice(map[string]string{"bcast": alg}))
	}
	return Spec{
		Program: prog, Ranks: []int{2, 8}, Sizes: []int64{8, 1024, 16384}, Choices: choices, Seeds: []int64{1},
		Jobs: jobs, Out: out, NoHostTime: true,
	}
}

func run(t *testing.T, s Spec) *Report {
	t.Helper()
	rep, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func read(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test ./internal/sweep -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		if strings.HasSuffix(name, ".png") {
			os.WriteFile(filepath.Join(t.TempDir(), name), got, 0o644)
			t.Fatalf("%s differs from the PNG drawn (go test ./internal/sweep -update rewrites it)", file)
		}
		t.Fatalf("%s differs (go test ./internal/sweep -update rewrites it):\n--- got\n%s--- want\n%s", file, got, want)
	}
}

// The CSV (without host time), the plot and the table of a small sweep are
// the same byte for byte on every run; a change in them is reviewed as a
// diff (-update).
func TestGolden(t *testing.T) {
	dir := t.TempDir()
	s := small(t, filepath.Join(dir, "sweep.csv"), 2)
	rep := run(t, s)
	if rep.Ran() != 18 || rep.FirstError() != nil {
		t.Fatalf("ran %d points, error %v", rep.Ran(), rep.FirstError())
	}
	if want := []string{s.Out, PNGPath(s.Out, "bcast")}; strings.Join(rep.Files, " ") != strings.Join(want, " ") {
		t.Errorf("files %v, want %v", rep.Files, want)
	}
	var table bytes.Buffer
	if err := WriteTable(&table, &s, rep); err != nil {
		t.Fatal(err)
	}
	golden(t, "sweep.csv", read(t, s.Out))
	golden(t, "sweep_bcast.png", read(t, PNGPath(s.Out, "bcast")))
	golden(t, "table.txt", table.Bytes())
}

// A second sweep into the same CSV runs nothing and writes the same files;
// one that finds a point missing runs that one alone.
func TestResume(t *testing.T) {
	dir := t.TempDir()
	s := small(t, filepath.Join(dir, "sweep.csv"), 2)
	run(t, s)
	csv, png := read(t, s.Out), read(t, PNGPath(s.Out, "bcast"))
	if rep := run(t, s); rep.Ran() != 0 || len(rep.Outcomes) != 18 {
		t.Errorf("second sweep ran %d points of %d", rep.Ran(), len(rep.Outcomes))
	}
	if !bytes.Equal(read(t, s.Out), csv) || !bytes.Equal(read(t, PNGPath(s.Out, "bcast")), png) {
		t.Error("second sweep changed the files")
	}
	// Take a line out (the CSV as an interrupted sweep leaves it, in
	// another order): the sweep runs that point and puts it in its place.
	lines := strings.SplitAfter(string(csv), "\n")
	lines[3], lines[7] = lines[7], lines[3]
	cut := append(append([]string{}, lines[:5]...), lines[6:]...)
	if err := os.WriteFile(s.Out, []byte(strings.Join(cut, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep := run(t, s); rep.Ran() != 1 {
		t.Errorf("sweep with a point missing ran %d points", rep.Ran())
	}
	if got := read(t, s.Out); !bytes.Equal(got, csv) {
		t.Errorf("resumed CSV differs:\n%s\nwant\n%s", got, csv)
	}
	// Rows of other sweeps stay, after the sweep's own.
	other := small(t, s.Out, 1)
	other.Sizes = []int64{8}
	if rep := run(t, other); rep.Ran() != 0 || len(rep.Outcomes) != 6 {
		t.Errorf("sub-sweep ran %d of %d", rep.Ran(), len(rep.Outcomes))
	}
	if got := read(t, s.Out); len(got) != len(csv) {
		t.Errorf("a sub-sweep dropped rows:\n%s", got)
	}
}

// The points run in parallel; the CSV is the same for every -j.
func TestJobsSameCSV(t *testing.T) {
	dir := t.TempDir()
	one, two := small(t, filepath.Join(dir, "one.csv"), 1), small(t, filepath.Join(dir, "two.csv"), 2)
	one.NoPlots, two.NoPlots = true, true
	run(t, one)
	run(t, two)
	if a, b := read(t, one.Out), read(t, two.Out); !bytes.Equal(a, b) {
		t.Errorf("-j 1 and -j 2 differ:\n%s\n---\n%s", a, b)
	}
}

// A failing point is reported and left out of the CSV; the others run,
// and the next sweep tries it again.
func TestFailingPoint(t *testing.T) {
	prog, err := bglua.ProgramFile("testdata/fails.lua")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "f.csv")
	var failed []string
	s := Spec{Program: prog, Ranks: []int{2}, Sizes: []int64{8, 1024, 4096}, Choices: []Choice{NewChoice(nil)}, Seeds: []int64{1},
		Jobs: 2, Out: out, NoHostTime: true, NoPlots: true,
		Failed: func(o Outcome) { failed = append(failed, o.Point.String()) }}
	rep := run(t, s)
	var re *bglua.RankError
	if err := rep.FirstError(); !errors.As(err, &re) || !strings.Contains(err.Error(), "no 1024 today") {
		t.Errorf("first error %v", err)
	}
	if strings.Join(failed, ";") != "auto ranks=2 size=1024 seed=1" {
		t.Errorf("failed points %q", failed)
	}
	if got := strings.Count(string(read(t, out)), "\n"); got != 3 {
		t.Errorf("CSV has %d lines, want the header and 2 rows:\n%s", got, read(t, out))
	}
	if rep := run(t, s); rep.Ran() != 1 {
		t.Errorf("the next sweep ran %d points, want the failed one", rep.Ran())
	}
}

// A CSV that is not a sweep's, or one written with the other host-time
// setting, stops the sweep before it runs anything.
func TestForeignCSV(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ content, want string }{
		{"a,b,c\n1,2,3\n", "not a sweep CSV"},
		{strings.Join(header(true), ",") + "\n", "the CSV was written with host_s"},
		{strings.Join(header(false), ",") + "\nx,,auto,two,8,1,1,1,1,1,1\n", `f.csv:2: ranks "two" is not a number`},
	} {
		out := filepath.Join(dir, "f.csv")
		os.WriteFile(out, []byte(c.content), 0o644)
		s := small(t, out, 1)
		_, err := Run(context.Background(), s)
		var u *bglua.UsageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want a usage error with %q", c.content, err, c.want)
		}
		if got := string(read(t, out)); got != c.content {
			t.Errorf("the CSV was changed: %q", got)
		}
	}
}

// The time lines a program prints: the largest wins, others are ignored,
// whatever the writes' boundaries.
func TestTimeWriter(t *testing.T) {
	for _, c := range []struct {
		out   []string
		found bool
		max   float64
	}{
		{[]string{"hello\n"}, false, 0},
		{[]string{"time 1.5e-3\n", "time 2e-3\nti", "me 1e-3\n"}, true, 2e-3},
		{[]string{"tim", "e 3\n"}, true, 3},
		{[]string{"time x\ntime 1 2\n", strings.Repeat("y", 100) + " time 9\n"}, false, 0},
		{[]string{"time 4"}, false, 0}, // no end of line: not a whole line
	} {
		var w timeWriter
		for _, s := range c.out {
			w.Write([]byte(s))
		}
		if w.found != c.found || w.max != c.max {
			t.Errorf("%q: found %v max %v, want %v %v", c.out, w.found, w.max, c.found, c.max)
		}
	}
}

// The size reaches the program where {size} is, else as arg[1].
func TestArgs(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "64"},
		{[]string{"3"}, "64 3"},
		{[]string{"x", "{size}", "n={size}"}, "x 64 n=64"},
	} {
		s := Spec{Args: c.args}
		if got := strings.Join(s.args(64), " "); got != c.want {
			t.Errorf("%q: %q, want %q", c.args, got, c.want)
		}
	}
}

// An interrupt stops the sweep: the points done are in the CSV, those under
// way fail with the interrupt, the rest are left out; the same sweep later
// runs what is missing and ends with the CSV of a sweep never stopped.
func TestInterrupted(t *testing.T) {
	dir := t.TempDir()
	s := small(t, filepath.Join(dir, "sweep.csv"), 1)
	s.NoPlots = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var progress []int
	s.Progress = func(done, failed, total int) {
		progress = append(progress, done)
		cancel()
	}
	rep, err := Run(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	// One job: the first point ended, then the interrupt; the one job may
	// have taken the next point as it came, none after it.
	if progress[0] != 1 || len(rep.Outcomes) > 2 || rep.Outcomes[0].Row == nil {
		t.Fatalf("progress %v, %d outcomes", progress, len(rep.Outcomes))
	}
	rows := 0
	for _, o := range rep.Outcomes {
		var in *bglua.InterruptedError
		if o.Row != nil {
			rows++
		} else if !errors.As(o.Err, &in) {
			t.Errorf("%s: %v, want a row or the interrupt", o.Point, o.Err)
		}
	}
	if got := strings.Count(string(read(t, s.Out)), "\n"); got != 1+rows {
		t.Errorf("CSV of %d lines after the interrupt, want %d:\n%s", got, 1+rows, read(t, s.Out))
	}
	s.Progress = nil
	if rep := run(t, s); rep.Ran() != 18-rows {
		t.Errorf("resumed sweep ran %d points, want %d", rep.Ran(), 18-rows)
	}
	whole := small(t, filepath.Join(dir, "whole.csv"), 2)
	whole.NoPlots = true
	run(t, whole)
	if a, b := read(t, s.Out), read(t, whole.Out); !bytes.Equal(a, b) {
		t.Errorf("interrupted and resumed CSV differs from the whole sweep's:\n%s\n---\n%s", a, b)
	}
}
