package mpinet

import (
	"bytes"
	"fmt"
	"math"
)

// exercise is run by every process of a job, the same calls in the same
// order, whichever implementation carries them: it checks the values
// each call returns against what every process is known to have passed.
func exercise(n Net) error {
	r, p := n.Rank(), n.Size()
	if r < 0 || r >= p {
		return fmt.Errorf("rank %d of %d", r, p)
	}

	// Exchanges: every pair, some empty, the buffers reused after the call.
	out := make([][]byte, p)
	for d := range out {
		out[d] = payload(r, d, 0)
	}
	for round := range 2 {
		in, err := n.ExchangeBytes(out)
		if err != nil {
			return err
		}
		for d := range out {
			for i := range out[d] {
				out[d][i] = 0xee // in must not share out's memory
			}
			out[d] = payload(r, d, round+1)
		}
		if len(in) != p {
			return fmt.Errorf("exchange %d: %d buffers for %d processes", round, len(in), p)
		}
		for s := range in {
			if want := payload(s, r, round); !bytes.Equal(in[s], want) {
				return fmt.Errorf("exchange %d: from %d got %d bytes %.16x..., want %d bytes %.16x...", round, s, len(in[s]), in[s], len(want), want)
			}
		}
	}
	in, err := n.ExchangeBytes(make([][]byte, p)) // nothing at all
	if err != nil {
		return err
	}
	for s, b := range in {
		if len(b) != 0 {
			return fmt.Errorf("empty exchange: %d bytes from %d", len(b), s)
		}
	}
	big := make([][]byte, p) // 1 MiB to the next process only
	big[(r+1)%p] = bytes.Repeat([]byte{byte(r + 1)}, 1<<20)
	if in, err = n.ExchangeBytes(big); err != nil {
		return err
	}
	for s, b := range in {
		want := 0
		if (s+1)%p == r {
			want = 1 << 20
		}
		if len(b) != want || want > 0 && (b[0] != byte(s+1) || b[want-1] != byte(s+1)) {
			return fmt.Errorf("large exchange: %d bytes from %d, want %d of %d", len(b), s, want, s+1)
		}
	}

	// Reductions of a vector, each element known on every process.
	v := func() []int64 {
		return []int64{int64(r), -int64(r) * 3, math.MinInt64 + int64(p-1-r), int64(1) << (r % 63), 5}
	}
	for _, c := range []struct {
		op   Op
		want []int64
	}{
		{OpMin, []int64{0, -3 * int64(p-1), math.MinInt64, 1, 5}},
		{OpMax, []int64{int64(p - 1), 0, math.MinInt64 + int64(p-1), int64(1) << ((p - 1) % 63), 5}},
		{OpSum, []int64{int64(p * (p - 1) / 2), -3 * int64(p*(p-1)/2), sumMin(p), sumPow(p), 5 * int64(p)}},
		{OpBor, []int64{borTo(p), borNeg(p), borMin(p), sumPow(p), 5}},
	} {
		x := v()
		if err := n.AllreduceInt64(c.op, x); err != nil {
			return err
		}
		for i := range x {
			if x[i] != c.want[i] {
				return fmt.Errorf("allreduce %s: element %d is %d, want %d (all: %d)", c.op, i, x[i], c.want[i], x)
			}
		}
	}
	if m, err := MinInt64(n, 1000-int64(r)); err != nil || m != 1000-int64(p-1) {
		return fmt.Errorf("MinInt64: %d, %v; want %d", m, err, 1000-(p-1))
	}
	if s, err := SumInt64(n, 2); err != nil || s != 2*int64(p) {
		return fmt.Errorf("SumInt64: %d, %v; want %d", s, err, 2*p)
	}
	if m, err := MaxInt64(n, int64(r)); err != nil || m != int64(p-1) {
		return fmt.Errorf("MaxInt64: %d, %v; want %d", m, err, p-1)
	}
	if any, err := Or(n, r == p-1); err != nil || !any {
		return fmt.Errorf("Or(last process): %v, %v", any, err)
	}
	if any, err := Or(n, false); err != nil || any {
		return fmt.Errorf("Or(false): %v, %v", any, err)
	}
	x := []int64{}
	if err := n.AllreduceInt64(OpSum, x); err != nil {
		return fmt.Errorf("allreduce of nothing: %v", err)
	}

	// Broadcasts from the last process and from 0, one of nothing.
	var mine []byte
	if r == p-1 {
		mine = payload(p-1, 0, 7)
	}
	b, err := n.Bcast(p-1, mine)
	if err != nil || !bytes.Equal(b, payload(p-1, 0, 7)) {
		return fmt.Errorf("Bcast: %d bytes, %v", len(b), err)
	}
	if b, err = n.Bcast(0, nil); err != nil || len(b) != 0 {
		return fmt.Errorf("Bcast of nothing: %d bytes, %v", len(b), err)
	}

	// Gather to 0.
	g, err := Gather(n, 0, []byte(fmt.Sprintf("process %d", r)))
	if err != nil {
		return err
	}
	if r == 0 {
		for s := range p {
			if want := fmt.Sprintf("process %d", s); string(g[s]) != want {
				return fmt.Errorf("Gather: %q from %d, want %q", g[s], s, want)
			}
		}
	} else if g != nil {
		return fmt.Errorf("Gather gave %d buffers to process %d", len(g), r)
	}
	return n.Barrier()
}

// payload is what process s sends process d in round k: 0 to 4 times 7
// bytes (none for some pairs), each a function of (s, d, k, i).
func payload(s, d, k int) []byte {
	b := make([]byte, (s*3+d+k)%5*7)
	for i := range b {
		b[i] = byte(s*31 + d*7 + k*13 + i)
	}
	return b
}

func sumMin(p int) int64 { // sum of MinInt64+j for j < p, wrapping
	var s int64
	for j := range p {
		s += math.MinInt64 + int64(j)
	}
	return s
}

func sumPow(p int) int64 { // sum (= or) of 1<<(j%63), j < p, distinct for p <= 63
	var s int64
	for j := range p {
		s |= int64(1) << (j % 63)
	}
	return s
}

func borTo(p int) int64 {
	var s int64
	for j := range p {
		s |= int64(j)
	}
	return s
}

func borNeg(p int) int64 {
	var s int64
	for j := range p {
		s |= -int64(j) * 3
	}
	return s
}

func borMin(p int) int64 {
	var s int64
	for j := range p {
		s |= math.MinInt64 + int64(j)
	}
	return s
}
