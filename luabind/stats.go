package luabind

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/mpi"
	"github.com/bglua/bglua/observe"
	"github.com/bglua/bglua/runtime"
)

// Stats returns the per-primitive statistics of the run (nil unless
// Options.Stats), primitives never called left out, in observe.SortStats's
// order: a collective's calls per algorithm that ran them, and the calls an
// algorithm made (a Lua one's sends and receives) under it (Parent), not
// among the calls of the program. In partitions each partition counts its
// ranks' calls.
func (h *Host) Stats() []observe.PrimitiveStat {
	all := make(map[string][]observe.PrimitiveStat, len(h.stats))
	for k, v := range h.stats {
		all[k] = v
	}
	for _, m := range h.nested {
		for _, s := range m {
			id := s.Parent + "\x00" + s.Algorithm + "\x00" + s.Name
			all[id] = append(all[id], *s)
		}
	}
	return observe.SumStats(all)
}

// MDS returns every rank's MMDS record (nil unless Options.MDS), in rank order.
func (h *Host) MDS() []observe.RankMDS { return h.mds }

// statKey names a row of the statistics made while the run goes: a
// collective's calls that ran algorithm alg (parent ""), or the calls of
// name an algorithm alg of collective parent made.
type statKey struct{ name, alg, parent string }

// nestedStat is the row of key in partition part.
func (h *Host) nestedStat(part int, k statKey) *observe.PrimitiveStat {
	m := h.nested[part]
	s := m[k]
	if s == nil {
		s = &observe.PrimitiveStat{Name: k.name, Algorithm: k.alg, Parent: k.parent}
		m[k] = s
	}
	return s
}

// instrument wraps every Go function of t so that its calls are counted
// under prefix+name, or the name rename gives (statistics), and drawn as
// slices (trace). It is only done when one of them is asked for.
func (h *Host) instrument(prefix string, t *lua.LTable, rename map[string]string) {
	if h.stats == nil {
		h.stats = map[string][]observe.PrimitiveStat{}
		h.nested = make([]map[statKey]*observe.PrimitiveStat, h.W.Partitions())
		for i := range h.nested {
			h.nested[i] = map[statKey]*observe.PrimitiveStat{}
		}
	}
	for _, k := range sortedKeys(t) {
		f, ok := t.RawGetString(k).(*lua.LFunction)
		if !ok || !f.IsG || untimed[k] {
			continue
		}
		name := prefix + k
		if n, ok := rename[k]; ok {
			name = n
		}
		short := strings.TrimPrefix(name, "mpi.")
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
			// The outermost call of the rank names the row of the calls
			// made inside it; a call inside a collective (a Lua
			// algorithm's) counts under it. A thread unit's handler runs
			// beside the rank's calls: its calls are the program's. A
			// progress context's calls (a Lua algorithm's in a
			// nonblocking collective) count under that collective.
			prog := rk.r.IsProgress()
			outer := u == nil && rk.outer == "" && !prog
			var inColl, alg string
			parent := rk.outer
			switch {
			case outer:
				rk.outer = name
				defer func() { rk.outer = "" }() // a Lua error unwinds too
			case prog:
				inColl, alg = rk.r.Collective()
				parent = "mpi." + inColl
			case u == nil:
				inColl, alg = rk.r.Collective()
			}
			done0, _, _ := rk.r.Completed()
			var traffic0 mpi.Traffic
			if h.opt.Trace != nil {
				traffic0 = rk.r.Traffic
			}
			n := inner(L)
			t1 := rk.r.Now()
			d, b := t1-t0, rk.r.SentBytes-b0
			part := rk.r.Part()
			ran := ""
			switch done, _, a := rk.r.Completed(); {
			case inColl != "":
				h.nestedStat(part, statKey{name: name, alg: alg, parent: parent}).Add(d, b)
			case outer && done != done0 && a != "":
				ran = a
				h.nestedStat(part, statKey{name: name, alg: a}).Add(d, b)
			default:
				st[part].Add(d, b)
			}
			if h.mds != nil && !prog { // a progress context's calls overlap the rank's
				h.mds[rk.r.ID].Call(name, short, t0, t1, h.cyclesPerUS)
			}
			switch tr := h.opt.Trace; {
			case tr == nil:
			case prog:
				tr.ProgressSlice(name, rk.r.ID, rk.r.ProgressIndex(), t0, t1, callArgs(traffic0, rk.r.Traffic, b, ""))
			case u != nil:
				// In a handler on a thread unit: on the unit's thread, by
				// its clock.
				tr.UnitSlice(name, rk.r.ID, u.Unit, h.ut.units.Kind(u.Unit).String(), c0, u.Clock)
			default:
				tr.Slice(name, rk.r.ID, t0, t1, callArgs(traffic0, rk.r.Traffic, b, ran))
			}
			return n
		}))
	}
}

// callArgs are the args of a call's slice: the bytes its rank sent, the
// algorithm of a collective, and the peer, tag and protocol of the one
// message the call sent (traffic went from before to after), or else of the
// one message that completed a receive of the rank's during it.
func callArgs(before, after mpi.Traffic, bytes int64, alg string) observe.CallArgs {
	a := observe.CallArgs{Bytes: bytes, Algorithm: alg}
	switch {
	case after.Sent-before.Sent == 1:
		a.HasPeer, a.HasTag, a.Peer, a.Tag, a.Protocol = true, true, after.To, after.SendTag, after.Protocol
	case after.Sent == before.Sent && after.Received-before.Received == 1:
		a.HasPeer, a.HasTag, a.Peer, a.Tag = true, true, after.From, after.RecvTag
	}
	return a
}
