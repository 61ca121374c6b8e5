package bglua

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/yuin/gopher-lua/pm"

	"github.com/bglua/bglua/luabind"
	"github.com/bglua/bglua/stdlib"
)

// Suite is a regression suite: a *_test.lua file whose cases each run as a
// simulation of their own (docs/suites.md).
type Suite struct {
	File    string
	Program Program
	Cases   []Case
}

// Case is one case: its name, its run settings (any run flag as a field) and
// what it expects (fails = "pattern", deadlocks = true, or success).
type Case = luabind.Case

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
	return &Suite{File: path, Program: prog, Cases: cases}, nil
}

// caseFields are the run settings a case may set, as Lua field names; a
// dash may stand for the underscore (max-vtime).
var caseFields = []string{"args", "coll", "eager_limit", "grain", "machine", "mapping", "max_memory", "max_vtime", "mesh", "mode", "ranks", "routing", "runtime", "rzv_limit", "seed", "threads", "timeout", "timeslice", "torus"}

// Config applies case i's settings over base.
func (s *Suite) Config(base Config, i int) (Config, error) {
	c := s.Cases[i]
	cfg := base
	cfg.Case = i + 1
	keys := make([]string, 0, len(c.Fields))
	for k := range c.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := c.Fields[k]
		if err := setCaseField(&cfg, strings.ReplaceAll(k, "-", "_"), v); err != nil {
			return cfg, usage("%s: case %q: %v", s.File, c.Name, err)
		}
	}
	return cfg, nil
}

func setCaseField(cfg *Config, k string, v any) error {
	str := func() (string, error) {
		if s, ok := v.(string); ok {
			return s, nil
		}
		return "", fmt.Errorf("field %s: want a string, got %T", k, v)
	}
	num := func() (int, error) {
		if f, ok := v.(float64); ok && f == float64(int(f)) {
			return int(f), nil
		}
		return 0, fmt.Errorf("field %s: want an integer, got %v", k, v)
	}
	var err error
	switch k {
	case "ranks":
		cfg.Ranks, err = num()
		if err == nil && cfg.Ranks < 1 {
			err = fmt.Errorf("field ranks must be at least 1")
		}
	case "seed":
		var n int
		n, err = num()
		cfg.Seed = int64(n)
	case "eager_limit":
		cfg.EagerLimit, err = num()
	case "rzv_limit":
		cfg.RzvLimit, err = num()
	case "grain":
		cfg.Grain, err = num()
		if err == nil && (cfg.Grain < 1 || cfg.Grain > MaxGrain) {
			err = fmt.Errorf("field grain must be 1 to %d, got %d", MaxGrain, cfg.Grain)
		}
	case "threads":
		cfg.Threads, err = num()
		if err == nil && cfg.Threads < 1 {
			err = fmt.Errorf("field threads must be at least 1, got %d", cfg.Threads)
		}
	case "torus":
		cfg.Torus, err = str()
	case "mode":
		cfg.Mode, err = str()
	case "mapping":
		cfg.Mapping, err = str()
	case "machine":
		cfg.Machine, err = str()
	case "routing":
		cfg.Routing, err = str()
	case "runtime":
		cfg.Runtime, err = str()
	case "mesh":
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("field mesh: want a boolean")
		}
		cfg.Mesh = b
	case "timeslice":
		switch x := v.(type) {
		case float64:
			cfg.Timeslice = x
		case string:
			cfg.Timeslice, err = ParseDuration(x)
		default:
			err = fmt.Errorf("field timeslice: want a duration such as \"250us\"")
		}
		if err == nil && cfg.Timeslice <= 0 {
			err = fmt.Errorf("field timeslice: must be positive")
		}
	case "max_vtime":
		switch x := v.(type) {
		case float64:
			cfg.MaxVTime = x
		case string:
			cfg.MaxVTime, err = ParseDuration(x)
		default:
			err = fmt.Errorf("field max_vtime: want a duration such as \"10ms\"")
		}
	case "timeout":
		var sec float64
		switch x := v.(type) {
		case float64:
			sec = x
		case string:
			if sec, err = ParseDuration(x); err != nil {
				err = fmt.Errorf("field timeout: %v", err)
			}
		default:
			err = fmt.Errorf("field timeout: want a wall-clock duration such as \"30s\"")
		}
		if err == nil && (sec <= 0 || sec > maxTimeout.Seconds()) {
			err = fmt.Errorf("field timeout: want a positive duration of at most %s", maxTimeout)
		}
		cfg.Timeout = time.Duration(sec * float64(time.Second))
	case "max_memory":
		switch x := v.(type) {
		case float64:
			if x != float64(int64(x)) || x <= 0 {
				err = fmt.Errorf("field max_memory: want a positive whole number of bytes or a size such as \"2GiB\"")
			}
			cfg.MaxMemory = int64(x)
		case string:
			cfg.MaxMemory, err = ParseSize(x)
			if err != nil {
				err = fmt.Errorf("field max_memory: %v", err)
			}
		default:
			err = fmt.Errorf("field max_memory: want a size such as \"2GiB\"")
		}
	case "coll":
		switch x := v.(type) {
		case string:
			cfg.Coll, err = ParseColl(x)
		case map[string]string:
			cfg.Coll = x
		default:
			err = fmt.Errorf("field coll: want \"NAME=ALG,...\" or {NAME = ALG}")
		}
	case "args":
		l, ok := v.([]string)
		if !ok {
			return fmt.Errorf("field args: want a list of strings")
		}
		cfg.Args = l
	default:
		return fmt.Errorf("unknown field %s (valid: name, run, fails, deadlocks, %s)", k, strings.Join(caseFields, ", "))
	}
	return err
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
		if ok, perr := luaMatch(c.Fails, err.Error()); perr != nil {
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

// luaMatch reports whether the Lua pattern p matches somewhere in s.
func luaMatch(p, s string) (bool, error) {
	m, err := pm.Find(p, []byte(s), 0, 1)
	if err != nil {
		return false, err
	}
	return len(m) > 0, nil
}

// ParseColl reads "NAME=ALG[,NAME=ALG]".
func ParseColl(s string) (map[string]string, error) {
	m := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" || strings.Contains(v, "=") {
			return nil, fmt.Errorf("--coll %q: want NAME=ALG[,NAME=ALG] ('--coll help' lists them)", s)
		}
		if old, dup := m[k]; dup {
			return nil, fmt.Errorf("--coll %q: %s is given twice (%s and %s)", s, k, old, v)
		}
		m[k] = v
	}
	return m, nil
}

// ParseDuration reads a virtual duration: "500us", "1.5ms", "2s" or a bare
// number of seconds.
func ParseDuration(s string) (float64, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		switch {
		case v != v || math.IsInf(v, 0):
			return 0, fmt.Errorf("%q is not a finite duration", s)
		case v < 0:
			return 0, fmt.Errorf("%q is negative", s)
		}
		return v, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration (e.g. 500us, 1.5ms, 2s)", s)
	}
	return d.Seconds(), nil
}

// maxTimeout is the longest wall-time limit a case or --timeout may set.
const maxTimeout = 1000 * time.Hour

// ParseSize reads a memory size: a whole number of bytes, or a number with a
// unit K, M, G or T (KB, KiB... alike: powers of 1,024), e.g. "512MiB",
// "1.5G".
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	num := strings.TrimRightFunc(t, func(r rune) bool { return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' })
	unit := strings.ToUpper(strings.TrimSpace(t[len(num):]))
	num = strings.TrimSpace(num)
	mult := map[string]float64{"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MB": 1 << 20, "MIB": 1 << 20,
		"G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30, "T": 1 << 40, "TB": 1 << 40, "TIB": 1 << 40}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || math.IsNaN(v) || v <= 0 || v*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is not a memory size (e.g. 512MiB, 2G, 1073741824)", s)
	}
	return int64(v * mult), nil
}

// SuiteFiles finds the *_test.lua files under paths (files are taken as
// given), sorted, each once.
func SuiteFiles(paths []string) ([]string, error) {
	seen := map[string]bool{}
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, usage("%v", unwrapPath(err))
		}
		if !st.IsDir() {
			if !seen[p] {
				seen[p] = true
				files = append(files, p)
			}
			continue
		}
		found, err := findSuites(p)
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	sort.Strings(files)
	return files, nil
}
