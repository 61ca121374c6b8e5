package luabind

import (
	"fmt"
	"slices"
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// Guard stops the Lua of every rank of a run from outside, between
// instructions (a wall-time limit, an interrupt, a memory watchdog), and
// refuses single values too large for the memory left. The ranks that were
// running Lua when it stopped are recorded with their file:line.
type Guard struct {
	gov lua.Governor

	mu      sync.Mutex
	cause   error
	running []Running

	// Room, if set, is asked before a rank builds a value of n bytes (a
	// concatenation, string.rep, a decoded payload...): a non-nil error
	// refuses it, as an error of the rank.
	Room func(n int64) error
}

// Running is a rank that was running Lua when its run was stopped, and where.
type Running struct {
	Rank  int
	Where string // Lua file:line
}

func (r Running) String() string {
	if r.Where == "" {
		return fmt.Sprint(r.Rank)
	}
	return fmt.Sprintf("%d at %s", r.Rank, r.Where)
}

// NewGuard returns a guard for one run; Options.Guard gives it to the ranks.
func NewGuard() *Guard {
	g := &Guard{}
	g.gov.Message = "stopped" // seen only by a pcall in the rank's own code
	return g
}

// Stop stops every rank's Lua at its next backward jump or call, for cause
// (the first cause wins). It may be called from any goroutine.
func (g *Guard) Stop(cause error) {
	g.mu.Lock()
	if g.cause == nil {
		g.cause = cause
	}
	g.mu.Unlock()
	g.gov.Stop()
}

// Govern puts L, a Lua state that is none of the ranks' (the machine
// file's), under the guard: Stop stops it too. A nil guard does nothing.
func (g *Guard) Govern(L *lua.LState) {
	if g != nil {
		L.SetGovernor(&g.gov)
	}
}

// Stopped reports whether Stop was called.
func (g *Guard) Stopped() bool { return g != nil && g.gov.Stopped() }

// Cause is what Stop was called for, or nil.
func (g *Guard) Cause() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cause
}

// Running lists the ranks that were running Lua when the run stopped, in
// rank order.
func (g *Guard) Running() []Running {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := slices.Clone(g.running)
	slices.SortFunc(r, func(a, b Running) int { return a.Rank - b.Rank })
	return r
}

// armGuard readies the guard of opt for the host's ranks (NewHost).
func (h *Host) armGuard() {
	g := h.opt.Guard
	if g == nil {
		return
	}
	g.gov.OnStop = func(L *lua.LState) { h.stoppedAt(g, L) }
	if g.Room != nil {
		g.gov.Alloc = func(L *lua.LState, n int64) {
			if err := g.Room(n); err != nil {
				L.RaiseError("%v", err)
			}
		}
	}
}

// stoppedAt records the rank of L as running at its current line, once.
func (h *Host) stoppedAt(g *Guard, L *lua.LState) {
	rk := h.rankOf(L)
	if rk == nil {
		return
	}
	g.add(Running{Rank: rk.r.ID, Where: h.where(L)})
}

// ran records rank as running, where unknown, unless it is recorded.
func (g *Guard) ran(rank int) { g.add(Running{Rank: rank}) }

func (g *Guard) add(r Running) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, x := range g.running {
		if x.Rank == r.Rank {
			return
		}
	}
	g.running = append(g.running, r)
}

// FormatRunning says which ranks were running Lua and where, for a report:
// "running: rank 3 at spin.lua:4", "running: ranks 3 at a.lua:4, 9 at
// b.lua:2".
func FormatRunning(r []Running) string {
	if len(r) == 0 {
		return "no rank was running Lua"
	}
	s := "running: rank "
	if len(r) > 1 {
		s = "running: ranks "
	}
	for i, x := range r {
		if i > 0 {
			s += ", "
		}
		s += x.String()
	}
	return s
}
