package luabind

import (
	"sort"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/runtime"
)

// PrimitiveStat sums the calls of one primitive (mpi.send, ml.wait, ...)
// over all ranks: how many, their virtual durations, and the payload bytes
// the calling ranks sent during them.
type PrimitiveStat struct {
	Name            string
	Count           int64
	Min, Max, Total runtime.Time
	Bytes           int64
}

func (s *PrimitiveStat) add(d runtime.Time, bytes int64) {
	if s.Count == 0 || d < s.Min {
		s.Min = d
	}
	if d > s.Max {
		s.Max = d
	}
	s.Count++
	s.Total += d
	s.Bytes += bytes
}

// Stats returns the per-primitive statistics of the run (nil unless
// Options.Stats), sorted by name, primitives never called left out.
//
// In partitions each partition counts its ranks' calls; the sums, minima and
// maxima do not depend on how they interleave.
func (h *Host) Stats() []PrimitiveStat {
	var out []PrimitiveStat
	for _, ps := range h.stats {
		var s PrimitiveStat
		for _, p := range ps {
			if p.Count == 0 {
				continue
			}
			if s.Count == 0 || p.Min < s.Min {
				s.Min = p.Min
			}
			s.Max = max(s.Max, p.Max)
			s.Count += p.Count
			s.Total += p.Total
			s.Bytes += p.Bytes
			s.Name = p.Name
		}
		if s.Count > 0 {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// instrument wraps every Go function of t so that its calls are counted
// under prefix+name (statistics) and drawn as slices (trace). It is only done
// when one of them is asked for.
func (h *Host) instrument(prefix string, t *lua.LTable) {
	if h.stats == nil {
		h.stats = map[string][]PrimitiveStat{}
	}
	for _, k := range sortedKeys(t) {
		f, ok := t.RawGetString(k).(*lua.LFunction)
		if !ok || !f.IsG {
			continue
		}
		name := prefix + k
		st := h.stats[name]
		if st == nil {
			st = make([]PrimitiveStat, h.W.Partitions())
			for i := range st {
				st[i].Name = name
			}
			h.stats[name] = st
		}
		inner := f.GFunction
		t.RawSetString(k, gfunc(func(L *lua.LState) int {
			rk := h.rankOf(L)
			t0, b0 := rk.r.Now(), rk.r.SentBytes
			n := inner(L)
			t1 := rk.r.Now()
			st[rk.r.Part()].add(t1-t0, rk.r.SentBytes-b0)
			if h.mds != nil {
				h.mds[rk.r.ID].call(name, k, t0, t1, h.cyclesPerUS)
			}
			if h.opt.Trace != nil {
				h.opt.Trace.Slice(name, rk.r.ID, t0, t1)
			}
			return n
		}))
	}
}
