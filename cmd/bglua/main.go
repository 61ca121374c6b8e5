// Command bglua runs Lua programs on thousands of virtual MPI ranks of a
// modeled Blue Gene/L machine.
//
//	bglua [flags] PROGRAM.lua [script args...]
//	bglua test [flags] [PATH...]
//	bglua sweep [flags] PROGRAM.lua [script args...]
//	bglua editor-setup [DIR]
//	bglua completion bash|zsh|fish
//	bglua help [TOPIC]
//	bglua version
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"strings"

	"github.com/bglua/bglua"
)

func main() {
	// One partition runs one goroutine at a time: a second P only adds the
	// cost of waking OS threads at every process switch (measured: the
	// 65,536-rank barrier+allreduce takes 16 s with one P, 21 s with two).
	goruntime.GOMAXPROCS(1)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole command, testable: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "help" {
		// bglua help [TOPIC] (docs/cli.md): the usage, or --coll's list.
		switch {
		case len(args) == 1:
			args = []string{"--help"}
		case len(args) == 2 && args[1] == "coll":
			printAlgorithms(stdout)
			return exitOK
		case len(args) == 2 && args[1] == "test":
			return runTests([]string{"--help"}, stdout, stderr)
		case len(args) == 2 && args[1] == "sweep":
			return runSweep([]string{"--help"}, stdout, stderr)
		case len(args) == 2 && args[1] == "editor-setup":
			return editorSetup([]string{"--help"}, stdout, stderr)
		case len(args) == 2 && args[1] == "completion":
			return completion([]string{"--help"}, stdout, stderr)
		default:
			fmt.Fprintf(stderr, "bglua help: unknown topic %q (topics: %s)\n", strings.Join(args[1:], " "), strings.Join(helpTopics, ", "))
			return exitUsage
		}
	}
	if len(args) > 0 && (args[0] == "version" || args[0] == "--version" || args[0] == "-version") {
		fmt.Fprintf(stdout, "bglua %s\n", bglua.Version)
		return exitOK
	}
	if len(args) > 0 && args[0] == "test" {
		return runTests(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "sweep" {
		return runSweep(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "completion" {
		return completion(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "editor-setup" {
		return editorSetup(args[1:], stdout, stderr)
	}
	return runProgram(args, stdout, stderr)
}

// runProgram is `bglua [flags] PROGRAM.lua [args...]`: it runs the
// program and reports how the run went.
func runProgram(args []string, stdout, stderr io.Writer) int {
	// Started by mpirun as one of several processes: the run is shared
	// among them (docs/distributed.md), and process 0 alone reports.
	job, follower, jobRank := false, false, 0
	if rank, size, ok := bglua.MPIJob(); ok && size > 1 {
		job, follower, jobRank = true, rank > 0, rank
		if follower {
			stdout, stderr = io.Discard, io.Discard
		}
		defer bglua.EndMPI()
	}
	opts, err := parseRun(args, stdout, stderr)
	if errors.Is(err, errHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "bglua: %v\n", err)
		return exitUsage
	}
	if follower {
		// Each process profiles itself: process p > 0 into FILE.p.
		opts.cpuProfile, opts.memProfile = processFile(opts.cpuProfile, jobRank), processFile(opts.memProfile, jobRank)
	}
	if opts.collHelp && opts.program != "" {
		return printScriptAlgorithms(stdout, stderr, opts)
	}
	if opts.collHelp {
		printAlgorithms(stdout)
		return exitOK
	}
	for _, n := range opts.notes {
		if !opts.quiet {
			fmt.Fprintf(stderr, "bglua: note: %s\n", n)
		}
	}
	prog, err := bglua.ProgramFile(opts.program)
	if err != nil {
		fmt.Fprintf(stderr, "bglua: %v\n", err)
		return exitCode(err)
	}
	opts.cfg.Stdout = stdout
	opts.cfg.MPI = job
	if follower {
		// Nor does it write files: the trace, the statistics and the
		// monitoring files are process 0's (each process has the same
		// Config, Stats and MDS included, and results).
		opts.statsJSON, opts.noFiles = "", true
	}
	if opts.statsJSON != "" {
		// Found before the run, not after an hour of it.
		f, err := os.OpenFile(opts.statsJSON, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "bglua: --stats-json: cannot write the statistics file: %v\n", pathError(err))
			return exitUsage
		}
		f.Close()
	}
	if opts.trace != "" && opts.noFiles {
		opts.cfg.Trace = io.Discard
	} else if opts.trace != "" {
		f, err := os.Create(opts.trace)
		if err != nil {
			fmt.Fprintf(stderr, "bglua: --trace: cannot write the trace file: %v\n", pathError(err))
			return exitUsage
		}
		defer f.Close()
		opts.cfg.Trace = f
	}
	// Progress lines are for a person watching: on a terminal unless
	// --quiet, elsewhere (a log, a pipe) only when asked for, so that the
	// same run writes the same stderr (docs/cli.md).
	if term := isTerminal(stderr); term && !opts.quiet || opts.progress {
		opts.cfg.Progress = newProgress(stderr, term).update
	}
	stopProfiles, err := startProfiles(opts)
	if err != nil {
		fmt.Fprintf(stderr, "bglua: %v\n", err)
		return exitUsage
	}
	defer stopProfiles()
	// The command is the process: the run may tune it (GOMAXPROCS for its
	// threads; the collector's headroom, unless the environment sets it).
	opts.cfg.Tune = bglua.Tuning{Procs: true, GC: true}
	softMemoryLimit(opts.cfg.MaxMemory)
	ctx, stop := interruptible(stderr)
	defer stop()
	stopHard := hardTimeout(stderr, opts.cfg.Timeout)
	res, err := bglua.Run(ctx, opts.cfg, prog)
	err = flagError(err)
	stopHard()
	return report(stderr, opts, res, err)
}

// report writes on stderr how a run ended, err, and what it produced, res,
// as opts asked, and returns the exit status.
func report(stderr io.Writer, opts *runOpts, res *bglua.Result, err error) int {
	if err != nil {
		reportError(stderr, err)
	} else if res != nil && !opts.quiet {
		warnLeftovers(stderr, res)
	}
	if res != nil && opts.stats {
		printStats(stderr, res)
	}
	if res != nil && opts.statsJSON != "" {
		if werr := writeStatsJSON(opts.statsJSON, res); werr != nil {
			fmt.Fprintf(stderr, "bglua: --stats-json: cannot write the statistics file: %v\n", pathError(werr))
			if err == nil {
				return exitUsage
			}
		}
	}
	if res != nil && res.MDS != nil && !opts.noFiles {
		paths, werr := res.MDS.WriteDir(opts.mdsDir)
		if werr != nil {
			fmt.Fprintf(stderr, "bglua: --mds-dir: cannot write the monitoring files: %v\n", werr)
			if err == nil {
				return exitUsage
			}
		}
		if !opts.quiet {
			res.MDS.Summary(stderr)
			fmt.Fprintf(stderr, "bglua: monitoring files in %s: %s\n", opts.mdsDir, baseNames(paths))
		}
	}
	if res != nil && !opts.quiet {
		fmt.Fprintln(stderr, summary(res, opts.cfg.Grain))
	}
	return exitCode(err)
}

// pathError says "FILE: why" of a file that could not be opened, without
// the Go operation ("open FILE: why").
func pathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// leftoverLines is how many of a run's leftover messages the command names.
const leftoverLines = 5

// warnLeftovers names the messages that reached a rank and were never
// taken: most often a receive or an advance the program forgot.
func warnLeftovers(w io.Writer, r *bglua.Result) {
	for i, o := range r.Leftovers {
		if i == leftoverLines {
			break
		}
		fmt.Fprintf(w, "bglua: warning: %s\n", o)
	}
	if n := r.LeftoverCount - min(len(r.Leftovers), leftoverLines); n > 0 {
		fmt.Fprintf(w, "bglua: warning: and %d more messages never received or handled\n", n)
	}
}

func reportError(w io.Writer, err error) {
	var re *bglua.RankError
	if errors.As(err, &re) && re.Traceback != "" {
		fmt.Fprintf(w, "bglua: %v\n%s\n", err, re.Traceback)
		return
	}
	fmt.Fprintf(w, "bglua: %v\n", err)
}
