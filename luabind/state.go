package luabind

import (
	"sort"

	lua "github.com/yuin/gopher-lua"
)

// stateOptions keep a rank's state small: most rank programs use a few dozen
// registers and frames; both grow on demand up to generous limits.
//   - The registry (the data stack) starts at 32 slots, 512 bytes, and
//     grows to what a call needs and 8 more (an eighth more, once that is
//     more), rounded up to its allocation's size class, up to a million
//     slots. (The gopher-lua bglua carries takes any size; upstream
//     replaces a size under 128 by its 5,120-slot default. 32 instead of
//     128 slots: 13.5 to 10.6 KB a parked rank, BenchmarkIdleRank,
//     2026-11-27. A program whose main chunk needs 36 slots, as the halo
//     workload's does, and its calls up to 40, has 47 slots in 768 bytes,
//     where 32 more made 68 slots in 1,152 bytes: 44.5 to 19.5 MB of
//     registries on 32,768 ranks, heap profile at --max-vtime 0.8ms.)
//   - The call stack grows a segment of 8 frames (640 bytes) at a time
//     (MinimizeStackMemory); CallStackSize bounds it and costs 8 bytes a
//     rank per 8 frames. 256 frames let a function recurse 200 deep with
//     room for the frames below it (main chunk, modules, callbacks), or 100
//     deep through pcall, which takes a frame of its own at every level;
//     deeper recursion ends with a "stack overflow" error, like runaway
//     recursion. (200 frames, the value before, did not hold 200 levels.)
var stateOptions = lua.Options{
	SkipOpenLibs:        true,
	CallStackSize:       256,
	MinimizeStackMemory: true,
	RegistrySize:        32,
	RegistryMaxSize:     1 << 20,
	RegistryGrowStep:    8,
}

// safeLibs are the standard libraries a rank may use. io, os, debug, package
// and channel are not opened; os.time and os.clock come back as virtual time.
var safeLibs = []struct {
	name string
	open lua.LGFunction
}{
	{lua.BaseLibName, lua.OpenBase},
	{lua.TabLibName, lua.OpenTable},
	{lua.StringLibName, lua.OpenString},
	{lua.MathLibName, lua.OpenMath},
	{lua.CoroutineLibName, lua.OpenCoroutine},
}

// unsafeGlobals are left out of the base library: they read files, load
// bytecode, reach the host's memory manager, write the VM's registers to
// the host's stderr (gopher-lua's _printregs) or replace what bglua
// provides.
var unsafeGlobals = map[string]bool{
	"dofile": true, "loadfile": true, "module": true, "newproxy": true, "require": true,
	"_GOPHER_LUA_VERSION": true, "collectgarbage": true, "print": true, "_G": true,
	"_printregs": true,
}

// shared is what every rank's state uses without copying: the functions of
// the standard libraries and of the mpi and ml modules, and metatables. Its
// tables are never written once built; ranks reach library tables through
// per-rank proxies, so a program that adds to `string` changes only its own.
type shared struct {
	base     []namedValue // safe base functions, sorted by name
	libs     []sharedLib  // string, table, math, coroutine, os, mpi, ml
	commMT   *lua.LTable
	reqMT    *lua.LTable
	opMT     *lua.LTable
	statusMT *lua.LTable
	cartMT   *lua.LTable
	msgMT    *lua.LTable // mpi.message: handles of matched probes
	world    *lua.LUserData
	readMT   *lua.LTable // metatable of ml.config() views: the machine, read-only
	builtin  []*lua.LUserData
	// registryMT is the metatable of every rank's registry: the shared type
	// metatables (mpi.bytes).
	registryMT *lua.LTable
	// empty stands for the globals and registry of a state between two
	// ranks (Host.recycle); nothing writes to it.
	empty *lua.LTable

	// The globals a rank's global table takes in on first use (see
	// install), in name order; globalsMT is the metatable that does it.
	lazy      []lazyGlobal
	lazyIndex map[string]int
	globalsMT *lua.LTable
}

// lazyGlobal is a global that comes into a rank's global table on first use:
// a value every rank shares, a proxy of a shared library, or arg (lib and
// value both nil).
type lazyGlobal struct {
	name  string
	value lua.LValue
	lib   *sharedLib
}

type namedValue struct {
	name  string
	value lua.LValue
}

type sharedLib struct {
	name  string
	table *lua.LTable // the shared functions and constants
	proxy *lua.LTable // metatable of every rank's proxy: __index = table
}

// newShared opens the safe libraries once in a template state and sorts them:
// gopher-lua fills them from Go maps, whose order changes from run to run and
// would make pairs() nondeterministic.
func newShared() *shared {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	for _, lib := range safeLibs {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	sh := &shared{}
	g := L.G.Global
	for _, k := range sortedKeys(g) {
		v := g.RawGetString(k)
		if _, isTable := v.(*lua.LTable); isTable || unsafeGlobals[k] {
			continue
		}
		sh.base = append(sh.base, namedValue{k, v})
	}
	for i, nv := range sh.base {
		if nv.name == "pairs" {
			sh.base[i].value = gfunc(pairsWithMeta(g.RawGetString("next")))
		}
	}
	for _, name := range []string{lua.CoroutineLibName, lua.MathLibName, lua.StringLibName, lua.TabLibName} {
		t := sortedCopy(g.RawGetString(name).(*lua.LTable))
		if name == lua.StringLibName {
			// string.dump hands out bytecode; gopher-lua has none to give.
			t = without(t, "dump")
		}
		sh.addLib(name, t)
	}
	return sh
}

func (sh *shared) addLib(name string, t *lua.LTable) {
	mt := &lua.LTable{}
	mt.RawSetString("__index", t)
	mt.RawSetString("__metatable", lua.LString(name))
	mt.RawSetString("__pairs", gfunc(proxyPairs))
	sh.libs = append(sh.libs, sharedLib{name: name, table: t, proxy: mt})
}

func sortedKeys(t *lua.LTable) []string {
	var keys []string
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		if s, ok := k.(lua.LString); ok {
			keys = append(keys, string(s))
		}
	}
	sort.Strings(keys)
	return keys
}

func sortedCopy(t *lua.LTable) *lua.LTable {
	n := &lua.LTable{Metatable: lua.LNil}
	for _, k := range sortedKeys(t) {
		n.RawSetString(k, t.RawGetString(k))
	}
	return n
}

func without(t *lua.LTable, key string) *lua.LTable {
	n := &lua.LTable{Metatable: lua.LNil}
	for _, k := range sortedKeys(t) {
		if k != key {
			n.RawSetString(k, t.RawGetString(k))
		}
	}
	return n
}

// gfunc makes a Go function value that belongs to no state, for shared tables.
// Go functions cannot have their environment changed (setfenv refuses), so
// sharing them between states is safe.
func gfunc(f lua.LGFunction) *lua.LFunction {
	return &lua.LFunction{IsG: true, Env: &lua.LTable{Metatable: lua.LNil}, GFunction: f}
}

// funcTable builds a shared table of functions in sorted name order.
func funcTable(funcs map[string]lua.LGFunction) *lua.LTable {
	names := make([]string, 0, len(funcs))
	for k := range funcs {
		names = append(names, k)
	}
	sort.Strings(names)
	t := &lua.LTable{Metatable: lua.LNil}
	for _, k := range names {
		t.RawSetString(k, gfunc(funcs[k]))
	}
	return t
}

// pairsWithMeta is pairs with Lua 5.2's __pairs metamethod, which the library
// proxies use so that pairs(string) or pairs(mpi) lists the shared contents.
func pairsWithMeta(next lua.LValue) lua.LGFunction {
	return func(L *lua.LState) int {
		v := L.CheckAny(1)
		if mf := L.GetMetaField(v, "__pairs"); mf != lua.LNil {
			L.Push(mf)
			L.Push(v)
			L.Call(1, 3)
			return 3
		}
		L.CheckTable(1)
		L.Push(next)
		L.Push(v)
		L.Push(lua.LNil)
		return 3
	}
}

// proxyPairs iterates a library proxy: the shared entries in their order, then
// what the rank added, with the values the rank sees.
func proxyPairs(L *lua.LState) int {
	p := L.CheckTable(1)
	shared, _ := L.GetMetaField(p, "__index").(*lua.LTable)
	var keys []lua.LValue
	if shared != nil {
		for k, _ := shared.Next(lua.LNil); k != lua.LNil; k, _ = shared.Next(k) {
			keys = append(keys, k)
		}
	}
	for k, _ := p.Next(lua.LNil); k != lua.LNil; k, _ = p.Next(k) {
		if shared == nil || shared.RawGet(k) == lua.LNil {
			keys = append(keys, k)
		}
	}
	i := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		for i < len(keys) {
			k := keys[i]
			i++
			if v := L.GetTable(p, k); v != lua.LNil {
				L.Push(k)
				L.Push(v)
				return 2
			}
		}
		L.Push(lua.LNil)
		return 1
	}))
	L.Push(p)
	L.Push(lua.LNil)
	return 3
}
