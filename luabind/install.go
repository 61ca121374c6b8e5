package luabind

import (
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/mpi"
)

func newTable() *lua.LTable { return &lua.LTable{Metatable: lua.LNil} }

// rankCtx is what every binding of one rank needs.
type rankCtx struct {
	h      *Host
	r      *mpi.Rank
	L      *lua.LState
	rng    rng
	loaded *lua.LTable // modules required so far; made on the first require
	ams    *amState    // active messages; made on first use
}

// rankOf finds the rank whose state (or one of its coroutines) calls a
// binding. Bindings are shared by all ranks, so they find their rank here;
// consecutive calls mostly come from the same rank, hence the one-entry cache.
func (h *Host) rankOf(L *lua.LState) *rankCtx {
	if rk := h.last; rk != nil && rk.L.G == L.G {
		return rk
	}
	rk := h.byG[L.G]
	h.last = rk
	return rk
}

// bind makes a shared binding of a rank method.
func (h *Host) bind(f func(rk *rankCtx, L *lua.LState) int) lua.LGFunction {
	return func(L *lua.LState) int { return f(h.rankOf(L), L) }
}

// buildShared adds bglua's own modules to the shared tables.
func (h *Host) buildShared() {
	sh := newShared()
	h.sh = sh
	sh.addLib("os", funcTable(map[string]lua.LGFunction{
		"clock": h.bind((*rankCtx).clock),
		"time":  h.bind((*rankCtx).time),
	}))
	h.print = gfunc(h.bind((*rankCtx).print))
	h.require = gfunc(h.bind((*rankCtx).require))
	h.random = gfunc(h.bind((*rankCtx).random))
	h.randomseed = gfunc(h.bind((*rankCtx).randomseed))
	for _, lib := range sh.libs {
		if lib.name == lua.MathLibName {
			lib.table.RawSetString("random", h.random)
			lib.table.RawSetString("randomseed", h.randomseed)
		}
	}
	h.buildMPI()
	sh.addLib("ml", h.mlTable())
	sh.addLib("bcs", h.bcsTable())
	if h.opt.Stats || h.opt.Trace != nil || h.opt.MDS {
		for _, lib := range sh.libs {
			if lib.name == "mpi" || lib.name == "ml" || lib.name == "bcs" {
				h.instrument(lib.name+".", lib.table)
			}
		}
		if methods, ok := sh.commMT.RawGetString("__index").(*lua.LTable); ok {
			h.instrument("mpi.", methods)
		}
	}
	sh.readMT = newTable()
	sh.readMT.RawSetString("__newindex", gfunc(func(L *lua.LState) int {
		L.RaiseError("ml.config() is read-only (machine constants come from --machine)")
		return 0
	}))
	sh.readMT.RawSetString("__metatable", lua.LString("read-only"))
}

// install builds a rank's globals: the safe base functions, proxies of the
// shared libraries, print ordered by virtual time, require limited to the
// program's directory and the stdlib, and arg. Every table here that gets a
// string key costs gopher-lua two Go maps, so a rank gets as few as possible:
// its globals (in the table the state already has) and the string metatable.
func (h *Host) install(L *lua.LState, r *mpi.Rank) *rankCtx {
	rk := &rankCtx{h: h, r: r, L: L}
	rk.rng.seed(mixSeed(h.opt.Seed, int64(r.ID)))
	h.byG[L.G] = rk

	g := L.G.Global
	for _, nv := range h.sh.base {
		g.RawSetString(nv.name, nv.value)
	}
	g.RawSetString("_G", g)
	g.RawSetString("print", h.print)
	g.RawSetString("require", h.require)
	for _, lib := range h.sh.libs {
		p := &lua.LTable{Metatable: lib.proxy}
		g.RawSetString(lib.name, p)
		if lib.name == lua.StringLibName {
			// Methods on strings see what the rank adds to its string table.
			mt := newTable()
			mt.RawSetString("__index", p)
			L.SetMetatable(lua.LString(""), mt)
		}
	}
	args := L.CreateTable(len(h.opt.Args), 0)
	for _, a := range h.opt.Args {
		args.Append(lua.LString(a))
	}
	g.RawSetString("arg", args)
	L.Env = g
	return rk
}

func (rk *rankCtx) seconds() float64 { return rk.h.W.M.Seconds(rk.r.Now()) }

func (rk *rankCtx) print(L *lua.LState) int {
	n := L.GetTop()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte('\t')
		}
		b.WriteString(L.ToStringMeta(L.Get(i)).String())
	}
	rk.h.Out.Print(rk.r.Now(), rk.r.ID, b.String())
	rk.r.Output(b.Len() + 1) // the line goes to the pset's I/O node
	return 0
}

func (rk *rankCtx) clock(L *lua.LState) int {
	L.Push(lua.LNumber(rk.seconds()))
	return 1
}

func (rk *rankCtx) time(L *lua.LState) int {
	L.Push(lua.LNumber(math.Floor(rk.seconds())))
	return 1
}

// builtinModules are what require returns from the globals.
var builtinModules = map[string]bool{
	"_G": true, "coroutine": true, "math": true, "ml": true, "mpi": true, "os": true, "string": true, "table": true,
}

func (rk *rankCtx) require(L *lua.LState) int {
	name := L.CheckString(1)
	if builtinModules[name] {
		L.Push(L.G.Global.RawGetString(name))
		return 1
	}
	if rk.loaded == nil {
		rk.loaded = newTable()
	}
	if v := rk.loaded.RawGetString(name); v != lua.LNil {
		L.Push(v)
		return 1
	}
	if gf, ok := rk.h.opt.GoModules[name]; ok {
		L.Push(L.NewFunction(gf))
		L.Push(lua.LString(name))
		L.Call(1, 1)
	} else {
		proto, _, err := rk.h.module(name)
		if err != nil {
			L.RaiseError("%s", err.Error())
		}
		L.Push(L.NewFunctionFromProto(proto))
		L.Push(lua.LString(name))
		L.Call(1, 1)
	}
	v := L.Get(-1)
	if v == lua.LNil {
		v = lua.LTrue
	}
	rk.loaded.RawSetString(name, v)
	L.Push(v)
	return 1
}
