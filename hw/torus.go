package hw

import "fmt"

// Coord is a node position plus the processor slot T on the node (0 or 1 in
// virtual-node mode), the four numbers a mapping file lists per rank.
type Coord struct{ X, Y, Z, T int }

// String formats c as "(x,y,z,t)" for error messages and traces.
func (c Coord) String() string { return fmt.Sprintf("(%d,%d,%d,%d)", c.X, c.Y, c.Z, c.T) }

// Torus is the network geometry. Mesh turns off the wrap-around links, as on a
// partition smaller than a midplane, where BG/L cannot close the rings.
type Torus struct {
	Dims
	Mesh bool
}

// Kind is "torus" or "mesh", for messages that name the geometry.
func (t Torus) Kind() string {
	if t.Mesh {
		return "mesh"
	}
	return "torus"
}

// NodeIndex numbers nodes with x fastest: x + X*(y + Y*z). It is the same
// lexical order as the default XYZT mapping, so rank r sits on node r there.
func (t Torus) NodeIndex(x, y, z int) int { return x + t.X*(y+t.Y*z) }

// NodeCoord inverts NodeIndex for 0 <= node < t.Nodes().
func (t Torus) NodeCoord(node int) (x, y, z int) {
	return node % t.X, (node / t.X) % t.Y, node / (t.X * t.Y)
}

// size is the ring length of dimension dim (0 = x, 1 = y, 2 = z).
func (t Torus) size(dim int) int {
	switch dim {
	case 0:
		return t.X
	case 1:
		return t.Y
	case 2:
		return t.Z
	}
	panic(fmt.Sprintf("hw: dimension %d out of range 0..2", dim))
}

// Delta returns the signed shortest displacement along dimension dim from
// coordinate a to coordinate b. On a torus it goes the shorter way round; when
// both ways are equally long (exactly half a ring) it goes in the + direction,
// so that deterministic routing is a function of the endpoints alone. On a mesh
// there is only one way: b-a.
func (t Torus) Delta(dim int, a, b int) int {
	d := b - a
	if t.Mesh {
		return d
	}
	n := t.size(dim)
	d %= n
	if d < 0 {
		d += n
	}
	if 2*d > n {
		d -= n
	}
	return d
}

// Hops is the number of links a minimal route from node a to node b crosses:
// the Manhattan distance, wrap-around included unless Mesh. It is what the
// per-hop latency of [ML] Fig. 4a is multiplied by.
func (t Torus) Hops(a, b int) int {
	ax, ay, az := t.NodeCoord(a)
	bx, by, bz := t.NodeCoord(b)
	return abs(t.Delta(0, ax, bx)) + abs(t.Delta(1, ay, by)) + abs(t.Delta(2, az, bz))
}

// Neighbor is the node at the other end of node's outgoing link d, wrapping
// around on a torus. On a mesh a link off the edge does not exist: -1.
// (One division for the coordinate along d rather than NodeCoord's all
// three: it runs at every hop of every head.)
func (t Torus) Neighbor(node int, d Dir) int {
	var c, n, stride int
	switch d.Dim() {
	case 0:
		c, n, stride = node%t.X, t.X, 1
	case 1:
		c, n, stride = node/t.X%t.Y, t.Y, t.X
	default:
		c, n, stride = node/(t.X*t.Y), t.Z, t.X*t.Y
	}
	s := d.Sign()
	if c += s; c < 0 || c >= n {
		if t.Mesh {
			return -1
		}
		return node - s*(n-1)*stride
	}
	return node + s*stride
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
