package sweep

import (
	"math"
	"testing"
)

// bgl is ml.config() of the default machine, the constants the models use.
var bgl = Machine{
	"clock_hz": 700e6, "link_bytes_per_cycle": 0.25, "packet_max": 256, "packet_min": 32, "packet_header": 16,
	"wire_overhead": 14, "hop_cycles": 63, "network_cycles": 300, "packet_write_cycles": 100, "packet_read_cycles": 204,
	"packet_overhead_cycles": 90, "ml_send_cycles": 260, "ml_dispatch_cycles": 310, "mpi_call_cycles": 100,
	"mpi_send_cycles": 300, "mpi_match_cycles": 350, "eager_setup_cycles": 550, "mpi_eager_cycles": 240,
	"adaptive_setup_cycles": 550, "mpi_adaptive_cycles": 7780, "rzv_setup_cycles": 3850, "mpi_rzv_cycles": 2350,
	"eager_limit": 1000, "rzv_limit": 1000, "reduce_cycles_per_element": 4, "tree_bytes_per_cycle": 0.5,
	"tree_packet": 256, "tree_overhead": 10, "tree_hop_cycles": 55, "gi_barrier_cycles": 154, "gi_level_cycles": 28,
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// The parameters, worked out by hand from the BG/L constants
// (docs/model.md, "Model curves").
func TestDerive(t *testing.T) {
	p, err := Derive(bgl)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"G: 270 wire bytes for 240 of payload at 0.25 B/cycle", p.G, 4.5},
		{"o_s: 100+300+260+100+90", p.Os, 850},
		{"o_r: 100+310+350+204+90", p.Or, 1054},
		{"L: 300+63+(32+14)/0.25", p.L, 547},
		{"g: max(o_s, o_r)", p.Gap, 1054},
		{"alpha: o_s+L+o_r", p.Alpha, 2451},
		{"beta: G", p.Beta, 4.5},
		{"gamma: 4 cycles per 8-byte element", p.Gamma, 0.5},
		{"eager extra: 550+240", p.Eager, 790},
		{"rendezvous extra: 3850+2350", p.Rzv, 6200},
		{"tree G: 266/(256*0.5)", p.TreeG, 2.078125},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	delete(bgl, "hop_cycles")
	defer func() { bgl["hop_cycles"] = 63 }()
	if _, err := Derive(bgl); err == nil || err.Error() != "ml.config() lacks hop_cycles" {
		t.Errorf("a missing constant: %v", err)
	}
}

// Each formula against its value worked out by hand, in cycles.
func TestFormulas(t *testing.T) {
	p, err := Derive(bgl)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		coll, alg      string
		ranks, nodes   int
		n              float64
		hockney, loggp float64
		name           string
	}{
		// One message: alpha + n beta; o_s + L + (n-1)G + o_r with the
		// protocol's extra overhead (eager: 790 a side; rendezvous: 6200 a
		// side and two more latencies).
		{"", "", 2, 2, 1, 2451 + 4.5, 2451, "point-to-point"},
		{"", "", 2, 2, 1000, 2451 + 4500, 2451 + 2*790 + 999*4.5, "point-to-point"},
		{"", "", 2, 2, 2000, 2451 + 9000, 850 + 1054 + 2*6200 + 3*547 + 1999*4.5, "point-to-point"},
		{"bcast", "torus", 8, 8, 100, 2451 + 450, 2451 + 99*4.5, "point-to-point"},
		// ceil(log2 8) = 3 rounds of one message.
		{"bcast", "binomial", 8, 8, 100, 3 * (2451 + 450), 3 * (2451 + 99*4.5), "bcast binomial"},
		{"bcast", "binomial", 5, 5, 100, 3 * (2451 + 450), 3 * (2451 + 99*4.5), "bcast binomial"},
		// Scatter: 2 rounds moving 3/4 of n; ring allgather: 3 steps of n/4.
		{"bcast", "scatter_allgather", 4, 4, 400, 2*(2451+150*4.5) + 3*(2451+100*4.5), 2*(2451+149*4.5) + 3*(2451+99*4.5), "bcast scatter_allgather"},
		// The root's 3 messages one after the other: LogGP overlaps them a
		// gap (and their bytes) apart.
		{"scatter", "linear", 4, 4, 100, 3 * (2451 + 450), 2451 + 99*4.5 + 2*(1054+99*4.5), "scatter linear"},
		// 2 rounds of 64 bytes each way, combining 64 bytes (0.5 a byte).
		{"allreduce", "recursive_doubling", 4, 4, 64, 2 * (2451 + 288 + 32), 2 * (2451 + 63*4.5 + 32), "allreduce recursive_doubling"},
		// Ring: 3 reduce-scatter steps of n/4 combined, 3 allgather steps.
		{"allreduce", "ring", 4, 4, 400, 3*(2451+450+50) + 3*(2451+450), 3*(2451+99*4.5+50) + 3*(2451+99*4.5), "allreduce ring"},
		{"alltoall", "bruck", 8, 8, 10, 3 * (2451 + 40*4.5), 3 * (2451 + 39*4.5), "alltoall bruck"},
		{"barrier", "dissemination", 8, 8, 0, 3 * 2451, 3 * 2451, "barrier dissemination"},
		// The collective network, 8 nodes: depth 3, up and down at 55 a
		// hop; a whole first packet in LogGP.
		{"bcast", "tree", 8, 8, 1024, 1904 + 330 + 1024*2.078125, 1904 + 330 + 1024*2.078125, "bcast tree"},
		{"bcast", "tree", 8, 8, 8, 1904 + 330 + 8*2.078125, 1904 + 330 + 256*2.078125, "bcast tree"},
		{"barrier", "tree", 16, 8, 999, 1904 + 330, 1904 + 330 + 256*2.078125, "barrier tree"},
		// Global interrupt: 154 + 2 * 3 levels * 28.
		{"barrier", "gi", 8, 8, 0, 322, 322, "barrier gi"},
	} {
		f := FormulaOf(p, c.coll, c.alg)
		if f.Name != c.name {
			t.Errorf("%s %s: formula %q, want %q", c.coll, c.alg, f.Name, c.name)
		}
		h, l := f.Hockney(c.ranks, c.nodes, c.n)*700e6, f.LogGP(c.ranks, c.nodes, c.n)*700e6
		if !near(h, c.hockney) || !near(l, c.loggp) {
			t.Errorf("%s %s, %d ranks, %g bytes: Hockney %v, LogGP %v cycles; want %v, %v", c.coll, c.alg, c.ranks, c.n, h, l, c.hockney, c.loggp)
		}
	}
}

// A machine without a collective or global interrupt network models its
// tree and gi algorithms as point-to-point messages.
func TestNoNetworkFallsBack(t *testing.T) {
	m := Machine{}
	for k, v := range bgl {
		m[k] = v
	}
	m["tree_bytes_per_cycle"], m["gi_barrier_cycles"] = 0, 0
	p, err := Derive(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, alg := range []string{"tree", "gi"} {
		if f := FormulaOf(p, "barrier", alg); f.Name != "point-to-point" {
			t.Errorf("barrier %s without its network: %q", alg, f.Name)
		}
	}
}
