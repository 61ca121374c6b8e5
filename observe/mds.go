package observe

import (
	"math/bits"
	"sort"

	"github.com/bglua/bglua/runtime"
)

// The main monitoring and debugging system (MMDS, [BCS] section 5.1): per
// rank and per primitive, the count and the minimum, maximum, total and
// average latency of the calls; and two distributions, computation
// granularity (time between blocking calls) and communication overhead
// (time inside them), whose sums make the rank's run time. It only reads
// virtual time: monitoring never changes it.

// mdsBlocking are the primitives that can block a rank on communication;
// the time between two of them is computation.
var mdsBlocking = map[string]bool{
	"send": true, "recv": true, "wait": true, "waitall": true, "waitany": true, "probe": true,
	"sendrecv": true, "barrier": true, "bcast": true, "reduce": true, "allreduce": true,
	"gather": true, "gatherv": true, "allgather": true, "allgatherv": true, "scatter": true,
	"scatterv": true, "alltoall": true, "alltoallv": true, "reduce_scatter": true, "scan": true,
	"exscan": true, "split": true, "dup": true, "test_event": true, "compare_and_write": true,
	"ssend": true, "mprobe": true, "mrecv": true, "neighbor_allgather": true, "neighbor_alltoall": true,
}

// MDSBins is the number of bins of the distributions: bin 0 holds times
// under 1 us, bin b (b > 0) times in [2^(b-1), 2^b) us; the last bin holds
// everything longer.
const MDSBins = 32

// RankMDS is one rank's MMDS record.
type RankMDS struct {
	Rank       int
	Primitives []PrimitiveStat // sorted by name; Bytes unused
	// Computation and Communication are the distributions: per bin, how
	// many intervals and their total virtual time.
	Computation, Communication [MDSBins]Bin
	// End is when the rank ended: the sums of both distributions' totals.
	End runtime.Time

	prims      map[string]*PrimitiveStat
	lastReturn runtime.Time
}

// Bin is one bin of a distribution.
type Bin struct {
	Count int64
	Total runtime.Time
}

func (m *RankMDS) prim(name string) *PrimitiveStat {
	if m.prims == nil {
		m.prims = map[string]*PrimitiveStat{}
	}
	s := m.prims[name]
	if s == nil {
		s = &PrimitiveStat{Name: name}
		m.prims[name] = s
	}
	return s
}

// Call records one call of primitive name (short is its name without the
// module) from t0 to t1.
func (m *RankMDS) Call(name, short string, t0, t1 runtime.Time, cyclesPerUS float64) {
	m.prim(name).Add(t1-t0, 0)
	if mdsBlocking[short] {
		m.Computation[binOf(t0-m.lastReturn, cyclesPerUS)].add(t0 - m.lastReturn)
		m.Communication[binOf(t1-t0, cyclesPerUS)].add(t1 - t0)
		m.lastReturn = t1
	}
}

// Finish closes the record at the rank's end.
func (m *RankMDS) Finish(end runtime.Time, cyclesPerUS float64) {
	m.Computation[binOf(end-m.lastReturn, cyclesPerUS)].add(end - m.lastReturn)
	m.lastReturn = end
	m.End = end
	m.Primitives = m.Calls()
}

func (b *Bin) add(d runtime.Time) {
	b.Count++
	b.Total += d
}

func binOf(d runtime.Time, cyclesPerUS float64) int {
	us := uint64(float64(d) / cyclesPerUS)
	return min(bits.Len64(us), MDSBins-1)
}

// BinBounds are bin b's limits in microseconds (hi < 0: unbounded).
func BinBounds(b int) (lo, hi float64) {
	switch {
	case b == 0:
		return 0, 1
	case b == MDSBins-1:
		return float64(uint64(1) << (b - 1)), -1
	}
	return float64(uint64(1) << (b - 1)), float64(uint64(1) << b)
}

// Calls are the primitives the rank has called so far, sorted by name
// (Bytes unused).
func (m *RankMDS) Calls() []PrimitiveStat {
	out := make([]PrimitiveStat, 0, len(m.prims))
	for _, s := range m.prims {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Times are the rank's computation and communication times up to now: the
// totals of both distributions, and the time since its last blocking call
// as computation.
func (m *RankMDS) Times(now runtime.Time) (comp, comm runtime.Time) {
	for b := range m.Computation {
		comp += m.Computation[b].Total
		comm += m.Communication[b].Total
	}
	return comp + now - m.lastReturn, comm
}
