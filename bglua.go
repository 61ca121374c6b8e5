// Package bglua is the embedding API of bglua: it runs a Lua program on many
// virtual MPI ranks of a modeled Blue Gene/L and returns what happened as Go
// values. The bglua command is one user of this package; an embedder builds a
// Config, adds Lua modules of its own and calls Run.
package bglua

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/bcs"
	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/luabind"
	"github.com/bglua/bglua/mpi"
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
	"github.com/bglua/bglua/stdlib"
)

// Version is the release of bglua.
const Version = "0.1.0"

// MaxGrain is the largest Config.Grain (--grain).
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
	// Coll picks collective algorithms, e.g. {"bcast": "binomial"}.
	Coll map[string]string
	// Seed seeds every random choice (math.random on each rank, adaptive
	// routing's choices between equally free links).
	Seed int64
	// Routing is how the torus routes the packets that allow either
	// (rendezvous data, adaptive eager packets, grants and confirmations):
	// "deterministic", "adaptive", or "" for each protocol's own choice.
	Routing string
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
	// Grain coarsens the simulation of message data for speed (0 or 1:
	// exact; see msglayer.Layer.Grain): large messages cost about Grain
	// times fewer events, and a CPU's writing and reading interleave with
	// its other work at Grain times the machine's FIFO depths.
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
	// one). A torus of more than one block (hw.DefaultBlocks: at most 8x8x8
	// nodes each) runs in partitions, one per block, advanced in
	// conservative windows; the blocks depend on the torus alone, so the
	// results are the same for every Threads. What crosses a block boundary
	// is modeled at the boundary (see msglayer.Layer.SetPartitions); a
	// pset's I/O node serves lines in the order they reach it, and trace
	// message ids are numbered per rank. A run whose torus has one block,
	// or that uses what only one partition models, runs in one partition,
	// and Result.OnePartition says why: the bcs runtime, virtual-node mode,
	// a machine without hop latency or with thread units (bgc), --coll
	// bcast=torus or alltoall=optimized. While a run in partitions is under way,
	// GOMAXPROCS is raised to its thread count if lower.
	Threads int
}

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
	Ranks       int
	Torus       string // the torus used, e.g. "8x8x8 torus"
	Cycles      int64  // virtual time at the end, in cycles
	Seconds     float64
	Events      uint64
	Messages    int64
	Bytes       int64
	HostSeconds float64
	ClockHz     float64 // of the machine, to turn cycles into seconds
	// PerRank says how and when each rank ended.
	PerRank []RankResult
	// Stats has one entry per mpi/ml primitive called (Config.Stats).
	Stats []PrimitiveStat
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

// Fallback is a chosen collective algorithm that did not apply, and why.
type Fallback = mpi.Fallback

// AlgorithmUse is how the calls of one collective ran on one communicator
// (or the communicators of one split).
type AlgorithmUse = mpi.AlgorithmUse

// PrimitiveStat sums the calls of one primitive over all ranks; times are
// virtual cycles (Result.Seconds converts with the clock of the run).
type PrimitiveStat = luabind.PrimitiveStat

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
// when it ended in an error: a *UsageError (bad configuration or program),
// a *RankError or *AbortError, a *DeadlockError, a *LimitError, or an
// *InterruptedError when ctx was canceled.
func Run(ctx context.Context, cfg Config, prog Program) (*Result, error) {
	start := time.Now()
	cfg.Threads = max(cfg.Threads, 1)
	if cfg.Timeout < 0 {
		return nil, usage("--timeout must not be negative (got %s)", cfg.Timeout)
	}
	if cfg.MaxMemory < 0 {
		return nil, usage("--max-memory must not be negative (got %d)", cfg.MaxMemory)
	}
	g, ctx, stop := guard(ctx, cfg)
	defer stop()
	s, err := setup(cfg, prog, g)
	if err != nil {
		return nil, err
	}
	return s.run(ctx, start)
}

// onePartition says why a run of cfg on machine m must run in one
// partition although its torus has several blocks, or "". What decides is
// known before the run: what only one partition models cannot be reached
// otherwise (a run in partitions that still reached it would stop with an
// *mpi.OnePartitionError).
func onePartition(cfg Config, m *hw.Machine) string {
	alg := func(coll string) string {
		for k, v := range cfg.Coll {
			if c, err := mpi.CanonColl(k); err == nil && c == coll {
				return v
			}
		}
		return ""
	}
	switch {
	case cfg.Runtime == "bcs":
		return "the bcs runtime is modeled in one partition"
	case m.HopCycles < 1:
		return "the machine's hop_cycles is 0: the blocks have no lookahead"
	case m.CommThreads > 0:
		return "the machine's thread units are modeled in one partition"
	case cfg.Mode == "vn":
		// In blocks, its two ranks per node ask for reception-FIFO room across
		// block boundaries so often that a run costs twice the CPU per event
		// (131,072 ranks, 10 halo steps: 326 s on one thread, 174 s in one
		// partition) and gives other times; until that is understood, the
		// single-partition model it was calibrated with.
		return "virtual-node mode is modeled in one partition"
	case alg("bcast") == "torus":
		return "--coll bcast=torus is modeled in one partition"
	case alg("alltoall") == "optimized":
		return "--coll alltoall=optimized is modeled in one partition"
	}
	return ""
}

// prepareMin is the least number of ranks for which a run in one partition
// makes their Lua states on a second thread (luabind.Host.Prepare): about
// 8 us of CPU a rank, against the cost of starting a goroutine and raising
// GOMAXPROCS.
const prepareMin = 1024

// run runs the simulation set up.
func (s *sim) run(ctx context.Context, start time.Time) (*Result, error) {
	parts := s.g.Parts()
	if parts > 1 {
		threads := min(s.cfg.Threads, parts)
		w := claimProcs(threads)
		defer w.release()
		// In stretches of windows that one thread runs alone, the others
		// sleep and the run needs one P.
		s.g.Narrow = func(on bool) {
			if on {
				w.set(1)
			} else {
				w.set(threads)
			}
		}
	} else if s.cfg.Threads > 1 && s.world.Size() >= prepareMin {
		// One partition runs on one thread: a second makes the ranks' Lua
		// states meanwhile, and gives its P back when done.
		defer s.host.Prepare(s.world.Size(), raiseProcs(2))()
	}
	err := s.g.Run(ctx, s.cfg.Threads)
	if parts > 1 {
		s.out.Finish(s.g.ErrAt())
		if s.trace != nil {
			s.trace.Finish(s.g.ErrAt())
		}
	}
	if ferr := s.out.Flush(); ferr != nil && err == nil {
		err = ferr
	}
	if s.trace != nil {
		if terr := s.trace.Close(); terr != nil && err == nil {
			err = fmt.Errorf("writing the trace: %v", terr)
		}
	}
	now := s.g.Now()
	res := &Result{
		Ranks:       s.world.Size(),
		Torus:       fmt.Sprintf("%s %s", s.mapping.Torus.Dims, s.mapping.Torus.Kind()),
		Cycles:      now,
		Seconds:     s.m.Seconds(now),
		Events:      s.g.Events(),
		Messages:    s.world.TotalMessages(),
		Bytes:       s.world.TotalBytes(),
		HostSeconds: time.Since(start).Seconds(),
		PerRank:     make([]RankResult, len(s.host.Ends)),
		Stats:       s.host.Stats(),
		Fallbacks:   s.world.Fallbacks(),
		Algorithms:  s.world.Algorithms(),
		ClockHz:     s.m.ClockHz,
		Partitions:  parts,
	}
	if parts == 1 {
		res.OnePartition = s.whyOne
	}
	if s.cfg.MMDS || s.cfg.EMDS {
		res.MDS = &MDS{ClockHz: s.m.ClockHz}
		if s.cfg.MMDS {
			res.MDS.Ranks = s.host.MDS()
		}
		if sch := s.world.BCS(); sch != nil && sch.EMDS != nil {
			res.MDS.Slices = sch.EMDS.Slices
		}
	}
	if sch := s.world.BCS(); sch != nil {
		res.Slices = sch.SliceAt(now) // idle slices included
	}
	for i, e := range s.host.Ends {
		res.PerRank[i] = RankResult{State: e.State.String(), Seconds: s.m.Seconds(e.Time)}
	}
	s.leftovers(res)
	if e := s.stopped(ctx, err); e != nil {
		err = e
	}
	if err == nil {
		// A message of a collective algorithm that no receive took: the
		// ranks disagreed on the call (mpi/agree.go), an error rather than
		// a warning.
		if rank, at, serr := s.world.StrayCollective(); serr != nil {
			err = &RankError{Rank: rank, Time: at, Seconds: s.m.Seconds(at), Msg: serr.Error()}
		}
	}
	var dl *runtime.DeadlockError
	if errors.As(err, &dl) {
		// Ranks that disagreed on a collective can leave one waiting for
		// a message its peer's call never sends: the disagreement is the
		// error, not the deadlock it led to (mpi/agree.go).
		if rank, derr := s.world.Disagreement(); derr != nil {
			msg := derr.Error()
			for i, p := range dl.Blocked {
				if p.ID == rank && dl.Where[i] != "" {
					msg = dl.Where[i] + ": " + msg
				}
			}
			err = &RankError{Rank: rank, Time: dl.Time, Seconds: s.m.Seconds(dl.Time), Msg: msg}
		}
	}
	err = s.translate(err)
	var d *DeadlockError
	if errors.As(err, &d) {
		for _, b := range d.Blocked {
			res.PerRank[b.Rank].State = "blocked"
		}
	}
	return res, err
}

// leftovers puts in res the messages that ranks were never given.
func (s *sim) leftovers(res *Result) {
	add := func(o Leftover) {
		if res.LeftoverCount < MaxLeftovers {
			res.Leftovers = append(res.Leftovers, o)
		}
		res.LeftoverCount++
	}
	for i := range s.world.Size() {
		for _, u := range s.world.Rank(i).Unreceived() {
			add(Leftover{Rank: i, From: u.Src, Tag: u.Tag, Collective: u.Collective, Bytes: u.Bytes})
		}
		for _, m := range s.world.ML.Unhandled(i) {
			h := luabind.HandlerOf(m)
			if h == "" {
				h = "(none)"
			}
			add(Leftover{Rank: i, From: m.Src, Handler: h, Bytes: m.Bytes})
		}
	}
}

// sim is one prepared run.
type sim struct {
	cfg     Config
	bcs     *bcs.Sched
	m       *hw.Machine
	mapping *hw.Mapping
	g       *runtime.Group  // its partitions: one, or one per block
	eng     *runtime.Engine // partition 0
	world   *mpi.World
	host    *luabind.Host
	out     *luabind.Printer
	trace   *luabind.Tracer

	// whyOne says why a torus of several blocks runs in one partition.
	whyOne string

	guard *luabind.Guard // stops the ranks' Lua from outside
}

// setup makes the simulation of prog under cfg: in partitions, one per
// block of the torus, unless what the run uses is modeled in one partition
// only (onePartition).
func setup(cfg Config, prog Program, g *luabind.Guard) (*sim, error) {
	if cfg.Ranks == 0 {
		cfg.Ranks = 1
	}
	if cfg.Ranks < 0 {
		return nil, usage("--ranks must be at least 1 (got %d)", cfg.Ranks)
	}
	if cfg.ReadFile == nil {
		cfg.ReadFile = ReadInput
	}
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	m, err := machine(cfg.Machine, cfg.ReadFile, g)
	if err != nil {
		return nil, err
	}
	if cfg.EagerLimit < 0 {
		return nil, usage("--eager-limit must not be negative (got %d)", cfg.EagerLimit)
	}
	if cfg.RzvLimit < 0 {
		return nil, usage("--rzv-limit must not be negative (got %d)", cfg.RzvLimit)
	}
	if cfg.EagerLimit > 0 {
		m.EagerLimit = cfg.EagerLimit
	}
	if cfg.RzvLimit > 0 {
		m.RzvLimit = cfg.RzvLimit
		// Messages up to the eager limit go eagerly whatever the
		// rendezvous limit: one below it would be ignored. (An eager limit
		// raised alone is fine: rendezvous then starts above it.)
		if m.RzvLimit < m.EagerLimit {
			return nil, usage("--rzv-limit %d is below the eager limit %d: want it at least the eager limit (the adaptive eager protocol runs between the two)", cfg.RzvLimit, m.EagerLimit)
		}
	}
	perNode := 1
	factor := 1.0
	switch cfg.Mode {
	case "", "co":
		cfg.Mode = "co"
	case "heater":
	case "vn":
		perNode = 2
		factor = 1 + m.VNComputePenalty
	default:
		return nil, usage("--mode %q: want co, vn or heater", cfg.Mode)
	}
	switch cfg.Runtime {
	case "", "direct":
		cfg.Runtime = "direct"
		if cfg.EMDS {
			return nil, usage("--mds emds needs --runtime bcs (it monitors the bcs runtime's slices)")
		}
	case "bcs":
	default:
		return nil, usage("--runtime %q: want direct or bcs", cfg.Runtime)
	}
	if cfg.Timeslice < 0 {
		return nil, usage("--timeslice must be positive")
	}
	if cfg.Timeslice == 0 {
		cfg.Timeslice = 500e-6
	}
	if cfg.MaxVTime < 0 {
		return nil, usage("--max-vtime must not be negative")
	}
	if cfg.Grain < 0 || cfg.Grain > MaxGrain {
		return nil, usage("--grain %d: want 1 to %d (1: the machine's FIFOs; more: fewer events for large messages, coarser interleaving)", cfg.Grain, MaxGrain)
	}
	routing, ok := msglayer.ParseRouting(cfg.Routing)
	if !ok {
		return nil, usage("--routing %q: want deterministic or adaptive (default: each protocol's own)", cfg.Routing)
	}
	mapping, err := mapRanks(cfg, perNode)
	if err != nil {
		return nil, err
	}
	program, err := luabind.Compile(prog.Name, prog.Dir, prog.Code)
	if err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}

	blocks := hw.DefaultBlocks(mapping.Torus)
	parts, whyOne := blocks.N(), ""
	if parts > 1 {
		if whyOne = onePartition(cfg, m); whyOne != "" {
			parts = 1
		}
	}
	s := &sim{cfg: cfg, m: m, mapping: mapping, g: runtime.NewGroup(parts, max(m.HopCycles, 1)), whyOne: whyOne, guard: g}
	s.eng = s.g.Part(0)
	ml := msglayer.New(m, mapping, s.eng)
	ml.Net.SetSeed(cfg.Seed)
	ml.Routing = routing
	ml.Coprocessor = cfg.Mode == "co"
	ml.Grain = cfg.Grain
	partOf := func(rank int) int { return 0 }
	if parts > 1 {
		ml.SetPartitions(s.g, blocks)
		partOf = func(rank int) int { return blocks.Of(mapping.Node(rank)) }
	}
	s.world = mpi.NewWorld(ml, cfg.Ranks)
	s.world.ComputeFactor = factor
	s.world.Seed = cfg.Seed
	if cfg.Runtime == "bcs" {
		if !fitsCycles(m, cfg.Timeslice) {
			return nil, usage("--timeslice %gs is past what virtual time can hold (%s)", cfg.Timeslice, maxVirtual(m))
		}
		slice := m.Cycles(cfg.Timeslice)
		if slice < 1 {
			return nil, usage("--timeslice %gs is shorter than one cycle of the machine", cfg.Timeslice)
		}
		sch := bcs.New(s.eng, ml.Net, mapping, bcs.NewParams(m, mapping.Torus, slice))
		if cfg.EMDS {
			sch.EMDS = &bcs.EMDS{}
		}
		s.world.UseBCS(sch)
		s.bcs = sch
	}
	colls := make([]string, 0, len(cfg.Coll))
	for k := range cfg.Coll {
		colls = append(colls, k)
	}
	sort.Strings(colls)
	for _, k := range colls {
		if err := s.world.SetAlgorithm(k, cfg.Coll[k]); err != nil {
			return nil, usage("--coll: %v", err)
		}
	}
	s.out = luabind.NewPrinter(cfg.Stdout, !cfg.Quiet)
	if cfg.Trace != nil {
		s.trace = luabind.NewTracer(cfg.Trace, m.ClockHz, mapping.Node, cfg.TraceRanks)
		s.trace.Names(cfg.Ranks, func(n int) string {
			x, y, z := mapping.Torus.NodeCoord(n)
			return fmt.Sprintf("node %d (%d,%d,%d)", n, x, y, z)
		})
		s.world.Tracer = s.trace
		if s.bcs != nil {
			s.bcs.OnSlice = s.trace.BCSSlice
		}
		s.trace.Window = m.Cycles(1e-6)
		s.trace.Sample = func() (int64, int, int) {
			return ml.Net.LinkBusy, mapping.Torus.Nodes() * hw.NumDirs, s.eng.Pending()
		}
		if parts > 1 {
			s.trace.SetPartitions(parts, partOf)
			s.trace.Sample = func() (int64, int, int) {
				_, _, busy := ml.Net.Totals()
				return busy, mapping.Torus.Nodes() * hw.NumDirs, s.g.Pending()
			}
		}
	}
	if parts > 1 {
		s.out.SetPartitions(parts, partOf)
		s.g.AfterWindow = func(end runtime.Time) {
			s.world.EndWindow(end)
			s.out.Window(end)
			if s.trace != nil {
				s.trace.WindowEnd(end)
			}
		}
	}
	s.host = luabind.NewHost(luabind.Options{
		Program: program, Args: cfg.Args, Seed: cfg.Seed, Mode: cfg.Mode, Prefix: !cfg.Quiet, Case: cfg.Case, Stats: cfg.Stats, Trace: s.trace,
		MDS:    cfg.MMDS || cfg.Runtime == "bcs",
		Stdlib: stdlib.FS, ReadFile: cfg.ReadFile, GoModules: cfg.GoModules, LuaModules: cfg.LuaModules,
		Guard: g,
	}, s.world, s.out)
	for i := 0; i < cfg.Ranks; i++ {
		p := s.g.Part(partOf(i)).Spawn(i, 0, s.host.Body)
		s.world.Attach(i, p)
	}
	if cfg.MaxVTime > 0 {
		if !fitsCycles(m, cfg.MaxVTime) {
			return nil, usage("--max-vtime %gs is past what virtual time can hold (%s)", cfg.MaxVTime, maxVirtual(m))
		}
		if m.Cycles(cfg.MaxVTime) < 1 {
			// 0 cycles would stop at t=0 with "limit of 0s reached".
			return nil, usage("--max-vtime %gs is shorter than one cycle of the machine", cfg.MaxVTime)
		}
		s.g.SetLimit(m.Cycles(cfg.MaxVTime))
	}
	s.g.Locate = func(p *runtime.Proc) string { return s.host.Where(p.ID) }
	if cfg.Progress != nil {
		g, errf := s.g, s.g.Err
		if parts == 1 {
			errf = s.eng.Err // set at once, not at the end of Run
		}
		s.g.Progress = func() {
			cfg.Progress(Progress{Seconds: m.Seconds(g.Now()), Events: g.Events(), LiveRanks: g.Live(), Done: g.Pending() == 0 || errf() != nil})
		}
	}
	return s, nil
}

func mapRanks(cfg Config, perNode int) (*hw.Mapping, error) {
	var dims hw.Dims
	if cfg.Torus == "" {
		nodes := (cfg.Ranks + perNode - 1) / perNode
		if nodes > hw.MaxNodes {
			// Said of --ranks, which the user gave, not of a torus made for it.
			return nil, usage("--ranks %d needs %d nodes at %s per node, more than a torus bglua models (at most %d nodes)", cfg.Ranks, nodes, plural(perNode, "rank"), hw.MaxNodes)
		}
		dims = hw.DefaultDims(nodes)
	} else {
		d, err := hw.ParseDims(cfg.Torus)
		if err != nil {
			return nil, usage("--torus: %v", err)
		}
		dims = d
	}
	tor := hw.Torus{Dims: dims, Mesh: cfg.Mesh}
	var mp *hw.Mapping
	var err error
	switch strings.ToUpper(cfg.Mapping) {
	case "", "XYZT":
		mp, err = hw.MapXYZT(tor, cfg.Ranks, perNode)
	case "TXYZ":
		mp, err = hw.MapTXYZ(tor, cfg.Ranks, perNode)
	default:
		b, rerr := cfg.ReadFile(cfg.Mapping)
		if rerr != nil {
			return nil, usage("--mapping: cannot read mapping file: %v", unwrapPath(rerr))
		}
		mp, err = hw.ParseMapping(cfg.Mapping, strings.NewReader(string(b)), tor, cfg.Ranks, perNode)
		if err != nil {
			return nil, &UsageError{Msg: err.Error()}
		}
	}
	if err != nil {
		return nil, usage("%v", err)
	}
	return mp, nil
}

// translate turns engine errors into the errors of this package.
func (s *sim) translate(err error) error {
	var d *runtime.DeadlockError
	var l *runtime.LimitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &d):
		de := &DeadlockError{Seconds: s.m.Seconds(d.Time)}
		for i, p := range d.Blocked {
			b := BlockedRank{Rank: p.ID, Where: d.Where[i]}
			if st, ok := d.Waits[i].(fmt.Stringer); ok {
				b.Wait = st.String()
			}
			de.Blocked = append(de.Blocked, b)
		}
		return de
	case errors.As(err, &l):
		return &LimitError{What: "virtual time", Limit: luabind.FormatSeconds(s.m.Seconds(l.Limit))}
	}
	return err
}

// Algorithm is a built-in collective algorithm selectable with Config.Coll.
type Algorithm = mpi.Algorithm

// Algorithms lists the built-in collective algorithms.
func Algorithms() []Algorithm { return mpi.Algorithms() }

// fitsCycles reports whether sec seconds are a number of cycles of m that
// virtual time (int64 cycles) holds.
func fitsCycles(m *hw.Machine, sec float64) bool {
	c := sec*m.ClockHz + 0.5
	return c == c && c < float64(1<<63)
}

// maxVirtual says how long virtual time can run on m.
func maxVirtual(m *hw.Machine) string {
	return fmt.Sprintf("%d cycles, %s at %g MHz", int64(math.MaxInt64), luabind.FormatSeconds(float64(math.MaxInt64)/m.ClockHz), m.ClockHz/1e6)
}
