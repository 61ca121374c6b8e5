package bglua

import (
	"context"
	"io"
	"os"
	"testing"
)

// A run in partitions reports its windows and the events its partitions
// sent each other; a run of one reports none. A halo step on 16x16x8 (four
// blocks of 8x8x8) moves every boundary face across a block boundary.
func TestWindowsAndCrossings(t *testing.T) {
	b, err := os.ReadFile("bench/workloads/halo3d.lua")
	if err != nil {
		t.Fatal(err)
	}
	halo := Program{Name: "halo3d.lua", Code: b, Dir: "bench/workloads"}
	res, err := Run(context.Background(), Config{Ranks: 2048, Torus: "16x16x8", Threads: 2, Stdout: io.Discard, Args: []string{"1", "1000", "16", "16", "8"}}, halo)
	if err != nil {
		t.Fatal(err)
	}
	// Faces of 1000 bytes are eager; each crosses as its train (one
	// trainIn), and the reception room it took at the far end of its link
	// (a link of the sender's block) goes back as the reader reads it (one
	// linkRelease): 2 events for each of the 2 * 4 * 64 * 2 faces that
	// cross the 4 block boundaries of x and y (16x16x8: 2 blocks along x
	// and y).
	if res.Partitions != 4 || res.Windows == 0 || res.Crossings != 2*2*4*64*2 {
		t.Errorf("%d partitions, %d windows, %d crossings; want 4, some, %d", res.Partitions, res.Windows, res.Crossings, 2*2*4*64*2)
	}
	one, err := Run(context.Background(), Config{Ranks: 512, Threads: 2, Stdout: io.Discard, Args: []string{"1", "1000", "8", "8", "8"}}, halo)
	if err != nil {
		t.Fatal(err)
	}
	if one.Partitions != 1 || one.Windows != 0 || one.Crossings != 0 {
		t.Errorf("one block: %d partitions, %d windows, %d crossings", one.Partitions, one.Windows, one.Crossings)
	}
}
