package msglayer

import "testing"

// TestPoolDepot: objects freed in one view's pool beyond a batch go to the
// depot and come out of another view's, none lost or given twice; without
// a depot (one partition) the surplus is dropped.
func TestPoolDepot(t *testing.T) {
	type obj struct{ n int }
	cases := []struct {
		name    string
		shared  bool
		made    int
		wantGot int // objects the receiving view gets back out of the sender's pool
	}{
		{"one partition", false, 3 * poolBatch, 0},
		{"partitions", true, 3 * poolBatch, 2 * poolBatch},
		{"under a batch", true, poolBatch - 1, 0},
		{"depot full", true, (depotMax + 3) * poolBatch, depotMax * poolBatch},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var send, recv pool[obj]
			if tc.shared {
				recv.share()
				send.dep = recv.dep
			}
			// The receiving view frees what the sending view made.
			for i := 0; i < tc.made; i++ {
				recv.put(&obj{n: i})
			}
			seen := map[*obj]bool{}
			for x := send.get(); x != nil; x = send.get() {
				if seen[x] {
					t.Fatalf("object %d given twice", x.n)
				}
				seen[x] = true
			}
			if len(seen) != tc.wantGot {
				t.Fatalf("the sending view got %d objects back, want %d", len(seen), tc.wantGot)
			}
			// What the receiving view kept is its own, none of them given out.
			for x := recv.get(); x != nil; x = recv.get() {
				if seen[x] {
					t.Fatalf("object %d both in the depot and kept", x.n)
				}
				seen[x] = true
			}
			if want := min(tc.made, tc.wantGot+poolBatch); len(seen) != want {
				t.Fatalf("%d objects in all, want %d", len(seen), want)
			}
		})
	}
}

// TestPoolDepotConcurrent: one view frees objects while another takes them,
// on two goroutines (as two partitions on two threads do): every object
// spilled to the depot is taken once. Run with -race, it checks the
// depot's locking.
func TestPoolDepotConcurrent(t *testing.T) {
	type obj struct{ n int }
	var send, recv pool[obj]
	recv.share()
	send.dep = recv.dep
	const made = 8 * poolBatch
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < made; i++ {
			recv.put(&obj{n: i})
		}
	}()
	seen := map[*obj]bool{}
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		default:
		}
		for x := send.get(); x != nil; x = send.get() {
			if seen[x] {
				t.Fatalf("object %d taken twice", x.n)
			}
			seen[x] = true
		}
	}
	// All but the receiving view's last batch went through the depot.
	if want := made - poolBatch; len(seen) != want {
		t.Fatalf("took %d objects from the depot, want %d", len(seen), want)
	}
}
