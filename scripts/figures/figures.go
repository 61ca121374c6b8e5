package main

import "strconv"

// The figures the runner knows: which script reproduces which published
// figure, how to run it, what to plot and what the paper says.
//
// The CSV a script prints (when arg[1] == "csv", on rank 0 only, header
// first) is the contract between a script and this table: the column names
// below. In -quick mode a script also gets arg[2] == "quick" and may shrink
// its sweep. A script whose CSV lacks the columns named here is still
// plotted (first numeric column against the others) with a note.

// figures lists every figure, in the order of the summary table.
var figures = []Figure{
	{
		Name:   "table1",
		Title:  "[ML] Table 1: half round trip of a 1-byte message between neighbours",
		Script: "scripts/figures/table1.lua",
		Setup:  Setup{Ranks: 2},
		Plot: Plot{
			Kind: Bars, Labels: []string{"protocol", "level"}, Y: []string{"cycles", "published"},
			Legend: []string{"model", "published"}, YLabel: "cycles",
		},
		Measures: []Measure{
			{What: "one-packet, message layer", Unit: "cycles", Published: 1600, Get: cell("cycles", "protocol", "onepacket", "level", "ml")},
			{What: "eager, message layer", Unit: "cycles", Published: 2700, Get: cell("cycles", "protocol", "eager", "level", "ml")},
			{What: "adaptive eager, message layer", Unit: "cycles", Published: 3300, Get: cell("cycles", "protocol", "adaptive", "level", "ml")},
			{What: "rendezvous, message layer", Unit: "cycles", Published: 12000, Get: cell("cycles", "protocol", "rendezvous", "level", "ml")},
			{What: "one-packet, MPI", Unit: "cycles", Published: 2350, Get: cell("cycles", "protocol", "onepacket", "level", "mpi")},
			{What: "eager, MPI", Unit: "cycles", Published: 4000, Get: cell("cycles", "protocol", "eager", "level", "mpi")},
			{What: "adaptive eager, MPI", Unit: "cycles", Published: 11000, Get: cell("cycles", "protocol", "adaptive", "level", "mpi")},
			{What: "rendezvous, MPI", Unit: "cycles", Published: 17500, Get: cell("cycles", "protocol", "rendezvous", "level", "mpi")},
		},
	},
	{
		Name:   "fig4a",
		Title:  "[ML] Fig. 4a: MPI latency against Manhattan distance",
		Script: "scripts/figures/fig4a.lua",
		Setup:  Setup{Ranks: 64, Torus: "64x1x1", Mesh: true},
		Quick:  &Setup{Ranks: 16, Torus: "16x1x1", Mesh: true},
		Plot:   Plot{Kind: Lines, X: "hops", Y: []string{"latency_us"}, Legend: []string{"model"}, XLabel: "hops", YLabel: "half round trip (us)"},
		Refs:   []Ref{{Label: "paper: 3.35 us + 90 ns/hop", Line: func(h float64) float64 { return 3.35 + 0.09*(h-1) }}},
		Measures: []Measure{
			{What: "latency at 1 hop (fit)", Unit: "us", Published: 3.35, Get: fitAt("hops", "latency_us", 1)},
			{What: "latency per extra hop (fit)", Unit: "ns", Published: 90, Get: scaled(1000, fitSlope("hops", "latency_us"))},
		},
	},
	{
		Name:   "fig4b",
		Title:  "[ML] Fig. 4b: MPI bandwidth of one bidirectional link",
		Script: "scripts/figures/fig4b.lua",
		Setup:  Setup{Ranks: 2},
		Plot: Plot{Kind: Lines, X: "bytes", Y: []string{"mbps"}, Legend: []string{"model"}, LogX: true,
			XLabel: "message size (bytes)", YLabel: "bandwidth (MB/s, both directions)"},
		Refs: []Ref{{Label: "raw limit 350 MB/s", Y: 350}, {Label: "net limit 310 MB/s", Y: 310}},
		Measures: []Measure{
			{What: "peak bandwidth", Unit: "MB/s", Published: 310, Get: maxOf("mbps")},
			{What: "size reaching half the peak", Unit: "bytes", Published: 500, Get: halfPoint("bytes", "mbps")},
		},
	},
	{
		Name:   "fig4cf",
		Title:  "[ML] Figs. 4c-f: bandwidth against the number of links used at once",
		Script: "scripts/figures/fig4cf.lua",
		Setup:  Setup{Ranks: 27, Torus: "3x3x3"},
		Plot: Plot{Kind: Lines, X: "links", Y: []string{"mbps"}, Series: "protocol",
			XLabel: "bidirectional links used at once", YLabel: "bandwidth of the node (MB/s)"},
		Refs: []Ref{{Label: "every link at its net limit", Line: func(l float64) float64 { return 311.1 * l }}},
		Measures: []Measure{
			{What: "eager (4c), links' worth at best", Unit: "links", Published: 2, PubText: "~2 links", Get: where("protocol", "eager", maxOf("links_worth"))},
			{What: "rendezvous (4d), links' worth at best", Unit: "links", Published: 2, PubText: "~2 links", Get: where("protocol", "rendezvous", maxOf("links_worth"))},
			{What: "adaptive eager (4e), links' worth at best", Unit: "links", PubText: "fewer than eager", Get: where("protocol", "adaptive", maxOf("links_worth"))},
			{What: "rendezvous + coprocessor (4f), links' worth at best", Unit: "links", PubText: "> 3 links", AtLeast: 3, Get: where("protocol", "rendezvous+co", maxOf("links_worth"))},
		},
	},
	{
		Name:   "fig5b",
		Title:  "[ML] Fig. 5b: MPI_Bcast on a 4x4x2 mesh",
		Script: "scripts/figures/fig5b.lua",
		Setup:  Setup{Ranks: 32, Torus: "4x4x2", Mesh: true},
		Colls:  []string{"bcast=mpich", "bcast=binomial", "bcast=scatter_recursive_doubling", "bcast=scatter_allgather", "bcast=tree", "bcast=torus"},
		Plot: Plot{Kind: Lines, X: "bytes", Y: []string{"mbps"}, Series: "algorithm", LogX: true,
			XLabel: "message size (bytes)", YLabel: "bandwidth (MB/s)"},
		Refs: []Ref{{Label: "collective network 350 MB/s raw", Y: 350}},
		Measures: []Measure{
			{What: "MPICH default (binomial; scatter, then recursive doubling below 512 KiB, ring above), peak", Unit: "MB/s", Published: 60, PubText: "~60 MB/s",
				Get: where("algorithm", "mpich", maxOf("mbps"))},
			{What: "collective network (tree), peak", Unit: "MB/s", Published: 350, PubText: "~350 MB/s", Get: where("algorithm", "tree", maxOf("mbps"))},
			{What: "torus deposit bit, 3 routes, peak", Unit: "MB/s", PubText: "a bit under 2 links (~60% of 3)", Get: where("algorithm", "torus", maxOf("mbps"))},
		},
	},
	{
		Name:   "fig6",
		Title:  "[ML] Fig. 6: MPI_Alltoall, share of the bisection bandwidth",
		Script: "scripts/figures/fig6.lua",
		Setup:  Setup{Ranks: 512, Torus: "8x8x8"},
		Quick:  &Setup{Ranks: 64, Torus: "4x4x4"},
		Colls:  []string{"alltoall=optimized", "alltoall=pairwise", "alltoall=postall"},
		Plot: Plot{Kind: Lines, X: "bytes", Y: []string{"percent"}, Series: "algorithm", LogX: true,
			XLabel: "message size per pair (bytes)", YLabel: "% of bisection bandwidth"},
		Refs: []Ref{{Label: "bisection bandwidth", Y: 100}},
		Measures: []Measure{
			{What: "optimized injection, peak", Unit: "%", Published: 100, PubText: "~100%", Get: where("algorithm", "optimized", maxOf("percent"))},
			{What: "MPICH default (pairwise, postall), peak", Unit: "%", PubText: "<= 30%", AtMost: 30, Get: maxWhere("algorithm", []string{"pairwise", "postall"}, "percent")},
		},
	},
	{
		Name:       "allreduce_latency",
		Title:      "MPI_Allreduce of one double and MPI_Barrier: latency",
		Script:     "scripts/figures/allreduce_latency.lua",
		Setup:      Setup{Ranks: 512},
		Sizes:      []int{512, 4096, 65536},
		QuickSizes: []int{64, 512},
		Colls: []string{"allreduce=tree,barrier=gi", "allreduce=recursive_doubling,barrier=dissemination",
			"allreduce=reduce_bcast"},
		Plot: Plot{Kind: Lines, X: "ranks", Y: []string{"latency_us"}, Series: "algorithm", LogX: true, LogY: true,
			XLabel: "ranks (default torus)", YLabel: "latency (us)"},
		Refs: []Ref{
			{Label: "[ML] tree: 2.5 us (network)", X: 65536, Y: 2.5, Point: true},
			{Label: "[ML] GI barrier: 1.5 us", X: 65536, Y: 1.5, Point: true},
		},
		Measures: []Measure{
			{What: "allreduce on the collective network (tree), 65,536 ranks", Unit: "us", PubText: "2.5 us of network latency", FullOnly: true,
				Get: where("algorithm", "tree", at("ranks", 65536, "latency_us"))},
			{What: "barrier on the global interrupt (gi), 65,536 ranks", Unit: "us", Published: 1.5, FullOnly: true,
				Get: where("algorithm", "barrier_gi", at("ranks", 65536, "latency_us"))},
			{What: "allreduce, recursive doubling, 65,536 ranks", Unit: "us", PubText: "log2 n message latencies", FullOnly: true,
				Get: where("algorithm", "recursive_doubling", at("ranks", 65536, "latency_us"))},
		},
	},
	{
		Name:     "overlap",
		Title:    "A 1 MiB ring allreduce behind computation: blocking against mpi.iallreduce",
		Script:   "scripts/gallery/overlap.lua",
		Setup:    Setup{Ranks: 7, Coll: map[string]string{"allreduce": "ring"}},
		Progress: []string{"coprocessor", "inline"},
		Plot: Plot{Kind: Lines, X: "compute_ms", Y: []string{"time_ms"}, Series: "variant",
			RefSeries: []string{"max(compute; allreduce)", "compute + allreduce"},
			XLabel:    "computation (ms)", YLabel: "slowest rank's time (ms)"},
		Measures: []Measure{
			{What: "allreduce alone (blocking, 0 ms of computation)", Unit: "ms", PubText: "no published value", Get: overlapAt("blocking", 0)},
			{What: "blocking, 20 ms of computation", Unit: "ms", PubText: "the sum: no overlap", Get: overlapAt("blocking", 20)},
			{What: "nonblocking, coprocessor progress, 20 ms", Unit: "ms", PubText: "the max: all overlapped", Get: overlapAt("nonblocking coprocessor", 20)},
			{What: "nonblocking, inline progress, 20 ms", Unit: "ms", PubText: "the sum: no overlap", Get: overlapAt("nonblocking inline", 20)},
			{What: "nonblocking, coprocessor progress, 20 ms, / compute + allreduce", PubText: "< 0.8 (the issue's target)",
				Get: ratio(overlapAt("nonblocking coprocessor", 20), overlapAt("compute + allreduce", 20))},
			{What: "nonblocking, inline progress, 20 ms, / compute + allreduce", Published: 1, PubText: "1 (nothing overlaps)",
				Get: ratio(overlapAt("nonblocking inline", 20), overlapAt("compute + allreduce", 20))},
		},
	},
	emuFigure("line_bcast", "[EMU] line broadcast from a corner", 110, 1.99,
		"latest arrival (us)"),
	emuFigure("octree_bcast", "[EMU] octree broadcast from the centre", 8.9, 1.95,
		"latest arrival (us)"),
	emuFigure("line_max", "[EMU] max-reduction along the line, in reverse", 95, 1.25,
		"latest partial result sent (us)"),
}

// emuFigure is one of the [EMU] benchmarks of scripts/emu on the earlier
// design: the full 34x34x36 machine (41,616 ranks; --torus keeps the paper's
// orientation, the default for 41,616 ranks being 36x34x34), 6x6x6 in -quick.
// The paper's host times are for ASCI-Red, 96 processors; ours for one
// core of this machine, start-up of the 41,616 Lua states included.
func emuFigure(name, title string, publishedUS, hostS float64, ylabel string) Figure {
	return Figure{
		Name:   name,
		Title:  title,
		Script: "scripts/emu/" + name + ".lua",
		Setup:  Setup{Ranks: 41616, Torus: "34x34x36", Machine: "bgc"},
		Quick:  &Setup{Ranks: 216, Torus: "6x6x6", Machine: "bgc"},
		Plot: Plot{Kind: Lines, X: "depth", Y: []string{"time_us"}, Legend: []string{"model"},
			XLabel: "depth (messages from the root)", YLabel: ylabel},
		Refs: []Ref{{Label: "paper: " + strconv.FormatFloat(publishedUS, 'g', -1, 64) + " us on 34x34x36", Y: publishedUS}},
		Measures: []Measure{
			{What: "time of the operation", Unit: "us", Published: publishedUS, FullOnly: true, Get: maxOf("time_us")},
			{What: "host time of the run", Unit: "s", PubText: fmtPub(hostS) + " s on 96 CPUs", FullOnly: true, Get: hostSeconds},
		},
	}
}

// overlapAt is the overlap figure's time of a variant at c ms of
// computation.
func overlapAt(variant string, c float64) Extract {
	return where("variant", variant, at("compute_ms", c, "time_ms"))
}
