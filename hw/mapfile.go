package hw

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxMapLine bounds one line of a mapping file; a longer line is an error, not
// an unbounded allocation.
const maxMapLine = 1 << 16

// ParseMapping reads a mapping file: one line per rank in rank order, "x y z t"
// (whitespace-separated integers); blank lines and lines whose first non-blank
// character is '#' are ignored. name is the file name used in errors, which are
// one line, "NAME:LINE: what is wrong", so an editor can jump to the line:
// wrong field count, non-integer, coordinate out of range, a slot used twice
// (naming the earlier line), and "NAME: N ranks listed, want M" for a short file
// (reported at the first extra line for a long one).
func ParseMapping(name string, r io.Reader, t Torus, ranks, perNode int) (*Mapping, error) {
	m, err := newMapping(t, ranks, perNode)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	lineOf := make([]int32, ranks) // the line each rank came from, for duplicates
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, maxMapLine)
	line, listed, extraLine := 0, 0, 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		if listed >= ranks {
			// Keep counting so the message says how long the file really is.
			if extraLine == 0 {
				extraLine = line
			}
			listed++
			continue
		}
		c, err := parseMapLine(text, m)
		if err != nil {
			if rerr := sc.Err(); rerr != nil {
				// The scanner hands over a partial last line when the read
				// fails; the failure is the news, not the line.
				return nil, fmt.Errorf("%s: %v", name, rerr)
			}
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		node := t.NodeIndex(c.X, c.Y, c.Z)
		if prev, used := m.RankOf(c); used {
			return nil, fmt.Errorf("%s:%d: %s already holds rank %d (line %d)",
				name, line, c, prev, lineOf[prev])
		}
		m.place(listed, node, c.T)
		lineOf[listed] = int32(line)
		listed++
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", name, line+1, maxMapLine)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if extraLine != 0 {
		return nil, fmt.Errorf("%s:%d: %d ranks listed, want %d", name, extraLine, listed, ranks)
	}
	if listed != ranks {
		return nil, fmt.Errorf("%s: %d ranks listed, want %d", name, listed, ranks)
	}
	return m, nil
}

// parseMapLine reads "x y z t" and checks each against the machine of m.
func parseMapLine(text string, m *Mapping) (Coord, error) {
	f := strings.Fields(text)
	if len(f) != 4 {
		return Coord{}, fmt.Errorf("want 4 fields \"x y z t\", got %d", len(f))
	}
	d := m.Torus.Dims
	limits := [4]int{d.X, d.Y, d.Z, m.PerNode}
	var v [4]int
	for i, s := range f {
		name := "xyzt"[i : i+1]
		n, err := strconv.Atoi(s)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return Coord{}, fmt.Errorf("%s %q is not an integer", name, s)
		}
		if err != nil || n < 0 || n >= limits[i] {
			if i == 3 {
				return Coord{}, fmt.Errorf("t %s out of range 0..%d (%d %s per node)",
					s, limits[i]-1, m.PerNode, plural(m.PerNode, "rank"))
			}
			return Coord{}, fmt.Errorf("%s %s out of range 0..%d (%s %s)",
				name, s, limits[i]-1, m.Torus.Kind(), d)
		}
		v[i] = n
	}
	return Coord{v[0], v[1], v[2], v[3]}, nil
}
