// Package luabind runs one sandboxed gopher-lua state per virtual rank and binds the
// mpi, ml and bcs modules to it. It checks arguments and converts Lua values to
// payloads and back; MPI semantics live in package mpi.
package luabind
