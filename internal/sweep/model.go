package sweep

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// The Hockney and LogGP models of a collective, computed from the machine's
// constants as ml.config() gives them (docs/model.md, "Model curves"). All
// times are in cycles of the node clock until Model turns them into seconds.

// Machine is the numeric constants of ml.config(), by name.
type Machine map[string]float64

// needed are the constants the models are made of.
var needed = []string{
	"clock_hz", "link_bytes_per_cycle", "packet_max", "packet_min", "packet_header", "wire_overhead",
	"hop_cycles", "network_cycles", "packet_write_cycles", "packet_read_cycles", "packet_overhead_cycles",
	"ml_send_cycles", "ml_dispatch_cycles", "mpi_call_cycles", "mpi_send_cycles", "mpi_match_cycles",
	"eager_setup_cycles", "mpi_eager_cycles", "adaptive_setup_cycles", "mpi_adaptive_cycles",
	"rzv_setup_cycles", "mpi_rzv_cycles", "eager_limit", "rzv_limit", "reduce_cycles_per_element",
	"tree_bytes_per_cycle", "tree_packet", "tree_overhead", "tree_hop_cycles",
	"gi_barrier_cycles", "gi_level_cycles",
}

// Params are the model parameters derived from a Machine, in cycles and
// cycles per byte.
type Params struct {
	ClockHz float64
	// LogGP: the CPU overhead of a one-packet message on the sending and
	// the receiving side, the latency of a neighbour's first packet, the
	// gap between two messages of one CPU, and the time per byte.
	Os, Or, L, Gap, G float64
	// Extra CPU overhead on each side of a message sent eagerly in several
	// packets, adaptively, or by rendezvous, over a one-packet message; and
	// the protocol limits (payload: the bytes of one packet).
	Eager, Adaptive, Rzv          float64
	Payload, EagerLimit, RzvLimit float64
	// Hockney: latency and time per byte of a message.
	Alpha, Beta float64
	// Gamma is the time to combine one byte in a reduction.
	Gamma float64
	// The collective network: the latency of a trip up and down a tree of
	// depth 1 (TreeHop, per level and way), and its time per byte; TreeG 0:
	// the machine has none. TreePacket is its fixed packet.
	TreeHop, TreeG, TreePacket float64
	// The global interrupt barrier: fixed part and delay per level and way;
	// GI 0: the machine has none.
	GI, GILevel float64
}

// Derive computes the model parameters from the machine's constants.
func Derive(m Machine) (Params, error) {
	var missing []string
	for _, k := range needed {
		if _, ok := m[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return Params{}, fmt.Errorf("ml.config() lacks %s", strings.Join(missing, ", "))
	}
	payload := m["packet_max"] - m["packet_header"]
	if payload <= 0 || m["link_bytes_per_cycle"] <= 0 || m["clock_hz"] <= 0 {
		return Params{}, fmt.Errorf("ml.config(): no payload, link rate or clock to model (packet_max %g, packet_header %g, link_bytes_per_cycle %g, clock_hz %g)",
			m["packet_max"], m["packet_header"], m["link_bytes_per_cycle"], m["clock_hz"])
	}
	p := Params{ClockHz: m["clock_hz"], Payload: payload, EagerLimit: m["eager_limit"], RzvLimit: m["rzv_limit"]}
	// A full packet costs its bytes and the wire overhead on the link; the
	// CPUs write and read it with their per-packet overheads. The slowest
	// of the three sets the time per byte of a long message.
	wire := (m["packet_max"] + m["wire_overhead"]) / (payload * m["link_bytes_per_cycle"])
	send := (m["packet_write_cycles"] + m["packet_overhead_cycles"]) / payload
	recv := (m["packet_read_cycles"] + m["packet_overhead_cycles"]) / payload
	p.G = math.Max(wire, math.Max(send, recv))
	p.Os = m["mpi_call_cycles"] + m["mpi_send_cycles"] + m["ml_send_cycles"] + m["packet_write_cycles"] + m["packet_overhead_cycles"]
	p.Or = m["mpi_call_cycles"] + m["ml_dispatch_cycles"] + m["mpi_match_cycles"] + m["packet_read_cycles"] + m["packet_overhead_cycles"]
	p.L = m["network_cycles"] + m["hop_cycles"] + (m["packet_min"]+m["wire_overhead"])/m["link_bytes_per_cycle"]
	p.Gap = math.Max(p.Os, p.Or)
	p.Eager = m["eager_setup_cycles"] + m["mpi_eager_cycles"]
	p.Adaptive = m["adaptive_setup_cycles"] + m["mpi_adaptive_cycles"]
	p.Rzv = m["rzv_setup_cycles"] + m["mpi_rzv_cycles"]
	p.Alpha, p.Beta = p.Os+p.L+p.Or, p.G
	p.Gamma = m["reduce_cycles_per_element"] / 8
	if m["tree_bytes_per_cycle"] > 0 && m["tree_packet"] > 0 {
		p.TreeHop = m["tree_hop_cycles"]
		p.TreePacket = m["tree_packet"]
		p.TreeG = (m["tree_packet"] + m["tree_overhead"]) / (m["tree_packet"] * m["tree_bytes_per_cycle"])
	}
	p.GI, p.GILevel = m["gi_barrier_cycles"], m["gi_level_cycles"]
	return p, nil
}

// step is a part of a collective's schedule: rounds times, every rank (on
// the critical path) sends msgs messages of bytes each, one after the
// other, and combines combine bytes.
type step struct {
	rounds, msgs, bytes, combine float64
}

// protocol is the extra CPU overhead on each side of a message of n bytes
// over a one-packet message, and how many extra latencies its handshake
// takes (rendezvous: a scout and a grant).
func (p Params) protocol(n float64) (extra, latencies float64) {
	switch {
	case n <= p.Payload:
		return 0, 0
	case n <= p.EagerLimit:
		return p.Eager, 0
	case n <= p.RzvLimit:
		return p.Adaptive, 0
	}
	return p.Rzv, 2
}

// LogGP is the time of a message of n bytes: o_s + L + (n-1)G + o_r, with the
// protocol's extra overhead on each side and its handshake's latencies.
func (p Params) LogGP(n float64) float64 {
	extra, lat := p.protocol(n)
	return p.Os + p.Or + 2*extra + (1+lat)*p.L + math.Max(n-1, 0)*p.G
}

// Hockney is the time of a message of n bytes: alpha + n beta.
func (p Params) Hockney(n float64) float64 { return p.Alpha + n*p.Beta }

// hockney is the time of a schedule in the Hockney model: every message
// alpha + n beta, the messages of a rank one after the other.
func (p Params) hockney(steps []step) float64 {
	t := 0.0
	for _, s := range steps {
		t += s.rounds * (s.msgs*p.Hockney(s.bytes) + s.combine*p.Gamma)
	}
	return t
}

// loggp is the time of a schedule in the LogGP model: a round's first
// message takes LogGP(n); each further one of the same rank starts a gap
// (and its bytes' injection) later.
func (p Params) loggp(steps []step) float64 {
	t := 0.0
	for _, s := range steps {
		extra, _ := p.protocol(s.bytes)
		next := math.Max(p.Gap+extra, 0) + math.Max(s.bytes-1, 0)*p.G
		t += s.rounds * (p.LogGP(s.bytes) + (s.msgs-1)*next + s.combine*p.Gamma)
	}
	return t
}

// Formula is how a collective's algorithm is modeled.
type Formula struct {
	// Name says which: "bcast binomial", or "point-to-point" when no
	// formula of the algorithm is known.
	Name string
	// Hockney and LogGP are the times in seconds of the collective on p
	// ranks (nodes: the nodes they run on) with n bytes.
	Hockney, LogGP func(p, nodes int, n float64) float64
}

// log2 is ceil(log2 p), 0 for p <= 1.
func log2(p float64) float64 {
	if p <= 1 {
		return 0
	}
	return math.Ceil(math.Log2(p))
}

// schedules are the collective algorithms whose schedule is known, as
// steps of p ranks and n bytes (n: what the program gives each rank:
// the message of bcast, the vector of reduce and allreduce, the value of
// each rank in gather, scatter and allgather, the block for each peer in
// alltoall).
var schedules = map[string]func(p, n float64) []step{
	"bcast binomial": func(p, n float64) []step { return []step{{log2(p), 1, n, 0}} },
	"bcast scatter_allgather": func(p, n float64) []step {
		return []step{spread(p, n*(p-1)/p, 0), {p - 1, 1, n / p, 0}}
	},
	"bcast scatter_recursive_doubling": func(p, n float64) []step {
		return []step{spread(p, n*(p-1)/p, 0), spread(p, n*(p-1)/p, 0)}
	},
	"reduce binomial":              func(p, n float64) []step { return []step{{log2(p), 1, n, n}} },
	"reduce rabenseifner":          halving,
	"allreduce recursive_doubling": func(p, n float64) []step { return []step{{log2(p), 1, n, n}} },
	"allreduce rabenseifner":       halving,
	"allreduce ring":               func(p, n float64) []step { return []step{{p - 1, 1, n / p, n / p}, {p - 1, 1, n / p, 0}} },
	"allreduce reduce_bcast":       func(p, n float64) []step { return []step{{log2(p), 1, n, n}, {log2(p), 1, n, 0}} },
	"allgather ring":               func(p, n float64) []step { return []step{{p - 1, 1, n, 0}} },
	"allgather recursive_doubling": func(p, n float64) []step { return []step{spread(p, n*(p-1), 0)} },
	"allgather bruck":              func(p, n float64) []step { return []step{spread(p, n*(p-1), 0)} },
	"gather binomial":              func(p, n float64) []step { return []step{spread(p, n*(p-1), 0)} },
	"gather linear":                func(p, n float64) []step { return []step{{1, p - 1, n, 0}} },
	"scatter binomial":             func(p, n float64) []step { return []step{spread(p, n*(p-1), 0)} },
	"scatter linear":               func(p, n float64) []step { return []step{{1, p - 1, n, 0}} },
	"alltoall pairwise":            func(p, n float64) []step { return []step{{p - 1, 1, n, 0}} },
	"alltoall postall":             func(p, n float64) []step { return []step{{1, p - 1, n, 0}} },
	"alltoall bruck":               func(p, n float64) []step { return []step{{log2(p), 1, n * p / 2, 0}} },
	"barrier dissemination":        func(p, n float64) []step { return []step{{log2(p), 1, 0, 0}} },
	"barrier binomial":             func(p, n float64) []step { return []step{{2 * log2(p), 1, 0, 0}} },
	"reduce_scatter pairwise":      func(p, n float64) []step { return []step{{p - 1, 1, n, n}} },
	"scan linear":                  func(p, n float64) []step { return []step{{p - 1, 1, n, n}} },
}

// spread is ceil(log2 p) rounds that move total bytes in all (a binomial
// scatter or gather, a recursive doubling), combining combine in all.
func spread(p, total, combine float64) step {
	r := log2(p)
	if r == 0 {
		return step{}
	}
	return step{r, 1, total / r, combine / r}
}

// halving is Rabenseifner's: a reduce-scatter by recursive halving, then an
// allgather (or gather) by recursive doubling, each moving (p-1)/p of n.
func halving(p, n float64) []step {
	part := n * (p - 1) / p
	return []step{spread(p, part, part), spread(p, part, 0)}
}

// hardware are the algorithms of the collective network and the global
// interrupt network.
var hardware = map[string]bool{
	"bcast tree": true, "reduce tree": true, "allreduce tree": true, "barrier tree": true, "barrier gi": true,
}

// FormulaOf is the model of collective coll run by algorithm alg on machine
// p: its schedule's, or a hardware network's, or a single point-to-point
// message's when no formula is known (a Lua algorithm, auto, the torus
// broadcast, the optimized alltoall) or the machine has no such network.
func FormulaOf(p Params, coll, alg string) Formula {
	name := coll + " " + alg
	sec := func(c float64) float64 { return c / p.ClockHz }
	if sched, ok := schedules[name]; ok {
		return Formula{Name: name,
			Hockney: func(r, _ int, n float64) float64 { return sec(p.hockney(sched(float64(r), n))) },
			LogGP:   func(r, _ int, n float64) float64 { return sec(p.loggp(sched(float64(r), n))) },
		}
	}
	if hardware[name] {
		if alg == "gi" && p.GI > 0 {
			gi := func(_, nodes int, _ float64) float64 {
				return sec(p.GI + 2*log2floor(nodes)*p.GILevel)
			}
			return Formula{Name: name, Hockney: gi, LogGP: gi}
		}
		if alg == "tree" && p.TreeG > 0 {
			zero := coll == "barrier" // a one-packet reduction, whatever n
			return Formula{Name: name,
				// alpha: the CPUs at both ends and the trip up and down the
				// tree; beta: the tree's time per byte.
				Hockney: func(_, nodes int, n float64) float64 {
					if zero {
						n = 0
					}
					return sec(p.Os + p.Or + 2*log2floor(nodes)*p.TreeHop + n*p.TreeG)
				},
				// The first packet, whole, pays the latency; the rest follow
				// at the tree's rate.
				LogGP: func(_, nodes int, n float64) float64 {
					if zero {
						n = 0
					}
					return sec(p.Os + p.Or + 2*log2floor(nodes)*p.TreeHop + p.TreePacket*p.TreeG + math.Max(n-p.TreePacket, 0)*p.TreeG)
				},
			}
		}
	}
	return Formula{Name: "point-to-point",
		Hockney: func(_, _ int, n float64) float64 { return sec(p.Hockney(n)) },
		LogGP:   func(_, _ int, n float64) float64 { return sec(p.LogGP(n)) },
	}
}

// log2floor is the depth of the collective network's tree over nodes:
// floor(log2 nodes).
func log2floor(nodes int) float64 {
	if nodes <= 1 {
		return 0
	}
	return math.Floor(math.Log2(float64(nodes)))
}

// Known lists the "collective algorithm" pairs that have a formula of their
// own, sorted.
func Known() []string {
	var l []string
	for k := range schedules {
		l = append(l, k)
	}
	for k := range hardware {
		l = append(l, k)
	}
	sort.Strings(l)
	return l
}
