package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/pflag"

	"github.com/bglua/bglua"
	"github.com/bglua/bglua/internal/sweep"
)

// sweepUsage is the first line of `bglua sweep --help` and of its usage errors.
const sweepUsage = "usage: bglua sweep [flags] PROGRAM.lua [script args...]   ({size} in an arg becomes the size; without one the size is arg[1])"

// sweepOpts are the flags of `bglua sweep`.
type sweepOpts struct {
	ranks, sizes, seeds string
	colls               []string
	jobs                int
	out                 string
	noHostTime, noPlot  bool
	progress            bool
	cfg                 bglua.Config
	v                   runFlags
}

// sweepFlags defines the flags of `bglua sweep`, into o.
func (o *sweepOpts) flags(stdout, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet("bglua sweep", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SetInterspersed(false)
	fs.Usage = func() {
		fmt.Fprintf(stdout, "%s\n\nflags:\n%s", sweepUsage, fs.FlagUsages())
	}
	fs.StringVarP(&o.ranks, "ranks", "n", "", "rank counts, e.g. 8,64,512 (required)")
	fs.StringVar(&o.sizes, "sizes", "", "sizes in bytes, e.g. 8,1k,64k,1M (K, M, G: powers of 1,024; required)")
	fs.StringArrayVar(&o.colls, "coll", nil, "a choice of collective algorithms, `NAME=ALG[,NAME=ALG]`; repeat it for each choice (default: auto)")
	fs.StringVar(&o.seeds, "seeds", "1", "seeds, e.g. 1,2,3")
	fs.IntVarP(&o.jobs, "jobs", "j", goruntime.NumCPU(), "points run at once; the results are the same for every N")
	fs.StringVar(&o.out, "out", "sweep.csv", "the CSV of results, resumed if it exists; the plots go beside it as NAME_COLLECTIVE.png")
	fs.BoolVar(&o.noHostTime, "no-host-time", false, "leave the host time (the one column that differs between runs) out of the CSV")
	fs.BoolVar(&o.noPlot, "no-plot", false, "write no PNG")
	fs.BoolVar(&o.progress, "progress", false, "a progress line on stderr (default: on a terminal only)")
	machineFlags(fs, &o.cfg, &o.v)
	return fs
}

// limitFlags are the flags of a sweep that do not change its results: left
// out of the setup column that keys its points.
var limitFlags = map[string]bool{"max-vtime": true, "timeout": true, "max-memory": true}

// parseSweep reads the flags of `bglua sweep` into a Spec.
func parseSweep(args []string, stdout, stderr io.Writer) (*sweepOpts, *sweep.Spec, error) {
	o := &sweepOpts{}
	fs := o.flags(stdout, stderr)
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, nil, errHelp
		}
		return nil, nil, err
	}
	s := &sweep.Spec{Out: o.out, NoHostTime: o.noHostTime, NoPlots: o.noPlot}
	var err error
	if s.Ranks, err = parseList("--ranks", o.ranks, func(w string) (int, error) {
		n, err := strconv.Atoi(w)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("%q is not a rank count (a whole number, at least 1)", w)
		}
		return n, nil
	}); err != nil {
		return nil, nil, err
	}
	if s.Sizes, err = parseList("--sizes", o.sizes, parseBytes); err != nil {
		return nil, nil, err
	}
	if s.Seeds, err = parseList("--seeds", o.seeds, func(w string) (int64, error) {
		n, err := strconv.ParseInt(w, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a seed (a whole number)", w)
		}
		return n, nil
	}); err != nil {
		return nil, nil, err
	}
	if len(o.colls) == 0 {
		s.Choices = []sweep.Choice{sweep.NewChoice(nil)}
	}
	if slices.Contains(o.colls, "help") {
		printAlgorithms(stdout)
		return nil, nil, errHelp
	}
	for _, c := range o.colls {
		m, err := parseColl(c)
		if err != nil {
			return nil, nil, err
		}
		ch := sweep.NewChoice(m)
		if slices.ContainsFunc(s.Choices, func(d sweep.Choice) bool { return d.Label == ch.Label }) {
			return nil, nil, fmt.Errorf("--coll %s is given twice", ch.Label)
		}
		s.Choices = append(s.Choices, ch)
	}
	if o.jobs < 1 {
		return nil, nil, fmt.Errorf("--jobs must be at least 1 (got %d)", o.jobs)
	}
	s.Jobs = o.jobs
	if strings.TrimSpace(o.out) == "" {
		return nil, nil, errors.New("--out is empty: give the CSV file")
	}
	if err := machineValues(&o.cfg, &o.v); err != nil {
		return nil, nil, err
	}
	s.Base = o.cfg
	// What sets the results apart: the flags given, in name order.
	var setup []string
	machine := pflag.NewFlagSet("", pflag.ContinueOnError)
	machineFlags(machine, &bglua.Config{}, &runFlags{})
	fs.Visit(func(f *pflag.Flag) {
		if machine.Lookup(f.Name) == nil || limitFlags[f.Name] {
			return
		}
		setup = append(setup, "--"+f.Name+" "+f.Value.String())
	})
	s.Setup = strings.Join(setup, " ")
	rest := fs.Args()
	if len(rest) == 0 {
		return nil, nil, errors.New("no program given (" + sweepUsage + ")")
	}
	switch {
	case o.ranks == "":
		return nil, nil, errors.New("--ranks is required: the rank counts to sweep, e.g. --ranks 8,64")
	case o.sizes == "":
		return nil, nil, errors.New("--sizes is required: the sizes to sweep, e.g. --sizes 8,1k,64k")
	}
	prog, err := bglua.ProgramFile(rest[0])
	if err != nil {
		return nil, nil, err
	}
	s.Program, s.Args = prog, rest[1:]
	return o, s, nil
}

// parseList reads a comma-separated list of flag with parse, each value
// once.
func parseList[T comparable](flag, s string, parse func(string) (T, error)) ([]T, error) {
	if s == "" {
		return nil, nil
	}
	var out []T
	for _, w := range strings.Split(s, ",") {
		v, err := parse(strings.TrimSpace(w))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", flag, err)
		}
		if slices.Contains(out, v) {
			return nil, fmt.Errorf("%s: %s is given twice", flag, strings.TrimSpace(w))
		}
		out = append(out, v)
	}
	return out, nil
}

// parseBytes reads a size in whole bytes: 0, or a number with a unit K, M,
// G or T (powers of 1,024), e.g. 1k, 64K, 1.5M.
func parseBytes(w string) (int64, error) {
	if w == "0" {
		return 0, nil
	}
	n, err := parseSize(w)
	num := strings.TrimRightFunc(w, unicode.IsLetter)
	mult, _ := parseSize("1" + w[len(num):])
	f, _ := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if v := f * float64(mult); err != nil || v != math.Trunc(v) {
		return 0, fmt.Errorf("%q is not a size in whole bytes (e.g. 0, 8, 1k, 64k, 1M)", w)
	}
	return n, nil
}

// runSweep is `bglua sweep [flags] PROGRAM.lua [args...]`.
func runSweep(args []string, stdout, stderr io.Writer) int {
	o, s, err := parseSweep(args, stdout, stderr)
	if errors.Is(err, errHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "bglua sweep: %v\n", err)
		return exitCode(usageOr(err))
	}
	// The points run in this process, one goroutine each: as many Ps as
	// points at once (each run in one partition, so its own thread).
	goruntime.GOMAXPROCS(max(goruntime.GOMAXPROCS(0), s.Jobs))
	s.Base.Tune = bglua.Tuning{Procs: true}
	softMemoryLimit(s.Base.MaxMemory)
	var prog *progress
	if term := isTerminal(stderr); term || o.progress {
		prog = newProgress(stderr, term)
	}
	s.Progress = func(done, failed, total int) {
		if prog == nil {
			return
		}
		now := time.Now()
		if !prog.due(now) && done < total {
			return
		}
		prog.last = now
		line := fmt.Sprintf("bglua sweep: %d/%d points", done, total)
		if failed > 0 {
			line += fmt.Sprintf(" (%d failed)", failed)
		}
		prog.draw(line + fmt.Sprintf(", %.0fs", now.Sub(prog.start).Seconds()))
	}
	s.Failed = func(out sweep.Outcome) {
		if prog != nil {
			prog.clear()
		}
		fmt.Fprintf(stderr, "bglua sweep: %s: %s\n", out.Point, firstLine(flagError(out.Err)))
	}
	ctx, stop := interruptible(stderr)
	defer stop()
	rep, err := sweep.Run(ctx, *s)
	if prog != nil {
		prog.clear()
	}
	if err != nil {
		fmt.Fprintf(stderr, "bglua sweep: %v\n", flagError(err))
		if rep == nil {
			return exitCode(usageOr(flagError(err)))
		}
		return exitError
	}
	if err := sweep.WriteTable(stdout, s, rep); err != nil {
		fmt.Fprintf(stderr, "bglua sweep: %v\n", err)
		return exitError
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(stderr, "bglua sweep: note: %s\n", n)
	}
	failed := 0
	for _, out := range rep.Outcomes {
		if out.Err != nil {
			failed++
		}
	}
	points := "points"
	if len(rep.Outcomes) == 1 {
		points = "point"
	}
	fmt.Fprintf(stderr, "bglua sweep: %d %s, %d run, %d failed; wrote %s\n", len(rep.Outcomes), points, rep.Ran(), failed, strings.Join(rep.Files, ", "))
	if ctx.Err() != nil {
		return exitInterrupted
	}
	return exitCode(flagError(rep.FirstError()))
}

// usageOr is err as a usage error unless it is a run's error of its own
// kind (a limit, an interrupt...): what goes wrong before a sweep runs is
// its command line's or its files'.
func usageOr(err error) error {
	if exitCode(err) == exitError {
		return &bglua.UsageError{Msg: err.Error()}
	}
	return err
}
