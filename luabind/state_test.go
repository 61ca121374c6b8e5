package luabind

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/mpi"
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/observe"
	"github.com/bglua/bglua/runtime"
	"github.com/bglua/bglua/stdlib"
)

// testModules are modules the programs of these tests can require.
var testModules = map[string]string{
	"counted": `loads = (loads or 0) + 1
		return { loads = loads }`,
	"deep": `local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
		return depth(200)`,
	"headed": "\xEF\xBB\xBF#!/usr/bin/env bglua\n\nreturn function() error('here') end",
}

// runRanks runs src on n ranks of a small BG/L and returns what they printed
// (prefixed with the rank) and the error that ended the run.
func runRanks(t *testing.T, n int, src string) (string, error) {
	t.Helper()
	return runOnTorus(t, hw.BGL(), hw.Torus{Dims: hw.DefaultDims(n)}, n, src)
}

// runOnTorus runs src on n ranks of machine m laid XYZT on tor.
func runOnTorus(t *testing.T, m *hw.Machine, tor hw.Torus, n int, src string) (string, error) {
	t.Helper()
	out, _, err := runHost(t, m, tor, n, src, nil)
	return out, err
}

// runHost is runOnTorus that returns the Host too; start, if not nil, is
// called before the run, and what it returns after it.
func runHost(t *testing.T, m *hw.Machine, tor hw.Torus, n int, src string, start func(h *Host) func()) (string, *Host, error) {
	t.Helper()
	prog, err := Compile("t.lua", "", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	mp, err := hw.MapXYZT(tor, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	eng := runtime.New()
	w := mpi.NewWorld(msglayer.New(m, mp, eng), n)
	var out strings.Builder
	pr := observe.NewPrinter(&out, true)
	h := NewHost(Options{Program: prog, Seed: 1, Mode: "co", Stdlib: stdlib.FS, LuaModules: testModules}, w, pr)
	for i := 0; i < n; i++ {
		w.Attach(i, eng.Spawn(i, 0, h.Body))
	}
	stop := func() {}
	if start != nil {
		stop = start(h)
	}
	err = eng.Run(context.Background())
	stop()
	if ferr := pr.Flush(); ferr != nil {
		t.Fatal(ferr)
	}
	return out.String(), h, err
}

// A rank's Lua call stack holds ordinary recursion, and runaway recursion
// ends the run with a Lua error on that rank (not a Go panic or a hang).
func TestRecursionDepth(t *testing.T) {
	cases := []struct {
		name, src string
		want      string // printed output, or the start of the error message
		fails     bool
	}{
		{"200 deep", `
			local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
			print(depth(200))`, "[0] 200\n", false},
		{"100 deep through pcall", `
			local function depth(n) if n == 0 then return 0 end
				local ok, v = pcall(depth, n - 1); assert(ok, v); return 1 + v end
			print(depth(100))`, "[0] 100\n", false},
		{"200 deep in a module", `print(require("deep"))`, "[0] 200\n", false},
		{"200 deep in a coroutine", `
			local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
			print(coroutine.wrap(function() return depth(200) end)())`, "[0] 200\n", false},
		{"200 deep, then blocks", `
			local function depth(n) if n == 0 then mpi.barrier(); return 0 end return 1 + depth(n - 1) end
			print(depth(200))`, "[0] 200\n", false},
		{"runaway", `
			local function forever(n) return 1 + forever(n + 1) end
			forever(1)`, "stack overflow", true},
		{"runaway caught by pcall", `
			local function forever(n) return 1 + forever(n + 1) end
			local ok, err = pcall(forever, 1)
			print(ok, (tostring(err):gsub("^.-stack overflow.*$", "stack overflow")))`, "[0] false\tstack overflow\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runRanks(t, 1, c.src)
			if !c.fails {
				if err != nil {
					t.Fatalf("error: %v", err)
				}
				if out != c.want {
					t.Fatalf("printed %q, want %q", out, c.want)
				}
				return
			}
			var re *RankError
			if !errors.As(err, &re) {
				t.Fatalf("error %v (%T), want a *RankError", err, err)
			}
			if !strings.Contains(re.Msg, c.want) || strings.Contains(re.Msg, "goroutine") {
				t.Fatalf("message %q, want a one-line %q", re.Msg, c.want)
			}
			if !strings.Contains(re.Traceback, "t.lua:") {
				t.Fatalf("traceback %q does not name the program", re.Traceback)
			}
		})
	}
}

// Every rank has globals and libraries of its own: what one rank adds or
// replaces is invisible to the others, and the standard ways of reaching the
// globals (rawget, pairs, getfenv, string methods) see the rank's own.
func TestRankIsolation(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"globals", `
			if mpi.rank() == 0 then x = 1; print = nil end
			mpi.barrier()
			if mpi.rank() == 1 then print(x, type(print), rawget(_G, "print") == print, _G._G == _G, getfenv(1) == _G) end`,
			"[1] nil\tfunction\ttrue\ttrue\ttrue\n"},
		{"string library and methods", `
			if mpi.rank() == 0 then string.shout = function(s) return s:upper() .. "!" end end
			mpi.barrier()
			print(("hi").shout ~= nil, string.shout ~= nil, ("ab"):rep(2), getmetatable("").__index == string)`,
			"[0] true\ttrue\tabab\ttrue\n[1] false\tfalse\tabab\ttrue\n"},
		{"string metatable", `
			if mpi.rank() == 0 then getmetatable("").__add = function(a, b) return a .. b end end
			mpi.barrier()
			print(pcall(function() return "a" + "b" end))`,
			"[0] true\tab\n[1] false\t<error>\n"},
		{"math and mpi", `
			if mpi.rank() == 1 then math.pi = 3; mpi.rank = function() return 99 end end
			mpi.barrier()
			print(math.pi > 3, mpi.rank())`,
			"[0] true\t0\n[1] false\t99\n"},
		{"mpi.bytes", `
			local b = mpi.bytes(5 + mpi.rank())
			print(tostring(b), #b, getmetatable(b), (pcall(setmetatable, b, {})))`,
			"[0] mpi.bytes(5)\t5\tmpi.bytes\tfalse\n[1] mpi.bytes(6)\t6\tmpi.bytes\tfalse\n"},
		{"ml.config views", `
			local c = ml.config()
			if mpi.rank() == 0 then rawset(c, "clock_hz", 1); rawset(ml.config(), "name", "mine") end
			mpi.barrier()
			print(c.clock_hz, ml.config().name, ml.config() ~= c, getmetatable(c), (pcall(function() c.x = 1 end)))`,
			"[0] 1\tbgl\ttrue\tread-only\tfalse\n[1] 700000000\tbgl\ttrue\tread-only\tfalse\n"},
		{"coroutines know their rank", `
			print(coroutine.wrap(function() coroutine.yield(mpi.rank()) end)())`,
			"[0] 0\n[1] 1\n"},
		{"sandbox", `
			if mpi.rank() == 0 then
				for _, k in ipairs { "io", "debug", "dofile", "loadfile", "module", "newproxy", "collectgarbage", "channel", "package", "_printregs" } do
					if _G[k] ~= nil then print("reachable:", k) end
				end
				print(string.dump, os.execute, os.exit, os.getenv, type(os.clock))
			end`,
			"[0] nil\tnil\tnil\tnil\tfunction\n"},
		{"pairs over globals", `
			if mpi.rank() == 1 then zz = true end
			local names = {}
			for k in pairs(_G) do names[#names + 1] = k end
			print(table.concat(names, " "))`,
			"<pairs>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runRanks(t, 2, c.src)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			switch c.want {
			case "<pairs>":
				// Both ranks list every global; rank 1 also its own. The
				// order is the same from run to run.
				lines := strings.Split(strings.TrimSpace(out), "\n")
				if len(lines) != 2 {
					t.Fatalf("printed %q", out)
				}
				names0 := strings.Fields(strings.TrimPrefix(lines[0], "[0] "))
				names1 := strings.Fields(strings.TrimPrefix(lines[1], "[1] "))
				sort.Strings(names0)
				sort.Strings(names1)
				want := append([]string{}, names0...)
				want = append(want, "zz")
				sort.Strings(want)
				if len(names0) < 30 || strings.Join(names1, " ") != strings.Join(want, " ") {
					t.Fatalf("rank 0 lists %v, rank 1 %v", names0, names1)
				}
				for _, k := range []string{"print", "require", "pairs", "mpi", "string", "_G", "arg"} {
					if sort.SearchStrings(names0, k) == len(names0) || names0[sort.SearchStrings(names0, k)] != k {
						t.Errorf("pairs(_G) does not list %s", k)
					}
				}
				again, _ := runRanks(t, 2, c.src)
				if again != out {
					t.Fatalf("pairs(_G) differs between runs: %q then %q", out, again)
				}
			default:
				want := c.want
				if i := strings.Index(want, "<error>"); i >= 0 {
					if !strings.HasPrefix(out, want[:i]) {
						t.Fatalf("printed %q, want %q", out, want)
					}
					return
				}
				if out != want {
					t.Fatalf("printed %q, want %q", out, want)
				}
			}
		})
	}
}

// A rank's global table takes the shared globals in on first use; a program
// sees the globals of any Lua: every way of reading, replacing, removing or
// listing them, and a metatable of its own on _G (strict mode).
func TestGlobalsAsInLua(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"removed before use", `print = nil; tostring = nil
			io = { write = function(_, s) end }
			mpi.barrier(); require("x")`, "<error>module 'x'"},
		{"rawget before use", `local p = rawget(_G, "print"); p(type(p), rawget(_G, "nosuch"))`, "function\tnil"},
		{"rawset nil before use", `local p = print; rawset(_G, "print", nil); p(print == nil)`, "true"},
		{"removed after use", `local p = print; p("x"); print = nil; p(print == nil, rawget(_G, "print") == nil)`, "x\ntrue\ttrue"},
		{"replaced", `function tostring(v) return "mine" end; print(tostring(1), type(tostring))`, "mine\tfunction"},
		{"missing", `print(nosuch, nosuch, _G.nosuch)`, "nil\tnil\tnil"},
		{"next", `local k = next(_G); print(k ~= nil, _G[k] ~= nil)`, "true\ttrue"},
		{"count", `local n = 0; for _ in pairs(_G) do n = n + 1 end
			local m = 0; for _ in next, _G do m = m + 1 end; print(n == m, n > 30)`, "true\ttrue"},
		{"getmetatable", `print(getmetatable(_G), type(select))`, "nil\tfunction"},
		{"strict mode", `
			setmetatable(_G, { __newindex = function(t, k, v) error("assign to undeclared " .. k, 2) end,
				__index = function(t, k) error("undeclared " .. k, 2) end })
			local function why(ok, err) return ok, (tostring(err):match("%w[%w ]*$")) end
			print(type(pcall), why(pcall(function() return undeclared end)))
			print(why(pcall(function() fresh = 1 end)))`, "function\tfalse\tundeclared undeclared\nfalse\tassign to undeclared fresh"},
		{"environments", `local env = setmetatable({}, { __index = _G })
			setfenv(1, env); x = 1; print(rawget(env, "x"), rawget(_G, "x"), getfenv(1) == env)`, "1\tnil\ttrue"},
		{"require of builtins", `print(require("mpi") == mpi, require("_G") == _G, require("string") == string)`, "true\ttrue\ttrue"},
		{"coroutine", `print(coroutine.wrap(function() return type(tonumber), select("#", 1, 2) end)())`, "function\t2"},
		{"arg", `local function f(...) return arg.n, arg[2] end
			print(f(1, 2, 3), select("#", ...), type(arg), #arg)`, "3\t0\ttable\t0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runRanks(t, 1, c.src)
			if msg, ok := strings.CutPrefix(c.want, "<error>"); ok {
				if err == nil || !strings.Contains(err.Error(), msg) {
					t.Fatalf("error %v, printed %q; want an error with %q", err, out, msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			want := "[0] " + strings.ReplaceAll(c.want, "\n", "\n[0] ") + "\n"
			if out != want {
				t.Fatalf("printed %q, want %q", out, want)
			}
		})
	}
}

// stateOptions must be accepted by gopher-lua as they are: NewState replaces
// a registry smaller than its minimum by the (much larger) default.
func TestStateOptionsKept(t *testing.T) {
	L := lua.NewState(stateOptions)
	defer L.Close()
	if L.Options.RegistrySize != stateOptions.RegistrySize || L.Options.CallStackSize != stateOptions.CallStackSize {
		t.Fatalf("NewState changed the options to %+v", L.Options)
	}
}

// A chunk (a program or a module) is a vararg function that cannot see an
// arg table of its arguments: compiled chunks do not ask for one at every
// call, as gopher-lua's Lua 5.0 compatibility would (nested vararg
// functions keep theirs: the "arg" case of TestGlobalsAsInLua).
func TestChunksMakeNoArgTable(t *testing.T) {
	for _, src := range []string{``, `local x = 1`, `return select("#", ...)`, `local function f(...) return arg end`} {
		prog, err := Compile("t.lua", "", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if prog.Proto.IsVarArg&lua.VarArgNeedsArg != 0 {
			t.Errorf("%q: the chunk asks for an arg table", src)
		}
		if prog.Proto.IsVarArg&lua.VarArgIsVarArg == 0 {
			t.Errorf("%q: the chunk is no longer a vararg function", src)
		}
	}
}

// Prepare makes the ranks' states on a goroutine of its own: every way the
// run and the preparer can meet (all made ahead, some, none; more ranks than
// prepared) gives the run of states made by the ranks themselves.
func TestPrepareSameRun(t *testing.T) {
	const n = 64
	src := `local s = 0
		for i = 1, mpi.rank() do s = s + i end
		mpi.barrier()
		print(s, mpi.allreduce(s, mpi.SUM), mpi.wtime())`
	run := func(prepare func(h *Host) func()) string {
		out, _, err := runHost(t, hw.BGL(), hw.Torus{Dims: hw.DefaultDims(n)}, n, src, prepare)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := run(func(*Host) func() { return func() {} })
	if strings.Count(want, "\n") != n {
		t.Fatalf("want %d lines, got:\n%s", n, want)
	}
	for _, c := range []struct {
		name    string
		prepare func(h *Host) func()
	}{
		{"all ahead", func(h *Host) func() {
			done := make(chan struct{})
			stop := h.Prepare(n, func() { close(done) })
			<-done
			return stop
		}},
		{"alongside", func(h *Host) func() { return h.Prepare(n, func() {}) }},
		{"fewer than the ranks", func(h *Host) func() { return h.Prepare(n/2, func() {}) }},
		{"stopped before the run", func(h *Host) func() {
			stop := h.Prepare(n, func() {})
			stop()
			return func() {}
		}},
	} {
		if got := run(c.prepare); got != want {
			t.Errorf("%s: output\n%s\nwant\n%s", c.name, got, want)
		}
	}
}

// A rank that starts after another has ended may get its state (Host.recycle),
// but sees nothing of that rank: not its globals, nor its modules, nor what
// it added to the string table. Each rank but the last ends before the next
// starts (printing would make it wait for its I/O node), so all of them
// share one state, which the free list holds at the end; with recycling off
// every rank makes its own, and the output is the same.
func TestRecycleIsolates(t *testing.T) {
	const n = 32
	src := `local m = require "counted"
		assert(m.loads == 1, "module loaded before in this state: " .. m.loads)
		assert(leak == nil, "a global of rank " .. tostring(leak))
		assert(string.mine == nil, "a string function of an earlier rank")
		assert(getmetatable("").__index.mine == nil, "a string method of an earlier rank")
		assert(rawget(_G, "raw") == nil, "a raw global of an earlier rank")
		leak = mpi.rank()
		rawset(_G, "raw", mpi.rank())
		string.mine = function(s) return s .. mpi.rank() end
		seen = (seen or "") .. ("x"):mine() .. m.loads .. leak .. " "
		if mpi.rank() == mpi.size() - 1 then print(seen, mpi.wtime()) end`
	run := func(max int) (string, *Host) {
		defer func(old int) { freeMax = old }(freeMax)
		freeMax = max
		out, h, err := runHost(t, hw.BGL(), hw.Torus{Dims: hw.DefaultDims(n)}, n, src, nil)
		if err != nil {
			t.Fatalf("free list of %d: %v", max, err)
		}
		return out, h
	}
	want, h := run(0)
	if !strings.Contains(want, "x31131 ") || strings.Count(want, "\n") != 1 {
		t.Fatalf("want one line from rank 31, got:\n%s", want)
	}
	if got := len(h.free[0]); got != 0 {
		t.Errorf("recycling off: %d states kept", got)
	}
	got, h := run(16)
	if got != want {
		t.Errorf("recycled states: output\n%s\nwant\n%s", got, want)
	}
	if kept := len(h.free[0]); kept != 1 {
		t.Errorf("recycled states: %d states kept at the end, want 1 (every rank reusing the one before's)", kept)
	}
}
