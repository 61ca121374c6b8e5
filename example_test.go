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
		fmt.Println("error:", err)
		return
	}
	// The allreduce ran on the collective network: no torus message.
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
	// 16 ranks on 4x2x2 torus, 0 messages
	// deadlock: 2 ranks; recv from 1 any tag on COMM_WORLD at dl.lua:1
}

// The Result tells how each rank ended.
func ExampleResult_PerRank() {
	prog := bglua.Program{Name: "p.lua", Code: []byte(`
		if mpi.rank() == 1 then error("boom") end
		mpi.recv(1)`)}
	res, err := bglua.Run(context.Background(), bglua.Config{Ranks: 3}, prog)
	var re *bglua.RankError
	fmt.Println(errors.As(err, &re), err)
	for r, e := range res.PerRank {
		fmt.Printf("rank %d: %s at %.0f ns\n", r, e.State, e.Seconds*1e9)
	}
	// Output:
	// true rank 1 at t=0s: p.lua:2: boom
	// rank 0: stopped at 0 ns
	// rank 1: failed at 0 ns
	// rank 2: not started at 0 ns
}

// Validate checks a Config before a run, and names the field it cannot use.
func ExampleConfig_Validate() {
	err := bglua.Config{Ranks: 64, Mode: "turbo"}.Validate()
	var c *bglua.ConfigError
	if errors.As(err, &c) {
		fmt.Println(c.Field+":", c.Reason)
		fmt.Println(err)
	}
	// Output:
	// Mode: want co, vn or heater
	// Config.Mode "turbo": want co, vn or heater
}
