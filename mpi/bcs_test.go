package mpi

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bglua/bglua/bcs"
)

// withBCS runs the world over the bcs runtime with the given slice.
func withBCS(slice Time, then func(*World) error) func(*World) error {
	return func(w *World) error {
		w.UseBCS(bcs.NewOn(w.Eng, w.ml, slice))
		if then != nil {
			return then(w)
		}
		return nil
	}
}

const testSlice = 350000 // 500 us on BG/L

// runtimes are the two transports every semantic test runs under.
var runtimes = []struct {
	name  string
	setup func(*World) error
}{
	{"direct", nil},
	{"bcs", withBCS(testSlice, nil)},
}

// TestBCSCollectives runs the collective correctness table under bcs: its
// own collectives (auto) and point-to-point algorithms over its transport.
func TestBCSCollectives(t *testing.T) {
	for _, coll := range collectives() {
		run := collCases[coll]
		if run == nil {
			continue
		}
		algs := []string{"auto"}
		for _, a := range algNames(coll) {
			if a != "auto" && a != "tree" && a != "gi" {
				algs = append(algs, a)
				break // one point-to-point algorithm over the bcs transport
			}
		}
		for _, alg := range algs {
			for _, n := range testSizes {
				for _, split := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s/n=%d/split=%v", coll, alg, n, split)
					t.Run(name, func(t *testing.T) {
						reported := 0
						_, err := tryRanksWith(n, withBCS(testSlice, withAlg(coll, alg)), func(r *Rank) {
							c, g, me := commFor(r, split)
							errorf := func(f string, a ...any) {
								if reported++; reported <= 5 {
									t.Errorf("rank %d (%d of %d): %s", r.ID, me, len(g), fmt.Sprintf(f, a...))
								}
							}
							if err := run(c, g, me, errorf); err != nil {
								fail(r, fmt.Errorf("rank %d: %w", r.ID, err))
							}
						})
						if err != nil {
							t.Fatal(err)
						}
					})
				}
			}
		}
	}
}

// p2pCases are point-to-point semantics every runtime must keep; each
// returns a transcript that must be the same under every runtime.
var p2pCases = []struct {
	name  string
	ranks int
	body  func(r *Rank, log func(string, ...any))
}{
	{"non-overtaking and tags", 2, func(r *Rank, log func(string, ...any)) {
		c := r.World
		if r.ID == 0 {
			var qs []*Request // a blocking send of tag 0 could wait for ever: the receiver wants tag 1 first
			for i := 0; i < 5; i++ {
				q, _ := c.Isend(str(fmt.Sprint("m", i)), 1, i%2)
				qs = append(qs, q)
			}
			r.Waitall(qs)
			return
		}
		for _, tag := range []int{1, 0, AnyTag, AnyTag, AnyTag} {
			v, st, _ := c.Recv(0, tag)
			log("tag %d: %v (tag %d, %d B)", tag, v.Data, st.Tag, st.Bytes)
		}
	}},
	{"any source gathers every sender", 5, func(r *Rank, log func(string, ...any)) {
		c := r.World
		if r.ID != 0 {
			c.Send(num(r.ID), 0, 7)
			return
		}
		var got []int
		for i := 1; i < 5; i++ {
			_, st, _ := c.Recv(AnySource, 7)
			got = append(got, st.Source)
		}
		slices.Sort(got)
		log("sources %v", got)
	}},
	{"large message in pieces", 2, func(r *Rank, log func(string, ...any)) {
		c := r.World
		const big = 3 << 20 // more than one slice carries
		if r.ID == 0 {
			c.Send(Value{Size: big}, 1, 0)
			return
		}
		v, st, _ := c.Recv(0, 0)
		log("got %d B (status %d)", v.Size, st.Bytes)
	}},
	{"isend irecv waitall exchange", 4, func(r *Rank, log func(string, ...any)) {
		c := r.World
		n := c.Size()
		right, left := (r.ID+1)%n, (r.ID+n-1)%n
		qs := []*Request{}
		q, _ := c.Irecv(left, 3)
		qs = append(qs, q)
		s, _ := c.Isend(num(r.ID), right, 3)
		qs = append(qs, s)
		r.Waitall(qs)
		log("from left: %v", qs[0].Value.Data)
	}},
	{"probe then receive; iprobe finds nothing first", 2, func(r *Rank, log func(string, ...any)) {
		c := r.World
		if r.ID == 0 {
			r.Compute(100000)
			c.Send(str("probed"), 1, 9)
			return
		}
		ok, _, _ := c.Iprobe(0, 9)
		log("iprobe before: %v", ok)
		st, _ := c.Probe(AnySource, AnyTag)
		log("probe: source %d tag %d bytes %d", st.Source, st.Tag, st.Bytes)
		v, _, _ := c.Recv(st.Source, st.Tag)
		log("recv: %v", v.Data)
	}},
	{"sendrecv ring and PROC_NULL", 3, func(r *Rank, log func(string, ...any)) {
		c := r.World
		n := c.Size()
		v, st, _ := c.Sendrecv(num(r.ID), (r.ID+1)%n, 1, (r.ID+n-1)%n, 1)
		log("got %v from %d", v.Data, st.Source)
		_, st, _ = c.Sendrecv(num(r.ID), ProcNull, 1, ProcNull, 1)
		log("proc null source %d", st.Source)
	}},
	{"waitany and test", 3, func(r *Rank, log func(string, ...any)) {
		c := r.World
		if r.ID != 0 {
			r.Compute(int64(r.ID) * 1000000)
			c.Send(num(r.ID), 0, 0)
			return
		}
		a, _ := c.Irecv(1, 0)
		b, _ := c.Irecv(2, 0)
		log("test before: %v", r.Test(a))
		i := r.Waitany([]*Request{b, a})
		log("first done: index %d", i)
		r.Wait(b)
		r.Wait(a)
		log("both: %v %v", a.Value.Data, b.Value.Data)
	}},
	{"split communicators keep their messages apart", 4, func(r *Rank, log func(string, ...any)) {
		sub := r.World.Split(r.ID%2, r.ID)
		if sub.Rank() == 0 {
			sub.Send(num(r.ID), 1, 0)
			r.World.Send(num(100+r.ID), r.ID+2, 0)
		} else {
			v, _, _ := sub.Recv(0, 0)
			log("sub got %v", v.Data)
		}
		if sub.Rank() == 1 {
			v, _, _ := r.World.Recv(AnySource, 0)
			log("world got %v", v.Data)
		}
	}},
}

// TestBCSPointToPoint runs the same point-to-point programs under both
// runtimes and compares what every rank saw.
func TestBCSPointToPoint(t *testing.T) {
	for _, tc := range p2pCases {
		t.Run(tc.name, func(t *testing.T) {
			var transcripts []string
			for _, rt := range runtimes {
				logs := make([][]string, tc.ranks)
				_, err := tryRanksWith(tc.ranks, rt.setup, func(r *Rank) {
					tc.body(r, func(f string, a ...any) { logs[r.ID] = append(logs[r.ID], fmt.Sprintf(f, a...)) })
				})
				if err != nil {
					t.Fatalf("%s: %v", rt.name, err)
				}
				transcripts = append(transcripts, fmt.Sprint(logs))
			}
			if transcripts[0] != transcripts[1] {
				t.Errorf("runtimes disagree:\ndirect: %s\nbcs:    %s", transcripts[0], transcripts[1])
			}
			if transcripts[0] == fmt.Sprint(make([][]string, tc.ranks)) {
				t.Errorf("the case logged nothing")
			}
		})
	}
}

// TestBCSBlockingCost checks the model's central figure: a blocking send
// posted u cycles into slice i (its receiver waiting) returns at the start
// of slice i+2, so it costs 2 slices - u: 1.5 slices on average.
func TestBCSBlockingCost(t *testing.T) {
	const slice = 175000 // 250 us
	var total float64
	offsets := []Time{1000, 40000, 87500, 120000, 174000}
	for _, u := range offsets {
		var cost Time
		_, err := tryRanksWith(2, withBCS(slice, nil), func(r *Rank) {
			c := r.World
			if r.ID == 1 {
				c.Recv(0, 0)
				return
			}
			r.Compute(3*slice + u - r.Now())
			t0 := r.Now()
			c.Send(num(1), 1, 0)
			cost = r.Now() - t0
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := 2*slice - u; cost != want {
			t.Errorf("send posted %d cycles into a slice took %d cycles, want %d", u, cost, want)
		}
		total += float64(cost)
	}
	if avg := total / float64(len(offsets)) / slice; avg < 1.4 || avg > 1.6 {
		t.Errorf("average cost %.3f slices, want about 1.5", avg)
	}
}

// TestBCSDeadlock: a receive nobody sends to ends the run as a deadlock
// instead of strobing for ever.
func TestBCSDeadlock(t *testing.T) {
	_, err := tryRanksWith(2, withBCS(testSlice, nil), func(r *Rank) {
		if r.ID == 0 {
			r.World.Recv(1, 0)
		}
	})
	if err == nil || !strings.Contains(err.Error(), "deadlock") {
		t.Fatalf("got %v, want a deadlock", err)
	}
}

// TestBCSDisagreement: ranks that call different collectives, or the same
// with different roots, get an error instead of a wrong result.
func TestBCSDisagreement(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func(r *Rank) error
		want string
	}{
		{"roots", func(r *Rank) error { _, err := Bcast(r.World, num(1), r.ID%2); return err }, "bcast: rank 1 has root 1 but rank 0 has root 0 (COMM_WORLD)"},
		{"collectives", func(r *Rank) error {
			if r.ID == 0 {
				_, err := Allreduce(r.World, num(1), SUM)
				return err
			}
			_, err := Reduce(r.World, num(1), SUM, 0)
			return err
		}, "rank 1 called reduce but rank 0 called allreduce (COMM_WORLD)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := make([]error, 4)
			_, err := tryRanksWith(4, withBCS(testSlice, nil), func(r *Rank) { errs[r.ID] = tc.body(r) })
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range errs {
				if e == nil || !strings.Contains(e.Error(), tc.want) {
					t.Errorf("rank %d: got %v, want an error with %q", i, e, tc.want)
				}
			}
		})
	}
}

// TestBCSNonblockingCollectiveCost checks the model of a nonblocking
// collective under bcs: an iallreduce that every rank posts in slice j is
// carried out in slice j+1 (its reduce microphase ends at E); a wait that
// finds it done returns at once, and one entered before E restarts the
// rank at the strobe of slice j+2, as the blocking allreduce would. So
// computation between the start and the wait hides the collective once it
// reaches E.
func TestBCSNonblockingCollectiveCost(t *testing.T) {
	const slice = 175000 // 250 us
	for _, tc := range []struct {
		u, comp Time // the post, cycles into its slice; the computation after it
		hidden  bool // the collective is done when the wait comes
	}{
		{1000, 0, false}, {87500, 0, false}, {170000, 0, false},
		{1000, slice / 2, false}, {87500, slice, true}, {170000, slice / 2, true},
		{1000, 2 * slice, true}, {87500, 2 * slice, true},
	} {
		t.Run(fmt.Sprintf("u=%d/compute=%d", tc.u, tc.comp), func(t *testing.T) {
			marks := map[int64][7]Time{}
			var blocking Time
			costs := make([]Time, 8)
			var call Time
			_, err := tryRanksWith(8, withBCS(slice, func(w *World) error {
				w.BCS().OnSlice = func(k int64, m [7]Time) { marks[k] = m }
				call = w.m.MPICallCycles
				return nil
			}), func(r *Rank) {
				r.Compute(3*slice + tc.u - r.Now())
				t0 := r.Now()
				if _, err := Allreduce(r.World, num(r.ID), SUM); err != nil {
					fail(r, err)
					return
				}
				if r.ID == 0 {
					blocking = r.Now() - t0
				}
				r.Compute(6*slice + tc.u - r.Now())
				t0 = r.Now()
				q, err := Iallreduce(r.World, num(r.ID), SUM)
				if err != nil {
					fail(r, err)
					return
				}
				r.Compute(tc.comp)
				r.Wait(q)
				costs[r.ID] = r.Now() - t0
				v, _, _ := q.Result()
				if !same(v, num(35)) { // 1 + ... + 8
					t.Errorf("rank %d: iallreduce gave %v, want 36", r.ID, v.Data)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := 2*slice - tc.u; blocking != want {
				t.Errorf("blocking allreduce posted %d cycles into a slice took %d cycles, want %d", tc.u, blocking, want)
			}
			post := 6*slice + tc.u + call
			j := int64(post / slice) // the slice it was posted in; run in j+1
			end := marks[j+1][6]     // its reduce microphase's end
			if end <= Time(j+1)*slice || end >= Time(j+2)*slice {
				t.Fatalf("slice %d: reduce microphase ends at %d, not inside the slice [%d, %d)", j+1, end, (j+1)*slice, (j+2)*slice)
			}
			want := Time(j+2)*slice - (post - call) // restarted at the strobe of slice j+2
			if post+tc.comp >= end {
				want = tc.comp + 2*call // done: the wait returns at once
			}
			if (post+tc.comp >= end) != tc.hidden {
				t.Errorf("the wait at %d finds the collective done: %v, want %v (it ends at %d)", post+tc.comp, !tc.hidden, tc.hidden, end)
			}
			for i, c := range costs {
				if c != want {
					t.Errorf("rank %d: iallreduce, %d cycles of computation and wait took %d cycles, want %d", i, tc.comp, c, want)
				}
			}
			t.Logf("posted %d into slice %d, done at %d (%.1f us into slice %d): blocking %d, nonblocking with %d of computation %d cycles",
				tc.u, j, end, float64(end-Time(j+1)*slice)/700, j+1, blocking, tc.comp, costs[0])
		})
	}
}

// TestBCSNonblockingOrder: under bcs, nonblocking collectives on two
// communicators are matched per communicator in the order each rank
// started them there, whatever the order between communicators, with
// a blocking call after them; test says done once the microphase has moved
// the data, before the next strobe.
func TestBCSNonblockingOrder(t *testing.T) {
	const n = 6
	_, err := tryRanksWith(n, withBCS(testSlice, nil), func(r *Rank) {
		w := r.World
		sub := w.Split(r.ID%2, -r.ID) // reversed: rank n-1 or n-2 is 0
		var a, b, c, d *Request
		if r.ID%2 == 0 {
			a, _ = Ibcast(sub, num(r.ID), 0)
			b, _ = Iallreduce(w, num(r.ID), MAX)
			c, _ = Iallreduce(sub, num(r.ID), SUM)
			d, _ = Ibarrier(w)
		} else {
			b, _ = Iallreduce(w, num(r.ID), MAX)
			d, _ = Ibarrier(w)
			a, _ = Ibcast(sub, num(r.ID), 0)
			c, _ = Iallreduce(sub, num(r.ID), SUM)
		}
		if r.Test(a) || r.Test(b) {
			t.Errorf("rank %d: complete in the slice it was posted in", r.ID)
		}
		// Half into the next slice: its microphases are over, its strobe
		// restarted no one yet.
		s := r.w.BCS()
		p0 := s.SliceAt(r.Now())
		r.Compute(Time(p0+1)*testSlice + testSlice/2 - r.Now())
		if !r.Testall([]*Request{a, b, c, d}) || s.SliceAt(r.Now()) != p0+1 {
			t.Errorf("rank %d: posted in slice %d, not all done in slice %d", r.ID, p0, s.SliceAt(r.Now()))
		}
		x, err := Allreduce(sub, num(r.ID), MIN) // blocking, after a and c
		if err != nil {
			fail(r, err)
			return
		}
		r.Waitall([]*Request{c, a, d, b})
		top := n - 2 + r.ID%2 // rank 0 of sub
		sum := 0
		for i := r.ID % 2; i < n; i += 2 {
			sum += i + 1
		}
		for _, k := range []struct {
			name      string
			got, want Value
		}{
			{"ibcast", nbcValue(a), num(top)},
			{"iallreduce world", nbcValue(b), num(n - 1)},
			{"iallreduce sub", nbcValue(c), Value{Data: float64(sum), Size: 8}},
			{"allreduce sub", x, num(r.ID % 2)},
		} {
			if !same(k.got, k.want) {
				t.Errorf("rank %d: %s gave %v, want %v", r.ID, k.name, k.got.Data, k.want.Data)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func nbcValue(q *Request) Value {
	v, _, _ := q.Result()
	return v
}
