// Package luabind runs one sandboxed gopher-lua state per virtual rank and
// binds the mpi, ml and bcs modules to it. A binding checks its arguments,
// converts Lua values to payloads and back, and calls a Go layer: mpi, bcs or
// msglayer for the semantics, observe for the trace and the statistics.
package luabind
