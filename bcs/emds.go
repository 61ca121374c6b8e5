package bcs

import "sort"

// EMDS records the runtime's own metrics per slice ([BCS] Tables 5.1 and
// 5.2), as the NIC-side monitor does. Recording reads the schedule and never
// changes it: a run with EMDS on has the same virtual times as one without.
//
// Global metrics per slice: GETTS (time since the previous strobe), GTDEM and
// GTMSM (time to complete the descriptor exchange and message scheduling
// microphases on every node), GTTS (time to complete the slice's work).
// Local metrics per node: LETTS (as GETTS: every node gets the strobe at the
// same time here), LTDEM, LTMSM, LTTS (the node's own share), NP2PDEM
// (point-to-point descriptors the node processed in the DEM), NP2PMSM
// (point-to-point transfers scheduled to or from it), NCOLLDEM (collective
// descriptors its ranks posted, processed in the DEM), NCOLLMSM (collectives
// scheduled, counted at every member node), BPTS (its ranks blocked when the
// slice began). Local rows are kept only for nodes with something to report.
type EMDS struct {
	Slices []SliceRecord

	// Blocked, if set, adds each node's blocked ranks to the record (BPTS).
	Blocked func(rec *SliceRecord)

	collPosted map[int]int // node -> collective descriptors posted since the last strobe
}

// SliceRecord is one slice's metrics.
type SliceRecord struct {
	Slice               int64
	Start               Time
	GETTS, GTDEM, GTMSM Time
	GTTS                Time
	NCOLLMSM            int // collectives scheduled in the slice
	Local               []LocalRecord
	idx                 map[int]int
}

// LocalRecord is one node's metrics in one slice.
type LocalRecord struct {
	Node                     int
	LTDEM, LTMSM, LTTS       Time
	NP2PDEM, NP2PMSM         int
	NCOLLDEM, NCOLLMSM, BPTS int
	lastColl                 int
}

func (e *EMDS) idle(k int64, start, length Time) {
	e.Slices = append(e.Slices, SliceRecord{Slice: k, Start: start, GETTS: length})
}

func (e *EMDS) begin(k int64, start, since Time) *SliceRecord {
	e.Slices = append(e.Slices, SliceRecord{Slice: k, Start: start, GETTS: since, idx: map[int]int{}})
	rec := &e.Slices[len(e.Slices)-1]
	if len(e.collPosted) > 0 {
		nodes := make([]int, 0, len(e.collPosted))
		for n := range e.collPosted {
			nodes = append(nodes, n)
		}
		sort.Ints(nodes)
		for _, n := range nodes {
			rec.local(n).NCOLLDEM += e.collPosted[n]
		}
		clear(e.collPosted)
	}
	return rec
}

// CollPosted counts a collective descriptor posted by a rank on node.
func (e *EMDS) CollPosted(node int) {
	if e.collPosted == nil {
		e.collPosted = map[int]int{}
	}
	e.collPosted[node]++
}

func (e *EMDS) finish(rec *SliceRecord, dem, msm, total Time) {
	rec.GTDEM, rec.GTMSM, rec.GTTS = dem, msm, total
	sort.Slice(rec.Local, func(i, j int) bool { return rec.Local[i].Node < rec.Local[j].Node })
	rec.idx = nil
}

// local returns node's row of the slice, adding it on first use.
func (rec *SliceRecord) local(node int) *LocalRecord {
	i, ok := rec.idx[node]
	if !ok {
		i = len(rec.Local)
		rec.Local = append(rec.Local, LocalRecord{Node: node})
		rec.idx[node] = i
	}
	return &rec.Local[i]
}

// AddBlocked counts one blocked rank on node (for EMDS.Blocked).
func (rec *SliceRecord) AddBlocked(node int) { rec.local(node).BPTS++ }

func (l *LocalRecord) done(at Time) { l.LTTS = max(l.LTTS, at) }
