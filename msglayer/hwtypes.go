package msglayer

import "github.com/bglua/bglua/hw"

// The machine's description and geometry, which the layers above use as
// data (costs, dimensions, where ranks sit): re-exported here so that only
// the message layer imports hw.
type (
	Machine = hw.Machine
	Torus   = hw.Torus
	Dims    = hw.Dims
	Mapping = hw.Mapping
	Coord   = hw.Coord
	CPU     = hw.CPU
)

// The machine's constants and geometry as the embedding API reads and
// checks them from a run's configuration.
type (
	// Blocks is a cut of the torus into blocks, advanced by threads of
	// their own.
	Blocks = hw.Blocks
	// OtherValue stands for a machine-file value that is neither a
	// number nor a string.
	OtherValue = hw.OtherValue
	// LinkUse is what crossed one torus link (Layer.Links), LabelBytes
	// one label's share of it.
	LinkUse    = hw.LinkUse
	LabelBytes = hw.LabelBytes
)

const (
	// MaxNodes is the most nodes a torus may have.
	MaxNodes = hw.MaxNodes
	// NumDirs is how many links leave a node.
	NumDirs = hw.NumDirs
)

var (
	// MachineNames lists the built-in machines.
	MachineNames = hw.MachineNames
	// Named returns a copy of a built-in machine.
	Named = hw.Named
	// ParseDims reads XxYxZ.
	ParseDims = hw.ParseDims
	// DefaultDims is the torus a number of nodes gets by default.
	DefaultDims = hw.DefaultDims
	// DefaultBlocks cuts a torus into blocks of at most 8x8x8 nodes.
	DefaultBlocks = hw.DefaultBlocks
	// MapXYZT and MapTXYZ are the built-in mappings of ranks to nodes;
	// ParseMapping reads a mapping file.
	MapXYZT      = hw.MapXYZT
	MapTXYZ      = hw.MapTXYZ
	ParseMapping = hw.ParseMapping
)
