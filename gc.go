package bglua

import (
	goruntime "runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"unsafe"
)

// GCHeadroomPerRank is the garbage a run with Tuning.GC may make between
// two collections, per rank (see gcHeadroom): about twice what a parked rank
// holds. A large run allocates most of its heap at start-up, in rank states
// that stay live, and the collector's default (collect when the heap has
// doubled) collects it many times over while it grows, scanning every
// parked rank's stack each time: three quarters of the start-up CPU of
// 41,616 parked ranks (BenchmarkStartup: 54 us a rank, 14 with this).
const GCHeadroomPerRank = 32 << 10

// minHeapGoal is the Go runtime's smallest heap goal at GOGC=100, 4 MiB.
const minHeapGoal = 4 << 20

// gcHeadroom sets the garbage collector of this process to let the heap grow
// by at least headroom bytes between collections, and by as much as the live
// heap when that is more (GOGC=100, the default). A run then pays at most
// headroom more memory than with the default, and none once its live heap
// is larger than headroom. After every collection it sets the GC percent
// from the live heap (runtime/debug.SetGCPercent). stop ends this and puts
// the GC percent back.
//
// With a headroom of 64 MiB or more (2,048 ranks), on Linux
// with transparent huge pages, it also readies that much heap in huge pages
// until the first collection (prepareHuge, unadvise): a large run's rank
// states, which it allocates at start and which stay live, then take a page
// fault every 2 MiB instead of every 4 KiB (41,616 ranks of the [EMU]
// octree broadcast: system time 0.6 to 0.2 s).
//
// GC settings are the whole process's: Run calls it with Tuning.GC only.
func gcHeadroom(headroom uint64) *gcTuner {
	t := &gcTuner{headroom: headroom, least: 100}
	t.old = debug.SetGCPercent(percentFor(headroom, minHeapGoal, 0, t.least))
	t.hugeLo, t.hugeHi = prepareHuge(headroom) // its collection comes before the tuner's
	t.arm()
	return t
}

// A run keeps, once every rank has started (running), a sixteenth of the
// start's headroom (2 KiB a rank) but at least runHeadroomFloor of it (all
// of it below), and lets the heap grow by at least a quarter of the live
// heap (runLeastPercent) where that is more: the headroom pays for the
// start, when the rank states are made and stay live, and after it a large
// run makes little garbage a rank. A run of a few thousand ranks keeps
// what it had, as collecting its small heap more often costs more than the
// memory saved (256 ranks, recursive-doubling allreduces: +15%
// instructions at twice the live heap). On the full BG/L, 131,072 ranks,
// 10 halo steps of 1 KiB (bench/workloads/halo3d.lua ... 64 32 64, --mode
// vn), with a live heap of 1.5-1.8 GB while running: half the start's
// headroom (2 GiB) and at least twice the live heap, as before, peaked at
// 4.29 GiB of RSS for 195 s of user CPU; an eighth and half the live heap
// at 3.34 GiB for 206 s; a sixteenth and a quarter at 3.04 GiB for 222 s
// (the build before the live heap was cut: 5.73 GiB, 214 s). Later, with
// less other work on the machine: before the cuts 96.5 s wall, 171 s
// user, 4.99 GiB; the cuts with the old tuning 97.2 s, 173 s, 4.31 GiB;
// this (three runs) 104.4, 115.9 and 191.6 s wall, 187, 187 and 211 s
// user, 2.99, 3.00 and 3.03 GiB: about a tenth more CPU. At 32,768
// ranks (... 32 32 32) the same choices give 1.07-1.09 GiB for 37-44 s
// and 0.78 GiB for 45-57 s: the GC costs about a fifth more CPU there
// (2026-11-27, a machine shared with other work: one run each of the
// full BG/L, two and three alternating of 32,768 ranks).
const runHeadroomFloor = 64 << 20

// runHeadroomShare is the share of the start's headroom a running run
// keeps, runLeastPercent the least GC percent it then sets (see above).
const (
	runHeadroomShare = 16
	runLeastPercent  = 25
)

// running is called once every rank has started: from now on the heap
// grows by the running headroom or by runLeastPercent of the live heap
// (and the stacks), whichever is more.
func (t *gcTuner) running() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped || t.run {
		return
	}
	t.run = true
	t.unadvise()
	t.headroom = max(t.headroom/runHeadroomShare, min(t.headroom, runHeadroomFloor))
	t.least = runLeastPercent
	// (Before the first collection the live heap is not known: as at the
	// start, the runtime's least goal stands for it.)
	debug.SetGCPercent(percentFor(t.headroom, max(t.live, minHeapGoal), t.scan, t.least))
}

// percentFor is the GC percent whose heap goal is live + headroom, given
// the live heap and the stacks and globals the collector scans (the
// runtime's goal is live + (live + scan) * percent / 100), and never below
// least (100: Go's default, a goal of twice the live heap).
func percentFor(headroom, live, scan uint64, least int) int {
	if live+scan == 0 {
		return max(least, 100)
	}
	return int(max(uint64(least), min(100*headroom/(live+scan), 1<<20)))
}

type gcTuner struct {
	headroom uint64
	least    int // the lowest GC percent it sets (percentFor)
	old      int
	mu       sync.Mutex
	stopped  bool
	run      bool   // every rank has started (running)
	live     uint64 // the live heap at the last collection
	scan     uint64 // and the stacks and globals it scanned
	// hugeLo, hugeHi are the range advised to be huge pages, until the
	// first collection.
	hugeLo, hugeHi uintptr
}

// gcSentinel is garbage as soon as it is made: its finalizer runs after the
// next collection.
type gcSentinel struct{ t *gcTuner }

func (t *gcTuner) arm() {
	goruntime.SetFinalizer(&gcSentinel{t}, func(s *gcSentinel) { s.t.collected() })
}

func (t *gcTuner) collected() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.unadvise()
	m := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}
	metrics.Read(m)
	var v [3]uint64
	for i, s := range m {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	t.live, t.scan = v[0], v[1]+v[2]
	debug.SetGCPercent(percentFor(t.headroom, t.live, t.scan, t.least))
	t.arm()
}

func (t *gcTuner) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped {
		t.stopped = true
		t.unadvise()
		debug.SetGCPercent(t.old)
	}
}

// minHugeHeap is the least headroom for which gcHeadroom readies huge
// pages: below it a run's page faults cost little and a collection at start
// would not pay.
const minHugeHeap = 64 << 20

// maxHugeHeap bounds the block gcHeadroom readies: address space only, but
// one allocation.
const maxHugeHeap = 8 << 30

// hugePage is the size of a transparent huge page on the machines bglua
// runs on (x86-64, and arm64 with 4 KiB pages).
const hugePage = 2 << 20

// prepareHuge readies the heap for a run that will fill size bytes, most of
// them in rank states that stay live: it grows the heap by size at once, in
// one block of address space, asks the kernel to back the block with
// transparent huge pages (Linux, with huge pages "always" or "madvise"),
// and frees it again with one collection, while the heap is still small.
// The rank states then take the block's pages: one page fault every 2 MiB
// instead of every 4 KiB, and fewer TLB misses when the run goes from rank
// to rank. It returns the range advised (lo == hi when none): the tuner
// withdraws the advice at its first collection (unadvise). Below
// minHugeHeap, on a 32-bit host, or where the kernel has no huge pages to
// give, it does nothing.
func prepareHuge(size uint64) (lo, hi uintptr) {
	if size < minHugeHeap || ^uint(0)>>32 == 0 || !hugePagesOn() {
		return 0, 0
	}
	block := make([]byte, min(size, maxHugeHeap))
	lo, hi = hugeRange(uintptr(unsafe.Pointer(unsafe.SliceData(block))), uintptr(len(block)))
	adviseHuge(lo, hi, true)
	block = nil
	goruntime.GC() // the block is dead: the collection frees it
	return lo, hi
}

// unadvise withdraws the huge-page advice, once. From the first collection
// on, the heap is reused rather than grown, and the runtime gives free
// pages back to the kernel: under the advice, the kernel would fill the
// huge pages they leave again (khugepaged), and a run that makes garbage
// at a high rate would keep far more memory resident (30 allreduces on
// 2,048 ranks: 473 MiB instead of 128). The huge pages already filled stay.
func (t *gcTuner) unadvise() {
	if t.hugeLo < t.hugeHi {
		adviseHuge(t.hugeLo, t.hugeHi, false)
		t.hugeLo, t.hugeHi = 0, 0
	}
}

// hugeRange is the part [lo, hi) of the n bytes at p that whole huge pages
// cover (lo == hi when none does).
func hugeRange(p, n uintptr) (lo, hi uintptr) {
	lo = (p + hugePage - 1) &^ (hugePage - 1)
	hi = (p + n) &^ (hugePage - 1)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}
