package bglua

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bglua/bglua/bcs"
	"github.com/bglua/bglua/luabind"
	"github.com/bglua/bglua/mpi"
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/observe"
	"github.com/bglua/bglua/runtime"
)

// onePartition says why a run of cfg on machine m must run in one
// partition although its torus has several blocks, or "". What decides is
// known before the run: what only one partition models cannot be reached
// otherwise (a run in partitions that still reached it would stop with an
// *mpi.OnePartitionError).
func onePartition(cfg Config, m *msglayer.Machine) string {
	alg := func(coll string) string {
		for k, v := range cfg.Coll {
			if c, err := mpi.CanonColl(k); err == nil && c == coll {
				return algName(v)
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
	case alg("bcast") == "torus":
		return "Config.Coll bcast=torus is modeled in one partition"
	case alg("alltoall") == "optimized":
		return "Config.Coll alltoall=optimized is modeled in one partition"
	}
	return ""
}

// prepareMin is the least number of ranks for which a run in one partition
// makes their Lua states on a second thread (luabind.Host.Prepare): about
// 8 us of CPU a rank, against the cost of starting a goroutine and raising
// GOMAXPROCS.
const prepareMin = 1024

// run runs the simulation set up, and says what happened.
func (s *sim) run(ctx context.Context, start time.Time) (*Result, error) {
	err := s.advance(ctx)
	res := s.result(start)
	if s.across() {
		if gerr := s.gather(res); gerr != nil && err == nil {
			err = gerr
		}
	}
	if s.trace != nil {
		// (After gather: over processes, the busiest links are of all.)
		if terr := s.trace.Close(); terr != nil && err == nil {
			err = fmt.Errorf("writing the trace: %v", terr)
		}
	}
	err = s.runError(ctx, err)
	var d *DeadlockError
	if errors.As(err, &d) {
		for _, b := range d.Blocked {
			res.PerRank[b.Rank].State = "blocked"
		}
	}
	return res, err
}

// advance runs the simulation to its end on the threads of the Config,
// and writes out the ranks' output and the trace's records.
func (s *sim) advance(ctx context.Context) error {
	parts := s.g.Parts()
	tune := s.cfg.Tune.Procs
	if parts > 1 && tune {
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
	} else if parts == 1 && s.cfg.Threads > 1 && s.world.Size() >= prepareMin {
		// One partition runs on one thread: a second makes the ranks' Lua
		// states meanwhile, and gives its P back when done.
		release := func() {}
		if tune {
			release = raiseProcs(2)
		}
		defer s.host.Prepare(s.world.Size(), release)()
	}
	err := s.g.Run(ctx, s.cfg.Threads)
	s.ml.Settle()
	if parts > 1 {
		s.out.Finish(s.g.ErrAt())
		if s.trace != nil {
			errAt, errPart := s.g.ErrAt()
			if s.across() {
				if cerr := s.finishCounts(errPart); cerr != nil && err == nil {
					err = cerr
				}
			}
			s.trace.Finish(errAt, errPart)
		}
	}
	if ferr := s.out.Flush(); ferr != nil && err == nil {
		err = ferr
	}
	return err
}

// result is what the run produced, started at start.
func (s *sim) result(start time.Time) *Result {
	parts := s.g.Parts()
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
		Stats:       convert(s.host.Stats(), func(p observe.PrimitiveStat) PrimitiveStat { return PrimitiveStat(p) }),
		Fallbacks:   convert(s.world.Fallbacks(), func(f mpi.Fallback) Fallback { return Fallback(f) }),
		Algorithms:  convert(s.world.Algorithms(), func(a mpi.AlgorithmUse) AlgorithmUse { return AlgorithmUse(a) }),
		ClockHz:     s.m.ClockHz,
		Partitions:  parts,
	}
	res.ActiveMessages = s.world.Layer().TotalAMs()
	res.TreeOps, res.GIOps = s.world.NetworkOps()
	res.BCSCollectives = s.world.BCSCollectives()
	c := &res.Coarsened
	k := s.ml.Coarsened()
	*c = Coarsened{Recorded: k.Recorded, Leased: k.Leased, Broken: k.Broken, FromCheckpoint: k.FromCheck, NotRun: k.NotRun}
	if parts == 1 {
		res.OnePartition = s.whyOne
	} else {
		res.Windows, res.Crossings = s.g.Windows(), s.g.Crossings()
	}
	if s.cfg.MMDS || s.cfg.EMDS {
		var ranks []observe.RankMDS
		var slices []bcs.SliceRecord
		if s.cfg.MMDS {
			ranks = s.host.MDS()
		}
		if sch := s.world.BCS(); sch != nil && sch.EMDS != nil {
			slices = sch.EMDS.Slices
		}
		res.MDS = newMDS(s.m.ClockHz, ranks, slices)
	}
	if sch := s.world.BCS(); sch != nil {
		res.Slices = sch.SliceAt(now) // idle slices included
	}
	for i, e := range s.host.Ends {
		res.PerRank[i] = RankResult{State: e.State.String(), Seconds: s.m.Seconds(e.Time)}
	}
	if s.cfg.Stats {
		s.linkStats(res) // (over processes, replaced by gatherStats)
		res.Regions = convert(s.host.Regions(), func(p observe.PrimitiveStat) PrimitiveStat { return PrimitiveStat(p) })
	}
	s.leftovers(res)
	return res
}

// runError is the error the run ended with, err from the engine, in the
// terms of this package.
func (s *sim) runError(ctx context.Context, err error) error {
	if e := s.stopped(ctx, err); e != nil {
		err = e
	}
	if err == nil {
		// A message of a collective algorithm that no receive took: the
		// ranks disagreed on the call (mpi/agree.go), an error rather than
		// a warning.
		rank, at, serr := s.world.StrayCollective()
		if s.across() {
			rank, at, serr = s.leastRank(rank, at, serr)
		}
		if serr != nil {
			err = &RankError{Rank: rank, Time: at, Seconds: s.m.Seconds(at), Msg: serr.Error()}
		}
	}
	var dl *runtime.DeadlockError
	if errors.As(err, &dl) {
		// Ranks that disagreed on a collective can leave one waiting for
		// a message its peer's call never sends: the disagreement is the
		// error, not the deadlock it led to (mpi/agree.go).
		rank, derr := s.world.Disagreement()
		if s.across() {
			rank, _, derr = s.leastRank(rank, 0, derr)
		}
		if derr != nil {
			msg := derr.Error()
			for i, p := range dl.Blocked {
				if p.ID == rank && dl.Where[i] != "" {
					msg = dl.Where[i] + ": " + msg
				}
			}
			err = &RankError{Rank: rank, Time: dl.Time, Seconds: s.m.Seconds(dl.Time), Msg: msg}
		}
	}
	return s.translate(err)
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
		if s.world.Rank(i) == nil {
			continue // another process's
		}
		for _, u := range s.world.Rank(i).Unreceived() {
			add(Leftover{Rank: i, From: u.Src, Tag: u.Tag, Collective: u.Collective, Bytes: u.Bytes})
		}
		for _, m := range s.world.Layer().Unhandled(i) {
			h := luabind.HandlerOf(m)
			if h == "" {
				h = "(none)"
			}
			add(Leftover{Rank: i, From: m.Src, Handler: h, Bytes: m.Bytes})
		}
	}
}

// translate turns engine errors into the errors of this package.
func (s *sim) translate(err error) error {
	var d *runtime.DeadlockError
	var l *runtime.LimitError
	var re *luabind.RankError
	var ae *luabind.AbortError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &re):
		return (*RankError)(re)
	case errors.As(err, &ae):
		return (*AbortError)(ae)
	case errors.As(err, &d):
		de := &DeadlockError{Seconds: s.m.Seconds(d.Time)}
		for i, p := range d.Blocked {
			b := BlockedRank{Rank: p.ID, Where: d.Where[i]}
			if st, ok := d.Waits[i].(fmt.Stringer); ok {
				b.Wait = st.String()
			}
			if coll := mpi.Progressing(p); coll != "" {
				b.Wait = "progress of its mpi." + coll + ": " + b.Wait
			}
			de.Blocked = append(de.Blocked, b)
		}
		return de
	case errors.As(err, &l):
		return &LimitError{What: "virtual time", Limit: FormatSeconds(s.m.Seconds(l.Limit))}
	}
	return err
}
