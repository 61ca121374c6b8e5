package bglua

import (
	"context"
	"io"
	"testing"
)

// A run names the messages that reached a rank and were never taken: MPI
// messages no receive matched and active messages no advance loop handled,
// by rank, then in the order they came; it lists at most MaxLeftovers and
// counts them all. Messages that were taken are not among them.
func TestLeftovers(t *testing.T) {
	prog := Program{Name: "leftovers.lua", Code: []byte(`
ml.register("late", function() end)
if mpi.rank() == 0 then
  mpi.send("hello", 1, 7)
  ml.send(2, "late", "x")
  for i = 1, 150 do mpi.send(i, 2, i) end
  mpi.send("taken", 3, 1)
  mpi.barrier()
  mpi.bcast("all", 0)
elseif mpi.rank() == 3 then
  mpi.recv(0, 1)
  mpi.barrier()
  mpi.bcast(nil, 0)
else
  mpi.barrier()
  mpi.bcast(nil, 0)
end
`)}
	res, err := Run(context.Background(), Config{Ranks: 4, Stdout: io.Discard}, prog)
	if err != nil {
		t.Fatal(err)
	}
	if res.LeftoverCount != 152 || len(res.Leftovers) != MaxLeftovers {
		t.Fatalf("%d leftovers, %d listed; want 152, %d", res.LeftoverCount, len(res.Leftovers), MaxLeftovers)
	}
	want := []string{
		`rank 1 never received a message from rank 0 (tag 7, 5 bytes)`,
		`rank 2 never received a message from rank 0 (tag 1, 8 bytes)`,
		`rank 2 never received a message from rank 0 (tag 2, 8 bytes)`,
	}
	for i, w := range want {
		if got := res.Leftovers[i].String(); got != w {
			t.Errorf("leftover %d: %q, want %q", i, got, w)
		}
	}
	for _, o := range res.Leftovers {
		if o.Rank == 3 || o.Collective {
			t.Errorf("a taken message is listed: %s", o)
		}
	}
}

// An active message for a handler, to a rank that returned before it came,
// is named with its handler.
func TestLeftoverActiveMessage(t *testing.T) {
	prog := Program{Name: "am.lua", Code: []byte(`if mpi.rank() == 0 then ml.send(1, "nobody", "x") end`)}
	res, err := Run(context.Background(), Config{Ranks: 2, Stdout: io.Discard}, prog)
	if err != nil {
		t.Fatal(err)
	}
	want := `rank 1 never handled an active message for handler "nobody" from rank 0 (1 byte)`
	if len(res.Leftovers) != 1 || res.Leftovers[0].String() != want {
		t.Errorf("leftovers %v, want [%s]", res.Leftovers, want)
	}
}
