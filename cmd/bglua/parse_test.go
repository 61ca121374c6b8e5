package main

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/bglua/bglua"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"1048576", 1 << 20}, {"512K", 512 << 10}, {"512MiB", 512 << 20}, {"2G", 2 << 30}, {"1.5GB", 3 << 29},
		{"2 gib", 2 << 30}, {"1T", 1 << 40},
		{"", 0}, {"0", 0}, {"-1G", 0}, {"1X", 0}, {"G", 0}, {"nan", 0}, {"inf", 0}, {"1e30", 0},
	} {
		got, err := parseSize(c.in)
		if got != c.want || (err != nil) != (c.want == 0) {
			t.Errorf("parseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

// The exit statuses of docs/cli.md, by the error a run ends with.
func TestExitCode(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, exitOK},
		{&bglua.RankError{Msg: "boom"}, exitError},
		{&bglua.UsageError{Msg: "bad"}, exitUsage},
		{fmt.Errorf("wrapped: %w", &bglua.UsageError{Msg: "bad"}), exitUsage},
		{&bglua.DeadlockError{}, exitDeadlock},
		{&bglua.LimitError{What: "wall time"}, exitLimit},
		{context.DeadlineExceeded, exitLimit},
		{&bglua.InterruptedError{}, exitInterrupted},
		{context.Canceled, exitInterrupted},
		// mpi.abort(code) exits with its code, as a process's exit(code).
		{&bglua.AbortError{Code: 1}, 1},
		{&bglua.AbortError{Code: 7}, 7},
		{fmt.Errorf("wrapped: %w", &bglua.AbortError{Code: 42}), 42},
		{&bglua.AbortError{Code: 255}, 255},
		{&bglua.AbortError{Code: 256 + 9}, 9},
		{&bglua.AbortError{Code: -1}, 255},
		{&bglua.AbortError{Code: 0}, exitError}, // an abort is never a success
		{&bglua.AbortError{Code: 256}, exitError},
	} {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

// The errors of a run name the command's flags where the root package
// names Config fields, and keep their exit status.
func TestFlagError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
		code int
	}{
		{&bglua.ConfigError{Field: "EMDS", Reason: `needs Config.Runtime "bcs" (it monitors the bcs runtime's slices)`},
			"--mds emds needs --runtime bcs (it monitors the bcs runtime's slices)", exitUsage},
		{&bglua.ConfigError{Field: "Mode", Value: `"turbo"`, Reason: "want co, vn or heater"}, `--mode "turbo": want co, vn or heater`, exitUsage},
		{&bglua.LimitError{What: "virtual time", Limit: "5ms"}, "virtual time limit of 5ms reached; raise --max-vtime or look for a runaway loop", exitLimit},
		{&bglua.RankError{Rank: 2, Msg: "p.lua:1: Config.Timeout"}, "rank 2 at t=0s: p.lua:1: Config.Timeout", exitError},
	} {
		err := flagError(c.err)
		if err.Error() != c.want || exitCode(err) != c.code {
			t.Errorf("flagError(%v) = %q (exit %d), want %q (exit %d)", c.err, err, exitCode(err), c.want, c.code)
		}
	}
}

// --coll help lists the built-in algorithms, and with a program (and the
// flags of its run) those it registers too; --coll with parameters goes
// into the Config as NAME: ALG:KEY=VALUE,...
func TestParseRunColl(t *testing.T) {
	for _, c := range []struct {
		args    []string
		help    bool
		program string
		ranks   int
		coll    map[string]string
	}{
		{[]string{"--coll", "help"}, true, "", 1, nil},
		{[]string{"--coll", "help", "-n", "4", "p.lua", "x"}, true, "p.lua", 4, nil},
		{[]string{"-coll", "help", "p.lua"}, true, "p.lua", 1, nil},
		{[]string{"--coll", "bcast=chain:seg=32k,radix=4,allreduce=ring", "p.lua"}, false, "p.lua", 1,
			map[string]string{"bcast": "chain:seg=32k,radix=4", "allreduce": "ring"}},
	} {
		o, err := parseRun(c.args, io.Discard, io.Discard)
		if err != nil {
			t.Errorf("%v: %v", c.args, err)
			continue
		}
		if o.collHelp != c.help || o.program != c.program || o.cfg.Ranks != c.ranks || !reflect.DeepEqual(o.cfg.Coll, c.coll) {
			t.Errorf("%v: help %v, program %q, ranks %d, coll %v", c.args, o.collHelp, o.program, o.cfg.Ranks, o.cfg.Coll)
		}
	}
}
