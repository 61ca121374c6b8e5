package msglayer

import "github.com/bglua/bglua/hw"

// Network is the torus network model a Bulk moves data on (the layer's Net,
// or a network of its own in a scheduler's tests).
type Network = hw.Network

// Bulk moves data between nodes as trains of packets on a torus network,
// for a scheduler that sets the times itself (bcs's point-to-point
// microphase): each transfer goes the deterministic route, its packets back
// to back, every link reserved for the whole train from when its head gets
// there (hw.Network.SendTrain).
type Bulk struct {
	net   *hw.Network
	route []hw.Hop
}

// NewBulk moves data on net.
func NewBulk(net *Network) *Bulk { return &Bulk{net: net} }

// Move sends n payload bytes from node src to node dst from t and returns
// when the last packet arrives.
func (b *Bulk) Move(src, dst, n int, t Time) Time {
	m := b.net.M
	b.route = b.net.Route(b.route[:0], src, dst)
	per := m.PayloadPerPacket()
	count := m.Packets(n)
	full, last := m.PacketBytes(per), m.PacketBytes(n-per*(count-1))
	_, _, arrived := b.net.SendTrain(b.route, t, count, full, last)
	return arrived
}
