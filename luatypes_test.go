package bglua

import (
	"bytes"
	"context"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// luaDef is one function of the LuaLS definition files: its name, its
// parameters, and the ---@ lines of the comment block above it.
type luaDef struct {
	file, name string
	params     []string
	tags       []string
}

var defLine = regexp.MustCompile(`^function ([\w.:]+)\((.*)\) end$`)

func luaDefs(t *testing.T) []luaDef {
	t.Helper()
	types := LuaTypes()
	files, err := fs.Glob(types, "*.d.lua")
	if err != nil || len(files) == 0 {
		t.Fatalf("no definition files: %v", err)
	}
	var defs []luaDef
	for _, f := range files {
		b, err := fs.ReadFile(types, f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i, l := range lines {
			m := defLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			d := luaDef{file: f, name: m[1]}
			for _, p := range strings.Split(m[2], ",") {
				if p = strings.TrimSpace(p); p != "" {
					d.params = append(d.params, p)
				}
			}
			for j := i - 1; j >= 0 && strings.HasPrefix(lines[j], "---"); j-- {
				if strings.HasPrefix(lines[j], "---@") {
					d.tags = append(d.tags, lines[j])
				}
			}
			defs = append(defs, d)
		}
	}
	return defs
}

// returnsNothing are the functions of the definitions that return no value;
// every other one must say what it returns.
var returnsNothing = map[string]bool{
	"mpi.coll.register": true, "mpi.send": true, "mpi.barrier": true, "mpi.compute": true, "mpi.abort": true, "mpi.trace_begin": true, "mpi.trace_end": true,
	"Comm:send": true, "Comm:barrier": true,
	"mpi.ssend": true, "Comm:ssend": true, "mpi.cancel": true, "mpi.start": true, "mpi.startall": true,
	"Request:cancel": true, "Request:start": true,
	"bcs.xfer_and_signal": true, "bcs.set": true,
	"ml.register": true, "ml.send": true, "ml.wait": true, "ml.task": true, "ml.gi_barrier": true,
	"Matchers.to_equal": true, "Matchers.to_be_near": true, "Matchers.to_be_below": true, "Matchers.to_be_above": true,
	"Matchers.to_be_truthy": true, "Matchers.to_fail_with": true, "describe": true, "it": true,
	"Matchers.to_be_nil": true, "Matchers.to_be_a": true, "Matchers.to_contain": true, "Matchers.to_match": true,
	"Matchers.not_to_equal": true, "Matchers.not_to_be_near": true, "Matchers.not_to_be_below": true, "Matchers.not_to_be_above": true,
	"Matchers.not_to_be_truthy": true, "Matchers.not_to_be_nil": true, "Matchers.not_to_be_a": true, "Matchers.not_to_contain": true,
	"Matchers.not_to_match": true, "Matchers.not_to_fail_with": true,
	"pending": true, "setup": true, "teardown": true, "before_each": true, "after_each": true, "finally": true,
	"error": true, "print": true,
}

// Every function of the LuaLS definitions types each parameter (---@param
// name type) and, unless it returns nothing, what it returns (---@return),
// so that editors check calls and results.
func TestLuaTypesComplete(t *testing.T) {
	defs := luaDefs(t)
	seen := map[string]bool{}
	for _, d := range defs {
		seen[d.name] = true
		typed := map[string]bool{}
		returns := false
		for _, tag := range d.tags {
			f := strings.Fields(tag)
			switch {
			case f[0] == "---@param" && len(f) >= 3:
				typed[strings.TrimSuffix(f[1], "?")] = true
			case f[0] == "---@return" && len(f) >= 2:
				returns = true
			}
		}
		for _, p := range d.params {
			if !typed[p] {
				t.Errorf("%s: %s: parameter %s has no ---@param %s TYPE", d.file, d.name, p, p)
			}
		}
		if returns == returnsNothing[d.name] {
			if returns {
				t.Errorf("%s: %s has a ---@return but is listed as returning nothing", d.file, d.name)
			} else {
				t.Errorf("%s: %s has no ---@return", d.file, d.name)
			}
		}
	}
	for name := range returnsNothing {
		if !seen[name] {
			t.Errorf("returnsNothing lists %s, which no definition file defines", name)
		}
	}
}

// Every function a rank finds in the globals, mpi, ml, bcs and os (and
// mpi.coll's) has a LuaLS
// definition, and every Comm method one of the communicator's.
func TestLuaTypesCoverBindings(t *testing.T) {
	defined := map[string]bool{}
	defs := luaDefs(t)
	for _, d := range defs {
		defined[d.name] = true
	}
	var out bytes.Buffer
	prog := Program{Name: "names.lua", Code: []byte(`
for k, v in pairs(_G) do
  if type(v) == "function" then print(k) end
end
for _, lib in ipairs { "mpi", "ml", "bcs", "os" } do
  for k, v in pairs(_G[lib]) do
    if type(v) == "function" then print(lib .. "." .. k) end
  end
end
-- mpi.coll is a userdata: its functions by name.
for _, k in ipairs { "register", "algorithm" } do
  if type(mpi.coll[k]) == "function" then print("mpi.coll." .. k) end
end`)}
	if _, err := Run(context.Background(), Config{Ranks: 1, Runtime: "bcs", Stdout: &out, Quiet: true}, prog); err != nil {
		t.Fatal(err)
	}
	names := strings.Fields(out.String())
	sort.Strings(names)
	if len(names) < 50 {
		t.Fatalf("only %d functions found: %v", len(names), names)
	}
	found := map[string]bool{}
	for _, n := range names {
		found[n] = true
	}
	// The sandbox's definitions stand for LuaLS's basic and os libraries:
	// none may promise what the sandbox removed.
	for _, d := range defs {
		if d.file == "sandbox.d.lua" && !found[d.name] {
			t.Errorf("sandbox.d.lua defines %s, which a rank does not have", d.name)
		}
	}
	for _, n := range names {
		if !defined[n] {
			t.Errorf("%s has no LuaLS definition", n)
		}
		if m, ok := strings.CutPrefix(n, "mpi."); ok && defined["Comm:"+m] != commMethod(m) {
			t.Errorf("mpi.%s: Comm:%s defined %v, want %v", m, m, defined["Comm:"+m], commMethod(m))
		}
	}
}

// commMethod says whether mpi.name is also a method of communicators.
func commMethod(name string) bool {
	switch name {
	case "wait", "waitall", "waitany", "test", "testall", "wtime", "cycles", "compute", "abort", "bytes",
		"cart_create", "dims_create", "trace_begin", "trace_end", "progress_model",
		// a message handle or request knows its communicator
		"mrecv", "imrecv", "cancel", "start", "startall":
		return false
	}
	return !strings.Contains(name, ".")
}
