package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bglua/bglua"
)

// interruptible is the context of a run that the first SIGINT or SIGTERM
// cancels (the run stops between instructions and reports where its ranks
// were, exit 130); a second one ends the process at once. stop releases the
// signals.
func interruptible(stderr io.Writer) (ctx context.Context, stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, release := onSignals(sigs, stderr, os.Exit)
	return ctx, func() {
		signal.Stop(sigs)
		release()
	}
}

// onSignals is interruptible on a channel of signals, with exit to end the
// process.
func onSignals(sigs <-chan os.Signal, stderr io.Writer, exit func(int)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
			return
		}
		select {
		case <-sigs:
			fmt.Fprintln(stderr, "bglua: interrupted again: exiting at once")
			exit(exitInterrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		close(done)
		cancel()
	}
}

// stopGrace is how long after its wall-time limit a run may take to stop
// before the command exits without it: a rank inside a long library call
// (a pathological string pattern, a huge string.rep) sees the stop only
// when the call returns.
var stopGrace = 2 * time.Second

// hardTimeout exits the process with the limit's status if the run has not
// stopped stopGrace after its wall-time limit; cancel it when the run ends.
func hardTimeout(stderr io.Writer, limit time.Duration) (cancel func()) {
	if limit <= 0 {
		return func() {}
	}
	t := time.AfterFunc(limit+stopGrace, func() {
		fmt.Fprintf(stderr, "bglua: wall-time limit of %s reached and the run did not stop within %s: a rank is inside a long library call (a string pattern that backtracks?); exiting\n", limit, stopGrace)
		os.Exit(exitLimit)
	})
	return func() { t.Stop() }
}

// memoryShare is the part of the machine's memory a run may use by default:
// the rest is for the system and for what the watchdog sees late (it reads
// the process's memory every few milliseconds).
const memoryShare = 0.75

// defaultMaxMemory is --max-memory's default: memoryShare of the machine's
// memory, or of the cgroup's limit if lower; 0 (none) if neither is known.
func defaultMaxMemory() int64 {
	total := memTotal()
	if c := cgroupLimit(); c > 0 && (total == 0 || c < total) {
		total = c
	}
	return int64(float64(total) * memoryShare)
}

// memTotal is MemTotal of /proc/meminfo in bytes, or 0.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// cgroupLimit is the memory limit of the process's cgroup (v2, then v1) in
// bytes, or 0 if it has none.
func cgroupLimit() int64 {
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && v > 0 && v < 1<<60 {
			return v
		}
	}
	return 0
}

// parseMaxMemory reads --max-memory: a size, or 0 / none for no limit.
func parseMaxMemory(s string) (int64, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "0", "none", "off":
		return 0, nil
	}
	n, err := parseSize(s)
	if err != nil {
		return 0, fmt.Errorf("--max-memory: %v, or none", err)
	}
	return n, nil
}

// flagSize prints a size as --max-memory reads it.
func flagSize(n int64) string {
	if n == 0 {
		return "none"
	}
	return strings.ReplaceAll(bglua.FormatBytes(n), " ", "")
}

// parseTimeout reads --timeout: a wall-clock duration, or 0 / none.
func parseTimeout(flag, s string) (time.Duration, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "0", "none", "off":
		return 0, nil
	}
	sec, err := parseDuration(s)
	if err != nil || sec <= 0 || sec > maxTimeout.Seconds() {
		return 0, fmt.Errorf("%s: %q is not a wall-clock duration such as 30s or 10m (or none)", flag, s)
	}
	return time.Duration(sec * float64(time.Second)), nil
}

// softMemoryLimit makes the Go collector work harder as the process nears
// limit, so that garbage does not trip the watchdog; the environment, if it
// sets GOMEMLIMIT, decides instead.
func softMemoryLimit(limit int64) {
	if limit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit - limit/10)
	}
}
