package hw

import "fmt"

// Blocks cuts a torus into blocks of whole nodes, each a box of consecutive
// coordinates along x, y and z: the partitions a parallel run advances on
// its threads. The cut depends on the torus alone (never on how many threads
// run it), so a run gives the same results whatever the thread count; a
// torus no larger than one block is one block, and keeps the semantics of a
// run without blocks.
type Blocks struct {
	Torus Torus
	// Cuts holds, per dimension, the first coordinate of each block along
	// it, ascending, from 0.
	Cuts [3][]int
	of   []int32 // per node: its block
	n    int
}

// Block edges of DefaultBlocks: at most 8x8x8 nodes, a midplane of BG/L.
const (
	BlockEdgeX = 8
	BlockEdgeY = 8
	BlockEdgeZ = 8
)

// DefaultBlocks cuts t into blocks of at most 8x8x8 nodes.
func DefaultBlocks(t Torus) *Blocks { return NewBlocks(t, BlockEdgeX, BlockEdgeY, BlockEdgeZ) }

// NewBlocks cuts t into blocks of at most ex x ey x ez nodes: a dimension of
// size s is cut into ceil(s/e) runs whose lengths differ by at most one (the
// longer ones first). Blocks are numbered with x fastest, as nodes are.
func NewBlocks(t Torus, ex, ey, ez int) *Blocks {
	if ex < 1 || ey < 1 || ez < 1 {
		panic(fmt.Sprintf("hw: blocks of %dx%dx%d nodes", ex, ey, ez))
	}
	b := &Blocks{Torus: t}
	size := [3]int{t.X, t.Y, t.Z}
	edge := [3]int{ex, ey, ez}
	var at [3][]int32 // per dimension and coordinate: the block's index along it
	for d := range 3 {
		k := (size[d] + edge[d] - 1) / edge[d]
		k = max(k, 1)
		base, extra := size[d]/k, size[d]%k
		at[d] = make([]int32, size[d])
		c := 0
		for i := range k {
			b.Cuts[d] = append(b.Cuts[d], c)
			l := base
			if i < extra {
				l++
			}
			for j := c; j < c+l; j++ {
				at[d][j] = int32(i)
			}
			c += l
		}
	}
	kx, ky := len(b.Cuts[0]), len(b.Cuts[1])
	b.n = kx * ky * len(b.Cuts[2])
	b.of = make([]int32, t.Nodes())
	for node := range b.of {
		x, y, z := t.NodeCoord(node)
		b.of[node] = at[0][x] + int32(kx)*(at[1][y]+int32(ky)*at[2][z])
	}
	return b
}

// N is the number of blocks.
func (b *Blocks) N() int { return b.n }

// Of is the block of node.
func (b *Blocks) Of(node int) int { return int(b.of[node]) }

// Shape is how many blocks there are along x, y and z.
func (b *Blocks) Shape() (x, y, z int) { return len(b.Cuts[0]), len(b.Cuts[1]), len(b.Cuts[2]) }
