package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every bad input ends with one clear line on stderr and the exit status of
// docs/cli.md; none hangs.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok.lua", "mpi.barrier()\n")
	syntax := write("syntax.lua", "local x = \nif then\n")
	mapWrongCount := write("two.map", "0 0 0 0\n1 0 0 0\n")
	mapDup := write("dup.map", "0 0 0 0\n1 0 0 0\n0 0 0 0\n")
	mapRange := write("range.map", "0 0 0 0\n9 0 0 0\n1 1 1 0\n")
	loop := write("loop.lua", "while true do mpi.compute(1e-3) end\n")
	badArg := write("badarg.lua", "mpi.send(1, -1)\n")
	bcast := write("bcast.lua", "mpi.bcast(1, 0)\n")
	machUnknown := write("m1.lua", "return { hop_latency = 5 }\n")
	machType := write("m2.lua", "return { hop_cycles = 'fast' }\n")
	machTable := write("m3.lua", "return { clock_hz = {} }\n")
	machNotTable := write("m4.lua", "return 42\n")
	machInvalid := write("m5.lua", "return { base = 'bgc', clock_hz = 0 }\n")
	machSyntax := write("m6.lua", "return {\n")
	machCPUs := write("m9.lua", "return { cpus_per_node = 1e9 }\n")
	machError := write("m7.lua", "local t = nil\nreturn { hop_cycles = t.x }\n")
	machLoop := write("m8.lua", "while true do end\n")
	errTable := write("errtable.lua", "error({code = 1})\n")
	eof := write("eof.lua", "print(1)\nif x then\n  print(2)\n")
	binary := write("binary.lua", "\x7fELF\x02\x01\x01\x00\x00")
	bytecode := write("bytecode.lua", "\x1bLuaQ\x00\x01\x04")
	write("cyc_a.lua", "require 'cyc_b'\nreturn 1\n")
	write("cyc_b.lua", "require 'cyc_a'\nreturn 2\n")
	cycle := write("cycle.lua", "require 'cyc_a'\n")
	rankOf := write("rankof.lua", "print(ml.rank_of(0, 0, 0))\nprint(ml.rank_of(2, 0, 0))\n")
	mlProto := write("mlproto.lua", "ml.register('h', function() end)\nml.send(0, 'h', 1, {protocol = 'warp'})\n")
	mlSetProto := write("mlsetproto.lua", "ml.set_protocol('fast')\n")
	mlTooBig := write("mltoobig.lua", "ml.send(0, 'h', string.rep('x', 300), {protocol = 'onepacket'})\n")
	mlNoHandler := write("mlnohandler.lua", "if mpi.rank() == 0 then ml.send(1, 'nobody', 1) else ml.wait(function() return false end) end\n")
	mlVN := write("mlvn.lua", "ml.send(1 - mpi.rank(), 'h', 1, {protocol = 'vn'})\n")
	mlCo := write("mlco.lua", "ml.cojoin(ml.costart(function() end))\n")

	cases := []struct {
		name string
		args []string
		code int
		want string // substring of stderr
	}{
		{"unknown flag", []string{"--bogus", ok}, 2, "unknown flag: --bogus"},
		{"unknown single-dash flag", []string{"-bogus", ok}, 2, "unknown flag: -bogus (bglua --help lists the flags)"},
		{"ranks fractional", []string{"-ranks", "1e30", ok}, 2, "--ranks: \"1e30\" is not a whole number"},
		{"ranks too large", []string{"-n", "99999999999999999999", ok}, 2, "--ranks: 99999999999999999999 is too large"},
		{"seed empty", []string{"--seed=", ok}, 2, "--seed: \"\" is not a whole number"},
		{"bool flag value", []string{"--quiet=maybe", ok}, 2, "--quiet: \"maybe\" is not true or false (--quiet alone means true)"},
		{"flag without value", []string{"-n"}, 2, "-n needs a value"},
		{"long flag without value", []string{"--ranks"}, 2, "--ranks needs a value"},
		{"zero ranks", []string{"-ranks", "0", ok}, 2, "--ranks must be at least 1 (got 0)"},
		{"negative ranks", []string{"-ranks", "-4", ok}, 2, "--ranks must be at least 1 (got -4)"},
		{"ranks past the largest torus", []string{"-ranks", "20000000", ok}, 2, "--ranks 20000000 needs 20000000 nodes at 1 rank per node, more than a torus bglua models (at most 16777216 nodes)"},
		{"zero threads", []string{"--threads", "0", ok}, 2, "--threads must be at least 1 (got 0)"},
		{"trace rank out of range", []string{"-n", "8", "--trace-ranks", "2,100", "--trace", filepath.Join(dir, "t.json"), ok}, 2, "--trace-ranks: \"2,100\": rank 100 is not one of the run's 8 ranks (0-7)"},
		{"rendezvous limit below eager", []string{"--rzv-limit", "10", "--eager-limit", "2000", ok}, 2, "--rzv-limit 10 is below the eager limit 2000: want it at least the eager limit"},
		{"rendezvous limit below the machine's eager limit", []string{"--rzv-limit", "500", ok}, 2, "--rzv-limit 500 is below the eager limit 1000"},
		{"ranks not a number", []string{"-ranks", "many", ok}, 2, "--ranks: \"many\" is not a whole number"},
		{"torus too small", []string{"-ranks", "512", "--torus", "4x4x4", ok}, 2, "512 ranks do not fit a 4x4x4 torus with 1 rank per node (64 slots)"},
		{"torus malformed", []string{"--torus", "8x8", ok}, 2, "--torus: torus \"8x8\""},
		{"bad mode", []string{"--mode", "turbo", ok}, 2, "--mode \"turbo\": want co, vn or heater"},
		{"bad machine", []string{"--machine", "cray", ok}, 2, "--machine \"cray\": unknown machine (valid: bgl, bgc, or a FILE.lua)"},
		{"machine file unknown field", []string{"--machine", machUnknown, ok}, 2, "m1.lua: unknown field hop_latency (valid: "},
		{"machine file wrong type", []string{"--machine", machType, ok}, 2, "m2.lua: field hop_cycles: want an integer, got a string"},
		{"machine file table value", []string{"--machine", machTable, ok}, 2, "m3.lua: field clock_hz: want a number, got a table"},
		{"machine file not a table", []string{"--machine", machNotTable, ok}, 2, "m4.lua: must return a table of machine fields (got number)"},
		{"machine file invalid", []string{"--machine", machInvalid, ok}, 2, "m5.lua: field clock_hz must be positive"},
		{"machine file syntax", []string{"--machine", machSyntax, ok}, 2, "m6.lua:1: syntax error: unexpected end of file"},
		{"machine file error", []string{"--machine", machError, ok}, 2, "m7.lua:2: attempt to index a non-table object(nil) with key 'x'"},
		{"machine file loops", []string{"--timeout", "300ms", "--machine", machLoop, ok}, 4, "machine file " + machLoop + " still running at the wall-time limit of 300ms"},
		{"error object a table", []string{errTable}, 1, "rank 0 at t=0s: (error object is a table value)"},
		{"syntax error at the end", []string{eof}, 2, "eof.lua:3: syntax error: unexpected end of file"},
		{"binary program", []string{binary}, 2, "binary.lua: binary data (a NUL byte), not Lua source"},
		{"bytecode program", []string{bytecode}, 2, "bytecode.lua: precompiled Lua bytecode, which bglua does not load: give it the source"},
		{"modules that require each other", []string{cycle}, 1, "cyc_b.lua:1: loop or previous error loading module 'cyc_a'"},
		{"rank_of off the torus", []string{"-n", "2", rankOf}, 1, "rankof.lua:2: ml.rank_of: x 2 out of range 0..1 (torus 2x1x1, 1 per node)"},
		{"memory limit below bglua's own", []string{"--max-memory", "1KiB", ok}, 4, "memory limit of 1 KiB reached"},
		{"machine file huge cpus_per_node", []string{"--machine", machCPUs, ok}, 2, "m9.lua: field cpus_per_node: 1000000000 is more than bglua models (at most 64)"},
		{"machine file missing", []string{"--machine", filepath.Join(dir, "none.lua"), ok}, 2, "cannot read machine file"},
		{"bad runtime", []string{"--runtime", "fast", ok}, 2, "--runtime \"fast\""},
		{"stats-json unwritable", []string{"--stats-json", filepath.Join(dir, "no", "such", "dir", "s.json"), ok}, 2, "--stats-json: cannot write the statistics file: " + filepath.Join(dir, "no", "such", "dir", "s.json") + ": no such file or directory"},
		{"trace unwritable", []string{"--trace", dir, ok}, 2, "--trace: cannot write the trace file: " + dir + ": is a directory"},
		{"mds-dir empty", []string{"--mds", "mmds", "--mds-dir", "", ok}, 2, "--mds-dir is empty"},
		{"bad coll syntax", []string{"--coll", "bcast", ok}, 2, "want NAME=ALG"},
		{"coll given twice", []string{"--coll", "bcast=tree,bcast=binomial", ok}, 2, "--coll \"bcast=tree,bcast=binomial\": bcast is given twice (tree and binomial)"},
		{"coll two equals", []string{"--coll", "bcast=tree=x", ok}, 2, "--coll \"bcast=tree=x\": want NAME=ALG"},
		{"unknown collective", []string{"--coll", "bcats=binomial", ok}, 2, "unknown collective \"bcats\""},
		{"unknown algorithm", []string{"--coll", "bcast=magic", bcast}, 1, "no algorithm \"magic\" registered for bcast"},
		{"max-vtime under a cycle", []string{"--max-vtime", "1e-30", ok}, 2, "--max-vtime 1e-30s is shorter than one cycle of the machine"},
		{"bad max-vtime", []string{"--max-vtime", "soon", ok}, 2, "--max-vtime: \"soon\" is not a duration"},
		{"no program", []string{"-ranks", "4"}, 2, "no program given"},
		{"program a directory", []string{dir}, 2, "cannot read program: " + dir + ": is a directory\n"},
		{"mapping a directory", []string{"--mapping", dir, ok}, 2, "--mapping: cannot read mapping file: " + dir + ": is a directory\n"},
		{"missing program", []string{filepath.Join(dir, "nope.lua")}, 2, "nope.lua: no such file or directory"},
		{"syntax error", []string{syntax}, 2, "syntax.lua:2: syntax error"},
		{"mapping wrong count", []string{"-ranks", "3", "--torus", "2x2x1", "--mapping", mapWrongCount, ok}, 2, "two.map: 2 ranks listed, want 3"},
		{"mapping duplicate", []string{"-ranks", "3", "--torus", "2x2x1", "--mapping", mapDup, ok}, 2, "dup.map:3: (0,0,0,0) already holds rank 0 (line 1)"},
		{"mapping out of range", []string{"-ranks", "3", "--torus", "2x2x1", "--mapping", mapRange, ok}, 2, "range.map:2: x 9 out of range 0..1"},
		{"mapping missing", []string{"--mapping", filepath.Join(dir, "none.map"), ok}, 2, "cannot read mapping file"},
		{"virtual time limit", []string{"--max-vtime", "5ms", loop}, 4, "virtual time limit of 5ms reached"},
		{"negative rank", []string{"-ranks", "2", badArg}, 1, "badarg.lua:1: mpi.send: destination rank -1 out of range"},
		{"grain negative", []string{"--grain", "-1", ok}, 2, "--grain must be 0 (exact) or more (got -1)"},
		{"grain too coarse", []string{"--grain", "5000", ok}, 2, "--grain 5000: want 0 to 4096"},
		{"bad routing", []string{"--routing", "zigzag", ok}, 2, "--routing \"zigzag\": want deterministic or adaptive"},
		{"ml unknown protocol", []string{mlProto}, 1, "mlproto.lua:2: ml.send: unknown protocol \"warp\" (valid: auto, onepacket, eager, adaptive, rendezvous, vn)"},
		{"ml.set_protocol unknown protocol", []string{mlSetProto}, 1, "mlsetproto.lua:1: ml.set_protocol: unknown protocol \"fast\" (valid: auto, onepacket, eager, adaptive, rendezvous, vn)"},
		{"one packet too big", []string{mlTooBig}, 1, "mltoobig.lua:1: ml.send: 300 bytes do not fit one packet (at most 224 with the 16-byte header)"},
		{"handler not registered", []string{"-ranks", "2", mlNoHandler}, 1, "rank 1 at t=2.389us: " + mlNoHandler + ":1: ml: rank 1 has no handler \"nobody\" registered (message from rank 0)"},
		{"vn protocol across nodes", []string{"-ranks", "2", mlVN}, 1, "ml.send: protocol \"vn\" is for two ranks of one node (virtual-node mode); ranks 0 and 1 are on nodes 0 and 1"},
		{"costart in heater mode", []string{"--mode", "heater", mlCo}, 1, "mlco.lua:1: ml.costart: needs coprocessor mode (--mode co); this run is in heater mode, where CPU 1 idles"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := runCLI(c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, stderr)
			}
			if c.code == 2 && strings.Count(strings.TrimSpace(stderr), "\n") > 0 && !strings.Contains(stderr, "usage:") {
				t.Errorf("usage errors take one line, got:\n%s", stderr)
			}
		})
	}
}

func TestVersionAndSingleDashFlags(t *testing.T) {
	out, _, code := runCLI("version")
	if code != 0 || !strings.HasPrefix(out, "bglua ") {
		t.Fatalf("version: %q exit %d", out, code)
	}
	// -ranks and --ranks and -n mean the same; -quiet is --quiet.
	for _, args := range [][]string{
		{"-ranks", "3", "-quiet", "../../scripts/hello.lua"},
		{"--ranks=3", "--quiet", "../../scripts/hello.lua"},
		{"-n", "3", "-quiet", "../../scripts/hello.lua"},
		{"-ranks=3", "-quiet", "../../scripts/hello.lua"},
	} {
		out, stderr, code := runCLI(args...)
		if code != 0 || !strings.Contains(out, "hello from rank 2 of 3") || stderr != "" {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, stderr)
		}
	}
	// Flags after the program belong to the program.
	out, _, _ = runCLI("-quiet", "testdata/progs/args.lua", "-ranks", "9")
	if out != "args: -ranks 9\n" {
		t.Errorf("script args: %q", out)
	}
}

// A bglua flag after the program goes to the program, as documented; the
// run says so, since it is most often a flag meant for bglua.
func TestLateFlagNote(t *testing.T) {
	out, stderr, code := runCLI("testdata/progs/args.lua", "-n", "4")
	want := "bglua: note: -n comes after the program, so it is the program's argument, not bglua's flag (flags go before testdata/progs/args.lua)\n"
	if code != 0 || out != "[0] args: -n 4\n" || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d\n%s%s", code, out, stderr)
	}
	if _, stderr, _ := runCLI("testdata/progs/args.lua", "-x", "4"); strings.Contains(stderr, "note:") {
		t.Errorf("-x is no flag of bglua's:\n%s", stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--trace-ranks", "0", "testdata/progs/args.lua"}, "bglua: note: --trace-ranks does nothing without --trace\n"},
		{[]string{"--mds-dir", t.TempDir(), "testdata/progs/args.lua"}, "bglua: note: --mds-dir does nothing without --mds\n"},
		{[]string{"--timeslice", "1ms", "testdata/progs/args.lua"}, "bglua: note: --timeslice does nothing without --runtime bcs\n"},
	} {
		if _, stderr, code := runCLI(c.args...); code != 0 || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q lacks %q", c.args, code, stderr, c.want)
		}
	}
}

// bglua help [TOPIC], --help, -h and --version, as docs/cli.md: help on stdout.
func TestHelpAndVersion(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		out  string // prefix of stdout
		err  string // stderr
	}{
		{[]string{"help"}, 0, "usage: bglua [flags] PROGRAM.lua", ""},
		{[]string{"--help"}, 0, "usage: bglua [flags] PROGRAM.lua", ""},
		{[]string{"-h"}, 0, "usage: bglua [flags] PROGRAM.lua", ""},
		{[]string{"help", "coll"}, 0, "collective algorithms (--coll NAME=ALG", ""},
		{[]string{"help", "test"}, 0, "usage: bglua test", ""},
		{[]string{"test", "--help"}, 0, "usage: bglua test", ""},
		{[]string{"help", "sweep"}, 0, "usage: bglua sweep", ""},
		{[]string{"sweep", "--help"}, 0, "usage: bglua sweep", ""},
		{[]string{"help", "nothing"}, 2, "", "bglua help: unknown topic \"nothing\" (topics: coll, test, sweep, completion, editor-setup)\n"},
		{[]string{"--version"}, 0, "bglua ", ""},
	} {
		out, errOut, code := runCLI(c.args...)
		if code != c.code || !strings.HasPrefix(out, c.out) || errOut != c.err {
			t.Errorf("%v: exit %d, stdout %.60q, stderr %q", c.args, code, out, errOut)
		}
	}
}
