package hw

// Hop is one link traversal: the node the packet leaves and the direction it takes.
type Hop struct {
	Node int32
	Dir  Dir
}

// RouteDeterministic appends to buf the dimension-ordered route from node a to
// node b: all x hops first, then y, then z, each the shortest way round (Delta).
// This is BG/L's deterministic routing, the one that keeps eager packets of a
// message in order. It returns buf and does not allocate when buf has capacity
// for Hops(a, b) more entries, since it runs once per packet.
func (t Torus) RouteDeterministic(buf []Hop, a, b int) []Hop {
	var from, to [3]int
	from[0], from[1], from[2] = t.NodeCoord(a)
	to[0], to[1], to[2] = t.NodeCoord(b)
	stride := [3]int{1, t.X, t.X * t.Y}
	size := [3]int{t.X, t.Y, t.Z}
	node := a
	for dim := range 3 {
		delta := t.Delta(dim, from[dim], to[dim])
		if delta == 0 {
			continue
		}
		d := DirOf(dim, delta)
		step, c := d.Sign(), from[dim]
		for range abs(delta) {
			buf = append(buf, Hop{Node: int32(node), Dir: d})
			next := c + step
			switch {
			case next == size[dim]:
				next = 0
			case next < 0:
				next = size[dim] - 1
			}
			node += (next - c) * stride[dim]
			c = next
		}
	}
	return buf
}
