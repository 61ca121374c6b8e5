package luabind

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// mpi4pyNames are mpi4py's spellings whose bglua name is not their lower
// case. Any other capitalized name whose lower case is a bglua function
// (Send, Allreduce, Barrier, ...) is suggested as that.
var mpi4pyNames = map[string]string{
	"Get_rank": "rank", "Get_size": "size", "Clone": "dup", "Create_cart": "cart_create",
	"Compute_dims": "dims_create", "Reduce_scatter_block": "reduce_scatter", "Wtime": "wtime",
	"Waitall": "waitall", "Waitany": "waitany", "Testall": "testall",
}

// suggestMPI4py makes t answer a lookup of an mpi4py spelling with an error
// that names the bglua function (`mpi.Get_rank is not a bglua function;
// use mpi.rank()`) instead of a nil that fails later as "attempt to call a
// nil value". Other missing keys are still nil, so that `if mpi.x then`
// tests keep working. what is how the message writes a lookup: "mpi." for
// the module, "comm:" for methods.
func suggestMPI4py(t *lua.LTable, what, kind string) {
	mt := newTable()
	mt.RawSetString("__index", gfunc(func(L *lua.LState) int {
		k, ok := L.Get(2).(lua.LString)
		if !ok {
			L.Push(lua.LNil)
			return 1
		}
		name := string(k)
		why := ""
		alt, ok := mpi4pyNames[name]
		if !ok || t.RawGetString(alt) == lua.LNil {
			alt, why = strings.ToLower(name), " (bglua spells mpi4py's names in lower case)"
			if alt == name || t.RawGetString(alt) == lua.LNil {
				L.Push(lua.LNil)
				return 1
			}
		}
		L.RaiseError("%s%s is not a bglua %s; use %s%s()%s", what, name, kind, what, alt, why)
		return 0
	}))
	t.Metatable = mt
}
