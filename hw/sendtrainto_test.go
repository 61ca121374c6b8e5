package hw

import "testing"

// SendTrainTo gives what Route and SendTrain give, train after train on a
// busy network, on tori and meshes of every shape class.
func TestSendTrainToIsSendTrainOnRoute(t *testing.T) {
	for _, tor := range []Torus{{Dims: Dims{X: 8, Y: 8, Z: 8}}, {Dims: Dims{X: 5, Y: 3, Z: 7}}, {Dims: Dims{X: 4, Y: 4, Z: 2}, Mesh: true}, {Dims: Dims{X: 1, Y: 6, Z: 1}}} {
		a, b := NewNetwork(BGL(), tor), NewNetwork(BGL(), tor)
		x := uint32(7)
		for i := 0; i < 20000; i++ {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			from, to := int(x%uint32(tor.Nodes())), int((x>>11)%uint32(tor.Nodes()))
			at, k, last := int64(x%100000), 1+int(x>>20)%8, []int{256, 96, 32}[int(x>>25)%3]
			l1, f1, e1 := a.SendTrain(a.Route(nil, from, to), at, k, 256, last)
			l2, f2, e2 := b.SendTrainTo(from, to, at, k, 256, last)
			if l1 != l2 || f1 != f2 || e1 != e2 {
				t.Fatalf("%v %d->%d: left %d, arrivals %d..%d; SendTrain gives %d, %d..%d", tor, from, to, l2, f2, e2, l1, f1, e1)
			}
		}
		if a.Packets != b.Packets || a.WireBytes != b.WireBytes || a.LinkBusy != b.LinkBusy {
			t.Errorf("%v: counters %d %d %d, SendTrain gives %d %d %d", tor, b.Packets, b.WireBytes, b.LinkBusy, a.Packets, a.WireBytes, a.LinkBusy)
		}
		af, bf := a.frees(), b.frees()
		for i := range af {
			if af[i] != bf[i] {
				t.Fatalf("%v: link %d free at %d, SendTrain gives %d", tor, i, bf[i], af[i])
			}
		}
	}
}
