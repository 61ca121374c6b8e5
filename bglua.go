// Package bglua is the embedding API of bglua: it runs a Lua program on many
// virtual MPI ranks of a modeled Blue Gene/L and returns what happened as Go
// values. The bglua command is one user of this package; an embedder builds a
// Config, adds Lua modules of its own and calls Run.
package bglua

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Version is the release of bglua.
const Version = "0.1.0"

// Progress is a snapshot of a running simulation.
type Progress struct {
	Seconds   float64 // virtual time
	Events    uint64
	LiveRanks int
	Done      bool // the last call, when the run is over
}

// Program is Lua source to run.
type Program struct {
	Name string // shown in messages and tracebacks, e.g. "ring.lua"
	Code []byte
	Dir  string // where require finds the program's own modules; "" for none
}

// ProgramFile reads a program from a file.
func ProgramFile(path string) (Program, error) {
	b, err := ReadInput(path)
	if err != nil {
		return Program{}, &UsageError{Msg: fmt.Sprintf("cannot read program: %v", unwrapPath(err))}
	}
	return Program{Name: path, Code: b, Dir: filepath.Dir(path)}, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// Result is what a run produced. Every field but HostSeconds is the same for
// the same program, configuration and seed.
type Result struct {
	Ranks   int
	Torus   string // the torus used, e.g. "8x8x8 torus"
	Cycles  int64  // virtual time at the end, in cycles
	Seconds float64
	Events  uint64
	// Messages and Bytes count MPI's point-to-point messages (those inside
	// collectives too) and their payload.
	Messages int64
	Bytes    int64
	// ActiveMessages counts the active messages sent (ml.send, ml.deposit).
	ActiveMessages int64
	// TreeOps and GIOps count the operations of the collective (tree) and
	// global interrupt networks: one per collective call that ran on them
	// (ml.tree_bcast, ml.gi_barrier, --coll allreduce=tree, ...).
	TreeOps, GIOps int64
	// BCSCollectives counts the collectives the bcs runtime scheduled on
	// the network side, one per call (0 under direct).
	BCSCollectives int64
	HostSeconds    float64
	ClockHz        float64 // of the machine, to turn cycles into seconds
	// PerRank says how and when each rank ended.
	PerRank []RankResult
	// Stats has one entry per mpi/ml primitive called (Config.Stats); a
	// collective one per algorithm that ran it, followed by the calls that
	// algorithm made (Parent set), which are not calls of the program.
	Stats []PrimitiveStat
	// Links lists the busiest torus links (at most MaxLinkRows, the
	// longest held first, ties by link index) and LinkDims sums the links
	// of each dimension, x, y and z (Config.Stats).
	Links    []LinkStat
	LinkDims []DimStat
	// Regions has one entry per name of region the ranks marked with
	// mpi.trace_begin and mpi.trace_end (Config.Stats): how many ran and
	// how long (Bytes unused), sorted by name.
	Regions []PrimitiveStat
	// Fallbacks lists the collective calls that could not run on the
	// algorithm chosen with Config.Coll (e.g. tree on a sub-communicator).
	Fallbacks []Fallback
	// Algorithms lists, per collective and communicator (the communicators
	// of one split counted together), the algorithm in force, the one that
	// ran (what auto chose, or what a hardware algorithm fell back on, and
	// why) and how many calls.
	Algorithms []AlgorithmUse
	// Slices is the number of bcs time slices strobed (0 under direct).
	Slices int64
	// MDS holds the monitoring output asked for with Config.MMDS and EMDS.
	MDS *MDS
	// Partitions is the number of partitions the run advanced in: one per
	// block of the torus, or 1; OnePartition says why a run on a torus of
	// several blocks ran in one ("" otherwise).
	Partitions   int
	OnePartition string
	// Windows and Crossings, in a run of several partitions, are the
	// windows the partitions advanced in and the events one partition
	// sent another (docs/distributed.md); 0 in a run of one.
	Windows, Crossings uint64
	// Coarsened is what exact coarsening (Config.Grain 0) did.
	Coarsened Coarsened
	// Leftovers are the messages that reached a rank and were never taken
	// by it: MPI messages no receive matched, active messages no advance
	// loop handled (the rank returned first), by rank, then in the order
	// they came; at most MaxLeftovers of them, and LeftoverCount in all.
	Leftovers     []Leftover
	LeftoverCount int
}

// MaxLeftovers is how many leftover messages a Result lists.
const MaxLeftovers = 100

// Leftover is a message that reached a rank and was never taken by it.
type Leftover struct {
	Rank, From int
	// Handler names the ml handler an active message was for ("" for an
	// MPI message); Tag and Collective describe an MPI message (Collective:
	// sent by a collective operation).
	Handler    string
	Tag        int
	Collective bool
	Bytes      int
}

// String says what the message was and who did not take it.
func (o Leftover) String() string {
	size := fmt.Sprintf("%d bytes", o.Bytes)
	if o.Bytes == 1 {
		size = "1 byte"
	}
	if o.Handler != "" {
		return fmt.Sprintf("rank %d never handled an active message for handler %s from rank %d (%s)", o.Rank, o.Handler, o.From, size)
	}
	what := fmt.Sprintf("tag %d", o.Tag)
	if o.Collective {
		what = "sent by a collective operation"
	}
	return fmt.Sprintf("rank %d never received a message from rank %d (%s, %s)", o.Rank, o.From, what, size)
}

// Fallback counts the calls of a hardware collective algorithm chosen with
// Config.Coll that ran the default algorithm instead, for one reason (e.g.
// tree on a sub-communicator).
type Fallback struct {
	Coll   string // "barrier", "bcast", "reduce" or "allreduce"
	Alg    string // "tree" or "gi"
	Reason string
	Calls  int
}

// Coarsened is what exact coarsening did in a run: how many transfers it
// recorded (the first of their shape, run aside), leased (advanced without
// their events), of those how many broke (something else reached their
// resources: their events ran after all), of those how many ran again only
// from a checkpoint of their template on (FromCheckpoint; the others from
// their start), and the events it did not run.
type Coarsened struct {
	Recorded, Leased, Broken, FromCheckpoint, NotRun int64
}

// AlgorithmUse is how the calls of one collective ran on one communicator,
// or on the communicators of one split or dup counted together.
type AlgorithmUse struct {
	Coll   string // the collective, e.g. "allreduce"
	Comm   string // the communicator's name, e.g. "COMM_WORLD.split0"
	Comms  int    // how many communicators of the split made such calls
	Chosen string // the algorithm in force: Config.Coll's, "auto" or "bcs"
	Ran    string // the algorithm that ran
	Reason string // why Ran is not Chosen, when it is a fallback
	Calls  int
}

// PrimitiveStat sums the calls of one primitive (mpi.send, ml.wait, ...)
// over all ranks. Times are virtual cycles (Result.ClockHz turns them into
// seconds).
type PrimitiveStat struct {
	Name string
	// Algorithm is the algorithm that ran a collective's calls; the calls
	// of one collective are counted per algorithm.
	Algorithm string
	// Parent, if set, is the collective (Name of its row) whose algorithm,
	// Algorithm, made these calls: they are part of that row's calls, not
	// calls of the program.
	Parent          string
	Count           int64 // calls
	Min, Max, Total int64 // virtual duration of a call, and of all
	Bytes           int64 // payload bytes the calling ranks sent during the calls
}

// RankResult is how one rank ended: "done", "failed", "aborted", "blocked"
// (in a deadlock), "stopped" (while another rank ended the run) or "not
// started", and at what virtual time.
type RankResult struct {
	State   string
	Seconds float64
}

// Slowdown is host time over virtual time, the emulator paper's measure.
func (r *Result) Slowdown() float64 {
	if r.Seconds == 0 {
		return 0
	}
	return r.HostSeconds / r.Seconds
}

// Run runs prog under cfg. It returns a Result whenever the run started, also
// when it ended in an error: a *ConfigError (see Validate), a *UsageError
// (a bad machine, mapping or program file),
// a *RankError or *AbortError, a *DeadlockError, a *LimitError, or an
// *InterruptedError when ctx was canceled.
func Run(ctx context.Context, cfg Config, prog Program) (*Result, error) {
	start := time.Now()
	if cfg.MPI && cfg.procs == nil {
		net, err := jobNet()
		if err != nil {
			return nil, &UsageError{Msg: err.Error()}
		}
		cfg.procs = net
	}
	var gc *gcTuner
	if cfg.Tune.GC && os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		// A large run allocates most of its heap at start, in rank states
		// that stay live: let it grow without collecting it over and over
		// (over several processes, by this one's share of the ranks).
		ranks := uint64(max(cfg.Ranks, 1))
		if cfg.procs != nil {
			ranks = ranks/uint64(cfg.procs.Size()) + 1
		}
		gc = gcHeadroom(ranks * GCHeadroomPerRank)
		defer gc.stop()
	}
	g, ctx, stop := guard(ctx, cfg)
	defer stop()
	s, err := setup(cfg, prog, g)
	if cfg.procs != nil && cfg.procs.Size() > 1 {
		// A process that could not set the run up must not leave the
		// others waiting for it at the first window.
		if aerr := agreeStart(cfg.procs, err); aerr != nil && err == nil {
			return nil, aerr
		}
	}
	if err != nil {
		return nil, err
	}
	if gc != nil {
		s.host.AllStarted = gc.running
	}
	return s.run(ctx, start)
}
