package bglua

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/mpi"
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"

	"github.com/bglua/bglua/internal/mpinet"
)

// MaxGrain is the largest Config.Grain.
const MaxGrain = 4096

// Config describes one run. The zero value is one rank on the default BG/L.
type Config struct {
	Ranks   int    // number of MPI ranks (default 1)
	Torus   string // "XxYxZ" in nodes; "" for the smallest near-cube that holds the ranks
	Mesh    bool   // no wrap-around links
	Mode    string // "co" (default), "vn" or "heater"
	Mapping string // "XYZT" (default), "TXYZ" or a mapping file
	Machine string // "bgl" (default), "bgc" or a Lua file of field overrides
	Runtime string // "direct" (default) or "bcs" (buffered coscheduling)
	// Timeslice is the bcs runtime's time slice in seconds (default 500 us).
	Timeslice float64
	// MMDS keeps per-rank statistics and computation/communication
	// distributions (Result.MDS); EMDS (bcs only) per-slice runtime metrics.
	MMDS, EMDS bool
	// Coll picks collective algorithms, e.g. {"bcast": "binomial"}, with
	// parameters after a colon: {"bcast": "torus:routes=2"} (see ParseColl;
	// a built-in algorithm takes only its own, Algorithm.Params).
	Coll map[string]string
	// Seed seeds every random choice (math.random on each rank, adaptive
	// routing's choices between equally free links).
	Seed int64
	// Routing is how the torus routes the packets that allow either
	// (rendezvous data, adaptive eager packets, grants and confirmations):
	// "deterministic", "adaptive", or "" for each protocol's own choice.
	Routing string
	// ProgressModel is who advances nonblocking collectives (mpi.iallreduce
	// and friends): "coprocessor" (or ""), CPU 1 in coprocessor mode and
	// inside the rank's MPI calls elsewhere; or "inline", only inside the
	// rank's MPI calls, as most MPI libraries (docs/model.md).
	ProgressModel string
	// MaxVTime stops the run with a *LimitError past this many virtual seconds.
	MaxVTime float64
	// Timeout stops the run with a *LimitError once it has taken this much
	// host (wall) time, even inside a rank's pure Lua loop (0: none).
	Timeout time.Duration
	// MaxMemory stops the run with a *LimitError once the process's memory
	// passes this many bytes, and refuses, as an error of the rank, a single
	// value that would pass it (0: none). The memory is the whole
	// process's, as the Go runtime counts it.
	MaxMemory int64
	// EagerLimit and RzvLimit override the machine's protocol switch points
	// in bytes: eager up to EagerLimit, rendezvous above RzvLimit.
	EagerLimit, RzvLimit int
	// Grain is how message data is simulated. 0: exactly, batch by batch,
	// a lone transfer of a shape already seen advanced at once where
	// nothing else reaches its resources (exact coarsening; the same
	// results as 1). 1: batch by batch always, the reference. Above 1:
	// coarser, for speed: large messages cost about Grain times fewer
	// events, and a CPU's writing and reading interleave with its other
	// work at Grain times the machine's FIFO depths.
	Grain int
	// Args are the script arguments, the program's arg table.
	Args []string
	// Stats collects per-primitive statistics into Result.Stats.
	Stats bool
	// Trace, if set, receives a Chrome trace-event JSON timeline of the run;
	// TraceRanks, if set, limits it to the ranks it returns true for.
	Trace      io.Writer
	TraceRanks func(rank int) bool
	// Progress, if set, is called every few thousand events with how far
	// the run has come (for progress displays; it cannot change the run).
	Progress func(Progress)
	// Case, if positive, runs the Case-th case (1-based) of a regression
	// suite program instead of the program itself (see Suite).
	Case int

	// Stdout receives the program's print output (default os.Stdout).
	Stdout io.Writer
	// Quiet drops the "[rank] " prefix of printed lines.
	Quiet bool

	// GoModules and LuaModules are modules of the embedder that every rank
	// can require by name.
	GoModules  map[string]lua.LGFunction
	LuaModules map[string]string

	// ReadFile reads modules, machine and mapping files (default ReadInput,
	// which reads at most MaxInputFile bytes).
	ReadFile func(name string) ([]byte, error)

	// Threads is how many OS threads advance the partitions of a run (0:
	// one). A torus of more than one block (of at most 8x8x8 nodes) runs in
	// partitions, one per block, advanced in conservative windows; the
	// blocks depend on the torus alone, so the results are the same for
	// every Threads. In partitions, a pset's I/O node serves lines in the
	// order they reach it, and trace message ids are numbered per rank. A
	// run whose torus has one block, or that uses what only one partition
	// models, runs in one partition, and Result.OnePartition says why: the
	// bcs runtime, a machine without hop latency or with thread units (bgc),
	// a Coll of bcast torus or alltoall optimized.
	// (Tune.Procs gives the threads their Ps.)
	Threads int

	// MPI makes the run one process's share of a run over the processes of
	// the MPI job that started this program (mpirun -np P bglua ...,
	// docs/distributed.md): every process runs the same Config, the
	// torus's blocks are shared among the processes, which exchange what
	// crosses between them at each window's end, and process 0 writes the
	// output (Stdout is written by it alone); the results are those of a
	// run in one process. It needs a bglua built with -tags mpi and an MPI
	// installed; EndMPI ends the job's MPI once the last run is over. A run
	// that needs one partition runs whole in every process.
	MPI bool

	// Tune lets Run change settings of the whole process for speed; the
	// zero value changes none.
	Tune Tuning

	// probe stops the run once virtual time passes 0 (ScriptAlgorithms).
	probe bool
	// checkCrossings, if set, runs a run in partitions under the debug
	// check of what crosses between them: the world's check
	// (runtime.CrossingCheck), as the function returns it (tests count
	// through it).
	checkCrossings func(runtime.CrossingCheck) runtime.CrossingCheck
	// procs, if set, makes the run one process's share of a run over the
	// processes of procs (distributed.go).
	procs mpinet.Net
}

// Tuning is what Run may change of the whole process to run faster; the
// results are the same either way. The bglua command turns it on. An
// embedder whose process does other work beside bglua leaves it off, or
// sets those settings itself.
type Tuning struct {
	// Procs raises GOMAXPROCS to the threads of a run in partitions while
	// it runs, and by one while a run in one partition makes its ranks' Lua
	// states on a second thread. Concurrent runs share the raise, and the
	// last to end puts back the value from before the first.
	Procs bool
	// GC lets the heap grow by GCHeadroomPerRank a rank between garbage
	// collections while the ranks start, and by half that (at least 64
	// MiB) once every rank has started, or by the live heap when that is
	// more, unless the environment sets GOGC or GOMEMLIMIT. It is for one run at a time: the collector's setting is
	// the process's.
	GC bool
}

// ConfigError is a field of a Config that Run cannot use.
type ConfigError struct {
	// Field is the name of the field in Config, e.g. "Mode".
	Field string
	// Value is the value as the message writes it (`"xy"`, "0", "2e+30s"),
	// or "" when Reason says it.
	Value string
	// Reason says what is wrong: what is wanted ("want co, vn or heater"),
	// what failed ("cannot read mapping file: ..."), or a predicate of the
	// field ("must not be negative (got -1s)", "is past what virtual time
	// can hold (...)").
	Reason string
}

// Error names the field: `Config.Mode "xy": want co, vn or heater`.
func (e *ConfigError) Error() string { return e.Named("Config." + e.Field) }

// Named is the message with name for the field, as the bglua command names
// its flags ("--mode"): name, Value if any, and Reason, after a space if it
// is a predicate (it starts with "is", "must" or "needs"), else after a
// colon.
func (e *ConfigError) Named(name string) string {
	s := name
	if e.Value != "" {
		s += " " + e.Value
	}
	for _, verb := range []string{"is ", "must ", "needs "} {
		if strings.HasPrefix(e.Reason, verb) {
			return s + " " + e.Reason
		}
	}
	return s + ": " + e.Reason
}

// badField is a *ConfigError whose reason is made with format.
func badField(field, value, format string, args ...any) error {
	return &ConfigError{Field: field, Value: value, Reason: fmt.Sprintf(format, args...)}
}

// Validate reports the first field of c that Run cannot use, as a
// *ConfigError, without reading any file. Zero values are the defaults.
// What depends on the machine or a file is checked when Run reads it: a
// machine or mapping file, RzvLimit against the machine's eager limit,
// Timeslice and MaxVTime against what virtual time can hold. Coll is
// checked as far as it can be before the program registers its own
// algorithms: the collectives, the grammar, and the parameters of
// built-in algorithms.
func (c Config) Validate() error {
	_, err := c.withDefaults().check(nil)
	return err
}

// withDefaults is c with its zero values made the defaults they stand for.
func (c Config) withDefaults() Config {
	if c.Ranks == 0 {
		c.Ranks = 1
	}
	if c.ReadFile == nil {
		c.ReadFile = ReadInput
	}
	if c.Stdout == nil {
		c.Stdout = os.Stdout
	}
	if c.Mode == "" {
		c.Mode = "co"
	}
	if c.Runtime == "" {
		c.Runtime = "direct"
	}
	if c.Timeslice == 0 {
		c.Timeslice = 500e-6
	}
	c.Threads = max(c.Threads, 1)
	return c
}

// check checks the fields of c, its defaults set, in the order Run
// reports them. With load, it loads the machine where its errors come and
// checks what depends on it; without, it checks the machine's name only.
func (c Config) check(load func() (*msglayer.Machine, error)) (*msglayer.Machine, error) {
	switch {
	case c.Timeout < 0:
		return nil, badField("Timeout", "", "must not be negative (got %s)", c.Timeout)
	case c.MaxMemory < 0:
		return nil, badField("MaxMemory", "", "must not be negative (got %d)", c.MaxMemory)
	case c.Ranks < 0:
		return nil, badField("Ranks", "", "must be at least 1 (got %d)", c.Ranks)
	}
	var m *msglayer.Machine
	if load != nil {
		var err error
		if m, err = load(); err != nil {
			return nil, err
		}
	} else if err := knownMachine(c.Machine); err != nil {
		return nil, err
	}
	switch {
	case c.EagerLimit < 0:
		return nil, badField("EagerLimit", "", "must not be negative (got %d)", c.EagerLimit)
	case c.RzvLimit < 0:
		return nil, badField("RzvLimit", "", "must not be negative (got %d)", c.RzvLimit)
	case m != nil && c.RzvLimit > 0 && c.RzvLimit < c.eagerLimit(m):
		// Messages up to the eager limit go eagerly whatever the
		// rendezvous limit: one below it would be ignored. (An eager limit
		// raised alone is fine: rendezvous then starts above it.)
		return nil, badField("RzvLimit", fmt.Sprint(c.RzvLimit), "is below the eager limit %d: want it at least the eager limit (the adaptive eager protocol runs between the two)", c.eagerLimit(m))
	case c.Mode != "co" && c.Mode != "vn" && c.Mode != "heater":
		return nil, badField("Mode", fmt.Sprintf("%q", c.Mode), "want co, vn or heater")
	case c.Runtime == "direct" && c.EMDS:
		return nil, badField("EMDS", "", `needs Config.Runtime "bcs" (it monitors the bcs runtime's slices)`)
	case c.Runtime != "direct" && c.Runtime != "bcs":
		return nil, badField("Runtime", fmt.Sprintf("%q", c.Runtime), "want direct or bcs")
	case c.Timeslice < 0:
		return nil, badField("Timeslice", "", "must be positive")
	case c.MaxVTime < 0:
		return nil, badField("MaxVTime", "", "must not be negative")
	case c.Grain < 0 || c.Grain > MaxGrain:
		return nil, badField("Grain", fmt.Sprint(c.Grain), "want 0 to %d (0: exact, coarsened where nothing can tell; 1: the machine's FIFOs always; more: fewer events for large messages, coarser interleaving)", MaxGrain)
	}
	if c.ProgressModel != "" {
		if _, err := mpi.ParseProgressModel(c.ProgressModel); err != nil {
			return nil, badField("ProgressModel", fmt.Sprintf("%q", c.ProgressModel), "want coprocessor or inline")
		}
	}
	if _, ok := msglayer.ParseRouting(c.Routing); !ok {
		return nil, badField("Routing", fmt.Sprintf("%q", c.Routing), "want deterministic or adaptive (default: each protocol's own)")
	}
	if _, err := c.dims(); err != nil {
		return nil, err
	}
	if err := eachColl(c.Coll, mpi.CheckAlgorithm); err != nil {
		return nil, err
	}
	return m, nil
}

// eagerLimit is the eager limit of a run of c on m.
func (c Config) eagerLimit(m *msglayer.Machine) int {
	if c.EagerLimit > 0 {
		return c.EagerLimit
	}
	return m.EagerLimit
}

// perNode is how many ranks a node runs in c's mode.
func (c Config) perNode() int {
	if c.Mode == "vn" {
		return 2
	}
	return 1
}

// dims is the torus of the run: c.Torus, or the smallest near-cube that
// holds the ranks.
func (c Config) dims() (msglayer.Dims, error) {
	if c.Torus != "" {
		d, err := msglayer.ParseDims(c.Torus)
		if err != nil {
			return d, badField("Torus", "", "%v", err)
		}
		return d, nil
	}
	nodes := (c.Ranks + c.perNode() - 1) / c.perNode()
	if nodes > msglayer.MaxNodes {
		// Said of Ranks, which the user gave, not of a torus made for it.
		return msglayer.Dims{}, badField("Ranks", fmt.Sprint(c.Ranks), "needs %d nodes at %s per node, more than a torus bglua models (at most %d nodes)", nodes, plural(c.perNode(), "rank"), msglayer.MaxNodes)
	}
	return msglayer.DefaultDims(nodes), nil
}
