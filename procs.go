package bglua

import (
	goruntime "runtime"
	"slices"
	"sync"
)

// Runs in partitions need as many Ps as they have threads, while a run in
// one partition is fastest with the P count the embedder chose (the command
// sets one: a second only adds wake-ups of OS threads at every process
// switch). procs raises GOMAXPROCS for the runs in partitions under way
// and puts back the embedder's value when the last one ends, whatever the
// order in which concurrent runs start and end.
var procs struct {
	sync.Mutex
	saved int   // the value before the first raise
	want  []int // threads of the runs under way
}

// raiseProcs makes GOMAXPROCS at least threads until the returned function
// is called.
func raiseProcs(threads int) (release func()) {
	procs.Lock()
	defer procs.Unlock()
	if len(procs.want) == 0 {
		procs.saved = goruntime.GOMAXPROCS(0)
	}
	procs.want = append(procs.want, threads)
	setProcs()
	return func() {
		procs.Lock()
		defer procs.Unlock()
		i := slices.Index(procs.want, threads)
		procs.want = slices.Delete(procs.want, i, i+1)
		setProcs()
	}
}

// setProcs sets GOMAXPROCS to the largest want, and never below saved.
func setProcs() {
	n := procs.saved
	for _, w := range procs.want {
		n = max(n, w)
	}
	if goruntime.GOMAXPROCS(0) != n {
		goruntime.GOMAXPROCS(n)
	}
}
