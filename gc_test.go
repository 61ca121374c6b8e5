package bglua

import (
	goruntime "runtime"
	"runtime/debug"
	"testing"
)

func TestPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name                 string
		headroom, live, scan uint64
		want                 int
	}{
		{"start: first goal at the headroom", 1024 * mib, minHeapGoal, 0, 25600},
		{"small live heap", 1024 * mib, 100 * mib, 0, 1024},
		{"stacks count in the goal", 1024 * mib, 100 * mib, 100 * mib, 512},
		{"live heap above the headroom: the default", 100 * mib, 1024 * mib, 0, 100},
		{"never below the default", 150 * mib, 100 * mib, 100 * mib, 100},
		{"no headroom", 0, 100 * mib, 0, 100},
		{"nothing live yet", 1024 * mib, 0, 0, 100},
		{"capped", 1 << 50, 1, 0, 1 << 20},
	} {
		if got := percentFor(c.headroom, c.live, c.scan); got != c.want {
			t.Errorf("%s: percentFor(%d, %d, %d) = %d, want %d", c.name, c.headroom, c.live, c.scan, got, c.want)
		}
	}
}

// GCHeadroom sets the GC percent for its headroom at once and after every
// collection, and stop puts the old one back and ends the tuning.
func TestGCHeadroomSetsAndRestores(t *testing.T) {
	old := debug.SetGCPercent(150)
	defer debug.SetGCPercent(old)
	stop := GCHeadroom(64 << 20)
	if got := debug.SetGCPercent(-1); got != 1600 {
		t.Errorf("GC percent %d after GCHeadroom(64 MiB), want 1600", got)
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
