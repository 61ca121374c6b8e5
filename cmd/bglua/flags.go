package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	goruntime "runtime"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/bglua/bglua"
)

var errHelp = errors.New("help requested")

type runOpts struct {
	cfg        bglua.Config
	progress   bool
	trace      string
	traceRanks string
	stats      bool
	statsJSON  string
	cpuProfile string
	memProfile string
	program    string
	quiet      bool
	collHelp   bool
	mdsDir     string
	noFiles    bool     // a process of an MPI job other than 0: it writes no file
	notes      []string // what the command line probably did not mean
}

// parseRun reads the flags of a run, then the program and its arguments.
// Help (--help, -h) goes to stdout, as asked for; errors to stderr.
func parseRun(args []string, stdout, stderr io.Writer) (*runOpts, error) {
	o := &runOpts{}
	fs, v := o.flags(stdout, stderr)
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, errHelp
		}
		return nil, err
	}
	if err := o.values(v); err != nil {
		return nil, err
	}
	if o.collHelp && len(fs.Args()) == 0 {
		return o, nil // --coll help alone: the built-in algorithms
	}
	if err := o.args(fs); err != nil {
		return nil, err
	}
	return o, nil
}

// runFlags are the flags of a run that parseRun reads into the Config
// after pflag: durations, sizes and lists.
type runFlags struct {
	slice, mds, coll, maxv, timeout, maxMem *string
}

// flags defines the flags of a run, into o and v.
func (o *runOpts) flags(stdout, stderr io.Writer) (*pflag.FlagSet, *runFlags) {
	v := &runFlags{}
	fs := pflag.NewFlagSet("bglua", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SetInterspersed(false) // what follows the program belongs to the program
	fs.Usage = func() {
		fmt.Fprintf(stdout, "usage: bglua [flags] PROGRAM.lua [script args...]\n       bglua test [flags] [PATH...]\n       bglua sweep [flags] PROGRAM.lua [script args...]\n       bglua editor-setup [DIR]\n       bglua completion bash|zsh|fish\n       bglua version\n       bglua help [coll|test|sweep|completion|editor-setup]\n\nflags:\n%s", fs.FlagUsages())
	}
	c := &o.cfg
	fs.IntVarP(&c.Ranks, "ranks", "n", 1, "number of MPI ranks")
	fs.StringVar(&c.Torus, "torus", "", "torus dimensions in nodes, XxYxZ (default: smallest near-cube that holds the ranks)")
	machineFlags(fs, c, v)
	v.mds = fs.String("mds", "", "monitoring output: mmds (per-rank statistics and distributions), emds (per-slice bcs metrics), or mmds,emds")
	fs.StringVar(&o.mdsDir, "mds-dir", "mds", "directory for the --mds CSV files")
	v.coll = fs.String("coll", "", "collective algorithms, NAME=ALG[:KEY=VALUE,...][,NAME=ALG...] ('--coll help' lists them; '--coll help PROGRAM.lua' those it registers too)")
	fs.IntVar(&c.Threads, "threads", goruntime.NumCPU(), "OS threads that advance the partitions of a torus of several blocks (one per block of at most 8x8x8 nodes; in a run of one partition a second makes the ranks' Lua states); the results are the same for every N")
	fs.Int64Var(&c.Seed, "seed", 1, "seed of every random choice (math.random, adaptive routing's ties)")
	fs.BoolVar(&o.progress, "progress", false, "progress on stderr: a redrawn line on a terminal, a line every 5 s otherwise (default: on a terminal only, and not with --quiet)")
	fs.StringVar(&o.trace, "trace", "", "write a timeline to FILE (Chrome trace JSON: open it in ui.perfetto.dev)")
	fs.StringVar(&o.traceRanks, "trace-ranks", "", "only these ranks in the trace, e.g. 0-15,64")
	fs.BoolVar(&o.stats, "stats", false, "statistics on stderr at the end: primitives, regions, busiest links")
	fs.StringVar(&o.statsJSON, "stats-json", "", "write the per-primitive statistics as JSON to FILE")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a Go CPU profile of bglua itself to FILE")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a Go heap profile of bglua itself to FILE at the end")
	fs.BoolVar(&o.quiet, "quiet", false, "only the program's own output and errors: no rank prefix, no summary")
	return fs, v
}

// machineFlags defines the flags of a run that describe the machine, its
// software and the limits of a run, shared by the run and `bglua sweep`,
// into c and v.
func machineFlags(fs *pflag.FlagSet, c *bglua.Config, v *runFlags) {
	fs.BoolVar(&c.Mesh, "mesh", false, "no wrap-around links")
	fs.StringVar(&c.Mode, "mode", "co", "node mode: co (coprocessor), vn (virtual node, 2 ranks per node) or heater")
	fs.StringVar(&c.Mapping, "mapping", "XYZT", "rank placement: XYZT, TXYZ or a mapping file of 'x y z t' lines")
	fs.StringVar(&c.Machine, "machine", "bgl", "machine: bgl, bgc (the emulator paper's design) or a FILE.lua returning field overrides")
	fs.StringVar(&c.Runtime, "runtime", "direct", "MPI runtime: direct (over the message layer) or bcs (buffered coscheduling)")
	v.slice = fs.String("timeslice", "500us", "bcs time slice, e.g. 250us")
	fs.StringVar(&c.Routing, "routing", "", "torus routing of the packets that allow either (rendezvous data, adaptive eager): deterministic or adaptive (default: each protocol's own)")
	fs.StringVar(&c.ProgressModel, "progress-model", "coprocessor", "who advances nonblocking collectives (mpi.iallreduce...): coprocessor (CPU 1 in co mode; inside MPI calls in vn and heater modes) or inline (only while the rank is inside an MPI call)")
	v.maxv = fs.String("max-vtime", "", "stop with exit status 4 when virtual time passes DUR (e.g. 10ms)")
	v.timeout = fs.String("timeout", "none", "stop with exit status 4 when host (wall-clock) time passes DUR (e.g. 30s, 10m), even in a rank's endless loop; the report names the ranks running and their Lua lines")
	v.maxMem = fs.String("max-memory", flagSize(defaultMaxMemory()), "stop with exit status 4 when bglua's memory passes SIZE (e.g. 4GiB, or none); a single Lua value that would pass it is an error of its rank; the default is 3/4 of this machine's memory")
	fs.IntVar(&c.EagerLimit, "eager-limit", 0, "largest message in bytes sent eagerly (default: the machine's, 1000)")
	fs.IntVar(&c.Grain, "grain", 0, "0 (exact): message data batch by batch, a lone large transfer advanced at once; 1: batch by batch always (the reference); N > 1: batches of N times the machine's FIFOs, about N times fewer events for large messages, a CPU's work interleaving at N times the grain (see docs/scale.md: Exact coarsening, and Fidelity and speed)")
	fs.IntVar(&c.RzvLimit, "rzv-limit", 0, "messages larger than this many bytes use the rendezvous protocol, those between --eager-limit and it the adaptive eager protocol (default: the machine's, 1000)")
}

// machineValues checks the flags of machineFlags and reads v into c.
func machineValues(c *bglua.Config, v *runFlags) error {
	if c.Grain < 0 {
		return fmt.Errorf("--grain must be 0 (exact) or more (got %d)", c.Grain)
	}
	d, err := parseDuration(*v.slice)
	if err != nil {
		return fmt.Errorf("--timeslice: %v", err)
	}
	if d <= 0 {
		return fmt.Errorf("--timeslice must be positive (got %s)", *v.slice)
	}
	c.Timeslice = d
	if *v.maxv != "" {
		s, err := parseDuration(*v.maxv)
		if err != nil {
			return fmt.Errorf("--max-vtime: %v", err)
		}
		c.MaxVTime = s
	}
	if c.Timeout, err = parseTimeout("--timeout", *v.timeout); err != nil {
		return err
	}
	if c.MaxMemory, err = parseMaxMemory(*v.maxMem); err != nil {
		return err
	}
	return nil
}

// values checks the flags and reads v into the Config; --coll help sets
// o.collHelp.
func (o *runOpts) values(v *runFlags) error {
	c := &o.cfg
	c.Quiet = o.quiet
	c.Stats = o.stats || o.statsJSON != ""
	if c.Ranks < 1 {
		// The embedding API reads 0 as "default"; on the command line it is a mistake.
		return fmt.Errorf("--ranks must be at least 1 (got %d)", c.Ranks)
	}
	if o.traceRanks != "" {
		keep, err := parseRankList(o.traceRanks, c.Ranks)
		if err != nil {
			return fmt.Errorf("--trace-ranks: %v", err)
		}
		c.TraceRanks = keep
	}
	if c.Threads < 1 {
		return fmt.Errorf("--threads must be at least 1 (got %d)", c.Threads)
	}
	if *v.coll == "help" {
		o.collHelp = true
	} else if *v.coll != "" {
		m, err := parseColl(*v.coll)
		if err != nil {
			return err
		}
		c.Coll = m
	}
	if err := machineValues(c, v); err != nil {
		return err
	}
	if *v.mds != "" {
		var err error
		if c.MMDS, c.EMDS, err = parseMDS(*v.mds); err != nil {
			return fmt.Errorf("--%v", err)
		}
	}
	if (c.MMDS || c.EMDS) && strings.TrimSpace(o.mdsDir) == "" {
		return errors.New("--mds-dir is empty: give the directory for the --mds files")
	}
	return nil
}

// parseMDS reads the monitors of --mds (and of a case's mds field):
// mmds, emds or both, comma-separated.
func parseMDS(s string) (mmds, emds bool, err error) {
	for _, part := range strings.Split(s, ",") {
		switch strings.TrimSpace(part) {
		case "mmds":
			mmds = true
		case "emds":
			emds = true
		default:
			return false, false, fmt.Errorf("mds: unknown monitor %q (want mmds, emds or mmds,emds)", part)
		}
	}
	return mmds, emds, nil
}

// args reads the program and its arguments, and notes what the command
// line probably did not mean.
func (o *runOpts) args(fs *pflag.FlagSet) error {
	c := &o.cfg
	rest := fs.Args()
	if len(rest) == 0 {
		return errors.New("no program given (usage: bglua [flags] PROGRAM.lua [args...])")
	}
	o.program, c.Args = rest[0], rest[1:]
	// Flags that do nothing without another: given alone, most often the
	// other was forgotten.
	for _, d := range []struct{ flag, needs string }{{"trace-ranks", "trace"}, {"mds-dir", "mds"}} {
		if fs.Changed(d.flag) && !fs.Changed(d.needs) {
			o.notes = append(o.notes, fmt.Sprintf("--%s does nothing without --%s", d.flag, d.needs))
		}
	}
	if fs.Changed("timeslice") && c.Runtime != "bcs" {
		o.notes = append(o.notes, "--timeslice does nothing without --runtime bcs")
	}
	for _, a := range c.Args {
		if name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.HasPrefix(a, "-") && name != "" && (len(name) > 1 && fs.Lookup(name) != nil || len(name) == 1 && fs.ShorthandLookup(name) != nil) {
			// Legal (the program gets it in arg), but most often a flag
			// meant for bglua: say so once, where --quiet does not.
			o.notes = append(o.notes, fmt.Sprintf("%s comes after the program, so it is the program's argument, not bglua's flag (flags go before %s)", a, o.program))
			break
		}
	}
	return nil
}

// normalize lets single-dash long flags work like double-dash ones
// (-ranks 512), which pflag alone would read as the shorthands -r -a -n...
// It stops at the program: later words belong to the program.
func normalize(args []string, fs *pflag.FlagSet) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[1] != '-' {
			name := a[1:]
			if j := strings.IndexByte(name, '='); j >= 0 {
				name = name[:j]
			}
			if fs.Lookup(name) != nil {
				a = "-" + a
			}
		}
		out = append(out, a)
		// Skip the value of a flag given as a separate word.
		if strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
			if f := lookup(fs, a); f != nil && f.Value.Type() != "bool" && i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
		}
	}
	return out
}

// parseFlags parses args (normalized) into fs and says what is wrong with
// a flag in bglua's words: pflag's own name the Go function that failed
// ("strconv.ParseInt: parsing \"1e30\": invalid syntax") and reads an
// unknown single-dash long flag as shorthands.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	err := fs.Parse(normalize(args, fs))
	if err == nil || errors.Is(err, pflag.ErrHelp) {
		return err
	}
	msg := err.Error()
	if m := badFlagValue.FindStringSubmatch(msg); m != nil {
		val, name, why := m[1], m[2], m[3]
		f := fs.Lookup(strings.TrimPrefix(name, "--"))
		switch {
		case f != nil && f.Value.Type() == "bool":
			return fmt.Errorf("%s: %q is not true or false (%s alone means true)", name, val, name)
		case strings.Contains(why, "out of range"):
			return fmt.Errorf("%s: %s is too large", name, val)
		default:
			return fmt.Errorf("%s: %q is not a whole number", name, val)
		}
	}
	if m := unknownShorthand.FindStringSubmatch(msg); m != nil {
		// -bogus: a single-dash long flag that does not exist.
		return fmt.Errorf("unknown flag: %s (%s --help lists the flags)", m[2], fs.Name())
	}
	if strings.HasPrefix(msg, "unknown flag: ") {
		return fmt.Errorf("%s (%s --help lists the flags)", msg, fs.Name())
	}
	if m := needsArg.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s needs a value", m[1])
	}
	if strings.HasPrefix(msg, "flag needs an argument: --") {
		return fmt.Errorf("%s needs a value", strings.TrimPrefix(msg, "flag needs an argument: "))
	}
	return err
}

var (
	badFlagValue     = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?(--[\w-]+)" flag: (.*)$`)
	unknownShorthand = regexp.MustCompile(`^unknown shorthand flag: '(.)' in (-\S+)$`)
	needsArg         = regexp.MustCompile(`^flag needs an argument: '.' in (-\S+)$`)
)

func lookup(fs *pflag.FlagSet, a string) *pflag.Flag {
	if strings.HasPrefix(a, "--") {
		return fs.Lookup(a[2:])
	}
	if len(a) == 2 {
		return fs.ShorthandLookup(a[1:])
	}
	return nil
}

// parseRankList reads "0-3,8,10-12" into a membership test.
func parseRankList(s string, ranks int) (func(int) bool, error) {
	type span struct{ lo, hi int }
	var spans []span
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return nil, fmt.Errorf("%q: want ranks and ranges such as 0-15,64", s)
		}
		if a >= ranks {
			// (A range may run past the last rank: 0-15 on 8 ranks is 0-7.)
			return nil, fmt.Errorf("%q: rank %d is not one of the run's %d ranks (0-%d)", s, a, ranks, ranks-1)
		}
		spans = append(spans, span{a, b})
	}
	return func(r int) bool {
		for _, sp := range spans {
			if r >= sp.lo && r <= sp.hi {
				return true
			}
		}
		return false
	}, nil
}
