package luabind

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/mpi"
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/observe"
	"github.com/bglua/bglua/runtime"
	"github.com/bglua/bglua/stdlib"
)

var update = flag.Bool("update", false, "rewrite testdata/lua51-suite.txt from this run")

// lua51SuiteDir holds the official Lua 5.1 test scripts.
const lua51SuiteDir = "../third_party/gopher-lua/_lua5.1-tests"

// lua51Skipped are the suite's files that are not run, and why (each also
// has its line in docs/lua51.md).
var lua51Skipped = map[string]string{
	"all.lua":        "the driver: runs the other files with dofile",
	"api.lua":        "needs the C test library (T), which only a debug build of Lua has",
	"checktable.lua": "a helper for the C test library, not a test",
	"code.lua":       "tests the compiler's opcodes through the C test library (T); without it, it returns at once",
	"big.lua":        "concatenates a 32 MiB string 129 times to reach a length overflow (4 GiB, a minute), then needs the C test library",
	"verybig.lua":    "writes a file and loads a generated chunk of megabytes: io and time",
	"main.lua":       "starts the lua executable with os.execute",
	"gc.lua":         "tests the collector through collectgarbage, which the sandbox removes",
}

// TestLua51Suite runs each file of the Lua 5.1 test suite in a rank's
// sandbox, with an assert that records the file and line of a failure and
// goes on. What failed, and where a file stopped, is compared with
// testdata/lua51-suite.txt (-update rewrites it): a regression and an
// unexpected fix both show up as a diff. docs/lua51.md says why each
// expected failure fails.
func TestLua51Suite(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(lua51SuiteDir, "*.lua"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Lua 5.1 test files in %s (%v)", lua51SuiteDir, err)
	}
	var b strings.Builder
	b.WriteString("# The Lua 5.1 test suite in a rank's sandbox (go test ./luabind -run TestLua51Suite -update).\n")
	b.WriteString("# One line per failed assert (file:line) and per file that stopped (file: stopped: error); docs/lua51.md says why.\n")
	for _, f := range files {
		name := filepath.Base(f)
		if why, ok := lua51Skipped[name]; ok {
			fmt.Fprintf(&b, "%s: skipped: %s\n", name, why)
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		lines := runLua51File(t, name, src)
		if len(lines) == 0 {
			lines = []string{name + ": ok"}
		}
		for _, line := range lines {
			b.WriteString(line + "\n")
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %v", name, d)
		}
	}
	golden := filepath.Join("testdata", "lua51-suite.txt")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("the Lua 5.1 suite's results changed (-update rewrites %s):\n%s", golden, lineDiff(string(want), got))
	}
}

// lua51RunPrefix is the rank and virtual time that start a run's error.
var lua51RunPrefix = regexp.MustCompile(`^rank \d+ at t=[^ ]*: `)

// lua51Addresses are what changes from run to run in an error message.
var lua51Addresses = regexp.MustCompile(`0x[0-9a-f]+`)

// runLua51File runs one file of the suite on one rank and returns its
// failures: "file:line: assertion failed" for each failed assert, and
// "file: stopped: error" if an error ended it.
func runLua51File(t *testing.T, name string, src []byte) []string {
	t.Helper()
	var failed []string
	// assert records a failure in the file's own code and goes on; in a
	// chunk the file loads (loadstring), whose errors the file checks, it
	// is Lua's assert.
	record := func(L *lua.LState) int {
		if !lua.LVAsBool(L.Get(1)) {
			where := L.Where(1)
			if !strings.HasPrefix(where, name+":") {
				L.RaiseError("%s", L.OptString(2, "assertion failed!"))
			}
			failed = append(failed, strings.TrimSuffix(where, ":")+": assertion failed")
		}
		return L.GetTop()
	}
	// The prelude shares the file's first line, so line numbers stay. The
	// sandbox has no collectgarbage; the files call it to exercise the
	// collector between tests, so a stand-in that checks its option and
	// does nothing else lets them go on to what they test.
	prelude := `assert = require "lua51assert"; ` +
		`local gcopts = {stop = 1, restart = 1, collect = 1, count = 1, step = 1, setpause = 1, setstepmul = 1}; ` +
		`collectgarbage = function(o) o = o or "collect"; if not gcopts[o] then ` +
		`error("bad argument #1 to 'collectgarbage' (invalid option '" .. tostring(o) .. "')", 2) end return 0 end; `
	prog, err := Compile(name, "", append([]byte(prelude), src...))
	if err != nil {
		return []string{name + ": does not compile: " + err.Error()}
	}
	tor := hw.Torus{Dims: hw.DefaultDims(1)}
	mp, err := hw.MapXYZT(tor, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	eng := runtime.New()
	w := mpi.NewWorld(msglayer.New(hw.BGL(), mp, eng), 1)
	guard := NewGuard()
	h := NewHost(Options{Program: prog, Seed: 1, Mode: "co", Stdlib: stdlib.FS, Guard: guard,
		GoModules: map[string]lua.LGFunction{"lua51assert": func(L *lua.LState) int {
			L.Push(L.NewFunction(record))
			return 1
		}}}, w, observe.NewPrinter(io.Discard, false))
	w.Attach(0, eng.Spawn(0, 0, h.Body))
	timer := time.AfterFunc(10*time.Second, func() { guard.Stop(errors.New("took more than 10s")) })
	err = eng.Run(context.Background())
	timer.Stop()
	failed = countRepeats(failed)
	if err != nil {
		msg := lua51RunPrefix.ReplaceAllString(err.Error(), "")
		if i := strings.Index(msg, "\nstack traceback"); i >= 0 {
			msg = msg[:i]
		}
		msg = lua51Addresses.ReplaceAllString(msg, "0x?")
		failed = append(failed, name+": stopped: "+strings.ReplaceAll(msg, "\n", " | "))
	}
	return failed
}

// countRepeats writes a line that comes again at once as one line with
// its count: an assert in a helper function fails once per call.
func countRepeats(lines []string) []string {
	var out []string
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && lines[j] == lines[i] {
			j++
		}
		if j-i > 1 {
			out = append(out, fmt.Sprintf("%s (%d times)", lines[i], j-i))
		} else {
			out = append(out, lines[i])
		}
		i = j
	}
	return out
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	count := map[string]int{}
	for _, l := range strings.Split(want, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(got, "\n") {
		count[l]--
	}
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if count[l] > 0 {
			b.WriteString("- " + l + "\n")
			count[l]--
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if count[l] < 0 {
			b.WriteString("+ " + l + "\n")
			count[l]++
		}
	}
	return b.String()
}
