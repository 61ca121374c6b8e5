package bglua

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bglua/bglua/mpi"
)

// Collective algorithms: the built-in ones, their parameters, the grammar
// of Config.Coll and --coll, and the algorithms a program registers.

// Algorithm is a collective algorithm, selectable with Config.Coll as
// {Coll: Name}.
type Algorithm struct {
	Coll, Name string
	Doc        string // what it does, in one line ("" for a program's)
	// Params are the parameters a built-in algorithm takes (Config.Coll
	// {Coll: "Name:param=value"}); a program's takes any.
	Params []AlgorithmParam
	// Where is where a program registered it (file:line of its
	// mpi.coll.register); "" for a built-in one.
	Where string
}

// AlgorithmParam is a parameter of a built-in algorithm: a whole number
// from Min to Max, Default when not given.
type AlgorithmParam struct {
	Name              string
	Min, Max, Default int
	Doc               string
}

func algorithm(a mpi.Algorithm) Algorithm {
	return Algorithm{Coll: a.Coll, Name: a.Name, Doc: a.Doc, Where: a.Where,
		Params: convert(a.Params, func(p mpi.ParamSpec) AlgorithmParam { return AlgorithmParam(p) })}
}

// Algorithms lists the built-in collective algorithms.
func Algorithms() []Algorithm { return convert(mpi.Algorithms(), algorithm) }

// ParseColl reads the collective choices of --coll and of a suite case's
// coll field into a Config.Coll:
//
//	NAME=ALG[:KEY=VALUE[,KEY=VALUE...]][,NAME=ALG...]
//
// Commas separate both pairs and parameters: a comma-separated word
// KEY=VALUE starts a new pair when KEY is a collective (bcast, gatherv...),
// and is a parameter of the pair before otherwise, if that pair has
// parameters (a ':' after its algorithm). So "bcast=chain:seg=32k,radix=4,
// allreduce=ring" is {bcast: "chain:seg=32k,radix=4", allreduce: "ring"}.
// A parameter cannot be named after a collective, nor hold a comma.
// Spaces around words are dropped. The values of the map are ALG or
// ALG:KEY=VALUE,..., as Config.Coll takes them.
func ParseColl(s string) (map[string]string, error) {
	m := map[string]string{}
	canon := map[string]string{} // collective -> the name it was given as
	var cur string               // the name of the pair being read
	for i, word := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(word, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, badPair(word)
		}
		c, err := mpi.CanonColl(k)
		if err != nil && i > 0 && strings.Contains(m[cur], ":") {
			// A parameter of the pair before.
			m[cur] += "," + k + "=" + v
			if _, _, err := parseAlgSpec(m[cur]); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			if i > 0 {
				return nil, fmt.Errorf("%v; parameters follow the algorithm after ':', as in bcast=torus:routes=2", err)
			}
			return nil, err
		}
		if old, dup := canon[c]; dup && old == k {
			return nil, fmt.Errorf("%s is given twice (%s and %s)", k, m[old], v)
		} else if dup {
			return nil, fmt.Errorf("%s is given twice (%s=%s and %s=%s)", c, old, m[old], k, v)
		}
		alg, _, err := parseAlgSpec(v)
		if err != nil {
			return nil, err
		}
		if alg == "" || strings.ContainsAny(alg, "= \t") {
			return nil, badPair(word)
		}
		canon[c], m[k], cur = k, v, k
	}
	for k, v := range m {
		m[k] = canonSpec(v)
	}
	return m, nil
}

// canonSpec is a value of Config.Coll that parseAlgSpec reads, without
// spaces around its words.
func canonSpec(spec string) string {
	alg, rest, has := strings.Cut(spec, ":")
	alg = strings.TrimSpace(alg)
	if !has {
		return alg
	}
	parts := strings.Split(rest, ",")
	for i, part := range parts {
		k, v, _ := strings.Cut(part, "=")
		parts[i] = strings.TrimSpace(k) + "=" + strings.TrimSpace(v)
	}
	return alg + ":" + strings.Join(parts, ",")
}

func badPair(word string) error {
	return fmt.Errorf("want NAME=ALG[:KEY=VALUE,...] ('--coll help' lists them; got %q)", strings.TrimSpace(word))
}

// parseAlgSpec reads a value of Config.Coll, ALG[:KEY=VALUE,...], into the
// algorithm and its parameters: numbers and sizes (32k, 1MiB: bytes, as
// ParseSize reads them) are numbers, anything else a string.
func parseAlgSpec(spec string) (alg string, ps mpi.Params, err error) {
	alg, rest, has := strings.Cut(spec, ":")
	alg = strings.TrimSpace(alg)
	if !has {
		return alg, nil, nil
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(part, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case !ok || k == "" || v == "":
			return "", nil, fmt.Errorf("parameter %q of %s: want KEY=VALUE after %q", strings.TrimSpace(part), alg, alg+":")
		case !paramName.MatchString(k):
			return "", nil, fmt.Errorf("parameter %q of %s: a name is letters, digits and _, not starting with a digit", k, alg)
		case seen[k]:
			return "", nil, fmt.Errorf("parameter %s of %s is given twice", k, alg)
		}
		seen[k] = true
		ps = append(ps, mpi.Param{Name: k, Value: paramValue(v)})
	}
	return alg, ps, nil
}

// paramName is what a parameter may be called: a Lua name, p.seg.
var paramName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// paramValue is a parameter's value: a float64 for a number or a size, else
// the string.
func paramValue(s string) any {
	if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
		return v
	}
	if n, err := ParseSize(s); err == nil {
		return float64(n)
	}
	return s
}

// ParseSize reads a size in bytes: a whole number, or a number with a unit
// K, M, G or T (KB, KiB... alike: powers of 1,024), e.g. "512MiB", "1.5G",
// "32k". It must be positive.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	num := strings.TrimRightFunc(t, func(r rune) bool { return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' })
	unit := strings.ToUpper(strings.TrimSpace(t[len(num):]))
	num = strings.TrimSpace(num)
	mult := map[string]float64{"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MB": 1 << 20, "MIB": 1 << 20,
		"G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30, "T": 1 << 40, "TB": 1 << 40, "TIB": 1 << 40}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || math.IsNaN(v) || v <= 0 || v*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is not a size (e.g. 512MiB, 2G, 1073741824)", s)
	}
	return int64(v * mult), nil
}

// eachColl calls f with every choice of coll, in the order of the
// collectives' names, and returns the first error as a *ConfigError.
func eachColl(coll map[string]string, f func(coll, alg string, ps mpi.Params) error) error {
	for _, k := range slices.Sorted(maps.Keys(coll)) {
		v := coll[k]
		alg, ps, err := parseAlgSpec(v)
		if err == nil {
			err = f(k, alg, ps)
		}
		if err != nil {
			return badField("Coll", k+"="+v, "%v", err)
		}
	}
	return nil
}

// setAlgorithms makes the choices of cfg.Coll in the world.
func (s *sim) setAlgorithms() error {
	return eachColl(s.cfg.Coll, func(coll, alg string, ps mpi.Params) error {
		return s.world.SetAlgorithm(coll, alg, ps...)
	})
}

// algName is the algorithm of a Config.Coll value, without its parameters.
func algName(spec string) string {
	alg, _, _ := strings.Cut(spec, ":")
	return strings.TrimSpace(alg)
}

// ScriptAlgorithmsTimeout bounds the host time of ScriptAlgorithms when
// its Config sets no Timeout.
const ScriptAlgorithmsTimeout = 10 * time.Second

// ScriptAlgorithms runs the start of prog under cfg and lists the
// collective algorithms it registers (mpi.coll.register), sorted by
// collective then name, each with where it was registered. Every rank runs
// until the first call that takes virtual time or waits for another rank;
// the program then stops: nothing it prints is shown, and cfg's Coll,
// Trace, Stats, monitoring and progress are left out. A program that ends
// before, or whose ranks all wait at once, is fine; an error of a rank
// (or of the program's loading) is returned, with what was registered
// before it. The run is bounded by cfg.Timeout, else by
// ScriptAlgorithmsTimeout.
func ScriptAlgorithms(ctx context.Context, cfg Config, prog Program) ([]Algorithm, error) {
	cfg.Stdout, cfg.Trace, cfg.Progress = io.Discard, nil, nil
	cfg.Stats, cfg.MMDS, cfg.EMDS = false, false, false
	cfg.Coll, cfg.MaxVTime, cfg.Tune = nil, 0, Tuning{}
	if cfg.Timeout == 0 {
		cfg.Timeout = ScriptAlgorithmsTimeout
	}
	cfg.probe = true
	g, ctx, stop := guard(ctx, cfg)
	defer stop()
	s, err := setup(cfg, prog, g)
	if err != nil {
		return nil, err
	}
	_, err = s.run(ctx, time.Now())
	algs := convert(s.world.Externals(), algorithm)
	var limit *LimitError
	if errors.As(err, &limit) && limit.What == "virtual time" || errors.As(err, new(*DeadlockError)) {
		err = nil // the program reached its first communication
	}
	return algs, err
}
