package bglua

import (
	"fmt"
	"io"

	"math"
	"strings"

	"github.com/bglua/bglua/bcs"
	"github.com/bglua/bglua/luabind"
	"github.com/bglua/bglua/mpi"
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/observe"
	"github.com/bglua/bglua/runtime"
	"github.com/bglua/bglua/stdlib"

	"github.com/bglua/bglua/internal/mpinet"
)

// sim is one prepared run.
type sim struct {
	cfg     Config
	m       *msglayer.Machine
	mapping *msglayer.Mapping
	g       *runtime.Group  // its partitions: one, or one per block
	eng     *runtime.Engine // partition 0
	ml      *msglayer.Layer
	bcs     *bcs.Sched
	world   *mpi.World
	host    *luabind.Host
	out     *observe.Printer
	trace   *observe.Tracer

	// parts is the number of partitions, partOf the partition of a rank.
	parts  int
	partOf func(rank int) int
	// whyOne says why a torus of several blocks runs in one partition.
	whyOne string

	guard *luabind.Guard // stops the ranks' Lua from outside

	// net is the processes of a run over several (nil: one process).
	net mpinet.Net
	// Over several processes in partitions: the first partition of this
	// process (-1: none); with a trace, the processes' shares of its
	// counters (shareCounts) and the last this one told process 0, and the
	// links of every process (gatherStats).
	firstLocal int
	counts     []traceCounts
	sentCounts traceCounts
	links      []msglayer.LinkUse
}

// setup makes the simulation of prog under cfg, by phase: it checks the
// configuration, reading the machine and mapping files and compiling the
// program; wires the layers in partitions (one per block of the torus,
// unless onePartition says otherwise); attaches what observes the run;
// and spawns the ranks.
func setup(cfg Config, prog Program, g *luabind.Guard) (*sim, error) {
	cfg = cfg.withDefaults()
	m, err := cfg.check(func() (*msglayer.Machine, error) { return machine(cfg.Machine, cfg.ReadFile, g) })
	if err != nil {
		return nil, err
	}
	mapping, err := mapRanks(cfg)
	if err != nil {
		return nil, err
	}
	program, err := luabind.Compile(prog.Name, prog.Dir, prog.Code)
	if err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}
	s := &sim{cfg: cfg, m: m, mapping: mapping, guard: g}
	if err := s.wire(); err != nil {
		return nil, err
	}
	s.observe()
	s.spawn(program)
	return s, nil
}

// wire makes the partitions, the message layer, the MPI world over it
// (and the bcs runtime under it) and sets the limit of virtual time.
func (s *sim) wire() error {
	cfg, m, mapping := s.cfg, s.m, s.mapping
	if cfg.EagerLimit > 0 {
		m.EagerLimit = cfg.EagerLimit
	}
	if cfg.RzvLimit > 0 {
		m.RzvLimit = cfg.RzvLimit
	}
	blocks := msglayer.DefaultBlocks(mapping.Torus)
	s.parts = blocks.N()
	if s.parts > 1 {
		if s.whyOne = onePartition(cfg, m); s.whyOne != "" {
			s.parts = 1
		}
	}
	s.g = runtime.NewGroup(s.parts, max(m.HopCycles, 1))
	s.eng = s.g.Part(0)
	ml := msglayer.New(m, mapping, s.eng)
	ml.SetSeed(cfg.Seed)
	ml.Routing, _ = msglayer.ParseRouting(cfg.Routing)
	ml.Coprocessor = cfg.Mode == "co"
	ml.Grain = cfg.Grain
	s.ml = ml
	s.partOf = func(rank int) int { return 0 }
	if s.parts > 1 {
		ml.SetPartitions(s.g, blocks)
		s.partOf = func(rank int) int { return blocks.Of(mapping.Node(rank)) }
	}
	if cfg.Grain == 0 && cfg.Trace == nil {
		// (A trace samples the links' busy time and the pending events
		// every microsecond: what a leased transfer stands for is not in
		// them until it ends.)
		ml.EnableCoarsening()
	}
	s.world = mpi.NewWorld(ml, cfg.Ranks)
	if cfg.ProgressModel != "" {
		s.world.Progress, _ = mpi.ParseProgressModel(cfg.ProgressModel)
	}
	s.world.ComputeFactor = 1
	if cfg.Mode == "vn" {
		s.world.ComputeFactor += m.VNComputePenalty
	}
	s.world.Seed = cfg.Seed
	if cfg.Runtime == "bcs" {
		slice, err := cycles(m, "Timeslice", cfg.Timeslice)
		if err != nil {
			return err
		}
		sch := bcs.NewOn(s.eng, ml, slice)
		if cfg.EMDS {
			sch.EMDS = &bcs.EMDS{}
		}
		s.world.UseBCS(sch)
		s.bcs = sch
	}
	if err := s.setAlgorithms(); err != nil {
		return err
	}
	if cfg.procs != nil && cfg.procs.Size() > 1 {
		s.net = cfg.procs
		if s.parts > 1 {
			s.distribute(cfg.procs)
		}
	}
	if cfg.checkCrossings != nil && s.parts > 1 {
		s.g.Check = cfg.checkCrossings(s.world.CrossingCheck())
	}
	if cfg.probe {
		s.g.SetLimit(1) // ScriptAlgorithms: stop once virtual time passes 0
	}
	if cfg.MaxVTime > 0 {
		limit, err := cycles(m, "MaxVTime", cfg.MaxVTime)
		if err != nil {
			return err
		}
		s.g.SetLimit(limit)
	}
	return nil
}

// cycles is sec seconds of the Config field named field in cycles of m: at
// least one, and no more than virtual time (int64 cycles) holds. (0 cycles
// of MaxVTime would stop at t=0 with "limit of 0s reached".)
func cycles(m *msglayer.Machine, field string, sec float64) (runtime.Time, error) {
	value := fmt.Sprintf("%gs", sec)
	if c := sec*m.ClockHz + 0.5; c != c || c >= float64(1<<63) {
		return 0, badField(field, value, "is past what virtual time can hold (%s)", maxVirtual(m))
	}
	c := m.Cycles(sec)
	if c < 1 {
		return 0, badField(field, value, "is shorter than one cycle of the machine")
	}
	return c, nil
}

// observe attaches the printer of the ranks' output, the trace and the
// progress callback of the Config.
func (s *sim) observe() {
	cfg, m, mapping := s.cfg, s.m, s.mapping
	if !s.lead() {
		cfg.Stdout = io.Discard // process 0 writes
		if cfg.Trace != nil {
			cfg.Trace = io.Discard
		}
	}
	s.out = observe.NewPrinter(cfg.Stdout, !cfg.Quiet)
	if cfg.Stats || cfg.Trace != nil {
		s.world.CountLinks()
	}
	if cfg.Trace != nil {
		s.trace = observe.NewTracer(cfg.Trace, m.ClockHz, mapping.Node, cfg.TraceRanks)
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
			return s.ml.LinkBusy(), mapping.Torus.Nodes() * msglayer.NumDirs, s.eng.Pending()
		}
		links := dimLinks(mapping.Torus)
		s.trace.SampleDims = func() ([3]int64, [3]int) { return s.ml.DimBusy(), links }
		s.trace.Links = s.traceLinks
		if s.parts > 1 {
			s.trace.SetPartitions(s.parts, s.partOf)
			s.trace.Sample = func() (int64, int, int) {
				_, _, busy := s.ml.NetTotals()
				return busy, mapping.Torus.Nodes() * msglayer.NumDirs, s.g.Pending()
			}
			if s.across() {
				s.traceAcross(links)
			}
		}
	}
	if s.parts > 1 {
		s.out.SetPartitions(s.parts, s.partOf)
		if s.net != nil {
			if s.lead() {
				s.out.Remote(nil)
			} else {
				s.out.Remote(s.forwardPrints)
			}
		}
		s.g.AfterWindow = func(end runtime.Time) {
			s.world.EndWindow(end)
			s.out.Window(end)
			if s.trace != nil {
				s.trace.WindowEnd(end)
				if s.across() {
					s.shareCounts()
				}
			}
		}
	}
	if cfg.Progress != nil {
		g, errf := s.g, s.g.Err
		if s.parts == 1 {
			errf = s.eng.Err // set at once, not at the end of Run
		}
		s.g.Progress = func() {
			cfg.Progress(Progress{Seconds: m.Seconds(g.Now()), Events: g.Events(), LiveRanks: g.Live(), Done: g.Pending() == 0 || errf() != nil})
		}
	}
}

// spawn makes the ranks' host, that runs program on each, and a process
// for every rank in its partition.
func (s *sim) spawn(program *luabind.Program) {
	cfg := s.cfg
	s.host = luabind.NewHost(luabind.Options{
		Program: program, Args: cfg.Args, Seed: cfg.Seed, Mode: cfg.Mode, Prefix: !cfg.Quiet, Case: cfg.Case, Stats: cfg.Stats, Trace: s.trace,
		MDS:    cfg.MMDS || cfg.Runtime == "bcs",
		Stdlib: stdlib.FS, ReadFile: cfg.ReadFile, GoModules: cfg.GoModules, LuaModules: cfg.LuaModules,
		Guard: s.guard,
	}, s.world, s.out)
	for i := 0; i < cfg.Ranks; i++ {
		if !s.g.Local(s.partOf(i)) {
			continue // another process's
		}
		p := s.g.Part(s.partOf(i)).Spawn(i, 0, s.host.Body)
		s.world.Attach(i, p)
	}
	s.g.Locate = func(p *runtime.Proc) string { return s.host.Where(p.ID) }
}

// mapRanks places the ranks of cfg on its torus.
func mapRanks(cfg Config) (*msglayer.Mapping, error) {
	dims, err := cfg.dims()
	if err != nil {
		return nil, err
	}
	tor := msglayer.Torus{Dims: dims, Mesh: cfg.Mesh}
	var mp *msglayer.Mapping
	switch strings.ToUpper(cfg.Mapping) {
	case "", "XYZT":
		mp, err = msglayer.MapXYZT(tor, cfg.Ranks, cfg.perNode())
	case "TXYZ":
		mp, err = msglayer.MapTXYZ(tor, cfg.Ranks, cfg.perNode())
	default:
		b, rerr := cfg.ReadFile(cfg.Mapping)
		if rerr != nil {
			return nil, badField("Mapping", "", "cannot read mapping file: %v", unwrapPath(rerr))
		}
		mp, err = msglayer.ParseMapping(cfg.Mapping, strings.NewReader(string(b)), tor, cfg.Ranks, cfg.perNode())
		if err != nil {
			return nil, &UsageError{Msg: err.Error()}
		}
	}
	if err != nil {
		return nil, usage("%v", err)
	}
	return mp, nil
}

// maxVirtual says how long virtual time can run on m.
func maxVirtual(m *msglayer.Machine) string {
	return fmt.Sprintf("%d cycles, %s at %g MHz", int64(math.MaxInt64), luabind.FormatSeconds(float64(math.MaxInt64)/m.ClockHz), m.ClockHz/1e6)
}
