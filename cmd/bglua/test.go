package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/bglua/bglua"
)

// runTests is `bglua test [flags] [PATH...]`: every case of every suite runs
// as its own simulation; one line per case, then "N passed, N failed".
func runTests(args []string, stdout, stderr io.Writer) int {
	t, err := parseTests(args, stdout, stderr)
	if errors.Is(err, errHelp) {
		return exitOK
	}
	var files []string
	if err == nil {
		files, err = suiteFiles(t.paths)
	}
	if err == nil && t.junit != "" && !t.list {
		// Found before the cases run, not after them.
		err = checkWritable(t.junit)
	}
	if err != nil {
		fmt.Fprintf(stderr, "bglua test: %v\n", err)
		return exitUsage
	}
	loaded := t.loadSuites(files, t.base)
	if t.list {
		t.shuffleOrder(loaded)
		return t.listCases(loaded)
	}
	t.out.start(t.planned(loaded))
	t.shuffleOrder(loaded)
	softMemoryLimit(t.base.MaxMemory)
	ctx, stop := interruptible(stderr)
	defer stop()
	code := exitOK
	for _, l := range loaded {
		js := newJUnitSuite(l.file, t.props())
		if l.err != nil {
			t.suiteError(l, &js)
		}
		for _, i := range l.order {
			if c, end := t.runCase(ctx, l.suite, i, &js); end {
				code = c
				break
			}
		}
		t.report.addSuite(js)
		if code != exitOK {
			break
		}
	}
	if t.junit != "" {
		// Written whatever happened, for CI to show it.
		if err := t.report.write(t.junit); err != nil {
			fmt.Fprintf(stderr, "bglua test: --junit: %v\n", pathError(err))
			return exitUsage
		}
	}
	t.summary()
	switch {
	case code != exitOK:
		return code
	case t.failed > 0:
		return exitError
	}
	return exitOK
}

// summary is the last line: "N passed, N failed", and how many cases were
// pending if any were.
func (t *testRun) summary() {
	line := fmt.Sprintf("%d passed, %d failed", t.passed, t.failed)
	if t.pending > 0 {
		line += fmt.Sprintf(", %d pending", t.pending)
	}
	t.out.end(line)
}

// selected says whether --run, --filter and --filter-out leave case i of
// s in.
func (t *testRun) selected(s *bglua.Suite, i int) bool {
	label := s.File + ": " + s.Cases[i].Name
	if t.only != nil && !t.only.MatchString(label) {
		return false
	}
	if t.filter != "" {
		if ok, _ := bglua.LuaMatch(t.filter, label); !ok {
			return false
		}
	}
	if t.filterOut != "" {
		if ok, _ := bglua.LuaMatch(t.filterOut, label); ok {
			return false
		}
	}
	return true
}

// planned is how many result lines the run will write: the cases selected,
// and one for each suite that did not load.
func (t *testRun) planned(loaded []loadedSuite) int {
	n := 0
	for _, l := range loaded {
		n += len(l.order)
		if l.err != nil {
			n++
		}
	}
	return n
}

// listCases is --list: the cases selected, one "FILE: NAME" a line, none
// run; a suite that does not load is named on stderr (exit 1).
func (t *testRun) listCases(loaded []loadedSuite) int {
	code := exitOK
	for _, l := range loaded {
		if l.err != nil {
			fmt.Fprintf(t.stderr, "bglua test: the suite does not load: %v\n", l.err)
			code = exitError
			continue
		}
		for _, i := range l.order {
			c := l.suite.Cases[i]
			if c.Pending != "" {
				fmt.Fprintf(t.stdout, "%s: %s (%s)\n", l.file, c.Name, c.Pending)
			} else {
				fmt.Fprintf(t.stdout, "%s: %s\n", l.file, c.Name)
			}
		}
	}
	return code
}

// shuffleOrder is --shuffle: the suites and the cases of each in an order
// drawn from the shuffle seed, which is written first so that the order
// can be had again.
func (t *testRun) shuffleOrder(loaded []loadedSuite) {
	if !t.shuffle {
		return
	}
	t.out.note(fmt.Sprintf("shuffle seed %d (--shuffle=%d runs this order again)", t.shuffleSeed, t.shuffleSeed))
	r := rand.New(rand.NewPCG(uint64(t.shuffleSeed), 0))
	r.Shuffle(len(loaded), func(i, j int) { loaded[i], loaded[j] = loaded[j], loaded[i] })
	for _, l := range loaded {
		r.Shuffle(len(l.order), func(i, j int) { l.order[i], l.order[j] = l.order[j], l.order[i] })
	}
}

// checkWritable says whether file can be written, creating it.
func checkWritable(file string) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("--junit: cannot write the report: %v", pathError(err))
	}
	return f.Close()
}

// testRun is one `bglua test`: what its flags asked for and how its cases
// went.
type testRun struct {
	stdout, stderr io.Writer
	base           bglua.Config   // what a case does not set
	only           *regexp.Regexp // the cases to run, by "file: name"; nil: all
	filter         string         // a Lua pattern the "file: name" of a case run matches
	filterOut      string         // a Lua pattern it does not match
	list           bool
	shuffle        bool
	shuffleSeed    int64
	junit          string
	verbose        bool
	paths          []string
	out            testOutput

	passed, failed, pending int
	report                  junitReport
}

// testValues are the flags of `bglua test` that parseTests reads further.
type testValues struct {
	runPat, format, timeout, maxMem *string
	seed                            *int64
}

// flagSet defines the flags of `bglua test`, into t and the values it
// returns.
func (t *testRun) flagSet(stdout, stderr io.Writer) (*pflag.FlagSet, testValues) {
	fs := pflag.NewFlagSet("bglua test", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stdout, "usage: bglua test [flags] [PATH...]   (PATH: *_test.lua or *_spec.lua files, or directories; default .)\n\nflags:\n%s", fs.FlagUsages())
	}
	var v testValues
	v.runPat = fs.String("run", "", "run only the cases whose \"file: name\" matches this regular expression")
	fs.StringVar(&t.filter, "filter", "", "run only the cases whose \"file: name\" matches this Lua pattern (as busted)")
	fs.StringVar(&t.filterOut, "filter-out", "", "leave out the cases whose \"file: name\" matches this Lua pattern")
	fs.BoolVar(&t.list, "list", false, "list the cases (\"file: name\"), run none")
	fs.Int64Var(&t.shuffleSeed, "shuffle", 0, "run suites and cases in a random order; --shuffle=N repeats the order of seed N (printed first)")
	fs.Lookup("shuffle").NoOptDefVal = "-1"
	v.format = fs.StringP("output", "o", "text", "output format: text, or tap (Test Anything Protocol)")
	fs.StringVar(&t.junit, "junit", "", "also write the results as JUnit XML to FILE")
	v.seed = fs.Int64("seed", 1, "seed of cases that set none")
	fs.BoolVarP(&t.verbose, "verbose", "v", false, "show each case's output, not only that of failures")
	v.timeout = fs.String("timeout", "10m", "host (wall-clock) time a case may take unless it sets timeout (none: no limit)")
	v.maxMem = fs.String("max-memory", flagSize(defaultMaxMemory()), "memory limit of every case unless it sets max_memory (none: no limit)")
	return fs, v
}

// parseTests reads the flags of `bglua test` and its paths.
func parseTests(args []string, stdout, stderr io.Writer) (*testRun, error) {
	t := &testRun{stdout: stdout, stderr: stderr}
	fs, v := t.flagSet(stdout, stderr)
	runPat, format, timeout, maxMem, seed := v.runPat, v.format, v.timeout, v.maxMem, v.seed
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, errHelp
		}
		return nil, err
	}
	caseTimeout, err := parseTimeout("--timeout", *timeout)
	if err != nil {
		return nil, err
	}
	caseMemory, err := parseMaxMemory(*maxMem)
	if err != nil {
		return nil, err
	}
	// Cases raise GOMAXPROCS for their threads, as runs do; the collector
	// keeps its default.
	t.base = bglua.Config{Seed: *seed, Timeout: caseTimeout, MaxMemory: caseMemory, Tune: bglua.Tuning{Procs: true}}
	if *runPat != "" {
		if t.only, err = regexp.Compile(*runPat); err != nil {
			return nil, fmt.Errorf("--run: %v", err)
		}
	}
	for _, p := range []struct{ flag, pat string }{{"--filter", t.filter}, {"--filter-out", t.filterOut}} {
		if _, err := bglua.LuaMatch(p.pat, ""); p.pat != "" && err != nil {
			return nil, fmt.Errorf("%s: %q is not a Lua pattern: %v", p.flag, p.pat, err)
		}
	}
	if fs.Changed("shuffle") {
		t.shuffle = true
		if t.shuffleSeed < 0 {
			t.shuffleSeed = time.Now().UnixNano() % 1_000_000
		}
	}
	switch strings.ToLower(*format) {
	case "text":
		t.out = &textOutput{w: stdout}
	case "tap":
		t.out = &tapOutput{w: stdout}
	default:
		return nil, fmt.Errorf("--output: %q is not text or tap", *format)
	}
	t.paths = fs.Args()
	if len(t.paths) == 0 {
		t.paths = []string{"."}
	}
	return t, nil
}

// suiteFiles finds the suite files under paths.
func suiteFiles(paths []string) ([]string, error) {
	files, err := bglua.SuiteFiles(paths)
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no *_test.lua or *_spec.lua files in %s", strings.Join(paths, " "))
	}
	return files, err
}

// loadedSuite is a suite file and its cases, or why it could not be read.
type loadedSuite struct {
	file  string
	suite *bglua.Suite
	err   error
	order []int // the cases to run, by index, in the order they run
}

// loadSuites loads the suites in files and checks the settings of every
// case over base before any runs, filtered out or not: a typo in a suite is
// found at once. A suite that does not load, or has a case with a bad
// setting, is an errored suite; the others run.
func (t *testRun) loadSuites(files []string, base bglua.Config) []loadedSuite {
	var loaded []loadedSuite
	for _, f := range files {
		s, err := bglua.LoadSuite(f)
		for i := 0; err == nil && i < len(s.Cases); i++ {
			var cfg bglua.Config
			if cfg, err = caseConfig(s, base, i); err == nil {
				if err = flagError(cfg.Validate()); err != nil {
					err = fmt.Errorf("%s: case %q: %v", f, s.Cases[i].Name, err)
				}
			}
		}
		l := loadedSuite{file: f, suite: s, err: err}
		for i := 0; err == nil && i < len(s.Cases); i++ {
			if t.selected(s, i) {
				l.order = append(l.order, i)
			}
		}
		loaded = append(loaded, l)
	}
	return loaded
}

// suiteError reports a suite that did not load: a failed line of its own,
// and an errored case in JUnit.
func (t *testRun) suiteError(l loadedSuite, js *junitSuite) {
	t.failed++
	msg := strings.TrimPrefix(l.err.Error(), l.file+": ")
	t.out.result(resultFail, l.file, "the suite does not load: "+msg, "")
	js.add(junitCase{Name: "(load)", Class: junitClass(l.file), Error: &junitProblem{Message: msg, Type: "load", Text: l.err.Error()}}, 0)
}

// props are the settings every case of the run shares, as JUnit
// properties of each suite.
func (t *testRun) props() []junitProp {
	return []junitProp{
		{Name: "bglua.version", Value: bglua.Version},
		{Name: "seed", Value: fmt.Sprint(t.base.Seed)},
		{Name: "timeout", Value: timeoutProp(t.base.Timeout)},
	}
}

func timeoutProp(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return d.String()
}

// runCase runs case i of s, unless --run leaves it out, and writes its line
// (and output) and its JUnit entry in js. end says that the command ends
// here, with status code: an interrupt.
func (t *testRun) runCase(ctx context.Context, s *bglua.Suite, i int, js *junitSuite) (code int, end bool) {
	c := s.Cases[i]
	label := s.File + ": " + c.Name
	tc := junitCase{Name: c.Name, Class: junitClass(s.File)}
	if c.Pending != "" {
		t.pending++
		t.out.result(resultSkip, label, c.Pending, "")
		tc.Skipped = &junitSkipped{Message: c.Pending}
		js.add(tc, 0)
		return 0, false
	}
	cfg, outs, err := caseSettings(s, t.base, i)
	var trace *os.File
	if err == nil && outs.trace != "" {
		if trace, err = os.Create(outs.trace); err != nil {
			err = fmt.Errorf("field trace: cannot write the trace file: %v", pathError(err))
		}
		cfg.Trace = trace
	}
	if err != nil {
		t.failed++
		t.out.result(resultFail, label, err.Error(), "")
		tc.Error = &junitProblem{Message: err.Error(), Type: "usage"}
		js.add(tc, 0)
		return 0, false
	}
	var out bytes.Buffer
	cfg.Stdout = &out
	start := time.Now()
	stopHard := hardTimeout(t.stderr, cfg.Timeout)
	res, runErr := bglua.Run(ctx, cfg, s.Program)
	runErr = flagError(runErr)
	stopHard()
	host := time.Since(start).Seconds()
	if trace != nil {
		trace.Close()
	}
	if res != nil {
		if werr := outs.write(&out, res); werr != nil && runErr == nil {
			runErr = werr
		}
	}
	if res != nil {
		tc.SystemErr = summary(res, cfg.Grain) + "\n"
	}
	var intr *bglua.InterruptedError
	if errors.As(runErr, &intr) {
		// ^C: the case running is named, the rest are not run.
		t.out.result(resultInterrupted, label, firstLine(runErr), out.String())
		fmt.Fprintf(t.stderr, "bglua test: %s: case %q: %v\n", s.File, c.Name, runErr)
		tc.Error = &junitProblem{Message: firstLine(runErr), Type: "interrupted", Text: failureText(runErr, "")}
		tc.SystemOut = out.String()
		js.add(tc, host)
		return exitInterrupted, true
	}
	if runErr == nil && res != nil {
		// Shown with the case's output: under -v, or when it fails.
		warnLeftovers(&out, res)
	}
	ok, why := s.Verdict(i, runErr)
	why = caseHints.Replace(why)
	shown := ""
	if t.verbose || !ok {
		shown = out.String()
	}
	if ok {
		t.passed++
		t.out.result(resultOK, label, "", shown)
	} else {
		t.failed++
		t.out.result(resultFail, label, why, shown)
		p := &junitProblem{Message: why, Text: caseHints.Replace(failureText(runErr, ""))}
		if kind := problemKind(c, runErr); kind == "failure" {
			p.Type = "expectation"
			tc.Failure = p
		} else {
			p.Type = kind
			tc.Error = p
		}
	}
	tc.SystemOut = out.String()
	js.add(tc, host)
	return 0, false
}

// write writes what the case's fields asked of its run res: the
// statistics table and the monitoring summary in its output w, the files.
func (o caseOutputs) write(w io.Writer, res *bglua.Result) error {
	if o.stats {
		printStats(w, res)
	}
	if o.statsJSON != "" {
		if err := writeStatsJSON(o.statsJSON, res); err != nil {
			return fmt.Errorf("field stats_json: cannot write the statistics file: %v", pathError(err))
		}
	}
	if res.MDS != nil {
		if _, err := res.MDS.WriteDir(o.mdsDir); err != nil {
			return fmt.Errorf("field mds_dir: cannot write the monitoring files: %v", err)
		}
		res.MDS.Summary(w)
		fmt.Fprintf(w, "bglua: monitoring files in %s\n", o.mdsDir)
	}
	return nil
}

// expectation is the message of a failed expect matcher: "file:line:
// expected ...".
var expectation = regexp.MustCompile(`^[^\n]*:\d+: expected `)

// problemKind says how a case that did not pass went wrong, as JUnit tells
// them apart: "failure" for an expectation that did not hold (a matcher,
// or the case's fails or deadlocks), otherwise the kind of error: a
// "deadlock", a "limit" (timeout, max_vtime, max_memory) or an uncaught
// "error".
func problemKind(c bglua.Case, err error) string {
	var lim *bglua.LimitError
	var dl *bglua.DeadlockError
	var re *bglua.RankError
	switch {
	case errors.As(err, &lim):
		return "limit"
	case err == nil || c.Deadlocks || c.Fails != "":
		return "failure"
	case errors.As(err, &dl):
		return "deadlock"
	case errors.As(err, &re) && expectation.MatchString(re.Msg):
		return "failure"
	}
	return "error"
}

// caseHints turns the run command's advice on a limit into a suite's: a
// case sets its limits in fields.
var caseHints = strings.NewReplacer(
	"raise --timeout", "raise the case's timeout field (or bglua test --timeout)",
	"raise --max-memory", "raise the case's max_memory field (or bglua test --max-memory)",
	"raise --max-vtime", "raise the case's max_vtime field",
)

// writeIndented shows a case's output under its line, at most 20 lines.
func writeIndented(w io.Writer, out string) {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return
	}
	if len(lines) > 20 {
		lines = append(append(lines[:10:10], fmt.Sprintf("... %d lines ...", len(lines)-20)), lines[len(lines)-10:]...)
	}
	for _, l := range lines {
		fmt.Fprintf(w, "    | %s\n", l)
	}
}

func failureText(err error, out string) string {
	var b strings.Builder
	if err != nil {
		b.WriteString(err.Error())
		var re *bglua.RankError
		if errors.As(err, &re) && re.Traceback != "" {
			b.WriteString("\n" + re.Traceback)
		}
		b.WriteString("\n")
	}
	b.WriteString(out)
	return b.String()
}

// firstLine is the first line of err's message.
func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
