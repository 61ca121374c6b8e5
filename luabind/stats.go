package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/observe"
	"github.com/bglua/bglua/runtime"
)

// Stats returns the per-primitive statistics of the run (nil unless
// Options.Stats), sorted by name, primitives never called left out.
// In partitions each partition counts its ranks' calls.
func (h *Host) Stats() []observe.PrimitiveStat { return observe.SumStats(h.stats) }

// MDS returns every rank's MMDS record (nil unless Options.MDS), in rank order.
func (h *Host) MDS() []observe.RankMDS { return h.mds }

// instrument wraps every Go function of t so that its calls are counted
// under prefix+name (statistics) and drawn as slices (trace). It is only done
// when one of them is asked for.
func (h *Host) instrument(prefix string, t *lua.LTable) {
	if h.stats == nil {
		h.stats = map[string][]observe.PrimitiveStat{}
	}
	for _, k := range sortedKeys(t) {
		f, ok := t.RawGetString(k).(*lua.LFunction)
		if !ok || !f.IsG {
			continue
		}
		name := prefix + k
		st := h.stats[name]
		if st == nil {
			st = make([]observe.PrimitiveStat, h.W.Partitions())
			for i := range st {
				st[i].Name = name
			}
			h.stats[name] = st
		}
		inner := f.GFunction
		t.RawSetString(k, gfunc(func(L *lua.LState) int {
			rk := h.rankOf(L)
			t0, b0 := rk.r.Now(), rk.r.SentBytes
			u := h.onUnit()
			var c0 runtime.Time
			if u != nil {
				c0 = u.Clock
			}
			n := inner(L)
			t1 := rk.r.Now()
			st[rk.r.Part()].Add(t1-t0, rk.r.SentBytes-b0)
			if h.mds != nil {
				h.mds[rk.r.ID].Call(name, k, t0, t1, h.cyclesPerUS)
			}
			switch tr := h.opt.Trace; {
			case tr == nil:
			case u != nil:
				// In a handler on a thread unit: on the unit's thread, by
				// its clock.
				tr.UnitSlice(name, rk.r.ID, u.Unit, h.ut.units.Kind(u.Unit).String(), c0, u.Clock)
			default:
				tr.Slice(name, rk.r.ID, t0, t1)
			}
			return n
		}))
	}
}
