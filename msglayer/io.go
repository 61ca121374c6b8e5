package msglayer

import "github.com/bglua/bglua/hw"

// IONodes are the I/O nodes of the partition, one per pset, each with a
// daemon that handles one write at a time: output is function-shipped to
// them over the collective network (hw.IONodes).
type IONodes = hw.IONodes

// NewIONodes returns the idle I/O nodes of the layer's partition (every
// node of its torus), or nil if the machine models none.
func (l *Layer) NewIONodes() *IONodes { return hw.NewIONodes(l.M, l.Map.Torus.Nodes()) }

// IOShip is the writing task's side of a write of bytes at t: when its
// packets are in at the pset's I/O node (up), and the task's CPU cycles.
// IONodes.Serve is the I/O node's side.
func (l *Layer) IOShip(t Time, bytes int) (up Time, cpu int64) { return hw.IOShip(l.M, t, bytes) }

// ForNode is the view of the partition node belongs to (the layer itself
// without partitions).
func (l *Layer) ForNode(node int) *Layer { return l.on(node) }
