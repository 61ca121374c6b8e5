package bglua

import (
	"cmp"
	"slices"

	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/observe"
	"github.com/bglua/bglua/runtime"
)

// MaxLinkRows is how many links Result.Links lists: the busiest.
const MaxLinkRows = 10

// LinkStat is what one torus link carried over the run (Config.Stats).
type LinkStat struct {
	Link  string // the node it leaves and its direction: "(3,1,0)+x"
	Index int    // its index: node*6 + direction (x+, x-, y+, y-, z+, z-)
	Bytes int64  // on the wire, packet headers included
	// Busy is the share of the run's virtual time the link was held.
	Busy float64
	// Uses splits Bytes by what the sending rank was doing when the data
	// was sent: a collective and its algorithm ("allreduce
	// (recursive_doubling)"), or "" outside collectives; most bytes first.
	Uses []LinkShare
}

// LinkShare is one collective's bytes on a link ("" for traffic outside
// collectives: point-to-point calls, active messages).
type LinkShare struct {
	Name  string
	Bytes int64
}

// DimStat sums the links of one dimension of the torus.
type DimStat struct {
	Dim   string // "x", "y" or "z"
	Links int    // how many links it has
	Bytes int64
	// MeanBusy and MaxBusy are the mean and the largest share of the
	// run's virtual time its links were held.
	MeanBusy, MaxBusy float64
}

// linkStats fills res.Links and res.LinkDims from the layer's accounting.
func (s *sim) linkStats(res *Result) { s.linkStatsOf(res, s.world.Layer().Links(), s.world.LinkLabel) }

// linkStatsOf fills res.Links and res.LinkDims from uses (in link order),
// the labels named by label.
func (s *sim) linkStatsOf(res *Result, uses []msglayer.LinkUse, label func(int32) string) {
	ml := s.world.Layer()
	busy := func(u msglayer.LinkUse) float64 {
		if res.Cycles <= 0 {
			return 0
		}
		return float64(u.Busy) / float64(res.Cycles)
	}
	links := dimLinks(s.mapping.Torus)
	for d := range 3 {
		ds := DimStat{Dim: string("xyz"[d]), Links: links[d]}
		var sum float64
		for _, u := range uses {
			if u.Link%msglayer.NumDirs/2 == d {
				ds.Bytes += u.Bytes
				sum += busy(u)
				ds.MaxBusy = max(ds.MaxBusy, busy(u))
			}
		}
		if ds.Links > 0 {
			ds.MeanBusy = sum / float64(ds.Links)
		}
		res.LinkDims = append(res.LinkDims, ds)
	}
	for _, u := range busiest(uses) {
		st := LinkStat{Link: ml.LinkName(u.Link), Index: u.Link, Bytes: u.Bytes, Busy: busy(u)}
		rest := u.Bytes
		for _, lb := range u.Labels {
			st.Uses = append(st.Uses, LinkShare{Name: label(lb.Label), Bytes: lb.Bytes})
			rest -= lb.Bytes
		}
		if rest > 0 {
			st.Uses = append(st.Uses, LinkShare{Bytes: rest})
		}
		slices.SortStableFunc(st.Uses, func(a, b LinkShare) int {
			return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Name, b.Name))
		})
		res.Links = append(res.Links, st)
	}
}

// busiest sorts uses, busiest first (then most bytes, then by index), and
// returns the first MaxLinkRows.
func busiest(uses []msglayer.LinkUse) []msglayer.LinkUse {
	slices.SortStableFunc(uses, func(a, b msglayer.LinkUse) int {
		return cmp.Or(cmp.Compare(b.Busy, a.Busy), cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Link, b.Link))
	})
	return uses[:min(len(uses), MaxLinkRows)]
}

// traceLinks is the busiest links for the trace's counters, and the run's
// end (Tracer.Links).
func (s *sim) traceLinks() (runtime.Time, []observe.LinkBusy) {
	end := s.g.Now()
	ml := s.world.Layer()
	uses := ml.Links()
	if s.across() {
		uses = slices.Clone(s.links) // every process's (gatherStats)
	}
	var out []observe.LinkBusy
	for _, u := range busiest(uses) {
		busy := 0.0
		if end > 0 {
			busy = 100 * float64(u.Busy) / float64(end)
		}
		out = append(out, observe.LinkBusy{Name: ml.LinkName(u.Link), Busy: busy})
	}
	return end, out
}

// dimLinks is how many links each dimension of tor has: two a node along
// a ring (one each way), less the wrap-around ones on a mesh, none along a
// dimension of one node.
func dimLinks(tor msglayer.Torus) (links [3]int) {
	size := [3]int{tor.X, tor.Y, tor.Z}
	for d, n := range size {
		if n > 1 {
			links[d] = 2 * n * (tor.Nodes() / n)
			if tor.Mesh {
				links[d] = 2 * (n - 1) * (tor.Nodes() / n)
			}
		}
	}
	return links
}
