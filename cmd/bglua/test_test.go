package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestSuitesOfTheProject(t *testing.T) {
	out, errOut, code := runCLI("test", "../../tests")
	if code != 0 || !strings.HasSuffix(out, " passed, 0 failed\n") || errOut != "" {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}

func TestFailingSuite(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "out.xml")
	out, _, code := runCLI("test", "--junit", junit, "testdata/suites/failing")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if last := lines[len(lines)-1]; last != "1 passed, 5 failed" {
		t.Errorf("last line %q", last)
	}
	for _, want := range []string{
		"ok   testdata/suites/failing/failing_test.lua: passes\n",
		// The failure names the case, the rank, file:line, expected and actual.
		"FAIL testdata/suites/failing/failing_test.lua: wrong sum (rank 0 at t=",
		"testdata/suites/failing/failing_test.lua:6: expected 7, got 6)",
		"    | [0] rank 0 computed its part\n",
		"FAIL testdata/suites/failing/failing_test.lua: expected a deadlock (expected a deadlock, the run succeeded)",
		"FAIL testdata/suites/failing/failing_test.lua: expected an error (expected an error matching \"boom\", the run succeeded)",
		"error does not match (expected an error matching \"^boom\", got: rank 0 at t=0s: testdata/suites/failing/failing_test.lua:10: bang)",
		"too slow (rank ",
		"expected a value below 0.0001, got 0.001",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The JUnit file is well-formed and says the same.
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var r junitReport
	if err := xml.Unmarshal(b, &r); err != nil {
		t.Fatalf("JUnit XML does not parse: %v\n%s", err, b)
	}
	if len(r.Suites) != 1 || r.Suites[0].Tests != 6 || r.Suites[0].Failures != 5 || r.Suites[0].Cases[1].Failure == nil {
		t.Errorf("JUnit content: %+v", r)
	}
	if got := r.Suites[0].Cases[1].SystemOut; !strings.Contains(got, "[0] rank 0 computed its part\n") {
		t.Errorf("the ranks' output is not in <system-out>: %q", got)
	}
	again, _ := xml.MarshalIndent(r, "", "  ")
	if strings.TrimSpace(string(again)) != strings.TrimSpace(strings.TrimPrefix(string(b), xml.Header)) {
		t.Errorf("JUnit XML does not survive a round trip:\n%s\n---\n%s", b, again)
	}
}

func TestRunPicksCases(t *testing.T) {
	out, _, code := runCLI("test", "--run", "sum|passes", "testdata/suites/failing")
	if code != 1 || !strings.HasSuffix(out, "1 passed, 1 failed\n") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// A suite that does not load, or has a case with a bad setting, is an
// errored suite (exit 1) that names the problem; the others run.
func TestBadSuites(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ file, want string }{
		{"notable_test.lua", "notable_test.lua: a suite must return a list of cases (or declare them with describe/it), got number"},
		{"norun_test.lua", "norun_test.lua: case \"x\" has no run function"},
		{"field_test.lua", "field_test.lua: case \"x\": unknown field rank (valid: name, run, fails, deadlocks, pending, args, coll,"},
		{"torus_test.lua", "torus_test.lua: case \"x\": --torus: torus \"2x2\""},
		{"grain3_test.lua", "grain3_test.lua: case \"x\": field grain must be 0 to 4096, got -3"},
		{"grain5000_test.lua", "grain5000_test.lua: case \"x\": field grain must be 0 to 4096, got 5000"},
		{"threads_test.lua", "threads_test.lua: case \"x\": field threads must be at least 1, got 0"},
		{"coll_params_test.lua", "coll_params_test.lua: case \"x\": --coll bcast=binomial:seg=4k: bcast algorithm binomial takes no parameters (got seg)"},
		// A bad field is found before any case runs.
		{"late_test.lua", "late_test.lua: case \"typo\": unknown field grian"},
	}
	for _, c := range cases {
		src, err := os.ReadFile(filepath.Join("testdata/suites/bad", c.file+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, c.file)
		os.WriteFile(p, src, 0o644)
		out, errOut, code := runCLI("test", p, "../../tests/p2p_test.lua")
		if code != 1 || !strings.Contains(out, "FAIL "+p+" (the suite does not load: ") || !strings.Contains(out, c.want[len(c.file)+2:]) || !strings.Contains(out, "ok   ../../tests/p2p_test.lua") || errOut != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1 and %q", c.file, code, out, errOut, c.want)
		}
		os.Remove(p)
	}
	if _, errOut, code := runCLI("test", dir); code != 2 || !strings.Contains(errOut, "no *_test.lua or *_spec.lua files") {
		t.Errorf("empty dir: exit %d %q", code, errOut)
	}
	if _, errOut, code := runCLI("test", "--junit", filepath.Join(dir, "no", "such", "dir.xml"), "../../tests/p2p_test.lua"); code != 2 || !strings.Contains(errOut, "--junit:") {
		t.Errorf("unwritable junit: exit %d %q", code, errOut)
	}
}

// A message a case's ranks never took is warned of with the case's output:
// under a failing case, and under every case with -v.
func TestSuiteLeftovers(t *testing.T) {
	const warn = "    | bglua: warning: rank 1 never received a message from rank 0 (tag 7, 4 bytes)\n"
	out, _, code := runCLI("test", "testdata/suites/leftovers")
	if code != 1 || !strings.HasSuffix(out, "1 passed, 1 failed\n") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if n := strings.Count(out, warn); n != 1 || !strings.Contains(out, "(expected an error matching \"boom\", the run succeeded)\n"+warn) {
		t.Errorf("want the warning under the failing case only:\n%s", out)
	}
	out, _, _ = runCLI("test", "-v", "testdata/suites/leftovers")
	if n := strings.Count(out, warn); n != 2 {
		t.Errorf("-v: want the warning under both cases, got %d:\n%s", n, out)
	}
}

// A case stopped by a limit is told to raise the case's field, where its
// limits are set.
func TestSuiteLimitHint(t *testing.T) {
	p := filepath.Join(t.TempDir(), "spin_test.lua")
	os.WriteFile(p, []byte(`return { { name = "spin", timeout = "200ms", run = function() while true do end end } }`+"\n"), 0o644)
	out, _, code := runCLI("test", p)
	if code != 1 || !strings.Contains(out, "raise the case's timeout field (or bglua test --timeout)") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// A case's fails, deadlocks and timeout fields of the wrong type or form
// make an errored suite (exit 1), each named.
func TestSuiteFieldTypes(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ field, want string }{
		{`deadlocks = "no"`, `case "a": field deadlocks: want true or false, got string`},
		{`fails = 5`, `case "a": field fails: want a Lua pattern of the error, got number`},
		{`timeout = "forever"`, `case "a": field timeout: "forever" is not a duration`},
	} {
		p := filepath.Join(dir, "f_test.lua")
		os.WriteFile(p, []byte(`return { { name = "a", `+c.field+`, run = function() end } }`+"\n"), 0o644)
		out, errOut, code := runCLI("test", p)
		if code != 1 || errOut != "" || !strings.Contains(out, "(the suite does not load: "+c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1 and %q", c.field, code, out, errOut, c.want)
		}
	}
}

// validateJUnit checks file against the Jenkins/Ant JUnit schema with
// xmllint, which CI installs (.ci/run).
func validateJUnit(t *testing.T, file string) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not installed (apt-get install libxml2-utils): the JUnit XML is not checked against testdata/junit.xsd")
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit.xsd", file).CombinedOutput()
	if err != nil {
		b, _ := os.ReadFile(file)
		t.Fatalf("the JUnit XML is not valid against testdata/junit.xsd: %v\n%s\n%s", err, out, b)
	}
}

// readJUnit reads the JUnit XML in file.
func readJUnit(t *testing.T, file string) (junitReport, []byte) {
	t.Helper()
	b, _ := os.ReadFile(file)
	var r junitReport
	if err := xml.Unmarshal(b, &r); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return r, b
}

// Every kind of outcome, and a suite that does not load, in JUnit XML that
// Jenkins reads: counts on the suites, an <error> or a <failure> as the
// case went wrong, the ranks' output in <system-out>.
func TestJUnitSchema(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "out.xml")
	out, _, code := runCLI("test", "--junit", junit, "testdata/suites/junit")
	if code != 1 {
		t.Errorf("exit %d, want 1:\n%s", code, out)
	}
	// The suite that does not load is named, and the other one still runs.
	for _, want := range []string{
		"FAIL testdata/suites/junit/broken_test.lua (the suite does not load: ",
		"ok   testdata/suites/junit/kinds_test.lua: passes\n",
		"1 passed, 6 failed\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	r, b := readJUnit(t, junit)
	if len(r.Suites) != 2 {
		t.Fatalf("%d suites:\n%s", len(r.Suites), b)
	}
	broken, kinds := r.Suites[0], r.Suites[1]
	if broken.Errors != 1 || broken.Tests != 1 || broken.Cases[0].Error == nil {
		t.Errorf("the suite that does not load: %+v", broken)
	}
	if kinds.Tests != 6 || kinds.Failures != 2 || kinds.Errors != 3 || kinds.Skipped != 0 {
		t.Errorf("counts: tests %d failures %d errors %d skipped %d", kinds.Tests, kinds.Failures, kinds.Errors, kinds.Skipped)
	}
	want := []struct{ elem, typ string }{{"", ""}, {"failure", "expectation"}, {"error", "error"}, {"error", "deadlock"}, {"error", "limit"}, {"failure", "expectation"}}
	for i, c := range kinds.Cases {
		elem, typ := "", ""
		switch {
		case c.Failure != nil:
			elem, typ = "failure", c.Failure.Type
		case c.Error != nil:
			elem, typ = "error", c.Error.Type
		}
		if elem != want[i].elem || typ != want[i].typ {
			t.Errorf("%s: <%s type=%q>, want <%s type=%q>", c.Name, elem, typ, want[i].elem, want[i].typ)
		}
		if c.Class != "testdata.suites.junit.kinds_test" {
			t.Errorf("classname %q", c.Class)
		}
	}
	if got := kinds.Cases[0].SystemOut; got != "[0] hello <&>\n[1] hello <&>\n" {
		t.Errorf("system-out %q", got)
	}
	if len(kinds.Props) == 0 || r.Tests != 7 || r.Errors != 4 || r.Failures != 2 {
		t.Errorf("report: %+v", r)
	}
	validateJUnit(t, junit) // last: it skips without xmllint
}

// Pending cases are <skipped> in JUnit, and counted on the summary line.
func TestJUnitPending(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "out.xml")
	out, _, code := runCLI("test", "--junit", junit, "testdata/suites/busted/hooks_spec.lua")
	if code != 1 || !strings.HasSuffix(out, "2 passed, 2 failed, 2 pending\n") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	r, _ := readJUnit(t, junit)
	if s := r.Suites[0]; s.Skipped != 2 || s.Tests != 6 || s.Cases[2].Skipped == nil || s.Cases[2].Name != "outer inner is pending without a function" {
		t.Errorf("JUnit: %+v", s)
	}
	validateJUnit(t, junit)
}

// --shuffle without a seed prints the one it drew; giving it back runs the
// same order.
func TestShuffleSeed(t *testing.T) {
	out, _, _ := runCLI("test", "--shuffle", "--list", "testdata/suites/failing", "testdata/suites/busted/hooks_spec.lua")
	m := regexp.MustCompile(`^shuffle seed (\d+) \(--shuffle=(\d+) runs this order again\)\n`).FindStringSubmatch(out)
	if m == nil || m[1] != m[2] {
		t.Fatalf("no seed on the first line:\n%s", out)
	}
	again, _, _ := runCLI("test", "--shuffle="+m[1], "--list", "testdata/suites/failing", "testdata/suites/busted/hooks_spec.lua")
	if again != out {
		t.Errorf("--shuffle=%s gave another order:\n%s---\n%s", m[1], again, out)
	}
}

// The run flags that write something are case fields too: quiet, stats,
// stats_json, trace, trace_ranks, mds and mds_dir; those that are not say
// why.
func TestSuiteOutputFields(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out_test.lua")
	os.WriteFile(p, []byte(fmt.Sprintf(`return {
  { name = "outputs", ranks = 2, quiet = true, stats = true, stats_json = %q, trace = %q, trace_ranks = "0",
    run = function() print("hi"); mpi.barrier() end },
  { name = "monitoring", ranks = 2, runtime = "bcs", mds = "mmds", mds_dir = %q, run = function() mpi.barrier() end },
}
`, filepath.Join(dir, "s.json"), filepath.Join(dir, "t.json"), filepath.Join(dir, "mds"))), 0o644)
	out, errOut, code := runCLI("test", "-v", p)
	if code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"    | hi\n", "    | mpi.barrier ", "    | MMDS: 2 ranks", "monitoring files in " + filepath.Join(dir, "mds")} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"s.json", "t.json", "mds/mmds.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	for _, c := range []struct{ field, want string }{
		{`progress = true`, `field progress: not a case field: bglua test shows no progress line`},
		{`trace_ranks = "0"`, `field trace_ranks: needs the trace field (a file)`},
		{`mds = "xmds"`, `mds: unknown monitor "xmds"`},
	} {
		os.WriteFile(p, []byte(`return { { name = "a", `+c.field+`, run = function() end } }`+"\n"), 0o644)
		out, _, code := runCLI("test", p)
		if code != 1 || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, %q lacks %q", c.field, code, out, c.want)
		}
	}
}

// A case of a list is pending with pending = true or a reason; any other
// value is refused.
func TestPendingField(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p_test.lua")
	os.WriteFile(p, []byte(`return {
  { name = "later", pending = "needs 4096 ranks", run = function() error("ran") end },
  { name = "no run yet", pending = true },
  { name = "runs", run = function() end },
}
`), 0o644)
	out, _, code := runCLI("test", p)
	want := "skip " + p + ": later (needs 4096 ranks)\nskip " + p + ": no run yet (pending)\nok   " + p + ": runs\n1 passed, 0 failed, 2 pending\n"
	if code != 0 || out != want {
		t.Errorf("exit %d:\n%s\nwant\n%s", code, out, want)
	}
	os.WriteFile(p, []byte(`return { { name = "a", pending = 5, run = function() end } }`+"\n"), 0o644)
	if out, _, code := runCLI("test", p); code != 1 || !strings.Contains(out, `case "a": field pending: want true or a reason, got number`) {
		t.Errorf("pending = 5: exit %d, %q", code, out)
	}
}

// A misspelt or foreign hook names itself, at the suite's line, instead of
// "attempt to call a non-function object"; other undefined globals read
// nil as ever.
func TestMisspeltHook(t *testing.T) {
	p := filepath.Join(t.TempDir(), "h_spec.lua")
	for _, c := range []struct{ src, want string }{
		{"before_eech(function() end)\nit('a', function() end)\n", p + ":1: before_eech is not a bglua suite function (hooks: setup, teardown, before_each, after_each, finally)"},
		{"describe('x', function()\n  afterAll(function() end)\nend)\n", p + ":2: afterAll is not a bglua suite function (hooks: setup, teardown, before_each, after_each, finally); use teardown"},
		{"assert(jit == nil and unknown_thing == nil)\nit('a', function() end)\n", ""},
	} {
		os.WriteFile(p, []byte(c.src), 0o644)
		out, _, code := runCLI("test", p)
		if c.want == "" && code != 0 || c.want != "" && !strings.Contains(out, "(the suite does not load: "+c.want+")") {
			t.Errorf("%q: exit %d, %q, want %q", c.src, code, out, c.want)
		}
	}
}
