//go:build mpi

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bglua/bglua/internal/mpinet"
)

// hostFigures are the parts of the summary line that depend on the host.
var hostFigures = regexp.MustCompile(`host [^,]*, slowdown [^,]*, |, peak .*`)

// The command started by mpirun with 2 and 3 processes (a bglua built with
// -tags mpi) writes what one process writes, reports once what it reports
// (the summary line but its host figures, errors, deadlocks) and exits
// with the same status: a ring, hello's allreduce on the collective
// network, a halo in coprocessor and virtual-node mode, a rank's error, a
// deadlock; and with --trace and --mds, the same trace file and monitoring
// files (each run in a directory of its own). Skipped without mpirun.
func TestMPICommandIsOneProcess(t *testing.T) {
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Skip("mpirun is not installed (Debian: apt-get install openmpi-bin libopenmpi-dev)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bglua")
	build := exec.Command("go", "build", "-tags", "mpi", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags mpi: %v\n%s", err, out)
	}
	errProg := filepath.Join(dir, "err.lua")
	os.WriteFile(errProg, []byte(`
local n, me = mpi.size(), mpi.rank()
print("start")
mpi.sendrecv(me, (me + 1) % n, (me - 1) % n)
if arg[1] == "deadlock" then mpi.recv((me + 1) % n, 7) end
if me == n - 5 then error("rank " .. me .. " gives up") end
mpi.recv((me + 1) % n, 7)
`), 0o644)
	const ring = "../../scripts/ring.lua"
	const halo = "../../bench/workloads/halo3d.lua"
	absHalo, err := filepath.Abs(halo)
	if err != nil {
		t.Fatal(err)
	}
	observed := []string{"--trace", "trace.json", "--mds", "mmds", "--mds-dir", "mds"}
	for _, tc := range []struct {
		name  string
		args  []string
		exit  int
		files bool // run in a directory of its own, and compare the trace and mds files
	}{
		{"ring", []string{"-n", "2048", "--torus", "16x16x8", ring}, 0, false},
		{"hello (the collective network)", []string{"-n", "2048", "--torus", "16x16x8", "../../scripts/hello.lua"}, 0, false},
		{"halo", []string{"-n", "2048", "--torus", "16x16x8", halo, "3", "8192", "16", "16", "8"}, 0, false},
		{"vn halo", []string{"-n", "4096", "--torus", "16x16x8", "--mode", "vn", halo, "2", "4096", "16", "16", "16"}, 0, false},
		{"error", []string{"-n", "2048", "--torus", "16x16x8", errProg}, 1, false},
		{"deadlock", []string{"-n", "2048", "--torus", "16x16x8", errProg, "deadlock"}, 3, false},
		{"halo traced", slices.Concat(observed, []string{"-n", "2048", "--torus", "16x16x8", absHalo, "2", "8192", "16", "16", "8"}), 0, true},
		{"error traced", slices.Concat(observed, []string{"-n", "2048", "--torus", "16x16x8", "--trace-ranks", "0-1023", errProg}), 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(cmd *exec.Cmd) (string, string, int) {
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				err := cmd.Run()
				code := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				return out.String(), hostFigures.ReplaceAllString(errb.String(), ""), code
			}
			// in is the directory of a run: the test's, or one of its own.
			in := func(cmd *exec.Cmd, name string) *exec.Cmd {
				if tc.files {
					cmd.Dir = filepath.Join(dir, tc.name, name)
					if err := os.MkdirAll(cmd.Dir, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				return cmd
			}
			// files are the trace and mds files a run wrote, by name.
			files := func(cmd *exec.Cmd) map[string]string {
				got := map[string]string{}
				if !tc.files {
					return got
				}
				for _, f := range []string{"trace.json", "mds/mmds.csv", "mds/mmds_distributions.csv"} {
					b, err := os.ReadFile(filepath.Join(cmd.Dir, f))
					if err != nil || len(b) == 0 {
						t.Fatalf("%s: %v (%d bytes)", f, err, len(b))
					}
					got[f] = string(b)
				}
				return got
			}
			one := in(exec.Command(bin, tc.args...), "one")
			out1, err1, code1 := run(one)
			files1 := files(one)
			if code1 != tc.exit {
				t.Fatalf("one process: exit %d, want %d\n%s", code1, tc.exit, err1)
			}
			for _, np := range []int{2, 3} {
				cmd, err := mpinet.Mpirun(np, bin, tc.args...)
				if err != nil {
					t.Skip(err)
				}
				out, errs, code := run(in(cmd, fmt.Sprint("np", np)))
				for f, b := range files(cmd) {
					if b != files1[f] {
						t.Errorf("%d processes wrote another %s than one process (%d bytes, one process %d)", np, f, len(b), len(files1[f]))
					}
				}
				if code != code1 {
					t.Errorf("%d processes: exit %d, one process %d\n%s", np, code, code1, errs)
				}
				if out != out1 {
					t.Errorf("%d processes wrote %d bytes, one process %d", np, len(out), len(out1))
				}
				if code == 0 && errs != err1 {
					t.Errorf("%d processes reported\n%s\none process\n%s", np, errs, err1)
				}
				if code != 0 && (!strings.HasPrefix(errs, err1) || strings.Count(errs, "bglua:") != strings.Count(err1, "bglua:")) {
					// (mpirun adds its own note of a job that exited with an
					// error, after process 0's report.)
					t.Errorf("%d processes reported\n%s\nwhich does not begin with one process's report, once\n%s", np, errs, err1)
				}
			}
		})
	}
}
