package observe

import (
	"reflect"
	"testing"
)

// Rows sort by name, a collective's rows by algorithm, each followed by
// the rows of the calls its algorithm made; partitions' rows of one key
// add up.
func TestSumStatsNests(t *testing.T) {
	row := func(name, alg, parent string, d int64) PrimitiveStat {
		s := PrimitiveStat{Name: name, Algorithm: alg, Parent: parent}
		s.Add(d, 1)
		return s
	}
	got := SumStats(map[string][]PrimitiveStat{
		"mpi.send":                          {row("mpi.send", "", "", 1)},
		"\x00ring\x00mpi.allreduce":         {row("mpi.allreduce", "ring", "", 5), row("mpi.allreduce", "ring", "", 7)},
		"\x00tree\x00mpi.allreduce":         {row("mpi.allreduce", "tree", "", 2)},
		"mpi.allreduce\x00ring\x00mpi.send": {row("mpi.send", "ring", "mpi.allreduce", 3)},
		"mpi.allreduce\x00ring\x00mpi.recv": {row("mpi.recv", "ring", "mpi.allreduce", 4)},
		"mpi.barrier":                       {row("mpi.barrier", "", "", 6)},
	})
	var names []string
	for _, s := range got {
		names = append(names, s.Parent+"/"+s.Algorithm+"/"+s.Name)
	}
	want := []string{"/ring/mpi.allreduce", "mpi.allreduce/ring/mpi.recv", "mpi.allreduce/ring/mpi.send", "/tree/mpi.allreduce", "//mpi.barrier", "//mpi.send"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("order %q, want %q", names, want)
	}
	if r := got[0]; r.Count != 2 || r.Min != 5 || r.Max != 7 || r.Total != 12 || r.Bytes != 2 {
		t.Errorf("ring allreduce summed to %+v", r)
	}
}
