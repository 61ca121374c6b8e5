package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

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
	var suites []*bglua.Suite
	if err == nil {
		suites, err = loadSuites(t.paths, t.base)
	}
	if err != nil {
		fmt.Fprintf(stderr, "bglua test: %v\n", err)
		return exitUsage
	}
	softMemoryLimit(t.base.MaxMemory)
	ctx, stop := interruptible(stderr)
	defer stop()
	for _, s := range suites {
		js := junitSuite{Name: s.File}
		for i := range s.Cases {
			if code, end := t.runCase(ctx, s, i, &js); end {
				return code
			}
		}
		t.report.Suites = append(t.report.Suites, js)
	}
	if t.junit != "" {
		if err := t.report.write(t.junit); err != nil {
			fmt.Fprintf(stderr, "bglua test: --junit: %v\n", err)
			return exitUsage
		}
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", t.passed, t.failed)
	if t.failed > 0 {
		return exitError
	}
	return exitOK
}

// testRun is one `bglua test`: what its flags asked for and how its cases
// went.
type testRun struct {
	stdout, stderr io.Writer
	base           bglua.Config   // what a case does not set
	only           *regexp.Regexp // the cases to run, by "file: name"; nil: all
	junit          string
	verbose        bool
	paths          []string

	passed, failed int
	report         junitReport
}

// parseTests reads the flags of `bglua test` and its paths.
func parseTests(args []string, stdout, stderr io.Writer) (*testRun, error) {
	fs := pflag.NewFlagSet("bglua test", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stdout, "usage: bglua test [flags] [PATH...]   (PATH: *_test.lua files or directories; default .)\n\nflags:\n%s", fs.FlagUsages())
	}
	t := &testRun{stdout: stdout, stderr: stderr}
	runPat := fs.String("run", "", "run only the cases whose \"file: name\" matches this regular expression")
	fs.StringVar(&t.junit, "junit", "", "also write the results as JUnit XML to FILE")
	seed := fs.Int64("seed", 1, "seed of cases that set none")
	fs.BoolVarP(&t.verbose, "verbose", "v", false, "show each case's output, not only that of failures")
	timeout := fs.String("timeout", "10m", "host (wall-clock) time a case may take unless it sets timeout (none: no limit)")
	maxMem := fs.String("max-memory", flagSize(defaultMaxMemory()), "memory limit of every case unless it sets max_memory (none: no limit)")
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
	t.paths = fs.Args()
	if len(t.paths) == 0 {
		t.paths = []string{"."}
	}
	return t, nil
}

// loadSuites loads the suites under paths and checks the settings of every
// case over base before any runs, filtered out or not: a typo in a suite is
// bad input, found at once.
func loadSuites(paths []string, base bglua.Config) ([]*bglua.Suite, error) {
	files, err := bglua.SuiteFiles(paths)
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no *_test.lua files in %s", strings.Join(paths, " "))
	}
	if err != nil {
		return nil, err
	}
	var suites []*bglua.Suite
	for _, f := range files {
		s, err := bglua.LoadSuite(f)
		if err != nil {
			return nil, err
		}
		suites = append(suites, s)
	}
	for _, s := range suites {
		for i := range s.Cases {
			if _, err := caseConfig(s, base, i); err != nil {
				return nil, err
			}
		}
	}
	return suites, nil
}

// runCase runs case i of s, unless --run leaves it out, and writes its line
// (and output) and its JUnit entry in js. end says that the command ends
// here, with status code: a case that is bad input, or an interrupt.
func (t *testRun) runCase(ctx context.Context, s *bglua.Suite, i int, js *junitSuite) (code int, end bool) {
	c := s.Cases[i]
	label := s.File + ": " + c.Name
	if t.only != nil && !t.only.MatchString(label) {
		return 0, false
	}
	cfg, err := caseConfig(s, t.base, i)
	if err != nil {
		fmt.Fprintf(t.stderr, "bglua test: %v\n", err)
		return exitUsage, true
	}
	var out bytes.Buffer
	cfg.Stdout = &out
	stopHard := hardTimeout(t.stderr, cfg.Timeout)
	res, runErr := bglua.Run(ctx, cfg, s.Program)
	runErr = flagError(runErr)
	stopHard()
	var u *bglua.UsageError
	if errors.As(runErr, &u) {
		fmt.Fprintf(t.stderr, "bglua test: %s: case %q: %v\n", s.File, c.Name, runErr)
		return exitUsage, true
	}
	var intr *bglua.InterruptedError
	if errors.As(runErr, &intr) {
		// ^C: the case running is named, the rest are not run.
		fmt.Fprintf(t.stdout, "INTERRUPTED %s\n", label)
		writeIndented(t.stdout, out.String())
		fmt.Fprintf(t.stderr, "bglua test: %s: case %q: %v\n", s.File, c.Name, runErr)
		fmt.Fprintf(t.stdout, "%d passed, %d failed\n", t.passed, t.failed)
		return exitInterrupted, true
	}
	if runErr == nil && res != nil {
		// Shown with the case's output: under -v, or when it fails.
		warnLeftovers(&out, res)
	}
	ok, why := s.Verdict(i, runErr)
	why = caseHints.Replace(why)
	tc := junitCase{Name: c.Name, Class: s.File}
	if res != nil {
		tc.Props = []junitProp{{Name: "virtual_seconds", Value: fmt.Sprintf("%.9g", res.Seconds)}, {Name: "ranks", Value: fmt.Sprint(res.Ranks)}}
	}
	if ok {
		t.passed++
		fmt.Fprintf(t.stdout, "ok   %s\n", label)
	} else {
		t.failed++
		fmt.Fprintf(t.stdout, "FAIL %s (%s)\n", label, why)
		tc.Failure = &junitFailure{Message: why, Text: failureText(runErr, out.String())}
		js.Failures++
	}
	if t.verbose || !ok {
		writeIndented(t.stdout, out.String())
	}
	js.Tests++
	js.Cases = append(js.Cases, tc)
	return 0, false
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

// JUnit XML, the subset CI systems read.
type junitReport struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name    string        `xml:"name,attr"`
	Class   string        `xml:"classname,attr"`
	Props   []junitProp   `xml:"properties>property,omitempty"`
	Failure *junitFailure `xml:"failure,omitempty"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func (r *junitReport) write(file string) error {
	b, err := xml.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}
