package mpi

import "testing"

// BenchmarkRing measures the MPI and engine cost of one message without Lua:
// a token passes round 64 ranks.
func BenchmarkRing(b *testing.B) {
	const n = 64
	laps := b.N/n + 1
	b.ResetTimer()
	w := runRanks(b, n, func(r *Rank) {
		c := r.World
		left, right := (c.Rank()+n-1)%n, (c.Rank()+1)%n
		v := Value{Data: 1.0, Size: 8}
		for i := 0; i < laps; i++ {
			if c.Rank() == 0 {
				c.Send(v, right, 0)
				c.Recv(left, 0)
			} else {
				got, _, _ := c.Recv(left, 0)
				c.Send(got, right, 0)
			}
		}
	})
	b.ReportMetric(float64(w.Messages)/b.Elapsed().Seconds(), "msgs/s")
	b.ReportMetric(float64(w.Eng.Events())/float64(w.Messages), "events/msg")
}
