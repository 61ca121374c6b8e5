package hw

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

func TestTreeDepth(t *testing.T) {
	for _, c := range []struct{ nodes, depth int }{
		{0, 0}, {1, 0}, {2, 1}, {3, 1}, {4, 2}, {7, 2}, {8, 3}, {32, 5}, {512, 9}, {65536, 16}, {65537, 16}, {41616, 15},
	} {
		if got := TreeDepth(c.nodes); got != c.depth {
			t.Errorf("TreeDepth(%d) = %d, want %d", c.nodes, got, c.depth)
		}
	}
}

// TestTreeConstants checks the BG/L figures of [ML] against the model: 2.5 us
// latency on 65,536 nodes, 350 MB/s raw and 96% efficiency, 1.5 us for a
// global-interrupt barrier on the full machine.
func TestTreeConstants(t *testing.T) {
	m := BGL()
	const full = 65536
	near := func(what string, got, want, rel float64) {
		t.Helper()
		if math.Abs(got-want) > rel*want {
			t.Errorf("%s: got %g, want %g within %g%%", what, got, want, rel*100)
		}
	}
	near("tree latency on 65,536 nodes (s)", m.Seconds(m.TreeLatency(full)), 2.5e-6, 0.01)
	near("tree raw rate (B/s)", m.TreeBytesPerCycle*m.ClockHz, 350e6, 0)
	if got := m.TreeSerializeCycles(); got != 532 {
		t.Errorf("tree packet serialization: %d cycles, want (256+10)/0.5 = 532", got)
	}
	eff := float64(m.TreePacket) / float64(m.TreePacket+m.TreeOverhead)
	near("tree efficiency", eff, 0.96, 0.005)
	payload := float64(m.TreePacket) / float64(m.TreePeriod()) * m.ClockHz
	near("tree payload rate (B/s)", payload, 337e6, 0.01)
	near("GI barrier on 65,536 nodes (s)", m.Seconds(m.GILatency(full)), 1.5e-6, 0.001)
	if m.GILatency(64) >= m.GILatency(full) || m.TreeLatency(64) >= m.TreeLatency(full) {
		t.Errorf("latencies do not grow with the partition")
	}
	if !m.HasTree() || !m.HasGI() {
		t.Errorf("BG/L has both networks")
	}
	if c := BGC(); c.HasTree() || c.HasGI() {
		t.Errorf("bgc has no collective or global interrupt network")
	}
}

func TestTreePass(t *testing.T) {
	m := BGL()
	const nodes = 512
	L := m.TreeLatency(nodes)                       // 2*9*55 = 990
	s := m.TreeSerializeCycles()                    // 532
	p := m.TreePeriod()                             // 532
	w, r := m.PacketWriteCycles, m.PacketReadCycles // 100, 204
	for _, c := range []struct {
		name        string
		free, ready int64
		bytes       int
		wantEnd     int64
		wantFree    int64
	}{
		{"barrier packet", 0, 1000, 0, 1000 + w + L + s + r, 1000 + w + p},
		{"one packet", 0, 1000, 256, 1000 + w + L + s + r, 1000 + w + p},
		{"two packets", 0, 1000, 257, 1000 + w + L + s + p + r, 1000 + w + 2*p},
		{"1 MiB", 0, 0, 1 << 20, w + L + s + 4095*p + r, w + 4096*p},
		{"network busy", 5000, 1000, 8, 5000 + L + s + r, 5000 + p},
		{"network free just in time", 1100, 1000, 8, 1100 + L + s + r, 1100 + p},
	} {
		tr := NewTree(m, nodes)
		tr.Free = c.free
		end := tr.Pass(c.ready, c.bytes)
		if end != c.wantEnd || tr.Free != c.wantFree {
			t.Errorf("%s: end %d free %d, want %d and %d", c.name, end, tr.Free, c.wantEnd, c.wantFree)
		}
	}
	// Large broadcasts run at the network's payload rate, not the CPU's.
	tr := NewTree(m, 32)
	const size = 8 << 20
	rate := float64(size) / m.Seconds(tr.Pass(0, size))
	if rate < 330e6 || rate > 340e6 {
		t.Errorf("8 MiB through the tree at %.0f MB/s, want about 337", rate/1e6)
	}
	// Operations queue behind one another.
	tr = NewTree(m, 32)
	a := tr.Pass(0, 10*256)
	b := tr.Pass(0, 256)
	if b != a+p {
		t.Errorf("second operation ends at %d, want one period after the first (%d)", b, a+p)
	}
}

func TestGI(t *testing.T) {
	m := BGL()
	g := NewGI(m, 64*32*32)
	if d := g.Barrier(100); d != 100+1050 {
		t.Errorf("barrier on the full machine ends at %d, want 1150", d)
	}
	if d := g.Barrier(0); d != 1150+1050 {
		t.Errorf("a barrier ready early waits for the previous one: %d", d)
	}
	if g.Barriers != 2 {
		t.Errorf("Barriers = %d", g.Barriers)
	}
	if got, want := m.GILatency(1), m.GIBarrierCycles; got != want {
		t.Errorf("one node: %d, want the fixed cost %d", got, want)
	}
}

func TestALU(t *testing.T) {
	ws := []uint64{5, 3, 1 << 63, 12, math.MaxUint64 - 1}
	for _, c := range []struct {
		op   ALUOp
		want uint64
	}{
		{ALUAdd, 1<<63 + 18}, // wraps: MaxUint64-1 is -2
		{ALUMax, math.MaxUint64 - 1},
		{ALUMin, 3},
		{ALUAnd, 5 & 3 & (1 << 63) & 12 & (math.MaxUint64 - 1)},
		{ALUOr, 5 | 3 | 1<<63 | 12 | (math.MaxUint64 - 1)},
		{ALUXor, 5 ^ 3 ^ 1<<63 ^ 12 ^ (math.MaxUint64 - 1)},
	} {
		if got := c.op.Reduce(ws); got != c.want {
			t.Errorf("%s: got %#x, want %#x", c.op, got, c.want)
		}
		if got := c.op.Reduce(nil); got != c.op.Identity() {
			t.Errorf("%s of nothing: %#x", c.op, got)
		}
	}
}

func TestFloatKey(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	vals := []float64{math.Inf(-1), -math.MaxFloat64, -1, -math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0,
		math.SmallestNonzeroFloat64, 0x1p-1022, 1, math.MaxFloat64, math.Inf(1)}
	for i := 0; i < 200; i++ {
		vals = append(vals, math.Float64frombits(rng.Uint64()))
	}
	for _, a := range vals {
		if math.IsNaN(a) {
			continue
		}
		if back := KeyFloat(FloatKey(a)); math.Float64bits(back) != math.Float64bits(a) {
			t.Errorf("KeyFloat(FloatKey(%g)) = %g", a, back)
		}
		for _, b := range vals {
			if math.IsNaN(b) {
				continue
			}
			ka, kb := FloatKey(a), FloatKey(b)
			if a < b && ka >= kb || a > b && ka <= kb {
				t.Errorf("order of %g, %g not kept: %#x, %#x", a, b, ka, kb)
			}
		}
	}
	// Integer max and min of keys are math.Max and math.Min, signed zeros included.
	negz := math.Copysign(0, -1)
	if got := KeyFloat(max(FloatKey(negz), FloatKey(0))); math.Signbit(got) {
		t.Errorf("max(-0, +0) = -0")
	}
	if got := KeyFloat(min(FloatKey(negz), FloatKey(0))); !math.Signbit(got) {
		t.Errorf("min(-0, +0) = +0")
	}
}

// exactSum is the reference: the sum in math/big with enough precision to be
// exact, rounded once to the nearest double.
func exactSum(xs []float64) float64 {
	acc := new(big.Float).SetPrec(2200 + 64)
	for _, x := range xs {
		acc.Add(acc, new(big.Float).SetFloat64(x))
	}
	f, _ := acc.Float64()
	return f
}

func same(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

func TestFloatSum(t *testing.T) {
	negz := math.Copysign(0, -1)
	inf := math.Inf(1)
	tiny := math.SmallestNonzeroFloat64
	for _, c := range []struct {
		name string
		xs   []float64
		want float64
	}{
		{"empty", nil, 0},
		{"one", []float64{1.5}, 1.5},
		{"integers", []float64{1, 2, 3, 4}, 10},
		{"one tenth ten times", []float64{.1, .1, .1, .1, .1, .1, .1, .1, .1, .1}, 1}, // left to right: 0.9999999999999999
		{"small addends survive", []float64{1, 0x1p-53, 0x1p-53}, 1 + 0x1p-52},        // left to right: 1
		{"cancellation keeps the tiny", []float64{1e300, 1e-300, -1e300}, 1e-300},     // left to right: 0
		{"tie to even, down", []float64{1, 0x1p-53}, 1},
		{"tie to even, up", []float64{1 + 0x1p-52, 0x1p-53}, 1 + 0x1p-51},
		{"just above a tie", []float64{1, 0x1p-53, 0x1p-105}, 1 + 0x1p-52},
		{"subnormals", []float64{tiny, tiny, tiny}, 3 * tiny},
		{"subnormal and normal", []float64{0x1p-1022, -tiny}, 0x1p-1022 - tiny},
		{"exact zero", []float64{3, -3}, 0},
		{"zeros", []float64{0, negz}, 0},
		{"negative zeros", []float64{negz, negz}, negz},
		{"overflow", []float64{math.MaxFloat64, math.MaxFloat64}, inf},
		{"overflow undone", []float64{math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64}, math.MaxFloat64},
		{"infinity", []float64{1, inf, -5}, inf},
		{"minus infinity", []float64{1, -inf}, -inf},
		{"both infinities", []float64{inf, -inf}, math.NaN()},
		{"NaN", []float64{1, math.NaN()}, math.NaN()},
		{"extremes", []float64{math.MaxFloat64, tiny, -math.MaxFloat64}, tiny},
	} {
		got := SumFloats(c.xs)
		if !same(got, c.want) {
			t.Errorf("%s: got %v (%#x), want %v", c.name, got, math.Float64bits(got), c.want)
		}
		finite := c.want != 0 // big.Float has no NaN, and its sums of zeros are +0
		for _, x := range c.xs {
			finite = finite && !math.IsInf(x, 0) && !math.IsNaN(x)
		}
		if !finite {
			continue
		}
		if ref := exactSum(c.xs); !same(ref, c.want) {
			t.Errorf("%s: the math/big reference gives %v, the table %v", c.name, ref, c.want)
		}
	}
}

// TestFloatSumProperties: random inputs of wide and narrow exponent ranges;
// the two-pass sum equals the exactly rounded one and every permutation of
// the inputs gives the same bits.
func TestFloatSumProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	gen := []struct {
		name string
		f    func() float64
	}{
		{"narrow", func() float64 { return rng.NormFloat64() * 1e3 }},
		{"wide", func() float64 { return math.Ldexp(rng.Float64()-0.5, rng.Intn(400)-200) }},
		{"any bits", func() float64 {
			for {
				x := math.Float64frombits(rng.Uint64())
				if !math.IsNaN(x) && !math.IsInf(x, 0) {
					return x / 4 // no overflow of the exact sum
				}
			}
		}},
		{"cancelling", func() float64 { return float64(rng.Intn(3)-1) * math.Ldexp(1, rng.Intn(100)) }},
	}
	var s FloatSum
	for _, g := range gen {
		for trial := 0; trial < 200; trial++ {
			xs := make([]float64, 1+rng.Intn(40))
			for i := range xs {
				xs[i] = g.f()
			}
			want := exactSum(xs)
			got := SumFloats(xs)
			if !same(got, want) {
				t.Fatalf("%s: sum of %v = %v, exact %v", g.name, xs, got, want)
			}
			for p := 0; p < 5; p++ {
				rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
				// Reuse one accumulator, as mpi does element after element.
				s.Reset()
				for _, x := range xs {
					s.Exponent(x)
				}
				for _, x := range xs {
					s.Add(x)
				}
				if again := s.Sum(); !same(again, got) {
					t.Fatalf("%s: permuted %v sums to %v, not %v", g.name, xs, again, got)
				}
			}
		}
	}
}

func TestFloatSumPassBytes(t *testing.T) {
	for _, c := range []struct {
		xs    []float64
		words int
	}{
		{[]float64{1, 2, 3}, 1},    // 1 + 53 + 2 + 1 bits
		{[]float64{1, 0x1p-20}, 2}, // 20 + 53 + 2 + 1 = 76 bits
		{[]float64{0, 0}, 1},       // flags only
		{[]float64{1e300, 1e-300}, (1994 + 53 + 2 + 1 + 63) / 64},
	} {
		var s FloatSum
		for _, x := range c.xs {
			s.Exponent(x)
		}
		p1, p2 := s.PassBytes()
		if p1 != 4 || p2 != 8*c.words {
			t.Errorf("%v: pass bytes %d, %d, want 4, %d", c.xs, p1, p2, 8*c.words)
		}
	}
}

func BenchmarkFloatSum(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	xs := make([]float64, 65536)
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	b.ResetTimer()
	var s FloatSum
	for i := 0; i < b.N; i++ {
		s.Reset()
		for _, x := range xs {
			s.Exponent(x)
		}
		for _, x := range xs {
			s.Add(x)
		}
		_ = s.Sum()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/value")
}
