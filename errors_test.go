package bglua

import (
	"fmt"
	"strings"
	"testing"
)

// A deadlock report gives a line to each kind of wait, the rarest first,
// and names the ranks of a kind as runs.
func TestDeadlockReport(t *testing.T) {
	barrier := func(r int) BlockedRank {
		return BlockedRank{Rank: r, Wait: "barrier on COMM_WORLD", Where: "p.lua:2"}
	}
	singles := func(n int) []string {
		var l []string
		for r := range n {
			l = append(l, fmt.Sprintf("rank %d: recv from %d at p.lua:1", r, r+1))
		}
		return l
	}
	many := func(n int, odd func(r int) (BlockedRank, bool)) []BlockedRank {
		var out []BlockedRank
		for r := range n {
			if b, ok := odd(r); ok {
				out = append(out, b)
			} else {
				out = append(out, barrier(r))
			}
		}
		return out
	}
	cases := []struct {
		name    string
		blocked []BlockedRank
		want    []string
	}{
		{"a ring, every wait its own", []BlockedRank{
			{0, "recv from 1", "p.lua:3"}, {1, "recv from 2", "p.lua:3"}, {2, "recv from 0", "p.lua:3"},
		}, []string{
			"rank 0: recv from 1 at p.lua:3",
			"rank 1: recv from 2 at p.lua:3",
			"rank 2: recv from 0 at p.lua:3",
		}},
		{"one rank elsewhere comes first", many(1024, func(r int) (BlockedRank, bool) {
			return BlockedRank{r, "recv from 3", "p.lua:1"}, r == 1000
		}), []string{
			"rank 1000: recv from 3 at p.lua:1",
			"ranks 0-999,1001-1023 (1023): barrier on COMM_WORLD at p.lua:2",
		}},
		{"the same wait at two places is two lines", []BlockedRank{
			barrier(0), {1, "barrier on COMM_WORLD", "p.lua:9"}, barrier(2), barrier(3),
		}, []string{
			"rank 1: barrier on COMM_WORLD at p.lua:9",
			"ranks 0,2-3 (3): barrier on COMM_WORLD at p.lua:2",
		}},
		{"runs beyond the eighth are cut", many(40, func(r int) (BlockedRank, bool) {
			return BlockedRank{r, "recv", ""}, r%2 == 1
		}), []string{
			// Equal counts: in the order of their first ranks.
			"ranks 0,2,4,6,8,10,12,14,... (20): barrier on COMM_WORLD at p.lua:2",
			"ranks 1,3,5,7,9,11,13,15,... (20): recv",
		}},
		{"eight runs are all named", many(16, func(r int) (BlockedRank, bool) {
			return BlockedRank{r, "recv", ""}, r%2 == 1
		}), []string{
			"ranks 0,2,4,6,8,10,12,14 (8): barrier on COMM_WORLD at p.lua:2",
			"ranks 1,3,5,7,9,11,13,15 (8): recv",
		}},
		{"beyond MaxListed kinds: the rarest, a count, the commonest", many(1024, func(r int) (BlockedRank, bool) {
			return BlockedRank{r, fmt.Sprintf("recv from %d", r+1), "p.lua:1"}, r < 25
		}), append(singles(MaxListed-1),
			"... and 6 more ranks, waiting in 6 other ways",
			"ranks 25-1023 (999): barrier on COMM_WORLD at p.lua:2")},
		{"one more, in one other way", many(100, func(r int) (BlockedRank, bool) {
			return BlockedRank{r, fmt.Sprintf("recv from %d", r+1), "p.lua:1"}, r < MaxListed
		}), append(singles(MaxListed-1),
			"... and 1 more rank, waiting in 1 other way",
			"ranks 20-99 (80): barrier on COMM_WORLD at p.lua:2")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := (&DeadlockError{Seconds: 1e-6, Blocked: c.blocked}).Error()
			lines := strings.Split(got, "\n")
			want := fmt.Sprintf("deadlock at t=1us: %d ranks blocked and no message in flight", len(c.blocked))
			if lines[0] != want {
				t.Errorf("first line %q, want %q", lines[0], want)
			}
			for i := range lines[1:] {
				lines[i+1] = strings.TrimPrefix(lines[i+1], "  ")
			}
			if strings.Join(lines[1:], "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(lines[1:], "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// A deadlock where, on one communicator, a rank waits in a blocking
// collective and another for a nonblocking one ends with a note that the
// forms never match; ranks that wait in both, or on other communicators,
// get none.
func TestDeadlockFormsHint(t *testing.T) {
	const hint = "a blocking collective and a nonblocking one never match"
	coll := func(r int, w string) BlockedRank { return BlockedRank{r, w, "p.lua:2"} }
	progress := func(r int, call, w string) BlockedRank {
		return BlockedRank{r, "progress of its mpi." + call + ": " + w, "p.lua:4"}
	}
	cases := []struct {
		name    string
		blocked []BlockedRank
		want    string // "" for no note
	}{
		{"allreduce against iallreduce", []BlockedRank{
			coll(0, "allreduce (collective network) on COMM_WORLD"),
			coll(1, "wait (iallreduce) on COMM_WORLD"),
			progress(1, "iallreduce", "allreduce (collective network) on COMM_WORLD"),
		}, "(rank 0 waits in allreduce and rank 1 for iallreduce on COMM_WORLD: " + hint},
		{"waitall shows no call: the context's line names it", []BlockedRank{
			coll(0, "bcast (binomial) on half"),
			coll(1, "waitall of 2 requests (pending: ibcast on half)"),
			progress(1, "ibcast", "bcast (binomial) on half"),
		}, "(rank 0 waits in bcast and rank 1 for ibcast on half: " + hint},
		{"both forms on each rank, a third rank missing", []BlockedRank{
			coll(0, "allreduce (collective network) on COMM_WORLD"),
			progress(0, "ibarrier", "barrier (global interrupt) on COMM_WORLD"),
			coll(1, "allreduce (collective network) on COMM_WORLD"),
			progress(1, "ibarrier", "barrier (global interrupt) on COMM_WORLD"),
			coll(2, "recv from 0 tag 5 on COMM_WORLD"),
		}, ""},
		{"other communicators", []BlockedRank{
			coll(0, "allreduce (tree) on COMM_WORLD"),
			progress(1, "iallreduce", "allreduce (tree) on row"),
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := (&DeadlockError{Seconds: 1e-6, Blocked: c.blocked}).Error()
			lines := strings.Split(got, "\n")
			last := strings.TrimSpace(lines[len(lines)-1])
			switch {
			case c.want == "" && strings.Contains(got, hint):
				t.Errorf("a note where none is due:\n%s", got)
			case c.want != "" && !strings.HasPrefix(last, c.want):
				t.Errorf("last line %q, want it to start %q", last, c.want)
			}
		})
	}
}
