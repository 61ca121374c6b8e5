package hw

import (
	"strings"
	"testing"
	"testing/iotest"
)

func TestParseMapping(t *testing.T) {
	tor := Torus{Dims: Dims{2, 2, 1}}
	tests := []struct {
		name, in       string
		ranks, perNode int
		want           []Coord
	}{
		{"plain", "0 0 0 0\n1 0 0 0\n0 1 0 0\n1 1 0 0\n", 4, 1,
			[]Coord{{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 0, 0}}},
		{"reversed, comments, blanks, CRLF, tabs, no final newline", "# reversed\r\n\n1 1 0 0\r\n  # indented comment\n1\t0 0  0\n\t\n0 1 0 0\n0 0 0 0", 4, 1,
			[]Coord{{1, 1, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 0}}},
		{"virtual node, partly filled", "0 0 0 1\n0 0 0 0\n1 1 0 1\n", 3, 2,
			[]Coord{{0, 0, 0, 1}, {0, 0, 0, 0}, {1, 1, 0, 1}}},
		{"leading zeros and plus", "+1 01 0 0\n", 1, 1, []Coord{{1, 1, 0, 0}}},
	}
	for _, tt := range tests {
		m, err := ParseMapping("map.txt", strings.NewReader(tt.in), tor, tt.ranks, tt.perNode)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if m.Ranks() != len(tt.want) {
			t.Errorf("%s: %d ranks, want %d", tt.name, m.Ranks(), len(tt.want))
			continue
		}
		for r, c := range tt.want {
			if got := m.Coord(r); got != c {
				t.Errorf("%s: rank %d at %v, want %v", tt.name, r, got, c)
			}
		}
		checkMapping(t, m)
	}
}

func TestParseMappingErrors(t *testing.T) {
	tor := Torus{Dims: Dims{2, 3, 4}}
	mesh := Torus{Dims: Dims{2, 3, 4}, Mesh: true}
	tests := []struct {
		name, in       string
		tor            Torus
		ranks, perNode int
		want           string
	}{
		{"too few fields", "0 0 0 0\n0 0 1\n", tor, 2, 1, `m.txt:2: want 4 fields "x y z t", got 3`},
		{"too many fields", "0 0 0 0 # trailing comment\n", tor, 1, 1, `m.txt:1: want 4 fields "x y z t", got 7`},
		{"not an integer", "# c\n0 0 0 0\n0 1.5 0 0\n", tor, 2, 1, `m.txt:3: y "1.5" is not an integer`},
		{"hex is not decimal", "0x1 0 0 0\n", tor, 1, 1, `m.txt:1: x "0x1" is not an integer`},
		{"x too large", "2 0 0 0\n", tor, 1, 1, "m.txt:1: x 2 out of range 0..1 (torus 2x3x4)"},
		{"y negative", "0 -1 0 0\n", tor, 1, 1, "m.txt:1: y -1 out of range 0..2 (torus 2x3x4)"},
		{"z too large on a mesh", "0 0 4 0\n", mesh, 1, 1, "m.txt:1: z 4 out of range 0..3 (mesh 2x3x4)"},
		{"huge z", "0 0 99999999999999999999 0\n", tor, 1, 1, "m.txt:1: z 99999999999999999999 out of range 0..3 (torus 2x3x4)"},
		{"t in coprocessor mode", "0 0 0 1\n", tor, 1, 1, "m.txt:1: t 1 out of range 0..0 (1 rank per node)"},
		{"t in virtual node mode", "0 0 0 2\n", tor, 1, 2, "m.txt:1: t 2 out of range 0..1 (2 ranks per node)"},
		{"duplicate", "0 0 0 0\n\n1 0 0 0\n# c\n1 0 0 0\n", tor, 3, 1, "m.txt:5: (1,0,0,0) already holds rank 1 (line 3)"},
		{"too few ranks", "0 0 0 0\n1 0 0 0\n\n# end\n", tor, 3, 1, "m.txt: 2 ranks listed, want 3"},
		{"empty file", "", tor, 1, 1, "m.txt: 0 ranks listed, want 1"},
		{"too many ranks", "0 0 0 0\n\n1 0 0 0\n# c\n0 1 0 0\nrubbish\n", tor, 2, 1, "m.txt:5: 4 ranks listed, want 2"},
		{"does not fit", "", tor, 25, 1, "m.txt: 25 ranks do not fit a 2x3x4 torus with 1 rank per node (24 slots)"},
		{"line too long", "0 0 0 0\n" + strings.Repeat(" ", maxMapLine+1) + "\n", tor, 2, 1, "m.txt:2: line longer than 65536 bytes"},
	}
	for _, tt := range tests {
		m, err := ParseMapping("m.txt", strings.NewReader(tt.in), tt.tor, tt.ranks, tt.perNode)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: ParseMapping = %v, %v; want error %q", tt.name, m, err, tt.want)
		}
	}
}

func TestParseMappingReadError(t *testing.T) {
	r := iotest.TimeoutReader(strings.NewReader("0 0 0 0\n"))
	_, err := ParseMapping("m.txt", iotest.OneByteReader(r), Torus{Dims: Dims{2, 1, 1}}, 2, 1)
	if want := "m.txt: " + iotest.ErrTimeout.Error(); err == nil || err.Error() != want {
		t.Errorf("ParseMapping = %v, want %q", err, want)
	}
}

// FuzzParseMapping feeds arbitrary text for a small machine: the parser must not
// panic, and whatever it accepts must be a valid mapping.
func FuzzParseMapping(f *testing.F) {
	f.Add([]byte("0 0 0 0\n1 0 0 0\n0 1 0 0\n1 1 0 0\n"), uint8(4), true)
	f.Add([]byte("# vn\n0 0 0 1\n0 0 0 0\n\n1 1 0 1\n"), uint8(3), false)
	f.Add([]byte("1 1 0 0\r\n1 1 0 0\r\n"), uint8(2), true)
	f.Add([]byte("0 0 0 2\n"), uint8(1), false)
	f.Add([]byte("-0 +1 0 0\n 9 0 0 0 0\n"), uint8(2), true)
	f.Add([]byte(""), uint8(0), false)
	f.Fuzz(func(t *testing.T, data []byte, ranks uint8, vn bool) {
		tor := Torus{Dims: Dims{2, 2, 1}}
		perNode := 1
		if vn {
			perNode = 2
		}
		n := 1 + int(ranks)%(tor.Nodes()*perNode)
		m, err := ParseMapping("fuzz", strings.NewReader(string(data)), tor, n, perNode)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "fuzz") {
				t.Fatalf("error is not one line naming the file: %q", msg)
			}
			return
		}
		if m.Ranks() != n || m.PerNode != perNode {
			t.Fatalf("%d ranks, %d per node; want %d, %d", m.Ranks(), m.PerNode, n, perNode)
		}
		checkMapping(t, m)
	})
}
