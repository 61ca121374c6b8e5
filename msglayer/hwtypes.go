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
