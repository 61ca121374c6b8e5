package bglua

import (
	"context"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"strconv"
	"testing"
	"time"

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
// goroutine stacks) with bench/idle.lua: ranks wait in a barrier that rank 0
// enters late, and rank 0 reads the memory statistics first. One op is one
// rank (at least 1,024 ranks run); ns/rank and cpu-ns/rank are the host time
// and CPU time of the whole run, start-up and barrier included, per rank.
func BenchmarkIdleRank(b *testing.B) {
	ranks := max(b.N, 1024)
	prog := benchProgram(b, "bench/idle.lua")
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
	cpu0 := cpuNanos()
	if _, err := Run(context.Background(), cfg, prog); err != nil {
		b.Fatal(err)
	}
	cpu := cpuNanos() - cpu0
	if parked.HeapInuse == 0 {
		b.Fatal("bench/idle.lua did not report")
	}
	used := float64(parked.HeapInuse+parked.StackInuse) - float64(before.HeapInuse+before.StackInuse)
	b.ReportMetric(used/float64(ranks), "B/rank")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ranks), "ns/rank")
	if cpu0 >= 0 {
		b.ReportMetric(float64(cpu)/float64(ranks), "cpu-ns/rank")
	}
}

// BenchmarkStartup measures rank start-up at 4,096 and 41,616 ranks with two
// programs: bench/empty.lua, whose ranks start and end one after the other,
// and bench/idle.lua ("parked"), whose ranks all stay alive in a barrier, as
// in a real program (the barrier itself is cheap: one global interrupt). One
// op is one run. ns/rank is host time per rank; cpu-ns/rank is the CPU time
// of the process (every thread, the garbage collector's included) per rank,
// steadier than host time on a shared machine. The garbage collector runs as
// in the bglua command (Tuning.GC: gcHeadroom with GCHeadroomPerRank).
func BenchmarkStartup(b *testing.B) {
	for _, w := range []struct{ name, file string }{{"empty", "bench/empty.lua"}, {"parked", "bench/idle.lua"}} {
		for _, ranks := range []int{4096, 41616} {
			b.Run(fmt.Sprintf("%s/%d", w.name, ranks), func(b *testing.B) {
				prog := benchProgram(b, w.file)
				var wall time.Duration
				var cpu int64
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					goruntime.GC()
					b.StartTimer()
					t0, cpu0 := time.Now(), cpuNanos()
					stop := gcHeadroom(uint64(ranks) * GCHeadroomPerRank).stop
					_, err := Run(context.Background(), Config{Ranks: ranks, Stdout: io.Discard}, prog)
					stop()
					if err != nil {
						b.Fatal(err)
					}
					wall += time.Since(t0)
					cpu += cpuNanos() - cpu0
				}
				n := float64(b.N * ranks)
				b.ReportMetric(float64(wall.Nanoseconds())/n, "ns/rank")
				if cpuNanos() >= 0 {
					b.ReportMetric(float64(cpu)/n, "cpu-ns/rank")
				}
			})
		}
	}
}

// BenchmarkHaloThreads runs bench/workloads/halo3d.lua on 4,096 ranks (a
// 16x16x16 torus, eight blocks) on one and two threads; one op is one run of
// 2 steps of 8 KB faces. Compare the threads=1 and threads=2 times for the
// parallel speedup (the machine needs two free cores).
func BenchmarkHaloThreads(b *testing.B) {
	prog := benchProgram(b, "bench/workloads/halo3d.lua")
	prog.Dir = "bench/workloads"
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			for range b.N {
				res, err := Run(context.Background(), Config{Ranks: 4096, Torus: "16x16x16", Threads: threads, Stdout: io.Discard,
					Args: []string{"2", "8192", "16", "16", "16"}}, prog)
				if err != nil {
					b.Fatal(err)
				}
				if res.Partitions != 8 {
					b.Fatalf("%d partitions, want 8", res.Partitions)
				}
			}
		})
	}
}
