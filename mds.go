package bglua

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/bglua/bglua/bcs"
	"github.com/bglua/bglua/observe"
)

// MDS is the monitoring and debugging output of a run ([BCS] section 5):
// the per-rank MMDS (Config.MMDS) and the per-slice EMDS (Config.EMDS, bcs
// runtime only). Times are virtual cycles; the files give microseconds.
type MDS struct {
	ClockHz float64
	Ranks   []RankMDS     // by rank; nil without MMDS
	Slices  []SliceRecord // by slice; nil without EMDS
}

// RankMDS is one rank's MMDS record.
type RankMDS struct {
	Rank       int
	Primitives []PrimitiveStat // per primitive, sorted by name; Bytes unused
	// Computation and Communication are the rank's distributions of
	// computation granularity (time between blocking calls) and
	// communication overhead (time inside them): per bin (BinBounds), how
	// many intervals and their total virtual time.
	Computation, Communication [MDSBins]Bin
	// End is when the rank ended: the totals of both distributions add up
	// to it.
	End int64
}

// MDSBins is the number of bins of an MMDS distribution.
const MDSBins = 32

// The records' distributions have the bins observe keeps.
var _ [MDSBins]Bin = [observe.MDSBins]Bin{}

// Bin is one bin of a distribution.
type Bin struct {
	Count int64 // intervals
	Total int64 // their virtual time
}

// BinBounds are bin b's limits in microseconds, hi < 0 for none: bin 0
// holds times under 1 us, bin b > 0 times in [2^(b-1), 2^b) us, the last
// bin everything longer.
func BinBounds(b int) (lo, hi float64) { return observe.BinBounds(b) }

// SliceRecord is one bcs slice's EMDS record ([BCS] Tables 5.1 and 5.2):
// GETTS is the time since the previous strobe, GTDEM and GTMSM the time
// to complete the descriptor exchange and message scheduling microphases
// on every node, GTTS the time to complete the slice's work.
type SliceRecord struct {
	Slice               int64
	Start               int64
	GETTS, GTDEM, GTMSM int64
	GTTS                int64
	NCOLLMSM            int           // collectives scheduled in the slice
	Local               []LocalRecord // by node, for nodes with something to report
}

// LocalRecord is one node's EMDS metrics in one slice: LTDEM, LTMSM and
// LTTS are the node's own share of the slice's times; NP2PDEM counts the
// point-to-point descriptors it processed in the descriptor exchange,
// NP2PMSM the point-to-point transfers scheduled to or from it, NCOLLDEM
// the collective descriptors its ranks posted, NCOLLMSM the collectives
// scheduled (counted at every member node), BPTS its ranks blocked when
// the slice began.
type LocalRecord struct {
	Node                     int
	LTDEM, LTMSM, LTTS       int64
	NP2PDEM, NP2PMSM         int
	NCOLLDEM, NCOLLMSM, BPTS int
}

// newMDS is the monitoring output of a run: the ranks' MMDS records and
// the bcs runtime's slices, either nil when not kept.
func newMDS(clockHz float64, ranks []observe.RankMDS, slices []bcs.SliceRecord) *MDS {
	m := &MDS{ClockHz: clockHz}
	m.Ranks = convert(ranks, func(r observe.RankMDS) RankMDS {
		out := RankMDS{Rank: r.Rank, End: r.End, Primitives: convert(r.Primitives, func(p observe.PrimitiveStat) PrimitiveStat { return PrimitiveStat(p) })}
		for b := range MDSBins {
			out.Computation[b] = Bin(r.Computation[b])
			out.Communication[b] = Bin(r.Communication[b])
		}
		return out
	})
	m.Slices = convert(slices, func(s bcs.SliceRecord) SliceRecord {
		return SliceRecord{Slice: s.Slice, Start: s.Start, GETTS: s.GETTS, GTDEM: s.GTDEM, GTMSM: s.GTMSM, GTTS: s.GTTS, NCOLLMSM: s.NCOLLMSM,
			Local: convert(s.Local, func(l bcs.LocalRecord) LocalRecord {
				return LocalRecord{Node: l.Node, LTDEM: l.LTDEM, LTMSM: l.LTMSM, LTTS: l.LTTS, NP2PDEM: l.NP2PDEM, NP2PMSM: l.NP2PMSM,
					NCOLLDEM: l.NCOLLDEM, NCOLLMSM: l.NCOLLMSM, BPTS: l.BPTS}
			})}
	})
	return m
}

func (m *MDS) us(c int64) string { return fmt.Sprintf("%.3f", float64(c)/m.ClockHz*1e6) }

// Files are the names WriteDir writes.
var mdsFiles = struct{ mmds, dist, emdsGlobal, emdsLocal string }{
	"mmds.csv", "mmds_distributions.csv", "emds_global.csv", "emds_local.csv",
}

// WriteDir writes the monitoring output as CSV files in dir (made if
// missing): mmds.csv (rank, primitive, count, min, max, total and average
// latency: the layout of [BCS] Table 5.3), mmds_distributions.csv (per rank,
// the computation-granularity and communication-overhead histograms; the
// totals of both add up to the rank's run time), emds_global.csv (per
// slice: GETTS, GTDEM, GTMSM, GTTS) and emds_local.csv (per slice and node
// with anything to report: LETTS, LTDEM, LTMSM, LTTS, NP2PDEM, NP2PMSM,
// NCOLLDEM, NCOLLMSM, BPTS). It returns the paths written.
//
// The directory starts clean of monitoring output: those of the four files
// that this run does not write (emds_*.csv after a run without emds) are
// removed, so that no file in dir is from an earlier run. Other files are
// left alone.
func (m *MDS) WriteDir(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name  string
		wrote bool
	}{
		{mdsFiles.mmds, m.Ranks != nil}, {mdsFiles.dist, m.Ranks != nil},
		{mdsFiles.emdsGlobal, m.Slices != nil}, {mdsFiles.emdsLocal, m.Slices != nil},
	} {
		if f.wrote {
			continue
		}
		if err := os.Remove(filepath.Join(dir, f.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("removing the stale %s of an earlier run: %w", f.name, err)
		}
	}
	var paths []string
	write := func(name string, f func(w *bufio.Writer)) error {
		p := filepath.Join(dir, name)
		fh, err := os.Create(p)
		if err != nil {
			return err
		}
		w := bufio.NewWriter(fh)
		f(w)
		if err := w.Flush(); err != nil {
			fh.Close()
			return err
		}
		paths = append(paths, p)
		return fh.Close()
	}
	if m.Ranks != nil {
		if err := write(mdsFiles.mmds, m.writeMMDS); err != nil {
			return paths, err
		}
		if err := write(mdsFiles.dist, m.writeDist); err != nil {
			return paths, err
		}
	}
	if m.Slices != nil {
		if err := write(mdsFiles.emdsGlobal, m.writeGlobal); err != nil {
			return paths, err
		}
		if err := write(mdsFiles.emdsLocal, m.writeLocal); err != nil {
			return paths, err
		}
	}
	return paths, nil
}

func (m *MDS) writeMMDS(w *bufio.Writer) {
	fmt.Fprintln(w, "rank,primitive,count,min_us,max_us,total_us,avg_us")
	for _, r := range m.Ranks {
		for _, p := range r.Primitives {
			fmt.Fprintf(w, "%d,%s,%d,%s,%s,%s,%s\n", r.Rank, p.Name, p.Count, m.us(p.Min), m.us(p.Max), m.us(p.Total), m.us(p.Total/max(p.Count, 1)))
		}
	}
}

func (m *MDS) writeDist(w *bufio.Writer) {
	fmt.Fprintln(w, "rank,kind,bin_lo_us,bin_hi_us,count,total_us")
	for _, r := range m.Ranks {
		for _, k := range []struct {
			name string
			bins *[MDSBins]Bin
		}{{"computation", &r.Computation}, {"communication", &r.Communication}} {
			for b, bin := range k.bins {
				if bin.Count == 0 {
					continue
				}
				lo, hi := BinBounds(b)
				hs := "inf"
				if hi >= 0 {
					hs = fmt.Sprint(hi)
				}
				fmt.Fprintf(w, "%d,%s,%g,%s,%d,%s\n", r.Rank, k.name, lo, hs, bin.Count, m.us(bin.Total))
			}
		}
	}
}

func (m *MDS) writeGlobal(w *bufio.Writer) {
	fmt.Fprintln(w, "slice,start_us,GETTS_us,GTDEM_us,GTMSM_us,GTTS_us,NCOLLMSM")
	for _, s := range m.Slices {
		fmt.Fprintf(w, "%d,%s,%s,%s,%s,%s,%d\n", s.Slice, m.us(s.Start), m.us(s.GETTS), m.us(s.GTDEM), m.us(s.GTMSM), m.us(s.GTTS), s.NCOLLMSM)
	}
}

func (m *MDS) writeLocal(w *bufio.Writer) {
	fmt.Fprintln(w, "slice,node,LETTS_us,LTDEM_us,LTMSM_us,LTTS_us,NP2PDEM,NP2PMSM,NCOLLDEM,NCOLLMSM,BPTS")
	for _, s := range m.Slices {
		for _, l := range s.Local {
			fmt.Fprintf(w, "%d,%d,%s,%s,%s,%s,%d,%d,%d,%d,%d\n", s.Slice, l.Node, m.us(s.GETTS), m.us(l.LTDEM), m.us(l.LTMSM), m.us(l.LTTS),
				l.NP2PDEM, l.NP2PMSM, l.NCOLLDEM, l.NCOLLMSM, l.BPTS)
		}
	}
}

// Summary writes a short table of the monitoring output: per primitive over
// all ranks (MMDS), and the slices' lengths and work (EMDS).
func (m *MDS) Summary(w io.Writer) {
	if m.Ranks != nil {
		type agg struct {
			count           int64
			min, max, total int64
		}
		byName := map[string]*agg{}
		var comp, comm, run int64
		for _, r := range m.Ranks {
			for _, p := range r.Primitives {
				a := byName[p.Name]
				if a == nil {
					a = &agg{min: p.Min}
					byName[p.Name] = a
				}
				a.count += p.Count
				a.min = min(a.min, p.Min)
				a.max = max(a.max, p.Max)
				a.total += p.Total
			}
			for b := range r.Computation {
				comp += r.Computation[b].Total
				comm += r.Communication[b].Total
			}
			run += r.End
		}
		fmt.Fprintf(w, "MMDS: %d ranks; computation %.1f%%, communication %.1f%% of the ranks' run time\n",
			len(m.Ranks), pct(comp, run), pct(comm, run))
		fmt.Fprintf(w, "%-22s %10s %12s %12s %12s %12s\n", "primitive", "count", "min us", "max us", "avg us", "total us")
		for _, n := range slices.Sorted(maps.Keys(byName)) {
			a := byName[n]
			fmt.Fprintf(w, "%-22s %10d %12s %12s %12s %12s\n", n, a.count, m.us(a.min), m.us(a.max), m.us(a.total/max(a.count, 1)), m.us(a.total))
		}
	}
	if len(m.Slices) > 0 {
		lens := make([]int64, len(m.Slices))
		var work, worst int64
		colls := 0
		for i, s := range m.Slices {
			lens[i] = s.GETTS
			work += s.GTTS
			worst = max(worst, s.GTTS)
			colls += s.NCOLLMSM
		}
		sort.Slice(lens, func(i, j int) bool { return lens[i] < lens[j] })
		fmt.Fprintf(w, "EMDS: %d slices; GETTS min %s us, median %s us, max %s us; GTTS mean %s us, max %s us; %d collectives scheduled\n",
			len(m.Slices), m.us(lens[0]), m.us(lens[len(lens)/2]), m.us(lens[len(lens)-1]), m.us(work/int64(len(m.Slices))), m.us(worst), colls)
	}
}

func pct(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}
