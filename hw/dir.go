package hw

import "fmt"

// Dir is one of the six outgoing torus links of a node. The numbering is part of
// the model: LinkIndex uses it to give every link of the machine a dense index.
type Dir uint8

// The six directions, numbered 0..5 in this order.
const (
	XPlus Dir = iota
	XMinus
	YPlus
	YMinus
	ZPlus
	ZMinus
)

// NumDirs is the number of outgoing links per node.
const NumDirs = 6

var dirNames = [NumDirs]string{"x+", "x-", "y+", "y-", "z+", "z-"}

// String is the short name used in traces: "x+", "x-", "y+", ...
func (d Dir) String() string {
	if d < NumDirs {
		return dirNames[d]
	}
	return fmt.Sprintf("Dir(%d)", uint8(d))
}

// Dim is the dimension d moves along: 0 for x, 1 for y, 2 for z.
func (d Dir) Dim() int { return int(d) / 2 }

// Sign is +1 for the plus directions and -1 for the minus ones.
func (d Dir) Sign() int { return 1 - 2*(int(d)&1) }

// Opposite is the direction that undoes d, the one a reply on the same ring takes.
func (d Dir) Opposite() Dir { return d ^ 1 }

// DirOf is the direction along dim whose sign matches delta (which must be non-zero).
func DirOf(dim, delta int) Dir {
	d := Dir(2 * dim)
	if delta < 0 {
		d++
	}
	return d
}

// LinkIndex gives every outgoing link of the machine a dense index, so link
// state (busy-until times) can live in one flat slice of Nodes()*NumDirs entries.
func LinkIndex(node int, d Dir) int { return node*NumDirs + int(d) }
