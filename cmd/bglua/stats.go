package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bglua/bglua"
)

// printStats writes the per-primitive table: calls, virtual time per call
// (min, max, average) and in all, and the bytes the callers sent.
func printStats(w io.Writer, r *bglua.Result) {
	us := func(c int64) float64 { return float64(c) / r.ClockHz * 1e6 }
	// The first column is as wide as its longest name (at least 20).
	name := func(s bglua.PrimitiveStat) string {
		switch {
		case s.Parent != "":
			return "  " + s.Name // made by the algorithm of the row above
		case s.Algorithm != "":
			return s.Name + " (" + s.Algorithm + ")"
		}
		return s.Name
	}
	width := 20
	for _, s := range r.Stats {
		width = max(width, len(name(s)))
	}
	for _, s := range r.Regions {
		width = max(width, len(s.Name))
	}
	fmt.Fprintf(w, "%-*s %10s %12s %12s %12s %14s %14s\n", width, "primitive", "calls", "min us", "avg us", "max us", "total us", "bytes sent")
	for _, s := range r.Stats {
		name := name(s)
		fmt.Fprintf(w, "%-*s %10d %12.3f %12.3f %12.3f %14.3f %14d\n",
			width, name, s.Count, us(s.Min), us(s.Total)/float64(s.Count), us(s.Max), us(s.Total), s.Bytes)
	}
	if len(r.Regions) > 0 {
		fmt.Fprintf(w, "%-*s %10s %12s %12s %12s %14s\n", width, "region", "times", "min us", "avg us", "max us", "total us")
		for _, s := range r.Regions {
			fmt.Fprintf(w, "%-*s %10d %12.3f %12.3f %12.3f %14.3f\n",
				width, s.Name, s.Count, us(s.Min), us(s.Total)/float64(s.Count), us(s.Max), us(s.Total))
		}
	}
	for _, a := range r.Algorithms {
		fmt.Fprintf(w, "algorithm: %s\n", algorithmLine(a))
	}
	printLinks(w, r)
	if c := r.Coarsened; c.Leased > 0 {
		fmt.Fprintf(w, "exact coarsening: %d transfers advanced without their events (%d of them broke: %d ran again from a checkpoint, %d from their start), %d recorded, %d events not run (--grain 1 runs them all)\n",
			c.Leased, c.Broken, c.FromCheckpoint, c.Broken-c.FromCheckpoint, c.Recorded, c.NotRun)
	}
	if r.Partitions > 1 {
		fmt.Fprintf(w, "partitions: %d (one per block of the torus)\n", r.Partitions)
		if r.Windows > 0 {
			fmt.Fprintf(w, "windows: %d, crossings between partitions: %d (%.1f a window)\n", r.Windows, r.Crossings, float64(r.Crossings)/float64(r.Windows))
		}
	}
	if r.OnePartition != "" {
		fmt.Fprintf(w, "partitions: 1 (the torus has several blocks, but %s)\n", fieldsAsFlags.Replace(r.OnePartition))
	} else if r.Partitions <= 1 {
		fmt.Fprintf(w, "partitions: 1 (the torus is one block, of at most 8x8x8 nodes)\n")
	}
}

// printLinks writes the busiest torus links, then a line per dimension.
func printLinks(w io.Writer, r *bglua.Result) {
	if len(r.Links) == 0 {
		return
	}
	fmt.Fprintf(w, "%-20s %14s %8s  %s\n", "busiest links", "bytes", "busy %", "used by")
	for _, l := range r.Links {
		fmt.Fprintf(w, "%-20s %14d %8.2f  %s\n", l.Link, l.Bytes, 100*l.Busy, linkUses(l))
	}
	fmt.Fprintf(w, "%-20s %14s %8s %8s\n", "links by dimension", "bytes", "mean %", "max %")
	for _, d := range r.LinkDims {
		fmt.Fprintf(w, "%-20s %14d %8.2f %8.2f\n", fmt.Sprintf("%s (%d links)", d.Dim, d.Links), d.Bytes, 100*d.MeanBusy, 100*d.MaxBusy)
	}
}

// linkUses says which collectives put a link's bytes on it, with their
// shares: "allreduce (ring) 75%, point-to-point 25%".
func linkUses(l bglua.LinkStat) string {
	var b strings.Builder
	for i, u := range l.Uses {
		if i > 0 {
			b.WriteString(", ")
		}
		name := u.Name
		if name == "" {
			name = "point-to-point"
		}
		fmt.Fprintf(&b, "%s %.1f%%", name, 100*float64(u.Bytes)/float64(l.Bytes))
	}
	return b.String()
}

// algorithmLine says how the calls of a collective ran on a communicator:
// "allreduce on COMM_WORLD: auto -> tree, 3 calls", "allreduce on
// COMM_WORLD.split0 (2 communicators): tree -> recursive_doubling, 2 calls
// (fallback: sub-communicator ...)".
func algorithmLine(a bglua.AlgorithmUse) string {
	comm := a.Comm
	if a.Comms > 1 {
		comm = fmt.Sprintf("%s (%d communicators)", a.Comm, a.Comms)
	}
	alg := a.Chosen
	if a.Ran != a.Chosen {
		alg += " -> " + a.Ran
	}
	calls := "calls"
	if a.Calls == 1 {
		calls = "call"
	}
	line := fmt.Sprintf("%s on %s: %s, %d %s", a.Coll, comm, alg, a.Calls, calls)
	if a.Reason != "" {
		line += " (fallback: " + a.Reason + ")"
	}
	return line
}

type statJSON struct {
	Name       string  `json:"name"`
	Algorithm  string  `json:"algorithm,omitempty"`
	Parent     string  `json:"parent,omitempty"`
	Calls      int64   `json:"calls"`
	MinSec     float64 `json:"min_seconds"`
	MaxSec     float64 `json:"max_seconds"`
	TotalSec   float64 `json:"total_seconds"`
	AverageSec float64 `json:"average_seconds"`
	Bytes      int64   `json:"bytes_sent"`
}

// writeStatsJSON writes the same table as JSON for scripts.
func writeStatsJSON(file string, r *bglua.Result) error {
	sec := func(c int64) float64 { return float64(c) / r.ClockHz }
	type algJSON struct {
		Coll   string `json:"collective"`
		Comm   string `json:"communicator"`
		Comms  int    `json:"communicators"`
		Chosen string `json:"in_force"`
		Ran    string `json:"ran"`
		Reason string `json:"fallback,omitempty"`
		Calls  int    `json:"calls"`
	}
	type shareJSON struct {
		Name  string `json:"collective"`
		Bytes int64  `json:"bytes"`
	}
	type linkJSON struct {
		Link  string      `json:"link"`
		Index int         `json:"index"`
		Bytes int64       `json:"bytes"`
		Busy  float64     `json:"busy_fraction"`
		Uses  []shareJSON `json:"used_by"`
	}
	type coarseJSON struct {
		Recorded int64 `json:"recorded"`
		Leased   int64 `json:"leased"`
		Broke    int64 `json:"broke"`
		Late     int64 `json:"broke_from_checkpoint"`
		NotRun   int64 `json:"events_not_run"`
	}
	type dimJSON struct {
		Dim      string  `json:"dimension"`
		Links    int     `json:"links"`
		Bytes    int64   `json:"bytes"`
		MeanBusy float64 `json:"mean_busy_fraction"`
		MaxBusy  float64 `json:"max_busy_fraction"`
	}
	out := struct {
		Ranks   int        `json:"ranks"`
		Seconds float64    `json:"virtual_seconds"`
		Stats   []statJSON `json:"primitives"`
		Regions []statJSON `json:"regions"`
		Algs    []algJSON  `json:"algorithms"`
		Links   []linkJSON `json:"busiest_links"`
		Dims    []dimJSON  `json:"link_dimensions"`
		Coarse  coarseJSON `json:"exact_coarsening"`
	}{Ranks: r.Ranks, Seconds: r.Seconds, Stats: []statJSON{}, Regions: []statJSON{}, Algs: []algJSON{}, Links: []linkJSON{}, Dims: []dimJSON{}}
	row := func(s bglua.PrimitiveStat) statJSON {
		return statJSON{s.Name, s.Algorithm, s.Parent, s.Count, sec(s.Min), sec(s.Max), sec(s.Total), sec(s.Total) / float64(s.Count), s.Bytes}
	}
	for _, s := range r.Stats {
		out.Stats = append(out.Stats, row(s))
	}
	for _, s := range r.Regions {
		out.Regions = append(out.Regions, row(s))
	}
	for _, l := range r.Links {
		j := linkJSON{Link: l.Link, Index: l.Index, Bytes: l.Bytes, Busy: l.Busy, Uses: []shareJSON{}}
		for _, u := range l.Uses {
			j.Uses = append(j.Uses, shareJSON{u.Name, u.Bytes})
		}
		out.Links = append(out.Links, j)
	}
	for _, d := range r.LinkDims {
		out.Dims = append(out.Dims, dimJSON{d.Dim, d.Links, d.Bytes, d.MeanBusy, d.MaxBusy})
	}
	for _, a := range r.Algorithms {
		out.Algs = append(out.Algs, algJSON{a.Coll, a.Comm, a.Comms, a.Chosen, a.Ran, a.Reason, a.Calls})
	}
	c := r.Coarsened
	out.Coarse = coarseJSON{c.Recorded, c.Leased, c.Broken, c.FromCheckpoint, c.NotRun}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(b, '\n'), 0o644)
}
