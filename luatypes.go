package bglua

import (
	"io/fs"

	"github.com/bglua/bglua/luabind"
	"github.com/bglua/bglua/stdlib"
)

// LuaTypes holds the LuaLS definition files (*.d.lua) of the modules a rank
// sees (mpi, ml, bcs), of a suite's expect and of the sandbox's base library
// and os (sandbox.d.lua, to stand for LuaLS's own, which know functions the
// sandbox removes), for editors that complete scripts and flag blocking
// calls.
func LuaTypes() fs.FS {
	types, err := fs.Sub(stdlib.FS, "types")
	if err != nil {
		panic(err) // "types" is a valid path: fs.Sub cannot fail
	}
	return types
}

// FormatSeconds prints a virtual time as errors and reports of runs do:
// "0s", "812ns", "1.5us", "20ms", "3.2s".
func FormatSeconds(s float64) string { return luabind.FormatSeconds(s) }
