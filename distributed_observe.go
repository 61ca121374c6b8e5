package bglua

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/observe"
	"github.com/bglua/bglua/runtime"

	"github.com/bglua/bglua/internal/mpinet"
	"github.com/bglua/bglua/internal/wire"
)

// The trace and the monitoring data of a run over several processes
// (docs/distributed.md), which process 0 writes as one process does:
//
//   - the trace's records cross to process 0 as the printed lines do, told
//     by the recording partition (traced), and process 0 writes those of a
//     window at the end of the next (observe.Tracer.Remote);
//   - its counters are sampled at process 0 from every process's share at
//     the end of the window whose records it writes: each process tells
//     its share between windows when it changed (traceCounts), and process
//     0 sums the last it heard;
//   - the busiest links at the end, from the links gathered for the
//     statistics (gatherStats);
//   - the per-rank MMDS records gathered at the end (gatherMDS).

// traced is a record of the trace made in a process other than 0, on its
// way to process 0.
type traced observe.Record

func (*traced) Act(runtime.Time) { panic("bglua: a trace record is read, never run") }

// forwardTrace has the trace records made in this process, not process 0,
// go to process 0 (the tracer's Remote).
func (s *sim) forwardTrace(r observe.Record) {
	s.g.Part(r.Part).Tell(s.g.Part(0), (*traced)(&r))
}

// Flags of a trace record's wire form.
const (
	tracedFlow byte = 1 << iota
	tracedStart
)

func appendTraced(b []byte, a runtime.Action, _ int) ([]byte, error) {
	r := a.(*traced)
	b = binary.AppendVarint(b, int64(r.T))
	b = binary.AppendUvarint(b, uint64(r.Part))
	var f byte
	if r.Flow {
		f |= tracedFlow
	}
	if r.Start {
		f |= tracedStart
	}
	b = append(b, f)
	if r.Flow {
		b = binary.AppendVarint(b, r.ID)
	}
	return wire.AppendText(b, r.Text), nil
}

func (s *sim) readTraced(b []byte, _ int, _ *runtime.Engine) (runtime.Action, []byte, error) {
	r := wire.Reader{B: b}
	rec := observe.Record{T: r.Varint(), Part: int(r.Uvarint())}
	f := r.Byte()
	rec.Flow, rec.Start = f&tracedFlow != 0, f&tracedStart != 0
	if rec.Flow {
		rec.ID = r.Varint()
	}
	rec.Text = r.Text()
	if r.Bad || rec.Part < 0 || rec.Part >= s.parts || f > tracedFlow|tracedStart || s.trace == nil {
		return nil, b, errors.New("bglua: not a trace record's wire form")
	}
	s.trace.Insert(rec)
	return nil, r.B, nil
}

// traceCounts is a process's share of the trace's counters (Tracer.Sample,
// SampleDims) at a window's end: the links' busy cycles, in all and per
// dimension, and the events pending.
type traceCounts struct {
	busy    int64
	dims    [3]int64
	pending int64
}

func (*traceCounts) Act(runtime.Time) { panic("bglua: a process's counters are read, never run") }

// ownCounts is this process's share of the counters now, pending as the
// group counts it (with what the window's exchange has not taken yet).
func (s *sim) ownCounts() traceCounts {
	_, _, busy := s.ml.NetTotals()
	return traceCounts{busy: busy, dims: s.ml.DimBusy(), pending: int64(s.g.Pending())}
}

// shareCounts, at a window's end (after the trace's WindowEnd), keeps this
// process's share of the counters for the trace: process 0 its own, to
// sample when it writes the window's records at the end of the next; the
// others tell it to process 0 with the window's exchange, when it changed.
func (s *sim) shareCounts() {
	c := s.ownCounts()
	if s.lead() {
		s.counts[0] = c
		return
	}
	if c == s.sentCounts || s.firstLocal < 0 {
		return // (a process of no partition has nothing to count)
	}
	s.sentCounts = c
	s.g.TellBetween(s.firstLocal, 0, &c)
}

// sumCounts is the counters of every process, summed (process 0's Sample).
func (s *sim) sumCounts() traceCounts {
	var sum traceCounts
	for _, c := range s.counts {
		sum.busy += c.busy
		sum.pending += c.pending
		for d := range sum.dims {
			sum.dims[d] += c.dims[d]
		}
	}
	return sum
}

func appendCounts(b []byte, a runtime.Action, _ int) ([]byte, error) {
	c := a.(*traceCounts)
	for _, v := range [...]int64{c.busy, c.dims[0], c.dims[1], c.dims[2], c.pending} {
		b = binary.AppendVarint(b, v)
	}
	return b, nil
}

func (s *sim) readCounts(b []byte, from int, _ *runtime.Engine) (runtime.Action, []byte, error) {
	r := wire.Reader{B: b}
	var c traceCounts
	for _, v := range [...]*int64{&c.busy, &c.dims[0], &c.dims[1], &c.dims[2], &c.pending} {
		*v = r.Varint()
	}
	if r.Bad || from < 0 || from >= len(s.counts) {
		return nil, b, errors.New("bglua: not a process's counters' wire form")
	}
	s.counts[from] = c
	return nil, r.B, nil
}

// finishCounts, once the run is over and before the trace's Finish, gives
// process 0 the counters to sample for the records of the last window: the
// processes' last shares, or, after an error raised in a partition (the
// last window had no end: one process samples its state when the run has
// stopped), the sums of what every process's partitions hold now, their
// queued events. Every process calls it.
func (s *sim) finishCounts(errPart int) error {
	_, _, busy := s.ml.NetTotals()
	dims := s.ml.DimBusy()
	queued := 0
	for i := range s.parts {
		if s.g.Local(i) {
			queued += s.g.Part(i).Pending()
		}
	}
	v := []int64{busy, dims[0], dims[1], dims[2], int64(queued)}
	if err := s.net.AllreduceInt64(mpinet.OpSum, v); err != nil {
		return err
	}
	if errPart >= 0 {
		clear(s.counts)
		s.counts[0] = traceCounts{busy: v[0], dims: [3]int64{v[1], v[2], v[3]}, pending: v[4]}
	}
	return nil
}

// gatherMDS puts in res every process's ranks' MMDS records (each process
// keeps its own ranks').
func (s *sim) gatherMDS(res *Result) error {
	var b []byte
	for i := range res.MDS.Ranks {
		if s.g.Local(s.partOf(i)) {
			b = appendRankMDS(b, &res.MDS.Ranks[i])
		}
	}
	in, err := mpinet.AllGather(s.net, b)
	if err != nil {
		return err
	}
	for p, b := range in {
		if p == s.net.Rank() {
			continue
		}
		r := wire.Reader{B: b}
		for len(r.B) > 0 && !r.Bad {
			m := readRankMDS(&r)
			if r.Bad || m.Rank < 0 || m.Rank >= len(res.MDS.Ranks) {
				return fmt.Errorf("bglua: process %d's monitoring records do not read back", p)
			}
			res.MDS.Ranks[m.Rank] = m
		}
	}
	return nil
}

// appendRankMDS appends m's wire form: its rank, end and primitives, and
// each distribution's bins that hold anything, marked in a mask.
func appendRankMDS(b []byte, m *RankMDS) []byte {
	b = binary.AppendUvarint(b, uint64(m.Rank))
	b = binary.AppendVarint(b, m.End)
	b = binary.AppendUvarint(b, uint64(len(m.Primitives)))
	for _, p := range m.Primitives {
		b = appendStatRow(b, p)
	}
	for _, bins := range [...]*[MDSBins]Bin{&m.Computation, &m.Communication} {
		var mask uint64
		for i, bin := range bins {
			if bin != (Bin{}) {
				mask |= 1 << i
			}
		}
		b = binary.AppendUvarint(b, mask)
		for _, bin := range bins {
			if bin != (Bin{}) {
				b = binary.AppendVarint(binary.AppendVarint(b, bin.Count), bin.Total)
			}
		}
	}
	return b
}

func readRankMDS(r *wire.Reader) RankMDS {
	m := RankMDS{Rank: int(r.Uvarint()), End: r.Varint()}
	n := r.Uvarint()
	for i := uint64(0); i < n && !r.Bad; i++ {
		m.Primitives = append(m.Primitives, readStatRow(r))
	}
	for _, bins := range [...]*[MDSBins]Bin{&m.Computation, &m.Communication} {
		mask := r.Uvarint()
		for i := range bins {
			if mask&(1<<i) != 0 {
				bins[i] = Bin{Count: r.Varint(), Total: r.Varint()}
			}
		}
	}
	return m
}

// appendStatRow appends the wire form of a row of statistics.
func appendStatRow(b []byte, p PrimitiveStat) []byte {
	b = wire.AppendText(wire.AppendText(wire.AppendText(b, p.Name), p.Algorithm), p.Parent)
	for _, v := range [...]int64{p.Count, p.Min, p.Max, p.Total, p.Bytes} {
		b = binary.AppendVarint(b, v)
	}
	return b
}

func readStatRow(r *wire.Reader) PrimitiveStat {
	p := PrimitiveStat{Name: r.Text(), Algorithm: r.Text(), Parent: r.Text()}
	p.Count, p.Min, p.Max, p.Total, p.Bytes = r.Varint(), r.Varint(), r.Varint(), r.Varint(), r.Varint()
	return p
}

// traceAcross makes the trace (in partitions) this process's share of a
// run over several: the records go to process 0, which samples the
// counters as every process's shares summed (dims: each dimension's links).
func (s *sim) traceAcross(dims [3]int) {
	s.counts = make([]traceCounts, s.net.Size())
	if !s.lead() {
		s.trace.Remote(s.forwardTrace)
		return
	}
	s.trace.Remote(nil)
	links := s.mapping.Torus.Nodes() * msglayer.NumDirs
	s.trace.Sample = func() (int64, int, int) {
		c := s.sumCounts()
		return c.busy, links, int(c.pending)
	}
	s.trace.SampleDims = func() ([3]int64, [3]int) { return s.sumCounts().dims, dims }
}
