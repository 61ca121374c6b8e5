package luabind

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// Integer arguments. Lua 5.1 has only floating-point numbers; a rank, tag,
// root, size, count, dimension or handler id must be one that is a whole
// number, or the binding would pass on whatever Go's conversion makes of it
// (int(NaN) is the most negative int, int(2.5) is 2). Every binding reads
// such an argument through toInt, so that a bad one is an error that names
// the argument: "mpi.send: dest must be an integer, got nan".

// maxIntArg bounds integer arguments to what a float64 holds exactly.
const maxIntArg = 1 << 53

// toInt converts v to an int, or says why it cannot ("" when it can).
func toInt(v lua.LValue) (int, string) {
	n, ok := v.(lua.LNumber)
	if !ok {
		return 0, v.Type().String()
	}
	f := float64(n)
	switch {
	case f != f || math.IsInf(f, 0) || f != math.Trunc(f):
		return 0, numberString(f)
	case f > maxIntArg || f < -maxIntArg:
		return 0, numberString(f) + ", out of range"
	}
	return int(f), ""
}

// numberString writes a number as Lua's tostring would (nan, inf, -inf).
func numberString(f float64) string {
	switch {
	case f != f:
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return fmt.Sprint(lua.LNumber(f))
}

// intArg reads argument i, named what, of the function fname ("mpi.send")
// as an integer.
func intArg(L *lua.LState, i int, fname, what string) int {
	return mpiIntArg(L, i, "", fname, what)
}

// optIntArg is intArg with a default for an absent (nil) argument.
func optIntArg(L *lua.LState, i, def int, fname, what string) int {
	return optMPIIntArg(L, i, def, "", fname, what)
}

// mpiIntArg is intArg for the function ns+fname ("mpi." and "send"): the
// two are joined only in the error, not on every call.
func mpiIntArg(L *lua.LState, i int, ns, fname, what string) int {
	n, bad := toInt(L.Get(i))
	if bad != "" {
		L.RaiseError("%s%s: %s must be an integer, got %s", ns, fname, what, bad)
	}
	return n
}

// optMPIIntArg is mpiIntArg with a default for an absent (nil) argument.
func optMPIIntArg(L *lua.LState, i, def int, ns, fname, what string) int {
	if L.Get(i) == lua.LNil {
		return def
	}
	return mpiIntArg(L, i, ns, fname, what)
}
