package bglua

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/yuin/gopher-lua/pm"

	"github.com/bglua/bglua/luabind"
	"github.com/bglua/bglua/stdlib"
)

// Suite is a regression suite: a *_test.lua (or *_spec.lua) file whose cases each run as a
// simulation of their own (docs/suites.md). To run case i,
// run Program with Config.Case = i+1 and the case's settings applied (the
// bglua command reads them as its run flags), then ask Verdict.
type Suite struct {
	File    string
	Program Program
	Cases   []Case
}

// Case is one case of a suite: its name, its run settings and what it
// expects (fails = "pattern", deadlocks = true, or success).
type Case struct {
	Name string
	// Fields are the case's run settings by field name ("ranks", "coll",
	// "max_vtime"...: the run flags): string, float64 or bool values, or
	// map[string]string and []string for tables.
	Fields    map[string]any
	Fails     string // a Lua pattern the run's error must match
	Deadlocks bool   // the run must end in a deadlock
	// Pending, if not "", says why the case is not run: declared without a
	// run function (it(name), pending(name)) or with a pending field.
	Pending string
}

// LoadSuite reads a suite file and its cases. A file that does not compile,
// does not return cases, or has a case without run is a *UsageError.
func LoadSuite(path string) (*Suite, error) {
	prog, err := ProgramFile(path)
	if err != nil {
		return nil, err
	}
	cases, err := luabind.LoadSuite(path, prog.Code, stdlib.FS)
	if err != nil {
		return nil, &UsageError{Msg: strings.SplitN(err.Error(), "\nstack traceback", 2)[0]}
	}
	return &Suite{File: path, Program: prog, Cases: convert(cases, func(c luabind.Case) Case { return Case(c) })}, nil
}

// Verdict says whether case i passed given how its run ended, and if not,
// why, in one line.
func (s *Suite) Verdict(i int, err error) (bool, string) {
	c := s.Cases[i]
	var d *DeadlockError
	isDeadlock := errors.As(err, &d)
	switch {
	case c.Deadlocks:
		if isDeadlock {
			return true, ""
		}
		if err == nil {
			return false, "expected a deadlock, the run succeeded"
		}
		return false, "expected a deadlock, got: " + firstLine(err)
	case c.Fails != "":
		if err == nil {
			return false, fmt.Sprintf("expected an error matching %q, the run succeeded", c.Fails)
		}
		if ok, perr := LuaMatch(c.Fails, err.Error()); perr != nil {
			return false, fmt.Sprintf("fails = %q: %v", c.Fails, perr)
		} else if !ok {
			return false, fmt.Sprintf("expected an error matching %q, got: %s", c.Fails, firstLine(err))
		}
		return true, ""
	}
	if err != nil {
		return false, firstLine(err)
	}
	return true, ""
}

func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// LuaMatch reports whether the Lua pattern p matches somewhere in s, as
// string.find does; err says what is wrong with a malformed pattern.
func LuaMatch(p, s string) (bool, error) {
	m, err := pm.Find(p, []byte(s), 0, 1)
	if err != nil {
		return false, err
	}
	return len(m) > 0, nil
}

// SuiteFiles finds the *_test.lua and *_spec.lua files under paths (files are taken as
// given), sorted, each once.
func SuiteFiles(paths []string) ([]string, error) {
	seen := map[string]bool{}
	var files []string
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, usage("%v", unwrapPath(err))
		}
		if !st.IsDir() {
			add(p)
			continue
		}
		found, err := findSuites(p)
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			add(f)
		}
	}
	sort.Strings(files)
	return files, nil
}
