package bglua

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/bglua/bglua/luabind"
)

// MaxInputFile is the most bytes bglua reads of one input file (program,
// module, machine or mapping file): reading /dev/zero, or a file given by
// mistake, must not take the host's memory.
const MaxInputFile = 64 << 20

// errTooLarge is an input file larger than MaxInputFile.
var errTooLarge = fmt.Errorf("larger than %s, the most bglua reads of an input file", FormatBytes(MaxInputFile))

// ReadInput reads an input file, at most MaxInputFile bytes of it: the
// default Config.ReadFile.
func ReadInput(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxInputFile+1))
	if err != nil {
		if pe := (*os.PathError)(nil); errors.As(err, &pe) {
			return nil, pe // a directory: "read DIR: is a directory", once
		}
		return nil, &os.PathError{Op: "read", Path: name, Err: err}
	}
	if len(b) > MaxInputFile {
		return nil, &os.PathError{Op: "read", Path: name, Err: errTooLarge}
	}
	return b, nil
}

// FormatBytes prints a size in bytes with a binary unit: "512 B", "1.5 GiB".
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, u := float64(n)/unit, 0
	for v >= unit && u < 5 {
		v /= unit
		u++
	}
	return fmt.Sprintf("%.4g %ciB", v, "KMGTPE"[u])
}

// memCheckEvery is how often the memory watchdog reads the process's memory:
// a script that fills tables in a loop allocates some hundreds of MB a
// second, a few MB between two readings.
const memCheckEvery = 10 * time.Millisecond

// processMemory is the memory the Go runtime holds from the system and has
// not returned to it: the process's memory, less its binary and the C side
// (none in bglua).
func processMemory(s []metrics.Sample) int64 {
	metrics.Read(s)
	total, released := s[0].Value.Uint64(), s[1].Value.Uint64()
	return int64(total - released)
}

// guard makes the guard of a run and its context: the run stops, and its
// ranks' Lua with it, when ctx is canceled, the wall-time limit passes or
// the process's memory passes its limit. stop ends the watchers.
func guard(ctx context.Context, cfg Config) (g *luabind.Guard, runCtx context.Context, stop func()) {
	g = luabind.NewGuard()
	runCtx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	var timer *time.Timer
	if cfg.Timeout > 0 {
		timer = time.AfterFunc(cfg.Timeout, func() {
			cancel(&LimitError{What: "wall time", Limit: cfg.Timeout.String()})
		})
	}
	var inUse atomic.Int64
	if cfg.MaxMemory > 0 {
		limit := cfg.MaxMemory
		samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
		inUse.Store(processMemory(samples))
		if used := inUse.Load(); used > limit {
			// Past it before any rank runs: say so every time, not only
			// when the run lasts past the watchdog's first look.
			cancel(&LimitError{What: "memory", Limit: FormatBytes(limit), InUse: FormatBytes(used)})
		}
		g.Room = func(n int64) error {
			if used := inUse.Load(); used+n > limit {
				return fmt.Errorf("a value of %s would pass the memory limit of %s (%s in use)", FormatBytes(n), FormatBytes(limit), FormatBytes(used))
			}
			return nil
		}
		go func() {
			tick := time.NewTicker(memCheckEvery)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
				}
				used := processMemory(samples)
				inUse.Store(used)
				if used > limit {
					cancel(&LimitError{What: "memory", Limit: FormatBytes(limit), InUse: FormatBytes(used)})
					return
				}
			}
		}()
	}
	go func() {
		select {
		case <-runCtx.Done():
			g.Stop(context.Cause(runCtx))
		case <-done:
		}
	}()
	return g, runCtx, func() {
		if timer != nil {
			timer.Stop()
		}
		close(done)
		cancel(nil)
	}
}

// stopped turns the error of a run stopped from outside (ctx) into a
// *LimitError or an *InterruptedError that says when and where its ranks
// were; it returns nil for any other error.
func (s *sim) stopped(ctx context.Context, err error) error {
	if ctx.Err() == nil || !errors.Is(err, context.Cause(ctx)) {
		return nil
	}
	seconds := s.m.Seconds(s.g.Now())
	running := convert(s.guard.Running(), func(r luabind.Running) RunningRank { return RunningRank(r) })
	var l *LimitError
	if errors.As(err, &l) {
		e := *l
		e.Seconds, e.Running = seconds, running
		return &e
	}
	return &InterruptedError{Seconds: seconds, Running: running}
}
