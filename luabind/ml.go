package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/msglayer"
)

// mlTable builds the geometry part of the shared ml module: where ranks sit
// on the torus and what machine is in force.
func (h *Host) mlTable() *lua.LTable {
	mp := h.W.Layer().Map
	checkRank := func(L *lua.LState, i int, fname string) int {
		r := h.rankOf(L).r.ID
		if L.Get(i) != lua.LNil {
			r = intArg(L, i, "ml."+fname, "rank")
		}
		if r < 0 || r >= mp.Ranks() {
			L.RaiseError("ml.%s: rank %d out of range 0..%d", fname, r, mp.Ranks()-1)
		}
		return r
	}
	return funcTable(map[string]lua.LGFunction{
		"coords": func(L *lua.LState) int {
			c := mp.Coord(checkRank(L, 1, "coords"))
			for _, v := range []int{c.X, c.Y, c.Z, c.T} {
				L.Push(lua.LNumber(v))
			}
			return 4
		},
		"rank_of": func(L *lua.LState) int {
			x, y, z := intArg(L, 1, "ml.rank_of", "x"), intArg(L, 2, "ml.rank_of", "y"), intArg(L, 3, "ml.rank_of", "z")
			t := optIntArg(L, 4, 0, "ml.rank_of", "t")
			d := mp.Torus.Dims
			for _, c := range []struct {
				name   string
				v, max int
			}{{"x", x, d.X}, {"y", y, d.Y}, {"z", z, d.Z}, {"t", t, mp.PerNode}} {
				if c.v < 0 || c.v >= c.max {
					// Off the machine is a mistake; a slot without a rank is nil.
					L.RaiseError("ml.rank_of: %s %d out of range 0..%d (torus %dx%dx%d, %d per node)", c.name, c.v, c.max-1, d.X, d.Y, d.Z, mp.PerNode)
				}
			}
			r, ok := mp.RankOf(msglayer.Coord{X: x, Y: y, Z: z, T: t})
			if !ok {
				L.Push(lua.LNil)
			} else {
				L.Push(lua.LNumber(r))
			}
			return 1
		},
		"dims": func(L *lua.LState) int {
			d := mp.Torus.Dims
			for _, v := range []int{d.X, d.Y, d.Z, mp.PerNode} {
				L.Push(lua.LNumber(v))
			}
			return 4
		},
		"hops": func(L *lua.LState) int {
			a, b := checkRank(L, 1, "hops"), checkRank(L, 2, "hops")
			L.Push(lua.LNumber(mp.Torus.Hops(mp.Node(a), mp.Node(b))))
			return 1
		},
		"node": func(L *lua.LState) int {
			L.Push(lua.LNumber(mp.Node(checkRank(L, 1, "node"))))
			return 1
		},
		"mode": func(L *lua.LState) int {
			L.Push(lua.LString(h.opt.Mode))
			return 1
		},
		"register": h.bind((*rankCtx).mlRegister),
		"send":     h.bind((*rankCtx).mlSend),
		"advance":  h.bind((*rankCtx).mlAdvance),
		"wait":     h.bind((*rankCtx).mlWait),
		"task":     h.bind((*rankCtx).mlTask),

		"set_protocol": h.bind((*rankCtx).mlSetProtocol),
		"set_cohelp":   h.bind((*rankCtx).mlSetCoHelp),
		"costart":      h.bind((*rankCtx).mlCostart),
		"cojoin":       h.bind((*rankCtx).mlCojoin),
		"config": func(L *lua.LState) int {
			L.Push(h.rankOf(L).config(L))
			return 1
		},
		"tree_bcast":  h.bind((*rankCtx).mlTreeBcast),
		"tree_reduce": h.bind((*rankCtx).mlTreeReduce),
		"gi_barrier":  h.bind((*rankCtx).mlGIBarrier),
		"deposit":     h.bind((*rankCtx).mlDeposit),
	})
}

// config is a read-only view of the machine constants in force: an empty
// table whose shared metatable (Host.configMT) holds them.
func (rk *rankCtx) config(L *lua.LState) lua.LValue {
	return &lua.LTable{Metatable: rk.h.sh.readMT}
}
