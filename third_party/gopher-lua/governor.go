package lua

import "sync/atomic"

// A Governor bounds what the scripts of an embedder consume. Set on a state
// with SetGovernor, it holds for that state and every thread made from it
// (coroutines, NewThread), since they share the state's Global.
//
// Stopping: once Stop has been called, every state under the governor raises
// an error at its next backward jump or call, and again at every one after
// that, so that a pcall in a loop cannot catch the stop for good: a spinning
// script ends within a few instructions of Stop, from any goroutine. The
// check is one atomic load at those instructions only, much cheaper than
// SetContext's select at every instruction.
//
// Allocations: before the VM or a library function builds a single value of
// at least AllocCheckMin bytes (a concatenation, string.rep, string.gsub's
// result), it calls Alloc, which may refuse by raising an error.
type Governor struct {
	stop atomic.Bool

	// OnStop, if set, is called by a state that finds the governor stopped,
	// before it raises the error and with its call frames intact (so that
	// it can say where the script was). It is called at every check that
	// finds it stopped.
	OnStop func(L *LState)
	// Message is the error the stopped states raise ("stopped" if empty).
	Message string
	// Alloc, if set, is called before a value of n >= AllocCheckMin bytes
	// is built; it refuses the allocation by raising an error on L (for
	// instance with L.RaiseError).
	Alloc func(L *LState, n int64)
}

// AllocCheckMin is the smallest allocation a Governor's Alloc is asked about:
// smaller ones add up slowly enough for a watchdog to see them.
const AllocCheckMin = 1 << 20

// Stop makes every state under g raise an error at its next check. It may be
// called from any goroutine.
func (g *Governor) Stop() { g.stop.Store(true) }

// Stopped reports whether Stop was called.
func (g *Governor) Stopped() bool { return g.stop.Load() }

// SetGovernor puts the state, and the threads that share its Global, under g
// (nil: none).
func (ls *LState) SetGovernor(g *Governor) { ls.G.gov = g }

// Governor is the state's governor, or nil.
func (ls *LState) Governor() *Governor { return ls.G.gov }

// checkStop raises the governor's error if it was stopped. The VM calls it at
// backward jumps and calls.
func (ls *LState) checkStop() {
	if g := ls.G.gov; g != nil && g.stop.Load() {
		ls.raiseStop(g)
	}
}

func (ls *LState) raiseStop(g *Governor) {
	if g.OnStop != nil {
		g.OnStop(ls)
	}
	msg := g.Message
	if msg == "" {
		msg = "stopped"
	}
	ls.RaiseError("%s", msg)
}

// checkAlloc asks the governor, if any, about a value of n bytes.
func (ls *LState) checkAlloc(n int64) {
	if n < AllocCheckMin {
		return
	}
	if g := ls.G.gov; g != nil && g.Alloc != nil {
		g.Alloc(ls, n)
	}
}

// CheckAlloc asks the state's governor, if any, whether a value of n bytes
// may be built, for library functions outside this package; it raises the
// governor's error if not.
func (ls *LState) CheckAlloc(n int64) { ls.checkAlloc(n) }
