package bcs

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

var update = flag.Bool("update", false, "rewrite the golden schedules of testdata/*.scn")

// A scenario file drives the scheduler without MPI: descriptors and
// collectives posted at given cycles, and the schedule that results (when
// each slice begins and what its microphases did, when each transfer and
// collective completes, when each rank restarts) is compared with
// testdata/NAME.golden. Lines:
//
//	ranks N                    ranks on the default torus (first line)
//	slice CYCLES               the time slice
//	send T SRC DST TAG BYTES   rank SRC posts a send at cycle T
//	recv T RANK SRC TAG        rank RANK posts a receive (SRC, TAG may be "any")
//	coll T PHASE BYTES R,R,... the last member posts a collective at T
//	                           (PHASE: bcast, reduce, allreduce, volume)
func runScenario(t *testing.T, path string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	logf := func(format string, a ...any) { fmt.Fprintf(&out, format+"\n", a...) }
	eng := runtime.New()
	m := hw.BGL()
	var s *Sched
	slice := Time(175000)
	sc := bufio.NewScanner(f)
	line := 0
	num := func(x string) int {
		if x == "any" {
			return Any
		}
		n, err := strconv.Atoi(x)
		if err != nil {
			t.Fatalf("%s:%d: %q is not a number", path, line, x)
		}
		return n
	}
	for sc.Scan() {
		line++
		w := strings.Fields(sc.Text())
		if len(w) == 0 || strings.HasPrefix(w[0], "#") {
			continue
		}
		switch w[0] {
		case "slice":
			slice = Time(num(w[1]))
		case "ranks":
			n := num(w[1])
			mp, err := hw.MapXYZT(hw.Torus{Dims: hw.DefaultDims(n)}, n, 1)
			if err != nil {
				t.Fatal(err)
			}
			s = New(eng, hw.NewNetwork(m, mp.Torus), mp, NewParams(m, mp.Torus, slice))
			s.EMDS = &EMDS{}
			s.Restart = func(r int, now Time) { logf("%9d restart rank %d (slice %d)", now, r, s.SliceAt(now)) }
		case "send", "recv":
			at := Time(num(w[1]))
			d := &Desc{Send: w[0] == "send", Owner: num(w[2])}
			if d.Send {
				d.Dst, d.Tag, d.Bytes, d.Src = num(w[3]), num(w[4]), num(w[5]), d.Owner
			} else {
				d.Src, d.Tag = num(w[3]), num(w[4])
			}
			desc := strings.Join(w, " ")
			d.Done = func(now Time) {
				peer := d.Match
				logf("%9d done   %s (matched with rank %d's %s)", now, desc, peer.Owner, kindOf(peer))
			}
			eng.At(at, runtime.ActionFunc(func(Time) { s.Post(d) }))
		case "coll":
			at := Time(num(w[1]))
			c := &Coll{Bytes: num(w[3])}
			switch w[2] {
			case "bcast":
				c.Phase = PhaseBcast
			case "reduce", "allreduce":
				c.Phase, c.Elems, c.AllToo = PhaseReduce, max(c.Bytes/8, 1), w[2] == "allreduce"
			case "volume":
				c.Phase = PhaseVolume
			default:
				t.Fatalf("%s:%d: unknown phase %q", path, line, w[2])
			}
			for _, r := range strings.Split(w[4], ",") {
				c.Members = append(c.Members, num(r))
			}
			desc := strings.Join(w, " ")
			c.Done = func(now Time) { logf("%9d done   %s", now, desc) }
			eng.At(at, runtime.ActionFunc(func(Time) { s.Ready(c) }))
		default:
			t.Fatalf("%s:%d: unknown line %q", path, line, w[0])
		}
	}
	if s == nil {
		t.Fatalf("%s: no ranks line", path)
	}
	if err := eng.Run(context.Background()); err != nil {
		logf("run: %v", err)
	}
	for _, r := range s.EMDS.Slices {
		logf("slice %d at %d: GETTS %d GTDEM %d GTMSM %d GTTS %d colls %d", r.Slice, r.Start, r.GETTS, r.GTDEM, r.GTMSM, r.GTTS, r.NCOLLMSM)
		for _, l := range r.Local {
			logf("  node %d: LTDEM %d LTMSM %d LTTS %d NP2PDEM %d NP2PMSM %d", l.Node, l.LTDEM, l.LTMSM, l.LTTS, l.NP2PDEM, l.NP2PMSM)
		}
	}
	logf("strobes %d, matched %d, chunks %d, collectives %d", s.Strobes, s.Matched, s.Chunks, s.CollsDone)
	return out.String()
}

func kindOf(d *Desc) string {
	if d.Send {
		return "send"
	}
	return "recv"
}

func TestScenarios(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.scn")
	if len(files) == 0 {
		t.Fatal("no scenarios in testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			got := runScenario(t, f)
			golden := strings.TrimSuffix(f, ".scn") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./bcs -update)", err)
			}
			if got != string(want) {
				t.Errorf("schedule differs from %s:\n%s", golden, got)
			}
		})
	}
}
