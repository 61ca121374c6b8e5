package luabind

import (
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/mpi"
)

// Coprocessor work units (mpi.CoUnit): ml.costart hands CPU 1 a transient
// work unit, ml.cojoin waits for it.

// coUnitType is the metatable name of the handles costart returns.
const coUnitType = "ml.cohandle"

// coUnit is one transient work unit and what its function returned.
type coUnit struct {
	*mpi.CoUnit
	results []lua.LValue
}

// coMode checks that the run gives this rank a coprocessor.
func (rk *rankCtx) coMode(L *lua.LState, fname string) {
	if !rk.r.HasCoprocessor() {
		L.RaiseError("ml.%s: needs coprocessor mode (--mode co); this run is in %s mode, where CPU 1 %s",
			fname, rk.h.opt.Mode, map[string]string{"vn": "runs a rank of its own", "heater": "idles"}[rk.h.opt.Mode])
	}
}

// mlCostart: ml.costart(fn) -> h. fn runs on the coprocessor: the Lua code
// itself takes no virtual time, as everywhere, and the work it declares with
// mpi.compute occupies CPU 1 instead of the rank's CPU, which goes on at
// once. fn must not block (no receives, waits or barriers): it is a piece of
// computation handed over.
func (rk *rankCtx) mlCostart(L *lua.LState) int {
	rk.coMode(L, "costart")
	fn := L.CheckFunction(1)
	st := rk.am()
	if st.co != nil {
		L.RaiseError("ml.costart: a work unit cannot start another one")
	}
	u := &coUnit{CoUnit: rk.r.NewCoUnit()}
	u.results = rk.runCoUnit(L, st, u, fn)
	u.Start()
	ud := L.NewUserData()
	ud.Value = u
	L.SetMetatable(ud, L.NewTypeMetatable(coUnitType))
	L.Push(ud)
	return 1
}

// runCoUnit calls fn with mpi.compute charging u, and returns its results.
// The rank's mpi.compute comes back even when fn raises an error.
func (rk *rankCtx) runCoUnit(L *lua.LState, st *amState, u *coUnit, fn *lua.LFunction) []lua.LValue {
	mpiT, _ := L.G.Global.RawGetString("mpi").(*lua.LTable)
	if mpiT != nil {
		saved := mpiT.RawGetString("compute")
		mpiT.RawSetString("compute", L.NewFunction(rk.coCompute))
		defer mpiT.RawSetString("compute", saved)
	}
	st.co = u
	defer func() { st.co = nil }()
	top := L.GetTop()
	L.Push(fn)
	L.Call(0, lua.MultRet)
	var res []lua.LValue
	for i := top + 1; i <= L.GetTop(); i++ {
		res = append(res, L.Get(i))
	}
	L.SetTop(top)
	return res
}

// coCompute is mpi.compute inside a work unit: it adds to the unit's work.
func (rk *rankCtx) coCompute(L *lua.LState) int {
	u := rk.am().co
	if u == nil {
		L.RaiseError("mpi.compute: a coprocessor version kept after its work unit ended")
	}
	if err := u.Add(rk.computeCycles(L)); err != nil {
		L.RaiseError("mpi.compute: %s", err.Error())
	}
	return 0
}

// computeCycles reads mpi.compute's argument, seconds, {cycles=N} or
// {flops=N}, as a whole number of cycles. What is not a duration, or one
// that virtual time (int64 cycles) cannot hold, is an error that says so:
// never a clamped or dropped computation.
func computeCycles(L *lua.LState, clock, flopsPerCycle float64) int64 {
	const want = "want seconds, {cycles=N} or {flops=N}"
	var x, cycles float64
	var what string
	switch v := L.Get(1).(type) {
	case lua.LNumber:
		x, what, cycles = float64(v), "seconds", float64(v)*clock
	case *lua.LTable:
		if c, ok := v.RawGetString("cycles").(lua.LNumber); ok {
			x, what, cycles = float64(c), "cycles", float64(c)
		} else if f, ok := v.RawGetString("flops").(lua.LNumber); ok {
			x, what, cycles = float64(f), "flops", float64(f)/flopsPerCycle
		} else {
			L.RaiseError("mpi.compute: %s, got a table with neither", want)
		}
	default:
		L.RaiseError("mpi.compute: %s, got %s", want, L.Get(1).Type())
	}
	switch {
	case x != x:
		L.RaiseError("mpi.compute: %s must be a number, got nan", what)
	case x < 0:
		L.RaiseError("mpi.compute: %s must not be negative, got %s", what, numberString(x))
	case !(cycles+0.5 < maxCycles):
		L.RaiseError("mpi.compute: %s %s is past what virtual time can hold (%d cycles, %s)",
			numberString(x), what, int64(math.MaxInt64), FormatSeconds(float64(math.MaxInt64)/clock))
	}
	return int64(cycles + 0.5)
}

// maxCycles is 2^63 as a float64: the first number of cycles an int64
// cannot hold.
const maxCycles = float64(1 << 63)

// mlCojoin: ml.cojoin(h) waits until the work unit h is done on CPU 1 and
// returns what its function returned.
func (rk *rankCtx) mlCojoin(L *lua.LState) int {
	ud, ok := L.Get(1).(*lua.LUserData)
	var u *coUnit
	if ok {
		u, _ = ud.Value.(*coUnit)
	}
	if u == nil {
		L.RaiseError("ml.cojoin: want a handle from ml.costart, got %s", L.Get(1).Type())
	}
	if u.Owner() != rk.r.ID {
		L.RaiseError("ml.cojoin: the work unit belongs to rank %d", u.Owner())
	}
	if err := u.Join(); err != nil {
		L.RaiseError("ml.cojoin: %s", err.Error())
	}
	for _, v := range u.results {
		L.Push(v)
	}
	return len(u.results)
}

// mlSetCoHelp: ml.set_cohelp(on) -> previous. Whether CPU 1 of this rank's
// node receives the node's aligned rendezvous data (on by default in
// coprocessor mode); off, the main CPU receives everything, as in [ML]
// Fig. 4d against Fig. 4f.
func (rk *rankCtx) mlSetCoHelp(L *lua.LState) int {
	rk.coMode(L, "set_cohelp")
	on := L.CheckBool(1)
	L.Push(lua.LBool(rk.ml().SetCoHelp(rk.r.ID, on)))
	return 1
}
