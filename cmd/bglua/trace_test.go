package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The trace is valid JSON in the Chrome trace-event format, the same byte
// for byte on every run, limited by --trace-ranks, and its flow arrows pair.
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
	var events []map[string]any
	if err := json.Unmarshal(ba, &events); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	flows := map[float64]int{}
	slices, counters := 0, 0
	for i, e := range events {
		ph, _ := e["ph"].(string)
		for _, k := range []string{"name", "cat", "ph", "pid", "tid"} {
			if _, ok := e[k]; !ok {
				t.Fatalf("event %d lacks %s: %v", i, k, e)
			}
		}
		switch ph {
		case "C":
			counters++
			if e["pid"] == nil || e["args"] == nil {
				t.Fatalf("bad counter %v", e)
			}
		case "M":
		case "X":
			slices++
			if e["ts"].(float64) < 0 || e["dur"].(float64) < 0 {
				t.Fatalf("bad slice %v", e)
			}
		case "s":
			flows[e["id"].(float64)]++
		case "f":
			flows[e["id"].(float64)] += 100
			if e["bp"] != "e" {
				t.Fatalf("flow end not bound to its enclosing slice: %v", e)
			}
		default:
			t.Fatalf("event %d has phase %q", i, ph)
		}
	}
	if slices == 0 || len(flows) == 0 || counters == 0 {
		t.Fatalf("%d slices, %d flows, %d counters", slices, len(flows), counters)
	}
	for id, n := range flows {
		if n != 101 {
			t.Errorf("message %v: %d starts and %d ends", id, n%100, n/100)
		}
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
	file := filepath.Join(t.TempDir(), "t.json")
	if _, e, code := runCLI("--quiet", "--trace", file, "-n", "3", "testdata/progs/ml.lua"); code != 1 {
		t.Fatalf("exit %d: %s", code, e)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "golden", "trace_ml.json")
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
	var events []map[string]any
	if err := json.Unmarshal(got, &events); err != nil {
		t.Fatal(err)
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
