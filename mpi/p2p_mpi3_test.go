package mpi

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// The point-to-point additions of MPI-3 (issue 22): synchronous sends,
// matched probes, cancel, persistent requests, neighbourhood collectives.

func val(x float64) Value { return Value{Data: x, Size: 8} }

// late is how long a receiver waits before it posts its receive: far longer
// than any message takes.
const late = 2_000_000

// TestSsendWaitsForReceive: a synchronous send to a receiver that posts late
// completes only after the receive is posted, by every protocol (one
// packet, eager, rendezvous; to another node, within a node in
// virtual-node mode, to itself); a standard send of a small message
// completes at once.
func TestSsendWaitsForReceive(t *testing.T) {
	cases := []struct {
		name    string
		perNode int
		ranks   int
		dest    int
		bytes   int
	}{
		{"onepacket", 1, 2, 1, 8},
		{"eager", 1, 2, 1, 600},
		{"rendezvous", 1, 2, 1, 100_000},
		{"vn", 2, 2, 1, 8},
		{"self", 1, 1, 0, 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, sync := range []bool{true, false} {
				var sent, posted Time
				dims := hw.DefaultDims(tc.ranks)
				if tc.perNode > 1 {
					dims = hw.Dims{X: 1, Y: 1, Z: 1}
				}
				_, err := runOn(hw.BGL(), hw.Torus{Dims: dims}, tc.perNode, tc.ranks, nil, func(r *Rank) {
					c := r.World
					v := Value{Data: 7.0, Size: tc.bytes}
					var q *Request
					if r.ID == 0 {
						if sync {
							q, _ = c.Issend(v, tc.dest, 3)
						} else {
							q, _ = c.Isend(v, tc.dest, 3)
						}
						if tc.dest != 0 {
							r.Wait(q)
							sent = r.Now()
						}
					}
					if r.ID == tc.dest {
						r.Compute(late)
						posted = r.Now()
						got, st, err := c.Recv(0, 3)
						if err != nil || got.Data != 7.0 || st.Bytes != tc.bytes {
							fail(r, fmt.Errorf("got %v %+v %v", got, st, err))
						}
						if tc.dest == 0 {
							r.Wait(q)
							sent = r.Now()
						}
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case sync && sent <= posted:
					t.Errorf("ssend complete at %d, before the receive was posted at %d", sent, posted)
				case !sync && tc.bytes < 1000 && tc.dest != 0 && tc.perNode == 1 && sent >= posted:
					t.Errorf("small standard send complete at %d, not before the receive was posted at %d", sent, posted)
				}
			}
		})
	}
}

// TestSsendCostsAnAcknowledgement: to a receiver already waiting, a small
// synchronous send takes longer than a standard one by the
// acknowledgement's trip back, and a rendezvous one costs what a standard
// rendezvous send costs (its grant is the acknowledgement).
func TestSsendCostsAnAcknowledgement(t *testing.T) {
	cost := func(bytes int, sync bool) Time {
		var d Time
		runRanks(t, 2, func(r *Rank) {
			c := r.World
			if r.ID == 1 {
				c.Recv(0, 0)
				return
			}
			r.Compute(100_000) // the receive is posted
			t0 := r.Now()
			v := Value{Size: bytes}
			if sync {
				c.Ssend(v, 1, 0)
			} else {
				c.Send(v, 1, 0)
			}
			d = r.Now() - t0
		})
		return d
	}
	if s, n := cost(8, true), cost(8, false); s <= n {
		t.Errorf("8-byte ssend took %d cycles, send %d: want the acknowledgement's trip on top", s, n)
	}
	if s, n := cost(100_000, true), cost(100_000, false); s != n {
		t.Errorf("rendezvous ssend took %d cycles, send %d: want the same", s, n)
	}
}

// TestSsendUnderBCS: under bcs every send waits for its receive; ssend too.
func TestSsendUnderBCS(t *testing.T) {
	var sent, posted Time
	_, err := tryRanksWith(2, withBCS(testSlice, nil), func(r *Rank) {
		c := r.World
		if r.ID == 0 {
			c.Ssend(val(1), 1, 0)
			sent = r.Now()
			return
		}
		r.Compute(3 * testSlice)
		posted = r.Now()
		c.Recv(0, 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	if sent <= posted {
		t.Errorf("ssend complete at %d, before the receive was posted at %d", sent, posted)
	}
}

// TestMatchedProbe: a probed message is out of matching; only its handle
// receives it, once.
func TestMatchedProbe(t *testing.T) {
	cases := []struct {
		name  string
		bytes int
	}{{"eager", 8}, {"rendezvous", 100_000}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runRanks(t, 2, func(r *Rank) {
				c := r.World
				if r.ID == 0 {
					var qs []*Request
					for k := 1; k <= 3; k++ {
						q, _ := c.Isend(Value{Data: float64(k), Size: tc.bytes}, 1, 5)
						qs = append(qs, q)
					}
					r.Waitall(qs)
					return
				}
				if _, ok, _ := c.Improbe(0, 6); ok {
					fail(r, errors.New("improbe found a message of a tag nobody sent"))
				}
				a, err := c.Mprobe(0, 5) // blocks until the first comes
				if err != nil || a.Status().Source != 0 || a.Status().Tag != 5 || a.Status().Bytes != tc.bytes {
					fail(r, fmt.Errorf("mprobe: %+v %v", a, err))
					return
				}
				r.Compute(late) // the others come
				b, ok, _ := c.Improbe(AnySource, AnyTag)
				if !ok {
					fail(r, errors.New("improbe found nothing"))
					return
				}
				// Two receives race for the first message: the plain one
				// takes the third, the handles theirs.
				got, _, _ := c.Recv(0, 5)
				gb, _, _ := r.Mrecv(b)
				q, _ := r.Imrecv(a)
				ga, _ := r.Wait(q)
				if got.Data != 3.0 || ga.Data != 1.0 || gb.Data != 2.0 {
					fail(r, fmt.Errorf("recv got %v, handles %v and %v; want 3, 1, 2", got.Data, ga.Data, gb.Data))
				}
				if _, _, err := r.Mrecv(a); !errors.Is(err, errReceived) {
					fail(r, fmt.Errorf("second mrecv of a handle: %v, want %v", err, errReceived))
				}
				if _, err := r.Imrecv(b); !errors.Is(err, errReceived) {
					fail(r, fmt.Errorf("imrecv of a received handle: %v, want %v", err, errReceived))
				}
				n, _ := c.Mprobe(ProcNull, AnyTag)
				if v, st, err := r.Mrecv(n); err != nil || v.Data != nil || st.Source != ProcNull {
					fail(r, fmt.Errorf("mrecv from PROC_NULL: %v %+v %v", v, st, err))
				}
			})
		})
	}
}

// TestProbedUnreceived: a message a matched probe took and nobody received
// is still reported as never received, after the unexpected ones.
func TestProbedUnreceived(t *testing.T) {
	w := runRanks(t, 2, func(r *Rank) {
		c := r.World
		if r.ID == 0 {
			c.Send(Value{Data: "a", Size: 1}, 1, 1)
			c.Send(Value{Data: "bb", Size: 2}, 1, 2)
			c.Send(Value{Data: "ccc", Size: 3}, 1, 3)
			return
		}
		r.Compute(late)
		c.Mprobe(0, 1)
		m, _ := c.Mprobe(0, 3)
		r.Mrecv(m)
	})
	got := fmt.Sprint(w.Rank(1).Unreceived())
	if want := "[{0 2 2 false} {0 1 1 false}]"; got != want {
		t.Errorf("unreceived %s, want %s", got, want)
	}
}

// TestMrecvAcknowledgesSsend: a synchronous send probed by a matched probe
// completes when the message is received, not when it is probed.
func TestMrecvAcknowledgesSsend(t *testing.T) {
	var sent, received Time
	runRanks(t, 2, func(r *Rank) {
		c := r.World
		if r.ID == 0 {
			c.Ssend(val(1), 1, 0)
			sent = r.Now()
			return
		}
		m, _ := c.Mprobe(0, 0)
		r.Compute(late)
		received = r.Now()
		r.Mrecv(m)
	})
	if sent <= received {
		t.Errorf("ssend complete at %d, before its mrecv at %d", sent, received)
	}
}

// TestCancel: a pending receive is cancelled and takes nothing; a matched
// one completes normally; sends cannot be cancelled.
func TestCancel(t *testing.T) {
	for _, posted := range []int{1, 3 * matchListMax} { // a list and an indexed queue
		t.Run(fmt.Sprint(posted, " posted"), func(t *testing.T) {
			runRanks(t, 2, func(r *Rank) {
				c := r.World
				if r.ID == 0 {
					r.Compute(late)
					for k := 0; k < posted; k++ {
						c.Send(val(float64(k)), 1, k)
					}
					c.Send(val(99), 1, 0)
					return
				}
				qs := make([]*Request, posted)
				for k := range qs {
					qs[k], _ = c.Irecv(0, k)
				}
				victim := qs[posted/2]
				if err := r.Cancel(victim); err != nil {
					fail(r, err)
				}
				v, st := r.Wait(victim)
				if !victim.Cancelled() || v.Data != nil || st.Bytes != 0 {
					fail(r, fmt.Errorf("cancelled receive: %v %+v", v, st))
				}
				r.Waitall(qs)
				for k, q := range qs {
					if q == victim {
						continue
					}
					if q.Cancelled() || q.Value.Data != float64(k) {
						fail(r, fmt.Errorf("receive %d got %v %+v", k, q.Value.Data, q.Status))
					}
				}
				// The message the cancelled receive would have taken is
				// still there, before the later one of its tag.
				got, _, _ := c.Recv(0, posted/2)
				if got.Data != float64(posted/2) {
					fail(r, fmt.Errorf("after cancel: got %v, want %d", got.Data, posted/2))
				}
				got, _, _ = c.Recv(0, 0)
				if got.Data != 99.0 {
					fail(r, fmt.Errorf("last: got %v, want 99", got.Data))
				}
			})
		})
	}
	t.Run("persistent", func(t *testing.T) {
		runRanks(t, 2, func(r *Rank) {
			c := r.World
			if r.ID == 0 {
				r.Compute(late)
				c.Send(val(8), 1, 0)
				return
			}
			q, _ := c.RecvInit(0, 0)
			r.Start(q)
			r.Cancel(q)
			if v, _ := r.Wait(q); !q.Cancelled() || v.Data != nil || q.Active() {
				fail(r, fmt.Errorf("cancelled persistent receive: %v, cancelled %v, active %v", v, q.Cancelled(), q.Active()))
			}
			r.Start(q) // a cancelled request starts again
			if v, _ := r.Wait(q); q.Cancelled() || v.Data != 8.0 {
				fail(r, fmt.Errorf("restarted after cancel: %v, cancelled %v", v, q.Cancelled()))
			}
		})
	})
	t.Run("matched", func(t *testing.T) {
		runRanks(t, 2, func(r *Rank) {
			c := r.World
			if r.ID == 0 {
				c.Send(val(4), 1, 0)
				q, _ := c.Isend(val(5), 1, 1)
				if err := r.Cancel(q); err == nil || !strings.Contains(err.Error(), "sends cannot be cancelled") {
					fail(r, fmt.Errorf("cancel of a send: %v", err))
				}
				r.Wait(q)
				return
			}
			r.Compute(late)
			q, _ := c.Irecv(0, 0) // matched at once: the message is here
			r.Cancel(q)
			v, st := r.Wait(q)
			if q.Cancelled() || v.Data != 4.0 {
				fail(r, fmt.Errorf("cancel of a matched receive: %v %+v", v, st))
			}
			r.Cancel(q) // complete: nothing
			c.Recv(0, 1)
		})
	})
}

// TestMprobeCancelUnderBCS: under bcs a matched probe takes a send whose
// descriptor was exchanged to the rank out of the runtime's matching, and
// Mrecv receives exactly it; Cancel takes back a receive until a strobe
// matched it, exchanged or not, and the message it would have taken stays.
func TestMprobeCancelUnderBCS(t *testing.T) {
	const s = testSlice
	_, err := tryRanksWith(2, withBCS(s, nil), func(r *Rank) {
		c := r.World
		str := func(x string) Value { return Value{Data: x, Size: len(x)} }
		check := func(what string, got Value, want any) {
			if got.Data != want {
				fail(r, fmt.Errorf("%s: got %v, want %v", what, got.Data, want))
			}
		}
		if r.ID == 0 {
			a, _ := c.Isend(str("first"), 1, 7)
			b, _ := c.Isend(str("second"), 1, 7)
			d, _ := c.Isend(val(3), 1, 9)
			r.Compute(10*s - r.Now())
			e, _ := c.Isend(val(8), 1, 8)
			f, _ := c.Isend(val(50), 1, 50)
			r.Waitall([]*Request{a, b, d, e, f})
			return
		}
		never, _ := c.Irecv(0, 99) // not yet exchanged
		if err := r.Cancel(never); err != nil {
			fail(r, err)
		}
		if v, st := r.Wait(never); !never.Cancelled() || v.Data != nil || st.Tag != 99 {
			fail(r, fmt.Errorf("cancelled receive: %v %+v", v, st))
		}
		q9, _ := c.Irecv(0, 9)
		if _, ok, _ := c.Improbe(0, 7); ok {
			fail(r, errors.New("improbe found a message before any strobe"))
		}
		r.Compute(3 * s) // exchanged, matched, moved
		r.Cancel(q9)
		if v, _ := r.Wait(q9); q9.Cancelled() {
			fail(r, fmt.Errorf("a receive matched before the cancel was cancelled: %v", v.Data))
		}
		check("matched before the cancel", q9.Value, 3.0)
		msg, ok, err := c.Improbe(0, 7)
		if !ok || err != nil || msg.Status().Bytes != 5 {
			fail(r, fmt.Errorf("improbe: %v %v %+v", ok, err, msg))
			return
		}
		v, _, _ := c.Recv(0, 7)
		check("recv after improbe", v, "second")
		v, st, _ := r.Mrecv(msg)
		check("mrecv", v, "first")
		if st.Source != 0 || st.Tag != 7 || !msg.Received() {
			fail(r, fmt.Errorf("mrecv status %+v, received %v", st, msg.Received()))
		}
		if _, ok, _ := c.Improbe(0, 7); ok {
			fail(r, errors.New("improbe found a message twice"))
		}
		q50, _ := c.Irecv(0, 50) // exchanged at the next strobe, never matched
		r.Compute(2 * s)
		r.Cancel(q50)
		r.Wait(q50)
		if !q50.Cancelled() {
			fail(r, fmt.Errorf("an exchanged, unmatched receive was not cancelled: %v", q50.Value.Data))
		}
		m, err := c.Mprobe(0, 8) // blocks until the send is exchanged
		if err != nil {
			fail(r, err)
			return
		}
		v, _, _ = r.Mrecv(m)
		check("mprobe and mrecv", v, 8.0)
		v, _, _ = c.Recv(0, 50)
		check("the message of the cancelled receive", v, 50.0)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPersistent: persistent requests restart; a ring of sizes 1 to 7
// exchanges three rounds under both runtimes; misuse is an error.
func TestPersistent(t *testing.T) {
	for _, rt := range runtimes {
		for _, n := range []int{1, 2, 3, 7} {
			t.Run(fmt.Sprintf("%s/%d", rt.name, n), func(t *testing.T) {
				_, err := tryRanksWith(n, rt.setup, func(r *Rank) {
					c := r.World
					right, left := (r.ID+1)%n, (r.ID+n-1)%n
					s, _ := c.SendInit(val(float64(r.ID)), right, 2)
					q, _ := c.RecvInit(left, 2)
					if v, st := r.Wait(q); v.Data != nil || st.Source != AnySource || !q.Persistent() || q.Active() {
						fail(r, fmt.Errorf("wait on an inactive request: %v %+v", v, st))
					}
					if r.Waitany([]*Request{s, q}) != -1 {
						fail(r, errors.New("waitany of inactive requests did not return -1"))
					}
					for round := 0; round < 3; round++ {
						if err := r.Startall([]*Request{q, s}); err != nil {
							fail(r, err)
							return
						}
						if err := r.Start(q); !errors.Is(err, errActive) {
							fail(r, fmt.Errorf("start of an active request: %v", err))
						}
						if round == 1 {
							// Completed by a test: inactive at once, its
							// result is the test's.
							for !r.Test(q) {
								r.Compute(1000)
							}
							r.Wait(s)
						} else {
							r.Waitall([]*Request{s, q})
						}
						if q.Value.Data != float64(left) || q.Status.Source != left {
							fail(r, fmt.Errorf("round %d got %v from %d", round, q.Value.Data, q.Status.Source))
						}
					}
					if v, st := r.Wait(q); v.Data != nil || st.Source != AnySource || q.Active() {
						fail(r, fmt.Errorf("wait on a request inactive again: %v %+v", v, st))
					}
					plain, _ := c.Isend(val(0), r.ID, 9)
					if err := r.Start(plain); !errors.Is(err, errNotPersistent) {
						fail(r, fmt.Errorf("start of an isend request: %v", err))
					}
					c.Recv(r.ID, 9)
					r.Wait(plain)
					err := r.Startall([]*Request{q, q})
					var re *ReqError
					if !errors.As(err, &re) || re.Index != 1 || q.Active() {
						fail(r, fmt.Errorf("startall of one request twice: %v", err))
					}
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestNeighbor: neighbourhood collectives on periodic and open grids of
// 1, 2, 3 and 7 ranks and a 2-d one, under both runtimes, against the
// neighbours worked out from coordinates here.
func TestNeighbor(t *testing.T) {
	grids := []struct {
		dims    []int
		periods []bool
	}{
		{[]int{1}, []bool{true}}, {[]int{1}, []bool{false}},
		{[]int{2}, []bool{true}}, {[]int{2}, []bool{false}},
		{[]int{3}, []bool{true}}, {[]int{3}, []bool{false}},
		{[]int{7}, []bool{true}}, {[]int{7}, []bool{false}},
		{[]int{2, 3}, []bool{true, false}}, {[]int{3, 2}, []bool{false, true}},
	}
	// neighbor is the rank one step along dimension d (dir -1 or +1) from
	// coordinates x on the grid, or -1.
	neighbor := func(dims []int, periods []bool, x []int, d, dir int) int {
		y := append([]int(nil), x...)
		y[d] += dir
		if y[d] < 0 || y[d] >= dims[d] {
			if !periods[d] {
				return -1
			}
			y[d] = (y[d] + dims[d]) % dims[d]
		}
		r := 0
		for i := range dims {
			r = r*dims[i] + y[i]
		}
		return r
	}
	for _, rt := range runtimes {
		for _, g := range grids {
			n := 1
			for _, d := range g.dims {
				n *= d
			}
			t.Run(fmt.Sprintf("%s/%v%v", rt.name, g.dims, g.periods), func(t *testing.T) {
				_, err := tryRanksWith(n, rt.setup, func(r *Rank) {
					cc, geo, err := CartCreate(r.World, g.dims, g.periods)
					if err != nil {
						fail(r, err)
						return
					}
					me := cc.Rank()
					x, _ := geo.Coords(me)
					out := make([]Value, 2*len(g.dims))
					for i := range out {
						out[i] = val(float64(100*me + i))
					}
					all, err1 := NeighborAllgather(cc, geo, val(float64(me)))
					a2a, err2 := NeighborAlltoall(cc, geo, out)
					if err := errors.Join(err1, err2); err != nil {
						fail(r, err)
						return
					}
					for i := range out {
						d, dir := i/2, 2*(i%2)-1
						p := neighbor(g.dims, g.periods, x, d, dir)
						var wantAll, wantA2a any
						if p >= 0 {
							wantAll, wantA2a = float64(p), float64(100*p+(i^1))
						}
						if all[i].Data != wantAll || a2a[i].Data != wantA2a {
							fail(r, fmt.Errorf("rank %d position %d: allgather %v alltoall %v, want %v %v", me, i, all[i].Data, a2a[i].Data, wantAll, wantA2a))
						}
					}
					if _, err := NeighborAlltoall(cc, geo, out[1:]); err == nil {
						fail(r, errors.New("alltoall with a value short: no error"))
					}
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestDeadlockNamesNewRequests: a deadlock report names a waiting ssend and
// persistent request.
func TestDeadlockNamesNewRequests(t *testing.T) {
	cases := []struct {
		name string
		body func(r *Rank)
		want string
	}{
		{"ssend", func(r *Rank) { r.World.Ssend(val(1), 1, 4) }, "ssend to 1 tag 4"},
		{"issend", func(r *Rank) {
			q, _ := r.World.Issend(val(1), 1, 4)
			r.Wait(q)
		}, "wait (ssend) to 1 tag 4"},
		{"persistent", func(r *Rank) {
			q, _ := r.World.RecvInit(1, 6)
			r.Start(q)
			s, _ := r.World.SendInit(val(1), 1, 7)
			r.Start(s)
			r.Waitall([]*Request{s, q})
		}, "pending: persistent recv from 1 tag 6"},
		{"mprobe", func(r *Rank) { r.World.Mprobe(1, 8) }, "mprobe from 1 tag 8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tryRanks(2, func(r *Rank) {
				if r.ID == 0 {
					tc.body(r)
				}
			})
			var d *runtime.DeadlockError
			if !errors.As(err, &d) || len(d.Waits) != 1 || !strings.Contains(fmt.Sprint(d.Waits[0]), tc.want) {
				t.Fatalf("got %v (%v), want a deadlock naming %q", err, d, tc.want)
			}
		})
	}
}
