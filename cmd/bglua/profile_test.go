package main

import "testing"

// In an MPI job each process writes its own profiles: process 0 to the
// file named, process p > 0 to FILE.p; no file named stays none.
func TestProcessFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		rank int
		want string
	}{
		{"cpu.prof", 0, "cpu.prof"},
		{"cpu.prof", 1, "cpu.prof.1"},
		{"out/mem", 12, "out/mem.12"},
		{"", 3, ""},
	} {
		if got := processFile(tc.name, tc.rank); got != tc.want {
			t.Errorf("processFile(%q, %d) = %q, want %q", tc.name, tc.rank, got, tc.want)
		}
	}
}
