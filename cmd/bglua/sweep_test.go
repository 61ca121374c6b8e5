package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sweepProg = "../../internal/sweep/testdata/bcast.lua"

// Bad flags and input stop a sweep before it runs, exit 2, with one line.
func TestSweepFlagErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.csv")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "no program given"},
		{[]string{"--sizes", "8", sweepProg}, "--ranks is required"},
		{[]string{"--ranks", "2", sweepProg}, "--sizes is required"},
		{[]string{"--ranks", "0", "--sizes", "8", sweepProg}, `--ranks: "0" is not a rank count`},
		{[]string{"--ranks", "2,4,2", "--sizes", "8", sweepProg}, "--ranks: 2 is given twice"},
		{[]string{"--ranks", "2", "--sizes", "1.5", sweepProg}, `--sizes: "1.5" is not a size in whole bytes`},
		{[]string{"--ranks", "2", "--sizes", "8,lots", sweepProg}, `--sizes: "lots" is not a size in whole bytes`},
		{[]string{"--ranks", "2", "--sizes", "8", "--seeds", "x", sweepProg}, `--seeds: "x" is not a seed`},
		{[]string{"--ranks", "2", "--sizes", "8", "--coll", "bcast", sweepProg}, `--coll "bcast": want NAME=ALG`},
		{[]string{"--ranks", "2", "--sizes", "8", "--coll", "bcast=tree", "--coll", "bcast=tree", sweepProg}, "--coll bcast=tree is given twice"},
		{[]string{"--ranks", "2", "--sizes", "8", "-j", "0", sweepProg}, "--jobs must be at least 1"},
		{[]string{"--ranks", "2", "--sizes", "8", "--bogus", sweepProg}, "unknown flag: --bogus"},
		{[]string{"--ranks", "2", "--sizes", "8", "--mode", "xy", "--out", out, sweepProg}, `--mode "xy": want co, vn or heater`},
		{[]string{"--ranks", "2", "--sizes", "8", "--timeslice", "0", sweepProg}, "--timeslice must be positive"},
		{[]string{"--ranks", "2", "--sizes", "8", "--out", out, "nonexistent.lua"}, "cannot read program"},
	} {
		_, errOut, code := runCLI(append([]string{"sweep"}, c.args...)...)
		if code != exitUsage || !strings.HasPrefix(errOut, "bglua sweep: ") || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, %q; want exit 2 and one line with %q", c.args, code, errOut, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a sweep that stopped on its flags wrote the CSV")
	}
}

// A sweep prints its table on stdout, says what it wrote on stderr, and
// resumes: run again, it runs nothing and prints the same table.
func TestSweepCommand(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "s.csv")
	args := []string{"sweep", "--ranks", "2,4", "--sizes", "8,1k", "--coll", "bcast=binomial", "--coll", "bcast=tree", "--no-host-time", "--out", csv, sweepProg}
	out, errOut, code := runCLI(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	file := filepath.Join("testdata", "golden", "sweep.txt")
	if *update {
		os.WriteFile(file, []byte(out), 0o644)
	} else if want, err := os.ReadFile(file); err != nil || out != string(want) {
		t.Errorf("table differs from %s (go test ./cmd/bglua -update rewrites it):\n--- got\n%s--- want\n%s", file, out, want)
	}
	png := filepath.Join(dir, "s_bcast.png")
	if want := "bglua sweep: 8 points, 8 run, 0 failed; wrote " + csv + ", " + png + "\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	again, errOut, code := runCLI(args...)
	if code != 0 || again != out || !strings.Contains(errOut, "8 points, 0 run") {
		t.Errorf("second sweep: exit %d, %q\n%s", code, errOut, again)
	}
	if list, _, code := runCLI("sweep", "--coll", "help"); code != 0 || !strings.HasPrefix(list, "collective algorithms (--coll NAME=ALG") {
		t.Errorf("sweep --coll help: exit %d\n%s", code, list)
	}
	if help, _, code := runCLI("help", "sweep"); code != 0 || !strings.HasPrefix(help, sweepUsage) || !strings.Contains(help, "--no-host-time") {
		t.Errorf("help sweep: exit %d\n%s", code, help)
	}
}

// A failing point is one line on stderr; the sweep goes on and exits
// with the status of that point's error (a rank's error: 1).
func TestSweepFailingPoint(t *testing.T) {
	csv := filepath.Join(t.TempDir(), "f.csv")
	out, errOut, code := runCLI("sweep", "--ranks", "2", "--sizes", "8,1k,4k", "--no-plot", "--out", csv, "../../internal/sweep/testdata/fails.lua")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if code != exitError || len(lines) != 2 || !strings.HasPrefix(lines[0], "bglua sweep: auto ranks=2 size=1024 seed=1: rank 1") ||
		!strings.Contains(lines[0], "no 1024 today") || !strings.HasPrefix(lines[1], "bglua sweep: 3 points, 3 run, 1 failed") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
	if !strings.Contains(out, "auto      2  1024     1  failed") {
		t.Errorf("table:\n%s", out)
	}
}

// --progress writes a progress line even off a terminal: at least the last,
// when every point is done.
func TestSweepProgress(t *testing.T) {
	csv := filepath.Join(t.TempDir(), "p.csv")
	_, errOut, code := runCLI("sweep", "--progress", "--ranks", "2", "--sizes", "8,1k,4k", "--no-plot", "--out", csv, "../../internal/sweep/testdata/fails.lua")
	if code != exitError || !strings.Contains(errOut, "\nbglua sweep: 3/3 points (1 failed), ") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
	_, errOut, _ = runCLI("sweep", "--ranks", "2", "--sizes", "8", "--no-plot", "--out", csv+"2", "../../internal/sweep/testdata/fails.lua")
	if strings.Contains(errOut, "/1 points") || !strings.Contains(errOut, "1 point, 1 run") {
		t.Errorf("progress without --progress off a terminal:\n%s", errOut)
	}
}
