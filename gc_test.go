package bglua

import (
	"context"
	"io"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name                 string
		headroom, live, scan uint64
		least, want          int
	}{
		{"start: first goal at the headroom", 1024 * mib, minHeapGoal, 0, 100, 25600},
		{"small live heap", 1024 * mib, 100 * mib, 0, 100, 1024},
		{"stacks count in the goal", 1024 * mib, 100 * mib, 100 * mib, 100, 512},
		{"live heap above the headroom: the default", 100 * mib, 1024 * mib, 0, 100, 100},
		{"never below the default", 150 * mib, 100 * mib, 100 * mib, 100, 100},
		{"no headroom", 0, 100 * mib, 0, 100, 100},
		{"nothing live yet", 1024 * mib, 0, 0, 100, 100},
		{"capped", 1 << 50, 1, 0, 100, 1 << 20},
		{"running: the headroom below the live heap", 512 * mib, 800 * mib, 224 * mib, 50, 50},
		{"running: the headroom above half of it", 768 * mib, 800 * mib, 224 * mib, 50, 75},
		{"running: nothing live yet", 1024 * mib, 0, 0, 50, 100},
	} {
		if got := percentFor(c.headroom, c.live, c.scan, c.least); got != c.want {
			t.Errorf("%s: percentFor(%d, %d, %d, %d) = %d, want %d", c.name, c.headroom, c.live, c.scan, c.least, got, c.want)
		}
	}
}

// gcHeadroom sets the GC percent for its headroom at once and after every
// collection, and stop puts the old one back and ends the tuning.
func TestGCHeadroomSetsAndRestores(t *testing.T) {
	old := debug.SetGCPercent(150)
	defer debug.SetGCPercent(old)
	stop := gcHeadroom(64 << 20).stop
	if got := debug.SetGCPercent(-1); got != 1600 {
		t.Errorf("GC percent %d after gcHeadroom(64 MiB), want 1600", got)
	}
	goruntime.GC() // so that there is a live heap to read
	tuner := &gcTuner{headroom: 1 << 50}
	tuner.collected() // as after a collection: from the live heap, whatever it is
	if got := debug.SetGCPercent(-1); got <= 100 {
		t.Errorf("GC percent %d after a collection with a huge headroom, want more than 100", got)
	}
	tuner.stopped = true
	stop()
	if got := debug.SetGCPercent(-1); got != 150 {
		t.Errorf("GC percent %d after stop, want 150 back", got)
	}
	debug.SetGCPercent(42)
	tuner.collected() // stopped: no longer sets anything
	if got := debug.SetGCPercent(-1); got != 42 {
		t.Errorf("a stopped tuner set the GC percent to %d", got)
	}
}

// Once every rank has started (running), the tuner keeps a share of its
// headroom: the GC percent follows the smaller headroom at once and after
// every collection; stop still puts the old percent back.
func TestGCRunningPhase(t *testing.T) {
	old := debug.SetGCPercent(150)
	defer debug.SetGCPercent(old)
	current := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	for _, c := range []struct{ start, running uint64 }{
		{32 << 20, 32 << 20},                           // below the floor: all of it
		{100 << 20, 64 << 20},                          // the floor
		{4 << 30, 4 << 30 / runHeadroomShare},          // its share
		{1 << 30, max(1<<30/runHeadroomShare, 64<<20)}, // its share or the floor
	} {
		tuner := &gcTuner{headroom: c.start, live: 8 << 20, least: 100}
		tuner.running()
		if got, want := current(), percentFor(c.running, 8<<20, 0, runLeastPercent); tuner.headroom != c.running || got != want {
			t.Errorf("start headroom %d: running %d, GC percent %d; want %d and %d", c.start, tuner.headroom, got, c.running, want)
		}
		tuner.running() // once only
		if tuner.headroom != c.running {
			t.Errorf("start headroom %d: %d after a second call", c.start, tuner.headroom)
		}
	}
	debug.SetGCPercent(150)
	tuner := gcHeadroom(32 << 20) // below minHugeHeap: no huge pages readied
	tuner.running()
	goruntime.GC()
	tuner.collected() // as after a collection: from the live heap, with the running headroom
	if got, want := current(), percentFor(32<<20, tuner.live, tuner.scan, runLeastPercent); got != want {
		t.Errorf("GC percent %d after a collection while running, want %d", got, want)
	}
	tuner.stop()
	if got := debug.SetGCPercent(-1); got != 150 {
		t.Errorf("GC percent %d after stop, want 150 back", got)
	}
}

// The host calls AllStarted once, when the last rank's program begins.
func TestAllStartedOnce(t *testing.T) {
	for _, threads := range []int{1, 2} {
		var calls atomic.Int32
		cfg := Config{Ranks: 1024, Torus: "16x8x8", Threads: threads, Stdout: io.Discard, Quiet: true}
		g, ctx, stop := guard(context.Background(), cfg)
		s, err := setup(cfg, Program{Name: "p.lua", Code: []byte("mpi.barrier()")}, g)
		if err != nil {
			t.Fatal(err)
		}
		s.host.AllStarted = func() { calls.Add(1) }
		_, err = s.run(ctx, time.Now())
		stop()
		if err != nil {
			t.Fatal(err)
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("%d threads: AllStarted called %d times, want once", threads, n)
		}
	}
}

func TestHugeRange(t *testing.T) {
	const h = hugePage
	for _, c := range []struct {
		name           string
		p, n           uintptr
		wantLo, wantHi uintptr
	}{
		{"aligned, whole pages", 4 * h, 3 * h, 4 * h, 7 * h},
		{"ragged ends are left out", 4*h + 4096, 3 * h, 5 * h, 7 * h},
		{"tail short of a page", 4 * h, 3*h - 1, 4 * h, 6 * h},
		{"less than a page", 4*h + 4096, h, 5 * h, 5 * h},
		{"inside one page", 4*h + 4096, 8192, 5 * h, 5 * h},
		{"empty", 4 * h, 0, 4 * h, 4 * h},
	} {
		lo, hi := hugeRange(c.p, c.n)
		if lo != c.wantLo || hi != c.wantHi {
			t.Errorf("%s: hugeRange(%#x, %#x) = [%#x, %#x), want [%#x, %#x)", c.name, c.p, c.n, lo, hi, c.wantLo, c.wantHi)
		}
		if lo < c.p && lo != hi || hi > c.p+c.n && lo != hi {
			t.Errorf("%s: [%#x, %#x) is outside the block", c.name, lo, hi)
		}
	}
}

// prepareHuge advises a free block of huge pages and leaves nothing live;
// the tuner's unadvise withdraws the advice, once.
func TestPrepareHugeAndUnadvise(t *testing.T) {
	if !hugePagesOn() {
		t.Skip("no transparent huge pages here: prepareHuge does nothing")
	}
	if lo, hi := prepareHuge(minHugeHeap - 1); lo != hi {
		t.Errorf("prepareHuge below %d bytes advised [%#x, %#x)", minHugeHeap, lo, hi)
	}
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	lo, hi := prepareHuge(minHugeHeap)
	goruntime.ReadMemStats(&after)
	if hi-lo < minHugeHeap-2*hugePage {
		t.Fatalf("prepareHuge(%d) advised [%#x, %#x), %d bytes", minHugeHeap, lo, hi, hi-lo)
	}
	if after.NumGC == before.NumGC {
		t.Errorf("prepareHuge(%d) ran no collection", minHugeHeap)
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > minHugeHeap/2 {
		t.Errorf("prepareHuge(%d) left %d bytes live", minHugeHeap, grew)
	}
	if f := vmFlags(t, lo); !f["hg"] || f["nh"] {
		t.Errorf("after prepareHuge the block's flags are %v, want hg", f)
	}
	tu := &gcTuner{hugeLo: lo, hugeHi: hi}
	tu.unadvise()
	if f := vmFlags(t, lo); f["hg"] || !f["nh"] {
		t.Errorf("after unadvise the block's flags are %v, want nh", f)
	}
	if tu.hugeLo != tu.hugeHi {
		t.Errorf("unadvise kept the range [%#x, %#x)", tu.hugeLo, tu.hugeHi)
	}
}

// vmFlags are the VmFlags of the mapping of this process that holds addr
// (/proc/self/smaps).
func vmFlags(t *testing.T, addr uintptr) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if r := strings.SplitN(f[0], "-", 2); len(r) == 2 && !strings.HasSuffix(f[0], ":") {
			lo, err1 := strconv.ParseUint(r[0], 16, 64)
			hi, err2 := strconv.ParseUint(r[1], 16, 64)
			if err1 == nil && err2 == nil {
				in = uint64(addr) >= lo && uint64(addr) < hi
				continue
			}
		}
		if in && f[0] == "VmFlags:" {
			flags := map[string]bool{}
			for _, x := range f[1:] {
				flags[x] = true
			}
			return flags
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return nil
}
