package bglua_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua"
)

// An embedder runs a program on 16 ranks with a Lua module of its own and
// reads the result as Go values.
func Example() {
	prog := bglua.Program{Name: "sum.lua", Code: []byte(`
		local units = require "units"
		local total = mpi.allreduce(units.kib(mpi.rank()), mpi.SUM)
		if mpi.rank() == 0 then print("total", total) end
	`)}
	cfg := bglua.Config{
		Ranks:  16,
		Stdout: os.Stdout,
		GoModules: map[string]lua.LGFunction{"units": func(L *lua.LState) int {
			t := L.NewTable()
			t.RawSetString("kib", L.NewFunction(func(L *lua.LState) int {
				L.Push(L.CheckNumber(1) * 1024)
				return 1
			}))
			L.Push(t)
			return 1
		}},
	}
	res, err := bglua.Run(context.Background(), cfg, prog)
	if err != nil {
		fmt.Println("error:", err, "exit", bglua.ExitCode(err))
		return
	}
	fmt.Printf("%d ranks on %s, %d messages\n", res.Ranks, res.Torus, res.Messages)

	// A deadlock comes back as a typed error listing the blocked ranks.
	_, err = bglua.Run(context.Background(), bglua.Config{Ranks: 2},
		bglua.Program{Name: "dl.lua", Code: []byte("mpi.recv(1 - mpi.rank())")})
	var d *bglua.DeadlockError
	if errors.As(err, &d) {
		fmt.Println("deadlock:", len(d.Blocked), "ranks;", d.Blocked[0].Wait, "at", d.Blocked[0].Where)
	}
	// Output:
	// [0] total	122880
	// 16 ranks on 4x2x2 torus, 64 messages
	// deadlock: 2 ranks; recv from 1 any tag on COMM_WORLD at dl.lua:1
}
