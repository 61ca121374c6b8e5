package observe

import (
	"sort"

	"github.com/bglua/bglua/runtime"
)

// PrimitiveStat sums the calls of one primitive (mpi.send, ml.wait, ...)
// over all ranks: how many, their virtual durations, and the payload bytes
// the calling ranks sent during them. The calls of a collective are
// counted per Algorithm that ran them; the calls an algorithm made (a Lua
// one's sends and receives) are a row of their own with the collective as
// Parent and the algorithm as Algorithm: they are part of the parent's
// calls, not calls of the program.
type PrimitiveStat struct {
	Name            string
	Algorithm       string
	Parent          string
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

// SumStats sums the statistics kept per row (a key of stats) and per
// partition into one per row, in SortStats's order, rows never counted
// left out. The sums, minima and maxima do not depend on how the
// partitions interleaved.
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
			s.Name, s.Algorithm, s.Parent = p.Name, p.Algorithm, p.Parent
		}
		if s.Count > 0 {
			out = append(out, s)
		}
	}
	SortStats(out)
	return out
}

// SortStats sorts rows by name, then algorithm, the rows an algorithm made
// right after its own, by name.
func SortStats(rows []PrimitiveStat) {
	top := func(s PrimitiveStat) string {
		if s.Parent != "" {
			return s.Parent
		}
		return s.Name
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		switch ta, tb := top(a), top(b); {
		case ta != tb:
			return ta < tb
		case a.Algorithm != b.Algorithm:
			return a.Algorithm < b.Algorithm
		case (a.Parent == "") != (b.Parent == ""):
			return a.Parent == ""
		}
		return a.Name < b.Name
	})
}
