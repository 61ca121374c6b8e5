package bglua

import (
	goruntime "runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// GCHeadroomPerRank is the garbage the bglua command lets a run make between
// two collections, per rank (see GCHeadroom): about twice what a parked rank
// holds. A large run allocates most of its heap at start-up, in rank states
// that stay live, and the collector's default (collect when the heap has
// doubled) collects it many times over while it grows, scanning every
// parked rank's stack each time: three quarters of the start-up CPU of
// 41,616 parked ranks (BenchmarkStartup: 54 us a rank, 14 with this).
const GCHeadroomPerRank = 32 << 10

// minHeapGoal is the Go runtime's smallest heap goal at GOGC=100, 4 MiB.
const minHeapGoal = 4 << 20

// GCHeadroom sets the garbage collector of this process to let the heap grow
// by at least headroom bytes between collections, and by as much as the live
// heap when that is more (GOGC=100, the default). A run then pays at most
// headroom more memory than with the default, and none once its live heap
// is larger than headroom. After every collection it sets the GC percent
// from the live heap (runtime/debug.SetGCPercent). stop ends this and puts
// the GC percent back. GC settings are the whole process's: an embedder
// that runs other work beside bglua decides for itself.
func GCHeadroom(headroom uint64) (stop func()) {
	t := &gcTuner{headroom: headroom}
	t.old = debug.SetGCPercent(percentFor(headroom, minHeapGoal, 0))
	t.arm()
	return t.stop
}

// percentFor is the GC percent whose heap goal is live + max(live,
// headroom), given the live heap and the stacks and globals the collector
// scans (the runtime's goal is live + (live + scan) * percent / 100), and
// never below the default, 100.
func percentFor(headroom, live, scan uint64) int {
	if live+scan == 0 || headroom <= live {
		return 100
	}
	return int(max(100, min(100*headroom/(live+scan), 1<<20)))
}

type gcTuner struct {
	headroom uint64
	old      int
	mu       sync.Mutex
	stopped  bool
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
	m := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}
	metrics.Read(m)
	var v [3]uint64
	for i, s := range m {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	debug.SetGCPercent(percentFor(t.headroom, v[0], v[1]+v[2]))
	t.arm()
}

func (t *gcTuner) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped {
		t.stopped = true
		debug.SetGCPercent(t.old)
	}
}
