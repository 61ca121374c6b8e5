package bglua

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sync"

	"github.com/bglua/bglua/luabind"
	"github.com/bglua/bglua/mpi"
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/observe"
	"github.com/bglua/bglua/runtime"

	"github.com/bglua/bglua/internal/mpinet"
	"github.com/bglua/bglua/internal/wire"
)

// A run over the processes of an MPI job (docs/distributed.md): every
// process builds the same simulation, runs the partitions of its share of
// the torus's blocks (contiguous ranges of block number), exchanges what
// crosses to the others at each window's end, and process 0 writes the
// output. What a run over processes does not model yet stops it with an
// error that says so. The trace and monitoring data cross to process 0
// (distributed_observe.go). What
// ranks share in memory crosses as records that inform: a communicator
// split's entries, the hardware collectives' joins. A run that needs one
// partition (onePartition) runs whole in every process, and only process 0
// writes.

// The MPI job this process belongs to (Config.MPI): initialized by the
// first run that asks for it, ended by EndMPI.
var job struct {
	once sync.Once
	net  mpinet.Net
	err  error
}

// jobNet is the MPI job's processes (initializing MPI the first time).
func jobNet() (mpinet.Net, error) {
	job.once.Do(func() { job.net, job.err = mpinet.Init() })
	return job.net, job.err
}

// MPIJob is, in a process that an MPI launcher (mpirun) started, its number
// and the job's size as the launcher's environment gives them (ok false:
// not started so). A command sets Config.MPI when size > 1.
func MPIJob() (rank, size int, ok bool) { return mpinet.LaunchedJob() }

// EndMPI ends this process's part in the MPI job that runs with Config.MPI
// started (MPI_Finalize); nothing if none did. Call it once, when the last
// run is over.
func EndMPI() error {
	if job.net == nil {
		return nil
	}
	return job.net.Close()
}

// agreeStart has the processes of a run over several agree that all could
// set it up (err: this one's failure): an error if another could not.
func agreeStart(net mpinet.Net, err error) error {
	failed, rerr := mpinet.Or(net, err != nil)
	if rerr != nil {
		return rerr
	}
	if failed && err == nil {
		return errors.New("bglua: another process of the MPI job could not set the run up (its own error says why)")
	}
	return nil
}

// distribute makes s one process's share of a run over net (s.parts > 1).
func (s *sim) distribute(net mpinet.Net) {
	P := net.Size()
	owner := make([]int, s.parts)
	for i := range owner {
		owner[i] = i * P / s.parts
	}
	codecs := s.ml.Distributed(s.world.Crossing(luabind.PayloadCodec()), s.g.Local)
	codecs = append(codecs, s.world.IOCodecs()...)
	codecs = append(codecs, s.world.SplitCodec(), s.world.TreeJoinCodec())
	// The first partition of each other process (-1: it has none, nor
	// ranks), to tell them things.
	first := make([]int, P)
	for p := range first {
		first[p] = -1
	}
	for i := len(owner) - 1; i >= 0; i-- {
		first[owner[i]] = i
	}
	me := net.Rank()
	s.world.SetTell(func(from *runtime.Engine, a runtime.Action) {
		for p, part := range first {
			if p != me && part >= 0 {
				from.Tell(s.g.Part(part), a)
			}
		}
	})
	codecs = append(codecs, runtime.Codec{Type: reflect.TypeOf(&printed{}), Append: appendPrinted, Read: s.readPrinted},
		runtime.Codec{Type: reflect.TypeOf(&traced{}), Append: appendTraced, Read: s.readTraced},
		runtime.Codec{Type: reflect.TypeOf(&traceCounts{}), Append: appendCounts, Read: s.readCounts})
	s.firstLocal = first[me]
	s.g.Distribute(mpinet.Engine{Net: net}, owner, codecs)
	s.g.SetErrorWire(errorWire)
}

// across reports whether s is one process's share of a run over several
// in partitions (distribute).
func (s *sim) across() bool { return s.net != nil && s.parts > 1 }

// leastRank is, over every process of a run over several, the error of
// the least rank among those each found (err nil: none here), with its
// time: an end-of-run check each process makes of its own ranks, so that
// all report what one process would.
func (s *sim) leastRank(rank int, at runtime.Time, err error) (int, runtime.Time, error) {
	var b []byte
	if err != nil {
		b = binary.AppendUvarint(b, uint64(rank))
		b = binary.AppendVarint(b, int64(at))
		b = wire.AppendText(b, err.Error())
	}
	in, gerr := mpinet.AllGather(s.net, b)
	if gerr != nil {
		return rank, at, gerr
	}
	found := false
	for p, b := range in {
		if len(b) == 0 {
			continue
		}
		r := wire.Reader{B: b}
		n, t := int(r.Uvarint()), r.Varint()
		msg := r.Text()
		if r.Bad || len(r.B) != 0 {
			return rank, at, fmt.Errorf("bglua: process %d's check does not read back", p)
		}
		if !found || n < rank {
			rank, at, err, found = n, t, errors.New(msg), true
		}
	}
	if !found {
		return 0, 0, nil
	}
	return rank, at, err
}

// lead reports whether this process writes what the run writes: process 0
// of a run over several, or the only one.
func (s *sim) lead() bool { return s.net == nil || s.net.Rank() == 0 }

// printed is a line a rank of another process printed, on its way to
// process 0, which writes it in its place.
type printed struct {
	t          runtime.Time
	part, rank int
	text       string
}

func (*printed) Act(runtime.Time) { panic("bglua: a printed line is read, never run") }

// forwardPrints has the lines printed in this process, not process 0, go
// to process 0 (the printer's Remote).
func (s *sim) forwardPrints(t runtime.Time, part, rank int, text string) {
	s.g.Part(part).Tell(s.g.Part(0), &printed{t: t, part: part, rank: rank, text: text})
}

func appendPrinted(b []byte, a runtime.Action, _ int) ([]byte, error) {
	p := a.(*printed)
	b = binary.AppendVarint(b, int64(p.t))
	b = binary.AppendUvarint(b, uint64(p.part))
	b = binary.AppendUvarint(b, uint64(p.rank))
	return wire.AppendText(b, p.text), nil
}

func (s *sim) readPrinted(b []byte, _ int, _ *runtime.Engine) (runtime.Action, []byte, error) {
	r := wire.Reader{B: b}
	t := r.Varint()
	part, rank := r.Uvarint(), r.Uvarint()
	text := r.Text()
	if r.Bad || part >= uint64(s.parts) || rank >= uint64(s.cfg.Ranks) {
		return nil, b, errors.New("bglua: not a printed line's wire form")
	}
	s.out.Insert(t, int(part), int(rank), text)
	return nil, r.B, nil
}

// Kinds of errors on the wire (errorWire).
const (
	errWireText byte = iota // any other: its text
	errWireRank
	errWireAbort
	errWireOnePartition
	errWireHostLimit   // a wall-time or memory limit of one process
	errWireInterrupted // a process canceled (Ctrl-C)
)

// errorWire carries the error that stops a run over several processes from
// the process that raised it to the others, so that all end with it.
var errorWire = runtime.ErrorWire{Append: appendError, Read: readError}

func appendError(b []byte, err error) ([]byte, bool) {
	var re *luabind.RankError
	var ab *luabind.AbortError
	var pe *mpi.OnePartitionError
	var hl *LimitError
	switch {
	case errors.As(err, &re):
		b = append(b, errWireRank)
		b = binary.AppendVarint(b, int64(re.Rank))
		b = binary.AppendVarint(b, int64(re.Time))
		b = binary.AppendUvarint(b, math.Float64bits(re.Seconds))
		b = wire.AppendText(b, re.Msg)
		b = wire.AppendText(b, re.Traceback)
	case errors.As(err, &ab):
		b = append(b, errWireAbort)
		b = binary.AppendVarint(b, int64(ab.Rank))
		b = binary.AppendUvarint(b, math.Float64bits(ab.Seconds))
		b = wire.AppendText(b, ab.Msg)
		b = binary.AppendVarint(b, int64(ab.Code))
		b = wire.AppendText(b, ab.Where)
	case errors.As(err, &pe):
		b = append(b, errWireOnePartition)
		b = wire.AppendText(b, pe.What)
		b = binary.AppendVarint(b, int64(pe.Rank))
		b = binary.AppendVarint(b, int64(pe.Time))
	case errors.As(err, &hl):
		// (Its time and running ranks are the stopping process's, added
		// there: the others end with the limit, and its exit status.)
		b = append(b, errWireHostLimit)
		b = wire.AppendText(wire.AppendText(wire.AppendText(b, hl.What), hl.Limit), hl.InUse)
	case errors.Is(err, context.Canceled):
		b = append(b, errWireInterrupted)
	default:
		b = append(b, errWireText)
		b = wire.AppendText(b, err.Error())
	}
	return b, true
}

func readError(b []byte) (error, error) {
	if len(b) == 0 {
		return nil, errors.New("bglua: an empty error")
	}
	r := wire.Reader{B: b[1:]}
	text := r.Text
	var err error
	switch b[0] {
	case errWireRank:
		e := &luabind.RankError{Rank: r.Int(), Time: r.Varint(), Seconds: math.Float64frombits(r.Uvarint())}
		e.Msg, e.Traceback = text(), text()
		err = e
	case errWireAbort:
		e := &luabind.AbortError{Rank: r.Int(), Seconds: math.Float64frombits(r.Uvarint())}
		e.Msg, e.Code, e.Where = text(), r.Int(), text()
		err = e
	case errWireOnePartition:
		e := &mpi.OnePartitionError{What: text()}
		e.Rank, e.Time = r.Int(), r.Varint()
		err = e
	case errWireHostLimit:
		err = &LimitError{What: text(), Limit: text(), InUse: text()}
	case errWireInterrupted:
		err = &InterruptedError{}
	case errWireText:
		err = errors.New(text())
	default:
		return nil, fmt.Errorf("bglua: an error of kind %d", b[0])
	}
	if r.Bad || len(r.B) != 0 {
		return nil, errors.New("bglua: an error's wire form does not read back")
	}
	return err, nil
}

// gatherLeftovers puts every process's leftovers in res, in rank order
// (each process's are, and their first MaxLeftovers hold the first of all).
func (s *sim) gatherLeftovers(res *Result) error {
	net := s.net
	b := binary.AppendUvarint(nil, uint64(res.LeftoverCount))
	for _, o := range res.Leftovers {
		b = binary.AppendUvarint(b, uint64(o.Rank))
		b = binary.AppendUvarint(b, uint64(o.From))
		b = wire.AppendText(b, o.Handler)
		b = binary.AppendVarint(b, int64(o.Tag))
		coll := byte(0)
		if o.Collective {
			coll = 1
		}
		b = append(b, coll)
		b = binary.AppendUvarint(b, uint64(o.Bytes))
	}
	in, err := mpinet.AllGather(net, b)
	if err != nil {
		return err
	}
	var all []Leftover
	count := 0
	for p, b := range in {
		r := wire.Reader{B: b}
		count += int(r.Uvarint())
		for len(r.B) > 0 && !r.Bad {
			o := Leftover{Rank: int(r.Uvarint()), From: int(r.Uvarint()), Handler: r.Text(), Tag: r.Int()}
			o.Collective = r.Byte() == 1
			o.Bytes = int(r.Uvarint())
			all = append(all, o)
		}
		if r.Bad {
			return fmt.Errorf("bglua: process %d's leftovers do not read back", p)
		}
	}
	slices.SortStableFunc(all, func(a, b Leftover) int { return cmp.Compare(a.Rank, b.Rank) })
	res.Leftovers, res.LeftoverCount = all[:min(len(all), MaxLeftovers)], count
	if len(res.Leftovers) == 0 {
		res.Leftovers = nil
	}
	return nil
}

// gatherStats puts in res the algorithms' and fallbacks' calls of every
// process, summed (each communicator's rank 0 records its calls, in one
// process), and with Config.Stats the statistics: the primitives' and
// regions' rows summed, and the links, each counted by the process of the
// node it leaves, with the names of their labels.
func (s *sim) gatherStats(res *Result) error {
	net := s.net
	var b []byte
	appendRows := func(rows []PrimitiveStat) {
		b = binary.AppendUvarint(b, uint64(len(rows)))
		for _, r := range rows {
			b = appendStatRow(b, r)
		}
	}
	appendRows(res.Stats)
	appendRows(res.Regions)
	b = binary.AppendUvarint(b, uint64(len(res.Algorithms)))
	for _, a := range res.Algorithms {
		for _, t := range [...]string{a.Coll, a.Comm, a.Chosen, a.Ran, a.Reason} {
			b = wire.AppendText(b, t)
		}
		b = binary.AppendUvarint(b, uint64(a.Comms))
		b = binary.AppendUvarint(b, uint64(a.Calls))
	}
	b = binary.AppendUvarint(b, uint64(len(res.Fallbacks)))
	for _, f := range res.Fallbacks {
		b = wire.AppendText(wire.AppendText(wire.AppendText(b, f.Coll), f.Alg), f.Reason)
		b = binary.AppendUvarint(b, uint64(f.Calls))
	}
	uses := s.world.Layer().Links()
	names := map[int32]bool{}
	b = binary.AppendUvarint(b, uint64(len(uses)))
	for _, u := range uses {
		b = binary.AppendUvarint(b, uint64(u.Link))
		b = binary.AppendVarint(b, u.Bytes)
		b = binary.AppendVarint(b, u.Busy)
		b = binary.AppendUvarint(b, uint64(len(u.Labels)))
		for _, l := range u.Labels {
			b = binary.AppendVarint(b, int64(l.Label))
			b = binary.AppendVarint(b, l.Bytes)
			names[l.Label] = true
		}
	}
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, l := range slices.Sorted(maps.Keys(names)) {
		b = wire.AppendText(binary.AppendVarint(b, int64(l)), s.world.LinkLabel(l))
	}
	in, err := mpinet.AllGather(net, b)
	if err != nil {
		return err
	}
	stats, regions := map[string][]observe.PrimitiveStat{}, map[string][]observe.PrimitiveStat{}
	algs := map[[5]string]*AlgorithmUse{}
	falls := map[[3]string]*Fallback{}
	var all []msglayer.LinkUse
	label := map[int32]string{}
	for p, b := range in {
		r := wire.Reader{B: b}
		text := r.Text
		readRows := func(into map[string][]observe.PrimitiveStat) {
			for range r.Uvarint() {
				if r.Bad {
					return
				}
				row := observe.PrimitiveStat(readStatRow(&r))
				id := row.Parent + "\x00" + row.Algorithm + "\x00" + row.Name
				into[id] = append(into[id], row)
			}
		}
		readRows(stats)
		readRows(regions)
		for range r.Uvarint() {
			if r.Bad {
				break
			}
			k := [5]string{text(), text(), text(), text(), text()}
			comms, calls := int(r.Uvarint()), int(r.Uvarint())
			if a := algs[k]; a != nil {
				a.Comms, a.Calls = a.Comms+comms, a.Calls+calls
			} else {
				algs[k] = &AlgorithmUse{Coll: k[0], Comm: k[1], Chosen: k[2], Ran: k[3], Reason: k[4], Comms: comms, Calls: calls}
			}
		}
		for range r.Uvarint() {
			if r.Bad {
				break
			}
			k := [3]string{text(), text(), text()}
			calls := int(r.Uvarint())
			if f := falls[k]; f != nil {
				f.Calls += calls
			} else {
				falls[k] = &Fallback{Coll: k[0], Alg: k[1], Reason: k[2], Calls: calls}
			}
		}
		for range r.Uvarint() {
			if r.Bad {
				break
			}
			u := msglayer.LinkUse{Link: int(r.Uvarint()), Bytes: r.Varint(), Busy: r.Varint()}
			for range r.Uvarint() {
				if r.Bad {
					break
				}
				u.Labels = append(u.Labels, msglayer.LabelBytes{Label: int32(r.Varint()), Bytes: r.Varint()})
			}
			all = append(all, u)
		}
		for range r.Uvarint() {
			if r.Bad {
				break
			}
			l := int32(r.Varint())
			label[l] = text()
		}
		if r.Bad || len(r.B) != 0 {
			return fmt.Errorf("bglua: process %d's statistics do not read back", p)
		}
	}
	slices.SortFunc(all, func(a, b msglayer.LinkUse) int { return cmp.Compare(a.Link, b.Link) })
	s.links = all
	if s.cfg.Stats {
		toResult := func(rows []observe.PrimitiveStat) []PrimitiveStat {
			return convert(rows, func(p observe.PrimitiveStat) PrimitiveStat { return PrimitiveStat(p) })
		}
		res.Stats, res.Regions = toResult(observe.SumStats(stats)), toResult(observe.SumStats(regions))
		slices.SortStableFunc(res.Regions, func(a, b PrimitiveStat) int { return cmp.Compare(a.Name, b.Name) })
		res.Links, res.LinkDims = nil, nil
		s.linkStatsOf(res, all, func(l int32) string { return label[l] })
	}
	res.Algorithms = nil
	for _, a := range algs {
		res.Algorithms = append(res.Algorithms, *a)
	}
	slices.SortFunc(res.Algorithms, func(a, b AlgorithmUse) int {
		return cmp.Or(cmp.Compare(a.Coll, b.Coll), cmp.Compare(a.Comm, b.Comm), cmp.Compare(a.Chosen, b.Chosen), cmp.Compare(a.Ran, b.Ran), cmp.Compare(a.Reason, b.Reason))
	})
	res.Fallbacks = nil
	for _, f := range falls {
		res.Fallbacks = append(res.Fallbacks, *f)
	}
	slices.SortFunc(res.Fallbacks, func(a, b Fallback) int {
		return cmp.Or(cmp.Compare(a.Coll, b.Coll), cmp.Compare(a.Alg, b.Alg), cmp.Compare(a.Reason, b.Reason))
	})
	return nil
}

// gather completes res at every process of a run over several with what
// the others hold: how each rank ended, and the counters of messages
// summed. Every process calls it, at the end of the run.
func (s *sim) gather(res *Result) error {
	net := s.net
	var b []byte
	for i, e := range s.host.Ends {
		if s.g.Local(s.partOf(i)) {
			b = binary.AppendUvarint(b, uint64(i))
			b = append(b, byte(e.State))
			b = binary.AppendVarint(b, int64(e.Time))
		}
	}
	in, err := mpinet.AllGather(net, b)
	if err != nil {
		return err
	}
	for p, b := range in {
		if p == net.Rank() {
			continue
		}
		r := wire.Reader{B: b}
		for len(r.B) > 0 && !r.Bad {
			i, st, t := r.Uvarint(), r.Byte(), r.Varint()
			if r.Bad || i >= uint64(len(res.PerRank)) {
				return fmt.Errorf("bglua: process %d's ranks do not read back", p)
			}
			res.PerRank[i] = RankResult{State: luabind.RankState(st).String(), Seconds: s.m.Seconds(t)}
		}
	}
	if err := s.gatherLeftovers(res); err != nil {
		return err
	}
	if err := s.gatherStats(res); err != nil {
		return err
	}
	if s.cfg.MMDS {
		if err := s.gatherMDS(res); err != nil {
			return err
		}
	}
	sums := []int64{res.Messages, res.Bytes, res.ActiveMessages}
	if err := net.AllreduceInt64(mpinet.OpSum, sums); err != nil {
		return err
	}
	res.Messages, res.Bytes, res.ActiveMessages = sums[0], sums[1], sums[2]
	return nil
}
