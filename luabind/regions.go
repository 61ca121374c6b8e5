package luabind

import (
	"fmt"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/observe"
	"github.com/bglua/bglua/runtime"
)

// Trace regions: mpi.trace_begin(name) and mpi.trace_end() mark a region
// of a rank's program. Regions nest, per rank; each is a slice of the trace
// around the calls made in it and a row of the statistics (Regions). They
// take no virtual time. Ending a region that is not open, or another than
// the innermost one, is an error of the rank, and so is a rank that ends
// with a region open: a region that is not closed has no length to count.

// openRegion is a region a rank has begun and not ended.
type openRegion struct {
	name  string
	start runtime.Time
	where string // the file:line of its trace_begin
}

// untimed are the functions of the mpi table that the statistics and the
// trace do not draw as calls: the regions draw themselves.
var untimed = map[string]bool{"trace_begin": true, "trace_end": true}

// traceBegin is mpi.trace_begin(name).
func (rk *rankCtx) traceBegin(L *lua.LState) int {
	name := L.CheckString(1)
	rk.regions = append(rk.regions, openRegion{name: name, start: rk.r.Now(), where: strings.TrimSuffix(L.Where(1), ":")})
	return 0
}

// traceEnd is mpi.trace_end([name]): it ends the innermost open region,
// which must be name if it is given.
func (rk *rankCtx) traceEnd(L *lua.LState) int {
	n := len(rk.regions)
	if n == 0 {
		L.RaiseError("mpi.trace_end: no region is open (mpi.trace_begin(name) opens one)")
	}
	o := rk.regions[n-1]
	if L.GetTop() >= 1 {
		if name := L.CheckString(1); name != o.name {
			L.RaiseError("mpi.trace_end(%q): the innermost open region is %q, begun at %s: end it first", name, o.name, o.where)
		}
	}
	rk.regions = rk.regions[:n-1]
	h, end := rk.h, rk.r.Now()
	if h.regions != nil {
		m := h.regions[rk.r.Part()]
		s := m[o.name]
		if s == nil {
			s = &observe.PrimitiveStat{Name: o.name}
			m[o.name] = s
		}
		s.Add(end-o.start, 0)
	}
	if tr := h.opt.Trace; tr != nil {
		tr.RegionSlice(o.name, rk.r.ID, o.start, end)
	}
	return 0
}

// openRegionError is the error of a rank that ended with regions open,
// naming the innermost; nil if none is.
func (rk *rankCtx) openRegionError() error {
	n := len(rk.regions)
	if n == 0 {
		return nil
	}
	o := rk.regions[n-1]
	rk.regions = rk.regions[:0]
	more := ""
	if n > 1 {
		more = fmt.Sprintf(" (and %d more around it)", n-1)
	}
	return fmt.Errorf("%s: mpi.trace_begin(%q) has no mpi.trace_end: the rank ended with the region open%s; end it with mpi.trace_end() before the program returns", o.where, o.name, more)
}

// Regions returns the statistics of the trace regions (nil unless
// Options.Stats): per region name, over all ranks, how many times it ran
// and how long (Bytes unused), sorted by name.
func (h *Host) Regions() []observe.PrimitiveStat {
	all := map[string][]observe.PrimitiveStat{}
	for _, m := range h.regions {
		for k, s := range m {
			all[k] = append(all[k], *s)
		}
	}
	out := observe.SumStats(all)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
