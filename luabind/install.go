package luabind

import (
	"math"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/mpi"
	"github.com/bglua/bglua/observe"
)

func newTable() *lua.LTable { return &lua.LTable{Metatable: lua.LNil} }

// rankCtx is what every binding of one rank needs.
type rankCtx struct {
	h      *Host
	r      *mpi.Rank
	L      *lua.LState
	rng    rng
	loaded []loadedModule // modules required so far, in order
	ams    *amState       // active messages; made on first use

	// globals is the rank's global table; bit i of raw says that the i-th
	// lazy global (shared.lazy) has been put in it or replaced.
	globals  *lua.LTable
	raw      uint64
	strProxy *lua.LTable   // the rank's string table, which string methods see
	pcalls   *pcallState   // pcall's threads (pcall.go); made on first use
	phantoms *phantomCache // mpi.bytes values (payload.go); made on first use

	// outer is the instrumented call the rank is in ("" none; stats.go);
	// regions the trace regions it has open (regions.go).
	outer   string
	regions []openRegion
}

type loadedModule struct {
	name  string
	value lua.LValue
}

// A rank's context sits in the first array slot of its state's registry,
// which its coroutines share and its Lua code cannot reach, so that a binding
// finds its rank in three loads and no lookup. It is a lua.LValue for that
// reason only: it never reaches Lua code.
const rankSlot = 1

func (rk *rankCtx) String() string       { return "rank context" }
func (rk *rankCtx) Type() lua.LValueType { return lua.LTUserData }

// rankOf finds the rank whose state (or one of its coroutines) calls a
// binding: bindings are shared by all ranks.
func (h *Host) rankOf(L *lua.LState) *rankCtx {
	rk, _ := L.G.Registry.RawGetInt(rankSlot).(*rankCtx)
	return rk
}

// bind makes a shared binding of a rank method.
func (h *Host) bind(f func(rk *rankCtx, L *lua.LState) int) lua.LGFunction {
	return func(L *lua.LState) int { return f(h.rankOf(L), L) }
}

// buildShared adds bglua's own modules to the shared tables.
func (h *Host) buildShared() {
	sh := newShared()
	sh.empty = newTable()
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
	h.guardUnits()
	if h.opt.Stats {
		h.regions = make([]map[string]*observe.PrimitiveStat, h.W.Partitions())
		for i := range h.regions {
			h.regions[i] = map[string]*observe.PrimitiveStat{}
		}
	}
	if h.opt.Stats || h.opt.Trace != nil || h.opt.MDS {
		for _, lib := range sh.libs {
			if lib.name == "mpi" || lib.name == "ml" || lib.name == "bcs" {
				h.instrument(lib.name+".", lib.table, nil)
			}
		}
		// Methods count as the functions they are: comm:send as mpi.send,
		// req:wait as mpi.wait, msg:recv as mpi.mrecv, cart:shift as
		// mpi.cart_shift.
		for _, m := range []struct {
			mt     *lua.LTable
			rename map[string]string
		}{
			{sh.commMT, nil},
			{sh.cartMT, map[string]string{"shift": "mpi.cart_shift", "coords": "mpi.cart_coords", "rank_of": "mpi.cart_rank", "dims": "mpi.cart_dims"}},
			{sh.reqMT, nil},
			{sh.msgMT, map[string]string{"recv": "mpi.mrecv", "irecv": "mpi.imrecv"}},
		} {
			if methods, ok := m.mt.RawGetString("__index").(*lua.LTable); ok {
				h.instrument("mpi.", methods, m.rename)
			}
		}
	}
	sh.readMT = h.configMT()
	// The type metatable of mpi.bytes, which Lua code cannot reach
	// (__metatable), is shared: a rank's registry finds it through its own
	// metatable, so that NewTypeMetatable and GetTypeMetatable make none per
	// rank (a metatable and the registry's first string key: 5 KiB).
	phantom := newTable()
	phantom.RawSetString("__tostring", gfunc(payloadPhantomToString))
	phantom.RawSetString("__len", gfunc(payloadPhantomLen))
	phantom.RawSetString("__metatable", lua.LString(phantomTypeName))
	types := newTable()
	types.RawSetString(phantomTypeName, phantom)
	sh.registryMT = newTable()
	sh.registryMT.RawSetString("__index", types)
	h.buildLazyGlobals()
}

// configMT is the metatable of every ml.config() view: the machine constants
// in force, read-only, in one table that all ranks share. It is built once:
// a view costs a rank one empty table, not a table of every constant (19 KiB
// a rank, and most of the host time of a large [EMU] run, when every rank
// built its own).
func (h *Host) configMT() *lua.LTable {
	fields := h.W.Machine().Fields()
	data := lua.LTable{Metatable: lua.LNil}
	for _, f := range fields {
		switch v := f.Value.(type) {
		case int:
			data.RawSetString(f.Name, lua.LNumber(v))
		case int64:
			data.RawSetString(f.Name, lua.LNumber(v))
		case float64:
			data.RawSetString(f.Name, lua.LNumber(v))
		case string:
			data.RawSetString(f.Name, lua.LString(v))
		}
	}
	mt := newTable()
	mt.RawSetString("__index", &data)
	mt.RawSetString("__newindex", gfunc(func(L *lua.LState) int {
		L.RaiseError("ml.config() is read-only (machine constants come from --machine)")
		return 0
	}))
	// pairs lists the constants, in the machine description's order.
	next := gfunc(func(L *lua.LState) int {
		k, v := data.Next(L.Get(2))
		if k == lua.LNil {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(k)
		L.Push(v)
		return 2
	})
	mt.RawSetString("__pairs", gfunc(func(L *lua.LState) int {
		L.Push(next)
		L.Push(L.Get(1))
		L.Push(lua.LNil)
		return 3
	}))
	mt.RawSetString("__metatable", lua.LString("read-only"))
	return mt
}

// buildLazyGlobals prepares the globals that come into a rank's global table
// on first use: all but _G and mpi (see install). It wraps the base functions
// that see a table's raw contents or metatable so that, on a rank's global
// table, they first put them all in.
func (h *Host) buildLazyGlobals() {
	sh := h.sh
	for _, nv := range sh.base {
		sh.lazy = append(sh.lazy, lazyGlobal{name: nv.name, value: nv.value})
	}
	sh.lazy = append(sh.lazy, lazyGlobal{name: "print", value: h.print}, lazyGlobal{name: "require", value: h.require},
		lazyGlobal{name: "arg"})
	for i := range sh.libs {
		if sh.libs[i].name != "mpi" {
			sh.lazy = append(sh.lazy, lazyGlobal{name: sh.libs[i].name, lib: &sh.libs[i]})
		}
	}
	sort.Slice(sh.lazy, func(i, j int) bool { return sh.lazy[i].name < sh.lazy[j].name })
	if len(sh.lazy) > 64 {
		panic("luabind: more lazy globals than the bits of rankCtx.raw")
	}
	sh.lazyIndex = make(map[string]int, len(sh.lazy))
	for i, lg := range sh.lazy {
		sh.lazyIndex[lg.name] = i
	}
	for i, nv := range sh.base {
		switch nv.name {
		case "pcall":
			sh.base[i].value = gfunc(h.bind((*rankCtx).pcall))
			sh.lazy[sh.lazyIndex[nv.name]].value = sh.base[i].value
		case "error":
			sh.base[i].value = gfunc(luaError)
			sh.lazy[sh.lazyIndex[nv.name]].value = sh.base[i].value
		case "rawget", "rawset", "next", "getmetatable", "setmetatable":
			orig := nv.value.(*lua.LFunction).GFunction
			sh.base[i].value = gfunc(func(L *lua.LState) int {
				if t, ok := L.Get(1).(*lua.LTable); ok && t.Metatable == sh.globalsMT {
					h.rankOf(L).fillGlobals()
				}
				return orig(L)
			})
			sh.lazy[sh.lazyIndex[nv.name]].value = sh.base[i].value
		}
	}
	sh.globalsMT = newTable()
	sh.globalsMT.RawSetString("__index", gfunc(h.bind((*rankCtx).globalIndex)))
	sh.globalsMT.RawSetString("__newindex", gfunc(h.bind((*rankCtx).globalNewIndex)))
	sh.globalsMT.RawSetString("__pairs", gfunc(h.bind((*rankCtx).globalPairs)))
}

// luaError is Lua's error(message [, level]) with the level counted as Lua
// 5.1 counts it: 1 (the default) is the function that called error, 2 the
// function that called that one, 0 no position. gopher-lua's own error
// gives level 2 the position of level 1 (its frame count includes error's
// own frame, and only the landing frame skips Go functions), so a library
// function that blamed its caller named its own line instead.
func luaError(L *lua.LState) int {
	obj := L.Get(1) // error() raises nil, as in Lua 5.1
	switch obj.(type) {
	case lua.LString, lua.LNumber: // a number gets the position as a string
		if level := L.OptInt(2, 1); level > 0 {
			// Frame 0 is error itself. A Go function has no line to give
			// (Lua 5.1: nothing), nor has a level past the stack.
			if w := L.Where(level); w != "" && w != "[G]:" {
				obj = lua.LString(w + " " + obj.String())
			}
		}
	}
	L.Error(obj, 0)
	return 0
}

// lazyValue is the value of the i-th lazy global for this rank: shared, or
// made now (a library proxy, arg).
func (rk *rankCtx) lazyValue(i int) lua.LValue {
	lg := &rk.h.sh.lazy[i]
	switch {
	case lg.value != nil:
		return lg.value
	case lg.lib == nil: // arg
		args := rk.L.CreateTable(len(rk.h.opt.Args), 0)
		for _, a := range rk.h.opt.Args {
			args.Append(lua.LString(a))
		}
		return args
	case lg.lib.name == lua.StringLibName:
		return rk.strProxy
	}
	return &lua.LTable{Metatable: lg.lib.proxy}
}

// globalIndex is __index of a rank's global table while it has shared
// globals not yet put in: it puts in the one asked for.
func (rk *rankCtx) globalIndex(L *lua.LState) int {
	t := L.CheckTable(1)
	key := L.Get(2)
	if k, ok := key.(lua.LString); ok && t == rk.globals {
		if i, ok := rk.h.sh.lazyIndex[string(k)]; ok && rk.raw&(1<<i) == 0 {
			v := rk.lazyValue(i)
			rk.raw |= 1 << i
			t.RawSet(key, v) // the key as it came, boxed (the program's constant)
			L.Push(v)
			return 1
		}
	}
	L.Push(lua.LNil)
	return 1
}

// globalNewIndex is __newindex of a rank's global table: a global the rank
// sets (or sets to nil) replaces the shared one for good.
func (rk *rankCtx) globalNewIndex(L *lua.LState) int {
	t := L.CheckTable(1)
	k, v := L.Get(2), L.Get(3)
	if s, ok := k.(lua.LString); ok && t == rk.globals {
		if i, ok := rk.h.sh.lazyIndex[string(s)]; ok {
			rk.raw |= 1 << i
		}
	}
	t.RawSet(k, v)
	return 0
}

// globalPairs is __pairs of a rank's global table: pairs(_G) lists them all.
func (rk *rankCtx) globalPairs(L *lua.LState) int {
	t := L.CheckTable(1)
	if t == rk.globals {
		rk.fillGlobals()
	}
	L.Push(rk.h.sh.lazy[rk.h.sh.lazyIndex["next"]].value)
	L.Push(t)
	L.Push(lua.LNil)
	return 3
}

// fillGlobals puts every shared global the rank has not used or replaced in
// its global table, in name order, and drops the table's metatable: from
// then on it is a plain table, as in any Lua.
func (rk *rankCtx) fillGlobals() {
	g, sh := rk.globals, rk.h.sh
	if g.Metatable != sh.globalsMT {
		return
	}
	for i := range sh.lazy {
		if rk.raw&(1<<i) == 0 {
			g.RawSetString(sh.lazy[i].name, rk.lazyValue(i))
		}
	}
	rk.raw = 1<<len(sh.lazy) - 1
	g.Metatable = lua.LNil
}

// install builds a rank's globals: the safe base functions, proxies of the
// shared libraries, print ordered by virtual time, require limited to the
// program's directory and the stdlib, and arg.
//
// A rank's state costs what its tables cost: every table with string keys
// costs gopher-lua two Go maps and a key list, and a table made empty takes a
// map of 32 entries (2 KiB) at its first key. So a rank gets as few such
// tables as possible, each made at its final size, and NewState's own registry
// and globals (maps of 32 and 64 entries, 6 KiB together) are replaced by
// ones of the size needed. The global table starts with _G and mpi only; the
// other globals (the base functions, print, require, arg and the other
// library proxies) come in on first use (__index), as any Lua program sees
// them, so that a rank pays only for the globals its program uses and most
// ranks' global tables stay within one group of 8 slots. A global the rank
// assigns replaces the lazy one, and rawget, rawset, next, pairs,
// getmetatable and setmetatable on the global table first put every lazy
// global in and drop the metatable. Go code reads a rank's globals with
// L.GetGlobal, which sees them all; a raw read finds _G, mpi and what the
// rank has used.
func (h *Host) install(L *lua.LState, r *mpi.Rank) *rankCtx {
	rk := &rankCtx{h: h, r: r, L: L}
	r.Ext = rk // the rank's contexts find it (nbc.go)
	rk.rng.seed(mixSeed(h.opt.Seed, int64(r.ID)))
	reg := L.CreateTable(rankSlot, 0)
	reg.RawSetInt(rankSlot, rk)
	reg.Metatable = h.sh.registryMT
	L.G.Registry = reg
	if h.opt.Guard != nil {
		L.SetGovernor(&h.opt.Guard.gov)
	}

	g := L.CreateTable(0, 8) // the one group of a small Go map
	g.Metatable = h.sh.globalsMT
	rk.globals = g
	L.G.Global = g
	L.Env = g
	g.RawSetString("_G", g)
	for _, lib := range h.sh.libs {
		switch lib.name {
		case "mpi":
			g.RawSetString(lib.name, &lua.LTable{Metatable: lib.proxy})
		case lua.StringLibName:
			// Methods on strings see what the rank adds to its string table.
			rk.strProxy = &lua.LTable{Metatable: lib.proxy}
			mt := L.CreateTable(0, 1)
			mt.RawSetString("__index", rk.strProxy)
			L.SetMetatable(lua.LString(""), mt)
		}
	}
	return rk
}

// seconds is the rank's clock in seconds (mpi.wtime, os.clock, os.time):
// it includes the CPU time already charged to the rank (mpi.Rank.Clock).
func (rk *rankCtx) seconds() float64 { return rk.h.W.Machine().Seconds(rk.r.Clock()) }

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
		L.Push(L.GetGlobal(name))
		return 1
	}
	for _, m := range rk.loaded {
		if m.name == name {
			if m.value == nil {
				// Lua 5.1's words; without the mark, two modules that
				// require each other recursed until the stack overflowed.
				L.RaiseError("loop or previous error loading module '%s' (modules that require each other, or an error in its first require?)", name)
			}
			L.Push(m.value)
			return 1
		}
	}
	var fn *lua.LFunction
	if gf, ok := rk.h.opt.GoModules[name]; ok {
		fn = L.NewFunction(gf)
	} else {
		proto, _, err := rk.h.module(name)
		if err != nil {
			L.RaiseError("%s", err.Error())
		}
		fn = L.NewFunctionFromProto(proto)
	}
	// Marked as loading (a nil value) until it returns.
	at := len(rk.loaded)
	rk.loaded = append(rk.loaded, loadedModule{name: name})
	L.Push(fn)
	L.Push(lua.LString(name))
	L.Call(1, 1)
	v := L.Get(-1)
	if v == lua.LNil {
		v = lua.LTrue
	}
	rk.loaded[at].value = v
	L.Push(v)
	return 1
}
