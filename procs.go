package bglua

import (
	goruntime "runtime"
	"slices"
	"sync"
)

// Runs in partitions need as many Ps as they have threads, while a run in
// one partition is fastest with the P count the embedder chose (the command
// sets one: a second only adds wake-ups of OS threads at every process
// switch). With Tuning.Procs, procs raises GOMAXPROCS for the runs in
// partitions under way and puts back the embedder's value when the last one
// ends, whatever the order in which concurrent runs start and end.
var procs struct {
	sync.Mutex
	saved int         // the value before the first raise
	want  []*procWant // the runs under way
}

// A procWant is what one run wants of GOMAXPROCS.
type procWant struct{ n int }

// raiseProcs makes GOMAXPROCS at least threads until the returned function
// is called.
func raiseProcs(threads int) (release func()) {
	return claimProcs(threads).release
}

// claimProcs makes GOMAXPROCS at least threads until release; set changes
// the claim.
func claimProcs(threads int) *procWant {
	procs.Lock()
	defer procs.Unlock()
	if len(procs.want) == 0 {
		procs.saved = goruntime.GOMAXPROCS(0)
	}
	w := &procWant{n: threads}
	procs.want = append(procs.want, w)
	setProcs()
	return w
}

// set makes the claim n threads.
func (w *procWant) set(n int) {
	procs.Lock()
	defer procs.Unlock()
	w.n = n
	setProcs()
}

// release ends the claim.
func (w *procWant) release() {
	procs.Lock()
	defer procs.Unlock()
	if i := slices.Index(procs.want, w); i >= 0 {
		procs.want = slices.Delete(procs.want, i, i+1)
		setProcs()
	}
}

// setProcs sets GOMAXPROCS to the largest want, and never below saved.
func setProcs() {
	n := procs.saved
	for _, w := range procs.want {
		n = max(n, w.n)
	}
	if goruntime.GOMAXPROCS(0) != n {
		goruntime.GOMAXPROCS(n)
	}
}
