package mpi

import "testing"

// BenchmarkCollP2P runs collectives over point-to-point algorithms on 512
// ranks: 8 binomial broadcasts and 8 recursive-doubling allreduces of a
// number a rank per op, the path whose messages carry agreement checks.
func BenchmarkCollP2P(b *testing.B) {
	const n = 512
	setup := func(w *World) error {
		if err := w.SetAlgorithm("bcast", "binomial"); err != nil {
			return err
		}
		return w.SetAlgorithm("allreduce", "recursive_doubling")
	}
	var msgs int64
	for i := 0; i < b.N; i++ {
		w, err := tryRanksWith(n, setup, func(r *Rank) {
			for k := 0; k < 8; k++ {
				if _, err := Bcast(r.World, num(r.ID), k%n); err != nil {
					fail(r, err)
				}
				if _, err := Allreduce(r.World, num(r.ID), SUM); err != nil {
					fail(r, err)
				}
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		msgs += w.Messages
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
}
