package bglua

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const mdsProg = `
local r, n = mpi.rank(), mpi.size()
for step = 1, 4 do
  mpi.compute((r + step) * 1e-4)
  local q = mpi.irecv((r - 1) % n)
  mpi.send(mpi.bytes(1000 * step), (r + 1) % n)
  mpi.wait(q)
  mpi.allreduce(r, mpi.SUM)
end
mpi.compute(3e-4)
print(string.format("%.6f", mpi.wtime()))
`

// TestMDS checks the monitoring system's contract: per rank, computation
// plus communication equals the rank's run time; monitoring does not change
// virtual time or output; the files are written.
func TestMDS(t *testing.T) {
	prog := Program{Name: "mds.lua", Code: []byte(mdsProg)}
	run := func(cfg Config) (*Result, string) {
		var out bytes.Buffer
		cfg.Ranks, cfg.Stdout = 6, &out
		res, err := Run(context.Background(), cfg, prog)
		if err != nil {
			t.Fatal(err)
		}
		return res, out.String()
	}
	for _, rt := range []string{"direct", "bcs"} {
		plain, plainOut := run(Config{Runtime: rt})
		cfg := Config{Runtime: rt, MMDS: true, EMDS: rt == "bcs"}
		res, out := run(cfg)
		if res.Cycles != plain.Cycles || out != plainOut {
			t.Errorf("%s: monitoring changed the run: %d cycles vs %d, output %q vs %q", rt, res.Cycles, plain.Cycles, out, plainOut)
		}
		if res.MDS == nil || len(res.MDS.Ranks) != 6 {
			t.Fatalf("%s: no MMDS records", rt)
		}
		for _, r := range res.MDS.Ranks {
			var comp, comm, calls int64
			for b := range r.Computation {
				comp += r.Computation[b].Total
				comm += r.Communication[b].Total
				calls += r.Communication[b].Count
			}
			if comp+comm != r.End || r.End == 0 {
				t.Errorf("%s rank %d: computation %d + communication %d != run time %d", rt, r.Rank, comp, comm, r.End)
			}
			if calls != 4*3 { // send, wait, allreduce per step
				t.Errorf("%s rank %d: %d blocking calls, want 12", rt, r.Rank, calls)
			}
			if comp < int64(0.9*1e-4*4*0.7e9) {
				t.Errorf("%s rank %d: computation %d cycles is less than the program computed", rt, r.Rank, comp)
			}
		}
		dir := t.TempDir()
		paths, err := res.MDS.WriteDir(filepath.Join(dir, "mds"))
		if err != nil {
			t.Fatal(err)
		}
		want := 2
		if rt == "bcs" {
			want = 4
			if len(res.MDS.Slices) == 0 || res.Slices == 0 {
				t.Errorf("bcs: no EMDS slices")
			}
		}
		if len(paths) != want {
			t.Errorf("%s: wrote %v, want %d files", rt, paths, want)
		}
		for _, p := range paths {
			b, _ := os.ReadFile(p)
			if lines := strings.Count(string(b), "\n"); lines < 2 {
				t.Errorf("%s: %s has %d lines", rt, p, lines)
			}
		}
		var sum bytes.Buffer
		res.MDS.Summary(&sum)
		if !strings.Contains(sum.String(), "mpi.allreduce") {
			t.Errorf("%s: summary lacks mpi.allreduce:\n%s", rt, sum.String())
		}
	}
}

// TestBCSDeterministic: the same bcs program gives byte-identical output
// and monitoring files.
func TestBCSDeterministic(t *testing.T) {
	prog := Program{Name: "mds.lua", Code: []byte(mdsProg)}
	var outs []string
	for i := 0; i < 2; i++ {
		var out bytes.Buffer
		res, err := Run(context.Background(), Config{Ranks: 12, Runtime: "bcs", MMDS: true, EMDS: true, Stdout: &out}, prog)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		paths, err := res.MDS.WriteDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			b, _ := os.ReadFile(p)
			out.Write(b)
		}
		outs = append(outs, out.String())
	}
	if outs[0] != outs[1] {
		t.Errorf("two runs differ")
	}
}

// WriteDir leaves no monitoring file of an earlier run in its directory:
// after a run with emds, one without it removes emds_*.csv, and keeps the
// files that are not its own.
func TestMDSDirStartsClean(t *testing.T) {
	prog := Program{Name: "mds.lua", Code: []byte(mdsProg)}
	dir := t.TempDir()
	mine := filepath.Join(dir, "notes.csv")
	if err := os.WriteFile(mine, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg  Config
		want []string
	}{
		{Config{Ranks: 4, Runtime: "bcs", MMDS: true, EMDS: true}, []string{"emds_global.csv", "emds_local.csv", "mmds.csv", "mmds_distributions.csv", "notes.csv"}},
		{Config{Ranks: 4, MMDS: true}, []string{"mmds.csv", "mmds_distributions.csv", "notes.csv"}},
		{Config{Ranks: 4, Runtime: "bcs", EMDS: true}, []string{"emds_global.csv", "emds_local.csv", "notes.csv"}},
	} {
		c.cfg.Stdout = io.Discard
		res, err := Run(context.Background(), c.cfg, prog)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := res.MDS.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
		ents, _ := os.ReadDir(dir)
		var got []string
		for _, e := range ents {
			got = append(got, e.Name())
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("mmds %v, emds %v: dir holds %v, want %v", c.cfg.MMDS, c.cfg.EMDS, got, c.want)
		}
	}
}
