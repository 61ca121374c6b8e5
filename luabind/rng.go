package luabind

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// rng is a per-rank xoshiro256** generator. gopher-lua's math.random uses Go's
// global generator, shared by all ranks and seeded from the wall clock.
type rng struct{ s [4]uint64 }

func splitmix(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (g *rng) seed(v uint64) {
	for i := range g.s {
		g.s[i] = splitmix(&v)
	}
}

func (g *rng) next() uint64 {
	s := &g.s
	r := rotl(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = rotl(s[3], 45)
	return r
}

func rotl(x uint64, k uint) uint64 { return x<<k | x>>(64-k) }

// float is uniform in [0, 1).
func (g *rng) float() float64 { return float64(g.next()>>11) / (1 << 53) }

// intn is uniform in [0, n) without modulo bias.
func (g *rng) intn(n uint64) uint64 {
	limit := math.MaxUint64 - math.MaxUint64%n
	for {
		if v := g.next(); v < limit {
			return v % n
		}
	}
}

// mixSeed gives every rank its own stream from the run's seed.
func mixSeed(seed, rank int64) uint64 {
	x := uint64(seed)
	a := splitmix(&x)
	y := uint64(rank) ^ a
	return splitmix(&y)
}

func (rk *rankCtx) random(L *lua.LState) int {
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(rk.rng.float()))
	case 1:
		m := L.CheckInt64(1)
		if m < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(lua.LNumber(1 + int64(rk.rng.intn(uint64(m)))))
	default:
		lo, hi := L.CheckInt64(1), L.CheckInt64(2)
		if lo > hi {
			L.ArgError(2, "interval is empty")
		}
		L.Push(lua.LNumber(lo + int64(rk.rng.intn(uint64(hi-lo)+1))))
	}
	return 1
}

// randomseed(x) restarts this rank's stream: the same x gives the same
// numbers on every rank, as in a real MPI program that seeds alike.
func (rk *rankCtx) randomseed(L *lua.LState) int {
	v := L.CheckNumber(1)
	rk.rng.seed(math.Float64bits(float64(v)))
	return 0
}
