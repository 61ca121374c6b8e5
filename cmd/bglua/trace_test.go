package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The trace is valid JSON in the Chrome trace-event format (checkTrace), the
// same byte for byte on every run, and limited by --trace-ranks.
func TestTrace(t *testing.T) {
	dir := t.TempDir()
	a, b, part := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "part.json")
	for _, f := range []string{a, b} {
		if _, e, code := runCLI("--quiet", "--trace", f, "-n", "8", "testdata/progs/p2p.lua"); code != 0 {
			t.Fatalf("exit %d: %s", code, e)
		}
	}
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if string(ba) != string(bb) {
		t.Fatal("two traces of the same run differ")
	}
	if n := checkTrace(t, "p2p.lua", ba); n.slices == 0 || n.flows == 0 || n.counters == 0 {
		t.Fatalf("%d slices, %d flows, %d counters", n.slices, n.flows, n.counters)
	}
	if _, e, code := runCLI("--quiet", "--trace", part, "--trace-ranks", "1-2", "-n", "8", "testdata/progs/p2p.lua"); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	bp, _ := os.ReadFile(part)
	var some []map[string]any
	if err := json.Unmarshal(bp, &some); err != nil {
		t.Fatal(err)
	}
	for _, e := range some {
		if e["pid"].(float64) >= 1<<30 { // the machine's counters
			continue
		}
		if rank := e["tid"].(float64) - 1; rank != 1 && rank != 2 {
			t.Fatalf("--trace-ranks 1-2 wrote rank %v", rank)
		}
	}
	if _, e, code := runCLI("--trace-ranks", "3-1", "../../scripts/hello.lua"); code != 2 {
		t.Errorf("bad --trace-ranks: exit %d %s", code, e)
	}
	if _, e, code := runCLI("--trace", filepath.Join(dir, "no", "dir", "t.json"), "../../scripts/hello.lua"); code != 2 {
		t.Errorf("unwritable trace: exit %d %s", code, e)
	}
}

// The trace of a small run is kept as a golden file, so that any change in
// the timeline format or content is reviewed (-update rewrites it).
func TestTraceGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		code int
		args []string
	}{
		{"trace_ml.json", 1, []string{"-n", "3", "testdata/progs/ml.lua"}},
		// Nonblocking collectives: their progress contexts' tracks.
		{"trace_nbc.json", 0, []string{"-n", "4", "testdata/progs/nbc.lua"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "t.json")
			if _, e, code := runCLI(append([]string{"--quiet", "--trace", file}, c.args...)...); code != c.code {
				t.Fatalf("exit %d: %s", code, e)
			}
			got, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", c.name)
			if *update {
				os.WriteFile(golden, got, 0o644)
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./cmd/bglua -update creates it)", err)
			}
			if string(got) != string(want) {
				t.Errorf("trace differs from %s (go test ./cmd/bglua -update rewrites it)", golden)
			}
			checkTrace(t, golden, got)
		})
	}
}

// Under bcs the trace also draws every slice's strobe and microphases on a
// track of their own, in order and without overlap, the same on every run.
func TestTraceBCS(t *testing.T) {
	dir := t.TempDir()
	var first []byte
	for i := 0; i < 2; i++ {
		f := filepath.Join(dir, "bcs.json")
		if _, e, code := runCLI("--quiet", "--runtime", "bcs", "--trace", f, "-n", "5", "testdata/progs/p2p.lua"); code != 0 {
			t.Fatalf("exit %d: %s", code, e)
		}
		b, _ := os.ReadFile(f)
		if i == 0 {
			first = b
		} else if string(b) != string(first) {
			t.Fatal("two bcs traces of the same run differ")
		}
	}
	var events []map[string]any
	if err := json.Unmarshal(first, &events); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	phases, last := 0, -1.0
	for _, e := range events {
		if e["cat"] != "bcs" {
			continue
		}
		ts, dur := e["ts"].(float64), e["dur"].(float64)
		if ts < last-1e-3 || dur < 0 { // microseconds with 4 decimals
			t.Fatalf("bcs phase %v starts at %v before the last one ended (%v) or has a negative length", e["name"], ts, last)
		}
		last = ts + dur
		phases++
	}
	if phases == 0 || phases%6 != 0 {
		t.Errorf("%d bcs phases in the trace, want a positive multiple of 6", phases)
	}
}

// The trace's structure, on programs of every kind: every event has a
// category and positive pid and tid; on each thread the call slices nest or
// are disjoint; every flow has one start and one end, both on traced
// threads. With --trace-ranks the same holds of the ranks kept.
func TestTraceStructure(t *testing.T) {
	for _, c := range []struct {
		prog string
		args []string
	}{
		{"p2p.lua", []string{"-n", "8"}},
		{"p2p.lua", []string{"-n", "8", "--trace-ranks", "1-2"}},
		{"p2p.lua", []string{"-n", "8", "--threads", "2", "--torus", "16x8x8"}},
		{"p2p.lua", []string{"-n", "5", "--runtime", "bcs"}},
		{"collectives.lua", []string{"-n", "8"}},
		{"ml.lua", []string{"-n", "3"}},
		{"units_block.lua", []string{"-n", "8", "--machine", "bgc"}},
		{"units_trace.lua", []string{"-n", "8", "--machine", "bgc"}},
		{"protocols.lua", []string{"-n", "4"}},
		{"leftovers.lua", []string{"-n", "3"}},
		{"regions.lua", []string{"-n", "8", "--threads", "2", "--torus", "16x8x8"}},
	} {
		name := c.prog + " " + strings.Join(c.args, " ")
		file := filepath.Join(t.TempDir(), "t.json")
		args := append([]string{"--quiet", "--trace", file}, c.args...)
		if _, e, code := runCLI(append(args, "testdata/progs/"+c.prog)...); code == 2 {
			t.Errorf("%s: exit %d: %s", name, code, e)
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if n := checkTrace(t, name, b); n.slices == 0 || n.flows == 0 && c.prog == "p2p.lua" {
			t.Errorf("%s: %d slices and %d flows", name, n.slices, n.flows)
		}
	}
}

// traceCounts are how many events of each kind a trace has.
type traceCounts struct{ slices, flows, counters int }

// checkTrace checks the structure of trace b (see TestTraceStructure) and
// counts its events.
func checkTrace(t *testing.T, name string, b []byte) (n traceCounts) {
	t.Helper()
	var events []struct {
		Name    *string
		Cat     string
		Ph      string
		Pid     int64
		Tid     int64
		ID      *int64
		Ts, Dur float64
		Bp      string
		Args    map[string]any
	}
	if err := json.Unmarshal(b, &events); err != nil {
		t.Fatalf("%s: trace is not JSON: %v", name, err)
	}
	type thread struct{ pid, tid int64 }
	type slice struct {
		start, end int64 // in 0.1 ns, as written
		name       string
	}
	ticks := func(us float64) int64 { return int64(math.Round(us * 1e4)) }
	named := map[thread]bool{}
	slices := map[thread][]slice{}
	type flow struct {
		starts, ends []thread
	}
	flows := map[int64]*flow{}
	for i, e := range events {
		if e.Name == nil || e.Cat == "" || e.Pid <= 0 || e.Tid <= 0 {
			t.Fatalf("%s: event %d lacks a name or a category, or has pid %d, tid %d", name, i, e.Pid, e.Tid)
		}
		th := thread{e.Pid, e.Tid}
		switch e.Ph {
		case "M":
			if *e.Name == "thread_name" {
				named[th] = true
			}
		case "C":
			n.counters++
			if len(e.Args) == 0 {
				t.Fatalf("%s: counter event %d has no values", name, i)
			}
		case "X":
			n.slices++
			if e.Ts < 0 || e.Dur < 0 {
				t.Fatalf("%s: slice %d at %v lasts %v", name, i, e.Ts, e.Dur)
			}
			s := ticks(e.Ts)
			slices[th] = append(slices[th], slice{s, s + ticks(e.Dur), *e.Name})
		case "s", "f":
			if e.ID == nil || e.Ph == "f" && e.Bp != "e" {
				t.Fatalf("%s: flow event %d has no id, or its end is not bound to the enclosing slice", name, i)
			}
			f := flows[*e.ID]
			if f == nil {
				f = &flow{}
				flows[*e.ID] = f
			}
			if e.Ph == "s" {
				f.starts = append(f.starts, th)
			} else {
				f.ends = append(f.ends, th)
			}
		default:
			t.Fatalf("%s: event %d has phase %q", name, i, e.Ph)
		}
	}
	for th, ss := range slices {
		// By start, the longer first: each slice must end within the
		// innermost open slice that it starts in.
		sort.SliceStable(ss, func(i, j int) bool {
			return ss[i].start < ss[j].start || ss[i].start == ss[j].start && ss[i].end > ss[j].end
		})
		var open []slice
		for _, s := range ss {
			for len(open) > 0 && open[len(open)-1].end <= s.start {
				open = open[:len(open)-1]
			}
			if len(open) > 0 && s.end > open[len(open)-1].end {
				o := open[len(open)-1]
				t.Errorf("%s: on pid %d tid %d, %s [%d, %d] overlaps %s [%d, %d] (0.1 ns)", name, th.pid, th.tid, s.name, s.start, s.end, o.name, o.start, o.end)
			}
			open = append(open, s)
		}
	}
	for id, f := range flows {
		if len(f.starts) != 1 || len(f.ends) != 1 {
			t.Errorf("%s: message %d has %d flow starts and %d ends, want one of each", name, id, len(f.starts), len(f.ends))
			continue
		}
		if !named[f.starts[0]] || !named[f.ends[0]] {
			t.Errorf("%s: message %d flows from %v to %v, a thread not traced", name, id, f.starts[0], f.ends[0])
		}
	}
	n.flows = len(flows)
	return n
}

// What a thread unit runs is on the unit's thread, by its clock: each
// handler of units_trace.lua, with the mpi.compute it calls inside it.
func TestTraceUnits(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.json")
	if _, e, code := runCLI("--quiet", "--trace", file, "-n", "8", "--machine", "bgc", "testdata/progs/units_trace.lua"); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var events []struct {
		Name, Ph string
		Pid, Tid int64
		Ts, Dur  float64
	}
	if err := json.Unmarshal(b, &events); err != nil {
		t.Fatal(err)
	}
	type thread struct{ pid, tid int64 }
	handlers, computes := map[thread][2]float64{}, map[thread][2]float64{}
	for _, e := range events {
		if e.Ph != "X" || e.Tid < 1<<30 {
			continue
		}
		switch e.Name {
		case `handler "h"`:
			handlers[thread{e.Pid, e.Tid}] = [2]float64{e.Ts, e.Ts + e.Dur}
		case "mpi.compute":
			computes[thread{e.Pid, e.Tid}] = [2]float64{e.Ts, e.Ts + e.Dur}
		}
	}
	if len(handlers) == 0 {
		t.Fatal("no handler on a unit's thread")
	}
	for th, h := range handlers {
		if c, ok := computes[th]; !ok || c[0] < h[0] || c[1] > h[1] || c[1] == c[0] {
			t.Errorf("unit thread %v: handler %v, its mpi.compute %v (found %v)", th, h, c, ok)
		}
	}
}

// The trace of regions.lua (trace regions around a halo and a Lua
// allreduce): counters of each dimension's link use at rising times, the
// args of slices and flows (bytes, peer, tag, protocol, algorithm), and the
// regions as slices around the calls made in them, nested per rank.
func TestTraceArgsCountersRegions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.json")
	if _, e, code := runCLI("--quiet", "--trace", file, "-n", "8", "--coll", "allreduce=lua_recursive_doubling", "testdata/progs/regions.lua"); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	checkTrace(t, "regions.lua", b)
	var events []struct {
		Name, Cat, Ph string
		Pid, Tid      int64
		Ts, Dur       float64
		Args          map[string]any
	}
	if err := json.Unmarshal(b, &events); err != nil {
		t.Fatal(err)
	}
	type span struct{ start, end float64 }
	regions := map[int64]map[string][]span{} // by tid, then name
	var dims int
	links := map[string][]float64{} // per-link counters: busy % at each point
	lastTs := map[string]float64{}
	var sendrecv, allreduce, flowStarts, collFlows int
	for i, e := range events {
		switch {
		case e.Ph == "C":
			if ts, ok := lastTs[e.Name]; ok && e.Ts <= ts {
				t.Errorf("counter %q at %v after %v", e.Name, e.Ts, ts)
			}
			lastTs[e.Name] = e.Ts
			if strings.HasPrefix(e.Name, "link (") {
				v, _ := e.Args["busy"].(float64)
				links[e.Name] = append(links[e.Name], v)
			}
			if e.Name == "torus links busy % by dimension" {
				dims++
				for _, d := range []string{"x", "y", "z"} {
					if v, ok := e.Args[d].(float64); !ok || v < 0 || v > 100 {
						t.Errorf("event %d: dimension %s busy %v", i, d, e.Args[d])
					}
				}
			}
		case e.Ph == "X" && e.Cat == "region":
			if regions[e.Tid] == nil {
				regions[e.Tid] = map[string][]span{}
			}
			regions[e.Tid][e.Name] = append(regions[e.Tid][e.Name], span{e.Ts, e.Ts + e.Dur})
		case e.Ph == "X" && e.Name == "mpi.sendrecv" && e.Args["bytes"] == 4096.0:
			sendrecv++
			rank := e.Tid - 1
			if e.Args["peer"] != float64((rank+1)%8) || e.Args["tag"] != 0.0 || e.Args["protocol"] != "rendezvous" {
				t.Errorf("rank %d's halo sendrecv has args %v", rank, e.Args)
			}
		case e.Ph == "X" && e.Name == "mpi.allreduce":
			allreduce++
			if e.Args["algorithm"] != "lua_recursive_doubling" {
				t.Errorf("allreduce slice has args %v", e.Args)
			}
		case e.Ph == "s":
			flowStarts++
			if _, ok := e.Args["bytes"].(float64); !ok || e.Args["tag"] == nil || e.Args["peer"] == nil || e.Args["protocol"] == nil {
				t.Errorf("flow start %d has args %v", i, e.Args)
			}
			if e.Args["algorithm"] == "allreduce (lua_recursive_doubling)" {
				collFlows++
			}
		}
	}
	if dims == 0 || sendrecv != 16 || allreduce != 16 || flowStarts == 0 || collFlows == 0 {
		t.Fatalf("%d dimension counters, %d halo sendrecvs, %d allreduces, %d flows (%d of the allreduce)", dims, sendrecv, allreduce, flowStarts, collFlows)
	}
	if len(regions) != 8 {
		t.Fatalf("regions on %d ranks, want 8", len(regions))
	}
	// The busiest links have a track each: their share of the run, then 0
	// at its end.
	if len(links) == 0 || len(links) > 10 {
		t.Fatalf("%d per-link counters, want 1 to 10", len(links))
	}
	for name, vs := range links {
		if len(vs) != 2 || vs[0] <= 0 || vs[0] > 100 || vs[1] != 0 {
			t.Errorf("counter %q: %v", name, vs)
		}
	}
	within := func(in, out span) bool { return in.start >= out.start-1e-4 && in.end <= out.end+1e-4 }
	for tid, rs := range regions {
		if len(rs["setup"]) != 1 || len(rs["step"]) != 2 || len(rs["halo"]) != 2 || len(rs["reduce"]) != 2 {
			t.Fatalf("rank %d's regions: %v", tid-1, rs)
		}
		for i, step := range rs["step"] {
			if !within(rs["halo"][i], step) || !within(rs["reduce"][i], step) || rs["halo"][i].end > rs["reduce"][i].start {
				t.Errorf("rank %d, step %d: halo %v and reduce %v not in order within %v", tid-1, i, rs["halo"][i], rs["reduce"][i], step)
			}
		}
	}
}
