package hw

import (
	"math"
	"math/big"
	"math/bits"
)

// The collective network ([ML], "Collective network") is a tree that spans
// the partition's nodes. Its packets are 256 bytes of payload; an integer ALU
// at every node combines the packet of its own node with those of its
// children (add, max, min, and, or, xor) and forwards the result toward the
// root, which sends it back down to every node. A broadcast is the same trip
// with only the root's packets carrying data. So every operation is
//
//	up to the root and down again:  2*depth hops of TreeHopCycles
//	pipelined by packet:            one packet per max(serialization, write, read)
//
// This file is a pure model, like Network: no goroutines, no clock. Its
// caller (mpi) decides when nodes are ready and what each node's CPU pays.

// TreeDepth is the depth of the shallowest tree over nodes nodes in which
// every node has at most two children (a BG/L node has three collective
// links: one up, two down): floor(log2 nodes), 16 for 65,536 nodes.
func TreeDepth(nodes int) int {
	if nodes <= 1 {
		return 0
	}
	return bits.Len(uint(nodes)) - 1
}

// HasTree reports whether the machine has a collective network.
func (m *Machine) HasTree() bool { return m.TreeBytesPerCycle > 0 }

// HasGI reports whether the machine has a global interrupt network.
func (m *Machine) HasGI() bool { return m.GIBarrierCycles > 0 }

// TreeLatency is the time for the head of a packet to go from the leaves of
// a partition of nodes nodes up to the root and back down: 2*depth hops
// (1,760 cycles = 2.51 us on 65,536 BG/L nodes).
func (m *Machine) TreeLatency(nodes int) int64 {
	return 2 * int64(TreeDepth(nodes)) * m.TreeHopCycles
}

// TreePackets is the number of tree packets n payload bytes need (at least
// one: a barrier or an empty broadcast still sends a packet).
func (m *Machine) TreePackets(n int) int {
	if n <= 0 || m.TreePacket <= 0 {
		return 1
	}
	return (n + m.TreePacket - 1) / m.TreePacket
}

// TreeSerializeCycles is how long one packet occupies a tree link:
// (256+10)/0.5 = 532 cycles on BG/L, so 256/532 B/cycle = 337 MB/s of
// payload (96% of the raw 350 MB/s).
func (m *Machine) TreeSerializeCycles() int64 {
	if !m.HasTree() {
		return 0
	}
	return ceilDiv(float64(m.TreePacket+m.TreeOverhead), m.TreeBytesPerCycle)
}

// TreePeriod is the steady-state time per packet of a pipelined operation:
// the slowest of a link (serialization), the CPUs that write packets into
// the injection FIFOs, and those that read them out of the reception FIFOs.
func (m *Machine) TreePeriod() int64 {
	return max(m.TreeSerializeCycles(), m.PacketWriteCycles, m.PacketReadCycles)
}

// Tree is the collective network of one partition: one resource. An
// operation occupies it while its packets stream in; a later operation that
// is ready earlier waits (busy-until), as packets of two operations cannot
// be combined with each other.
type Tree struct {
	M     *Machine
	Nodes int // nodes of the partition
	Depth int

	// Free is the cycle at which the network can take the first packet of
	// the next operation.
	Free int64

	// Passes, Packets and Busy count what the network did: operations (a
	// floating-point sum is two), packets per pass, and cycles occupied.
	Passes, Packets, Busy int64
}

// NewTree returns the idle collective network of a partition of nodes nodes.
func NewTree(m *Machine, nodes int) *Tree {
	return &Tree{M: m, Nodes: nodes, Depth: TreeDepth(nodes)}
}

// Latency is TreeLatency for this partition.
func (t *Tree) Latency() int64 { return t.M.TreeLatency(t.Nodes) }

// Pass runs one pass of bytes payload bytes through the network: every
// contributing node is ready to write its first packet at ready (the latest
// of them: the ALU needs every child's packet), the network takes it when
// free. Packet i is written, crosses 2*depth hops, and is read at every node;
// packets follow one another at TreePeriod. Pass returns when the last
// packet has been read at every node, and holds the network until the last
// packet has entered it:
//
//	start = max(ready + write, Free)
//	end   = start + latency + serialize + (P-1)*period + read
//	Free  = start + P*period
func (t *Tree) Pass(ready int64, bytes int) (end int64) {
	m := t.M
	p := int64(m.TreePackets(bytes))
	per := m.TreePeriod()
	start := max(ready+m.PacketWriteCycles, t.Free)
	end = start + t.Latency() + m.TreeSerializeCycles() + (p-1)*per + m.PacketReadCycles
	t.Free = start + p*per
	t.Passes++
	t.Packets += p
	t.Busy += p * per
	return end
}

// ALUOp is an operation of the collective network's ALU on 64-bit integer
// words. Every one is associative and commutative, so the result does not
// depend on the shape of the tree or the order in which nodes join.
type ALUOp uint8

// The ALU's operations.
const (
	ALUAdd ALUOp = iota // two's complement sum (wraps)
	ALUMax              // unsigned maximum
	ALUMin              // unsigned minimum
	ALUAnd
	ALUOr
	ALUXor
)

var aluNames = [...]string{"add", "max", "min", "and", "or", "xor"}

func (o ALUOp) String() string { return aluNames[o] }

// Combine is a op b.
func (o ALUOp) Combine(a, b uint64) uint64 {
	switch o {
	case ALUAdd:
		return a + b
	case ALUMax:
		return max(a, b)
	case ALUMin:
		return min(a, b)
	case ALUAnd:
		return a & b
	case ALUOr:
		return a | b
	}
	return a ^ b
}

// Identity is the word that leaves any word unchanged under o.
func (o ALUOp) Identity() uint64 {
	switch o {
	case ALUMin, ALUAnd:
		return math.MaxUint64
	}
	return 0
}

// Reduce combines words with o, as the tree does.
func (o ALUOp) Reduce(words []uint64) uint64 {
	acc := o.Identity()
	for _, w := range words {
		acc = o.Combine(acc, w)
	}
	return acc
}

// FloatKey maps a double to a word whose unsigned order is the order of the
// doubles (-Inf < ... < -0 < +0 < ... < +Inf), so that the ALU's integer max
// and min give floating-point max and min in one pass. NaNs with the sign bit
// clear sort above +Inf, those with it set below -Inf.
func FloatKey(x float64) uint64 {
	b := math.Float64bits(x)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// KeyFloat inverts FloatKey.
func KeyFloat(k uint64) float64 {
	if k>>63 != 0 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// FloatSum is the collective network's sum of one double over many
// contributions. The ALU adds integers only, so it takes two passes ([ML]:
// "one to calculate the exponents and another for the normalized
// mantissas"):
//
//  1. every node contributes its exponent; the ALU's max gives the largest
//     exponent and, on the complemented exponent, the smallest (Exponent);
//  2. every node converts its double to a fixed-point integer relative to
//     the largest exponent, wide enough to hold the smallest contribution
//     exactly and the sum of all without overflow, and the ALU adds them
//     (Add); the sum converts back to the nearest double, ties to even (Sum).
//
// Integer addition is exact, so the result is the exact sum of the inputs
// rounded once, whatever the order or grouping of the contributions: every
// rank gets the same bits, and a permutation of the ranks changes nothing.
// IEEE special cases follow IEEE addition: any NaN, or both infinities, give
// NaN; an infinity wins over finite values; the sum of zeros is -0 only if
// every contribution is -0; an exact sum beyond the largest double is ±Inf.
//
// Use: Reset, Exponent for every contribution, then Add for every
// contribution, then Sum. The zero value is ready for Exponent.
type FloatSum struct {
	n          int
	emax, emin int // biased exponents of the finite nonzero inputs (subnormals count as 1)
	finite     bool
	nan        bool
	pinf, ninf bool
	negZeros   int // contributions that are -0

	started  bool
	pos, neg []big.Word // fixed point: bit 0 is worth 2^(emin-1075)
}

// Reset prepares s for a new sum, keeping its storage.
func (s *FloatSum) Reset() {
	*s = FloatSum{pos: s.pos[:0], neg: s.neg[:0]}
}

// Exponent is pass 1 for one contribution.
func (s *FloatSum) Exponent(x float64) {
	s.n++
	b := math.Float64bits(x)
	e := int(b>>52) & 0x7ff
	switch {
	case e == 0x7ff:
		if b&(1<<52-1) != 0 {
			s.nan = true
		} else if b>>63 != 0 {
			s.ninf = true
		} else {
			s.pinf = true
		}
		return
	case b == 1<<63:
		s.negZeros++
		return
	case b == 0:
		return
	case e == 0:
		e = 1 // subnormal: same scale as the smallest normal
	}
	if !s.finite {
		s.emax, s.emin, s.finite = e, e, true
		return
	}
	s.emax = max(s.emax, e)
	s.emin = min(s.emin, e)
}

// headroom is the bits the sum of n contributions may need above the
// largest one.
func headroom(n int) int { return bits.Len(uint(n)) }

// Width is the fixed-point width in bits of pass 2, as pass 1 determined
// it: the 53-bit mantissas spread over the exponent range, plus headroom for
// the carries of n additions, plus a sign bit. 0 when no contribution is a
// finite nonzero number.
func (s *FloatSum) Width() int {
	if !s.finite {
		return 0
	}
	return s.emax - s.emin + 53 + headroom(s.n) + 1
}

// PassBytes is what one element costs on the network in each pass: two
// 16-bit exponent fields (largest, smallest) in pass 1, the fixed-point
// integer in whole 64-bit words in pass 2 (one word when no finite nonzero
// contribution leaves only flags to send).
func (s *FloatSum) PassBytes() (pass1, pass2 int) {
	return 4, 8 * max(1, (s.Width()+63)/64)
}

// Add is pass 2 for one contribution; call it after Exponent has seen every
// contribution.
func (s *FloatSum) Add(x float64) {
	if !s.started {
		s.started = true
		words := (s.Width() + bits.UintSize - 1) / bits.UintSize
		s.pos = grow(s.pos, words)
		s.neg = grow(s.neg, words)
	}
	b := math.Float64bits(x)
	e := int(b>>52) & 0x7ff
	if e == 0x7ff || b<<1 == 0 {
		return // specials and zeros were settled in pass 1
	}
	m := b & (1<<52 - 1)
	if e == 0 {
		e = 1
	} else {
		m |= 1 << 52
	}
	acc := s.pos
	if b>>63 != 0 {
		acc = s.neg
	}
	addShifted(acc, m, e-s.emin)
}

// grow returns ws resized to n zero words.
func grow(ws []big.Word, n int) []big.Word {
	if cap(ws) < n {
		return make([]big.Word, n)
	}
	ws = ws[:n]
	clear(ws)
	return ws
}

// addShifted adds m<<shift to the little-endian number acc.
func addShifted(acc []big.Word, m uint64, shift int) {
	const w = bits.UintSize
	i, b := shift/w, uint(shift%w)
	lo, hi := m<<b, m>>(64-b) // m<<b as 128 bits (b < 64; hi is 0 when b is)
	for k := 0; k < 128/w; k++ {
		v := lo >> uint(k*w)
		if off := k * w; off >= 64 {
			v = hi >> uint(off-64)
		}
		add(acc, i+k, uint(v)) // uint truncates to one word
	}
}

// add adds v to acc at word i, carrying upward.
func add(acc []big.Word, i int, v uint) {
	var c uint
	for ; (v != 0 || c != 0) && i < len(acc); i++ {
		s, c1 := bits.Add(uint(acc[i]), v, c)
		acc[i] = big.Word(s)
		v, c = 0, c1
	}
}

// Sum converts the fixed-point total back to the nearest double.
func (s *FloatSum) Sum() float64 {
	switch {
	case s.nan || s.pinf && s.ninf:
		return math.NaN()
	case s.pinf:
		return math.Inf(1)
	case s.ninf:
		return math.Inf(-1)
	case !s.finite:
		if s.n > 0 && s.negZeros == s.n {
			return math.Copysign(0, -1)
		}
		return 0
	}
	if !s.started {
		panic("hw: FloatSum.Sum before Add")
	}
	var p, q, d big.Int
	p.SetBits(s.pos) // aliases pos and neg: only read
	q.SetBits(s.neg)
	d.Sub(&p, &q)
	if d.Sign() == 0 {
		return 0 // exact cancellation: +0, as IEEE x + (-x)
	}
	var f big.Float
	f.SetInt(&d) // exact: the precision grows to the integer's length
	f.SetMantExp(&f, s.emin-1075)
	r, _ := f.Float64() // nearest, ties to even; subnormals and overflow included
	return r
}

// SumFloats is the collective network's sum of xs (FloatSum): the exact sum,
// rounded once to the nearest double.
func SumFloats(xs []float64) float64 {
	var s FloatSum
	for _, x := range xs {
		s.Exponent(x)
	}
	for _, x := range xs {
		s.Add(x)
	}
	return s.Sum()
}
