package observe

import (
	"sort"

	"github.com/bglua/bglua/runtime"
)

// PrimitiveStat sums the calls of one primitive (mpi.send, ml.wait, ...)
// over all ranks: how many, their virtual durations, and the payload bytes
// the calling ranks sent during them.
type PrimitiveStat struct {
	Name            string
	Count           int64
	Min, Max, Total runtime.Time
	Bytes           int64
}

// Add counts one call that lasted d and during which its rank sent bytes.
func (s *PrimitiveStat) Add(d runtime.Time, bytes int64) {
	if s.Count == 0 || d < s.Min {
		s.Min = d
	}
	if d > s.Max {
		s.Max = d
	}
	s.Count++
	s.Total += d
	s.Bytes += bytes
}

// SumStats sums the statistics kept per primitive and per partition into
// one per primitive, sorted by name, primitives never called left out. The
// sums, minima and maxima do not depend on how the partitions interleaved.
func SumStats(stats map[string][]PrimitiveStat) []PrimitiveStat {
	var out []PrimitiveStat
	for _, ps := range stats {
		var s PrimitiveStat
		for _, p := range ps {
			if p.Count == 0 {
				continue
			}
			if s.Count == 0 || p.Min < s.Min {
				s.Min = p.Min
			}
			s.Max = max(s.Max, p.Max)
			s.Count += p.Count
			s.Total += p.Total
			s.Bytes += p.Bytes
			s.Name = p.Name
		}
		if s.Count > 0 {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
