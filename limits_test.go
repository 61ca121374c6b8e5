package bglua

import (
	"context"
	"errors"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// A rank that never gives control back is stopped by the wall-time limit,
// wherever it spins, and the report names it and its line.
func TestTimeoutStopsSpinningRank(t *testing.T) {
	for _, c := range []struct {
		name, src string
		cfg       Config
		where     string
	}{
		{"while", "mpi.barrier()\nif mpi.rank() == 2 then\n  while true do end\nend", Config{Ranks: 4}, "spin.lua:3"},
		{"pcall in a loop", "while true do pcall(function() while true do end end) end", Config{Ranks: 1}, "spin.lua:1"},
		{"coroutine", "local co = coroutine.wrap(function()\n  repeat until false\nend)\nco()", Config{Ranks: 1}, "spin.lua:2"},
		{"busy wait on wtime", "local t = mpi.wtime()\nwhile mpi.wtime() < t + 1 do end", Config{Ranks: 2}, "spin.lua:2"},
		{"busy wait on os.clock", "local t = os.clock()\nwhile os.clock() < t + 1 do end", Config{Ranks: 1}, "spin.lua:2"},
		{"error handler", "while true do local ok, e = pcall(error, 'x'); if not ok then end end", Config{Ranks: 1}, "spin.lua:1"},
		// Partitions on two threads: the rank spins in one of them.
		{"partitions", "mpi.barrier()\nif mpi.rank() == 600 then\n  while true do end\nend\nmpi.barrier()", Config{Ranks: 1024, Torus: "16x8x8", Threads: 2, Timeout: 3 * time.Second}, "spin.lua:3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			if cfg.Timeout == 0 {
				// Long enough for the ranks to start and reach their loop
				// on a loaded machine (at 50 ms one was still on line 1).
				cfg.Timeout = 250 * time.Millisecond
			}
			cfg.Stdout = &strings.Builder{}
			_, err := Run(context.Background(), cfg, Program{Name: "spin.lua", Code: []byte(c.src)})
			var l *LimitError
			if !errors.As(err, &l) || l.What != "wall time" {
				t.Fatalf("err = %v, want a wall-time limit", err)
			}
			if len(l.Running) == 0 || l.Running[0].Where != c.where {
				t.Errorf("running %v, want a rank at %s (%v)", l.Running, c.where, err)
			}
			if !strings.Contains(err.Error(), "wall-time limit of "+cfg.Timeout.String()+" reached") {
				t.Errorf("message %q", err)
			}
		})
	}
}

// A canceled context interrupts a spinning rank: exit 130, with where it was.
func TestCancelInterruptsSpinningRank(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := Config{Ranks: 3, Stdout: &strings.Builder{}, GoModules: map[string]lua.LGFunction{
		"interrupt": func(L *lua.LState) int { cancel(); return 0 },
	}}
	src := "if mpi.rank() == 1 then require('interrupt') end\nmpi.barrier()\nwhile true do end"
	res, err := Run(ctx, cfg, Program{Name: "int.lua", Code: []byte(src)})
	var in *InterruptedError
	if !errors.As(err, &in) {
		t.Fatalf("err = %v, want an interrupt", err)
	}
	// The interrupt comes in rank 1's require and reaches the ranks soon
	// after: a rank is stopped wherever it runs then.
	if res == nil {
		t.Fatal("no result")
	}
	for _, r := range in.Running {
		if !strings.HasPrefix(r.Where, "int.lua:") {
			t.Errorf("running %v, want lines of int.lua", in.Running)
		}
	}
}

// inUse is the process's memory as the watchdog reads it.
func inUse() int64 {
	return processMemory([]metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}})
}

// A single value that would pass the memory limit is refused before it is
// built, as an error of its rank.
func TestMaxMemoryRefusesLargeValue(t *testing.T) {
	limit := inUse() + 256<<20
	for _, src := range []string{
		`local s = string.rep("xxxxxxxx", 2^30)`,
		`local s = string.rep("x", 2^27); s = s .. s .. s`,
		`local s = string.rep("x", 2^20); local t = {}; for i = 1, 300 do t[i] = s end; s = table.concat(t)`,
		`local s = string.rep("x", 2^14); s = s:gsub("x", {x = s})`,
	} {
		cfg := Config{Ranks: 1, MaxMemory: limit, Stdout: &strings.Builder{}}
		_, err := Run(context.Background(), cfg, Program{Name: "big.lua", Code: []byte(src)})
		var re *RankError
		if !errors.As(err, &re) || !strings.Contains(re.Msg, "would pass the memory limit") {
			t.Errorf("%s: err = %v, want the rank's error", src, err)
		}
	}
}

// A table that grows without end is stopped by the watchdog.
func TestMaxMemoryWatchdog(t *testing.T) {
	cfg := Config{Ranks: 2, MaxMemory: inUse() + 64<<20, Stdout: &strings.Builder{}}
	src := "local t, i = {}, 0\nwhile true do\n  i = i + 1; t[i] = {i}\nend"
	_, err := Run(context.Background(), cfg, Program{Name: "grow.lua", Code: []byte(src)})
	var l *LimitError
	if !errors.As(err, &l) || l.What != "memory" {
		t.Fatalf("err = %v, want a memory limit", err)
	}
	if len(l.Running) != 1 || !strings.HasPrefix(l.Running[0].Where, "grow.lua:") {
		t.Errorf("running %v (%v)", l.Running, err)
	}
}

// Input files are read up to MaxInputFile bytes.
func TestReadInputBounded(t *testing.T) {
	_, err := ReadInput("/dev/zero")
	if err == nil || !strings.Contains(err.Error(), "/dev/zero: larger than 64 MiB") {
		t.Errorf("err = %v", err)
	}
	_, err = Run(context.Background(), Config{Mapping: "/dev/zero"}, Program{Name: "x.lua"})
	if err == nil || !strings.Contains(err.Error(), "larger than 64 MiB") || !errors.As(err, new(*ConfigError)) {
		t.Errorf("mapping: err = %v", err)
	}
}
