package hw

import "fmt"

// MaxPerNode bounds the ranks per node: a slot is stored in a uint8. BG/L uses 1
// (coprocessor and heater modes) or 2 (virtual-node mode).
const MaxPerNode = 256

// Mapping places ranks on nodes: rank r runs on node Node(r) in processor slot
// Coord(r).T. Storage is a few bytes per rank and per slot, because runs of
// 131,072 ranks and more are the point of the tool.
type Mapping struct {
	Torus   Torus
	PerNode int // ranks per node: 1 (coprocessor, heater) or 2 (virtual node)

	node []int32 // per rank: node index
	slot []uint8 // per rank: processor slot T
	rank []int32 // per slot, index node*PerNode+T: the rank there, or -1
}

// newMapping checks the request common to every way of building a mapping and
// returns an empty one with every slot free.
func newMapping(t Torus, ranks, perNode int) (*Mapping, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if perNode < 1 || perNode > MaxPerNode {
		return nil, fmt.Errorf("%d ranks per node: want 1 to %d", perNode, MaxPerNode)
	}
	if ranks < 1 {
		return nil, fmt.Errorf("%d ranks: want at least 1", ranks)
	}
	slots := t.Nodes() * perNode
	if ranks > slots {
		return nil, fmt.Errorf("%d ranks do not fit a %s %s with %d %s per node (%d slots)",
			ranks, t.Dims, t.Kind(), perNode, plural(perNode, "rank"), slots)
	}
	m := &Mapping{
		Torus:   t,
		PerNode: perNode,
		node:    make([]int32, ranks),
		slot:    make([]uint8, ranks),
		rank:    make([]int32, slots),
	}
	for i := range m.rank {
		m.rank[i] = -1
	}
	return m, nil
}

// place puts rank r on node in slot t; the caller guarantees the slot is free.
func (m *Mapping) place(r, node, t int) {
	m.node[r] = int32(node)
	m.slot[r] = uint8(t)
	m.rank[node*m.PerNode+t] = int32(r)
}

// Ranks is the number of ranks placed.
func (m *Mapping) Ranks() int { return len(m.node) }

// Node is the index of the node rank runs on.
func (m *Mapping) Node(rank int) int { return int(m.node[rank]) }

// Coord is the position of rank: its node's x, y, z and its slot t.
func (m *Mapping) Coord(rank int) Coord {
	x, y, z := m.Torus.NodeCoord(int(m.node[rank]))
	return Coord{x, y, z, int(m.slot[rank])}
}

// RankOf is the rank at c, and false when c is outside the machine or no rank
// sits there (a partly filled partition).
func (m *Mapping) RankOf(c Coord) (int, bool) {
	d := m.Torus.Dims
	if c.X < 0 || c.X >= d.X || c.Y < 0 || c.Y >= d.Y || c.Z < 0 || c.Z >= d.Z ||
		c.T < 0 || c.T >= m.PerNode {
		return 0, false
	}
	r := m.rank[m.Torus.NodeIndex(c.X, c.Y, c.Z)*m.PerNode+c.T]
	return int(r), r >= 0
}

// MapXYZT is BG/L's default mapping: lexical order with x fastest, then y, then
// z, then t. Rank r goes to node r % nodes in slot r / nodes, so in virtual-node
// mode the second processors are used only once every node has one rank.
func MapXYZT(t Torus, ranks, perNode int) (*Mapping, error) {
	m, err := newMapping(t, ranks, perNode)
	if err != nil {
		return nil, err
	}
	nodes := t.Nodes()
	for r := range ranks {
		m.place(r, r%nodes, r/nodes)
	}
	return m, nil
}

// MapTXYZ puts t fastest: both slots of a node get consecutive ranks, then x,
// y, z. Neighbouring ranks then share a node and talk through memory.
func MapTXYZ(t Torus, ranks, perNode int) (*Mapping, error) {
	m, err := newMapping(t, ranks, perNode)
	if err != nil {
		return nil, err
	}
	for r := range ranks {
		m.place(r, r/perNode, r%perNode)
	}
	return m, nil
}

// plural is word, with an "s" unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
