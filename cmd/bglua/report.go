package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"

	"github.com/bglua/bglua"
)

// peakMemory is the process's peak resident set (VmHWM), or the Go heap's
// high-water mark where /proc is not there.
func peakMemory() string {
	if f, err := os.Open("/proc/self/status"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				if err == nil {
					return fmt.Sprintf("%.1f MiB", float64(kb)/1024)
				}
			}
		}
	}
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return fmt.Sprintf("%.1f MiB", float64(ms.Sys)/(1<<20))
}

// printAlgorithms lists the built-in collective algorithms and the
// parameters of those that take some.
func printAlgorithms(w io.Writer) {
	fmt.Fprintln(w, "collective algorithms (--coll NAME=ALG[:KEY=VALUE,...]; auto is the default):")
	for _, a := range bglua.Algorithms() {
		fmt.Fprintf(w, "  %-15s %-20s %s\n", a.Coll, a.Name, a.Doc)
		for _, p := range a.Params {
			fmt.Fprintf(w, "  %-15s %-20s parameter %s=%d..%d (default %d): %s\n", "", "", p.Name, p.Min, p.Max, p.Default, p.Doc)
		}
	}
}

// printScriptAlgorithms lists the built-in algorithms, then those the
// program of opts registers before its first communication
// (bglua.ScriptAlgorithms), and returns the exit status: that of an error
// the program's start ended with.
func printScriptAlgorithms(stdout, stderr io.Writer, opts *runOpts) int {
	prog, err := bglua.ProgramFile(opts.program)
	if err != nil {
		fmt.Fprintf(stderr, "bglua: %v\n", err)
		return exitCode(err)
	}
	printAlgorithms(stdout)
	ctx, stop := interruptible(stderr)
	defer stop()
	algs, err := bglua.ScriptAlgorithms(ctx, opts.cfg, prog)
	err = flagError(err)
	fmt.Fprintf(stdout, "registered by %s (mpi.coll.register; they take any parameters, passed to the function):\n", opts.program)
	switch {
	case len(algs) == 0 && err != nil:
		fmt.Fprintln(stdout, "  none before the program's error (on stderr)")
	case len(algs) == 0:
		fmt.Fprintln(stdout, "  none before the program's first communication")
	}
	for _, a := range algs {
		fmt.Fprintf(stdout, "  %-15s %-20s %s\n", a.Coll, a.Name, a.Where)
	}
	if err != nil {
		reportError(stderr, err)
	}
	return exitCode(err)
}

// summary is the end-of-run line: what ran (at what --grain, if coarser
// than the machine's), how long in virtual and host time, what moved and
// what it cost.
func summary(r *bglua.Result, grain int) string {
	slices, at := "", ""
	if r.Slices > 0 {
		slices = fmt.Sprintf(", %d bcs slices", r.Slices)
	}
	if grain > 1 {
		at = fmt.Sprintf(" at grain %d", grain)
	}
	slowdown := "-" // no virtual time: nothing to compare the host time with
	if r.Seconds > 0 {
		slowdown = fmt.Sprintf("%.3gx", r.Slowdown())
	}
	return fmt.Sprintf("bglua: %d ranks on %s%s: virtual %s, host %.3gs, slowdown %s, %d events, %s%s, peak %s",
		r.Ranks, r.Torus, at, bglua.FormatSeconds(r.Seconds), r.HostSeconds, slowdown, r.Events, moved(r), slices, peakMemory())
}

// moved says what the networks carried: messages, MPI's and active ones
// (how many of them active), and the operations of the collective and
// global interrupt networks and the bcs runtime's collectives when there
// were any. MPI's messages alone said
// "0 messages" for a program whose traffic is tree collectives or active
// messages.
func moved(r *bglua.Result) string {
	s := plural(r.Messages+r.ActiveMessages, "message")
	if r.ActiveMessages > 0 {
		s += fmt.Sprintf(" (%d active)", r.ActiveMessages)
	}
	if r.TreeOps > 0 {
		s += ", " + plural(r.TreeOps, "tree operation")
	}
	if r.GIOps > 0 {
		s += ", " + plural(r.GIOps, "global-interrupt barrier")
	}
	if r.BCSCollectives > 0 {
		s += ", " + plural(r.BCSCollectives, "bcs collective")
	}
	return s
}

// plural is "1 thing" or "n things".
func plural(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// baseNames lists the files of paths by name, "a.csv, b.csv".
func baseNames(paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
	}
	return strings.Join(names, ", ")
}
