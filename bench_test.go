package bglua

import (
	"context"
	"io"
	"os"
	goruntime "runtime"
	"strconv"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func benchProgram(b *testing.B, file string) Program {
	b.Helper()
	code, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	return Program{Name: file, Code: code}
}

// BenchmarkRing4096 passes a token round 4,096 ranks; one op is one message.
func BenchmarkRing4096(b *testing.B) {
	const ranks = 4096
	laps := b.N/ranks + 1
	prog := benchProgram(b, "bench/ring.lua")
	b.ResetTimer()
	res, err := Run(context.Background(), Config{Ranks: ranks, Stdout: io.Discard, Args: []string{strconv.Itoa(laps)}}, prog)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(res.Messages)/b.Elapsed().Seconds(), "msgs/s")
	b.ReportMetric(float64(res.Events)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkIdleRank measures the memory of a parked rank (Go heap and
// goroutine stacks): ranks wait in a barrier that rank 0 enters late, and rank
// 0 reads the memory statistics first. One op is one rank.
func BenchmarkIdleRank(b *testing.B) {
	ranks := max(b.N, 1024)
	prog := Program{Name: "idle.lua", Code: []byte(`
		if mpi.rank() == 0 then mpi.compute(1e-3); require("hook").report() end
		mpi.barrier()`)}
	var before, parked goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	cfg := Config{Ranks: ranks, Stdout: io.Discard, GoModules: map[string]lua.LGFunction{
		"hook": func(L *lua.LState) int {
			t := L.NewTable()
			t.RawSetString("report", L.NewFunction(func(L *lua.LState) int {
				// Every other rank is parked in the barrier now.
				goruntime.GC()
				goruntime.ReadMemStats(&parked)
				return 0
			}))
			L.Push(t)
			return 1
		},
	}}
	b.ResetTimer()
	if _, err := Run(context.Background(), cfg, prog); err != nil {
		b.Fatal(err)
	}
	used := float64(parked.HeapInuse+parked.StackInuse) - float64(before.HeapInuse+before.StackInuse)
	b.ReportMetric(used/float64(ranks), "B/rank")
}
