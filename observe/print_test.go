package observe

import (
	"bytes"
	"testing"

	"github.com/bglua/bglua/runtime"
)

// TestPrinterPartitions: lines printed in partitions, in any interleaving of
// the partitions, come out as a printer of one partition writes them, and
// Finish drops the lines printed after an error.
func TestPrinterPartitions(t *testing.T) {
	type pr struct {
		t    runtime.Time
		rank int
		text string
	}
	// Ranks 0 and 1 are in partition 0, ranks 2 and 3 in partition 1.
	partOf := func(rank int) int { return rank / 2 }
	lines := []pr{{5, 3, "a"}, {5, 0, "b"}, {5, 3, "c"}, {7, 1, "d"}, {5, 2, "e"}, {9, 2, "f"}, {9, 0, "g"}}
	one := func(ls []pr) string {
		var b bytes.Buffer
		p := NewPrinter(&b, true)
		for _, l := range ls {
			p.Print(l.t, l.rank, l.text)
		}
		p.Flush()
		return b.String()
	}
	// In one partition the engine prints in time order.
	inOrder := []pr{lines[0], lines[1], lines[2], lines[4], lines[3], lines[5], lines[6]}
	want := one(inOrder)
	cases := []struct {
		name    string
		order   []int // the order the partitions' prints happen in
		windows []runtime.Time
		errAt   runtime.Time
		errPart int
		want    string
	}{
		{"one window", []int{0, 1, 2, 3, 4, 5, 6}, nil, 0, -1, want},
		{"other interleaving", []int{4, 1, 0, 3, 2, 5, 6}, nil, 0, -1, want},
		{"two windows", []int{1, 0, 4, 2, 3, 6, 5}, []runtime.Time{8}, 0, -1, want},
		{"error in partition 0 at 5", []int{0, 1, 2, 3, 4, 5, 6}, nil, 5, 0, "[0] b\n"},
		{"error in partition 1 at 5", []int{0, 1, 2, 3, 4, 5, 6}, nil, 5, 1, "[0] b\n[2] e\n[3] a\n[3] c\n"},
	}
	for _, tc := range cases {
		var b bytes.Buffer
		p := NewPrinter(&b, true)
		p.SetPartitions(2, partOf)
		w := 0
		for _, i := range tc.order {
			l := lines[i]
			for w < len(tc.windows) && l.t >= tc.windows[w] {
				p.Window(tc.windows[w])
				w++
			}
			p.Print(l.t, l.rank, l.text)
		}
		p.Finish(tc.errAt, tc.errPart)
		p.Flush()
		if got := b.String(); got != tc.want {
			t.Errorf("%s: wrote\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}
