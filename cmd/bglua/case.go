package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/bglua/bglua"
)

// caseFields are the run settings a case may set, as Lua field names; a
// dash may stand for the underscore (max-vtime). Every flag of a run is
// one but those of notCaseFields.
var caseFields = []string{"args", "coll", "eager_limit", "grain", "machine", "mapping", "max_memory", "max_vtime", "mds", "mds_dir", "mesh", "mode", "progress_model", "quiet", "ranks", "routing", "runtime", "rzv_limit", "seed", "stats", "stats_json", "threads", "timeout", "timeslice", "torus", "trace", "trace_ranks"}

// notCaseFields are the flags of a run that a case cannot set, and why
// (docs/suites.md).
var notCaseFields = map[string]string{
	"progress":   "bglua test shows no progress line",
	"cpuprofile": "a profile is of the whole bglua process",
	"memprofile": "a profile is of the whole bglua process",
}

// caseOutputs are what a case's fields ask a run to write besides its
// output, as the run flags of the same names: files, and tables in the
// case's output.
type caseOutputs struct {
	trace, statsJSON, mdsDir string
	stats                    bool
}

// caseConfig applies the settings of case i of s over base: a case field
// is a run flag (docs/suites.md).
func caseConfig(s *bglua.Suite, base bglua.Config, i int) (bglua.Config, error) {
	cfg, _, err := caseSettings(s, base, i)
	return cfg, err
}

// caseSettings is caseConfig and the outputs the case asks for.
func caseSettings(s *bglua.Suite, base bglua.Config, i int) (bglua.Config, caseOutputs, error) {
	c := s.Cases[i]
	cfg := base
	cfg.Case = i + 1
	outs := caseOutputs{mdsDir: "mds"}
	var traceRanks string
	for _, k := range slices.Sorted(maps.Keys(c.Fields)) {
		v := c.Fields[k]
		err := setCaseField(&cfg, strings.ReplaceAll(k, "-", "_"), v)
		if errors.Is(err, errNotConfig) {
			err = setCaseOutput(&cfg, &outs, &traceRanks, strings.ReplaceAll(k, "-", "_"), v)
		}
		if err != nil {
			return cfg, outs, &bglua.UsageError{Msg: fmt.Sprintf("%s: case %q: %v", s.File, c.Name, err)}
		}
	}
	if traceRanks != "" {
		keep, err := parseRankList(traceRanks, max(cfg.Ranks, 1))
		if err == nil && outs.trace == "" {
			err = errors.New("needs the trace field (a file)")
		}
		if err != nil {
			return cfg, outs, &bglua.UsageError{Msg: fmt.Sprintf("%s: case %q: field trace_ranks: %v", s.File, c.Name, err)}
		}
		cfg.TraceRanks = keep
	}
	return cfg, outs, nil
}

// errNotConfig says a field is not one of the Config's.
var errNotConfig = errors.New("not a Config field")

// setCaseOutput reads the fields that ask for a run's outputs.
func setCaseOutput(cfg *bglua.Config, outs *caseOutputs, traceRanks *string, k string, v any) error {
	str := func(dst *string) error {
		s, ok := v.(string)
		if !ok || s == "" {
			return fmt.Errorf("field %s: want a file name, got %v", k, v)
		}
		*dst = s
		return nil
	}
	flag := func(dst *bool) error {
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("field %s: want true or false", k)
		}
		*dst = b
		return nil
	}
	switch k {
	case "quiet":
		return flag(&cfg.Quiet)
	case "stats":
		err := flag(&outs.stats)
		cfg.Stats = cfg.Stats || outs.stats
		return err
	case "stats_json":
		cfg.Stats = true
		return str(&outs.statsJSON)
	case "trace":
		return str(&outs.trace)
	case "trace_ranks":
		return str(traceRanks)
	case "mds_dir":
		return str(&outs.mdsDir)
	case "mds":
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("field mds: want \"mmds\", \"emds\" or \"mmds,emds\"")
		}
		var err error
		cfg.MMDS, cfg.EMDS, err = parseMDS(s)
		return err
	}
	why, ok := notCaseFields[k]
	if ok {
		return fmt.Errorf("field %s: not a case field: %s", k, why)
	}
	return fmt.Errorf("unknown field %s (valid: name, run, fails, deadlocks, pending, %s)", k, strings.Join(caseFields, ", "))
}

func setCaseField(cfg *bglua.Config, k string, v any) error {
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
		if err == nil && (cfg.Grain < 0 || cfg.Grain > bglua.MaxGrain) {
			err = fmt.Errorf("field grain must be 0 to %d, got %d", bglua.MaxGrain, cfg.Grain)
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
	case "progress_model":
		cfg.ProgressModel, err = str()
	case "runtime":
		cfg.Runtime, err = str()
	case "mesh":
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("field mesh: want a boolean")
		}
		cfg.Mesh = b
	case "timeslice":
		cfg.Timeslice, err = seconds(v, "", `field timeslice: want a duration such as "250us"`)
		if err == nil && cfg.Timeslice <= 0 {
			err = fmt.Errorf("field timeslice: must be positive")
		}
	case "max_vtime":
		cfg.MaxVTime, err = seconds(v, "", `field max_vtime: want a duration such as "10ms"`)
	case "timeout":
		var sec float64
		sec, err = seconds(v, "field timeout: ", `field timeout: want a wall-clock duration such as "30s"`)
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
			cfg.MaxMemory, err = parseSize(x)
			if err != nil {
				err = fmt.Errorf("field max_memory: %v", err)
			}
		default:
			err = fmt.Errorf("field max_memory: want a size such as \"2GiB\"")
		}
	case "coll":
		switch x := v.(type) {
		case string:
			cfg.Coll, err = parseColl(x)
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
		return errNotConfig
	}
	return err
}

// seconds reads a duration field: a number of seconds, or a string such as
// "250us" (its errors after prefix); of another type, the error is typeErr.
func seconds(v any, prefix, typeErr string) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case string:
		sec, err := parseDuration(x)
		if err != nil && prefix != "" {
			err = fmt.Errorf("%s%v", prefix, err)
		}
		return sec, err
	}
	return 0, errors.New(typeErr)
}
