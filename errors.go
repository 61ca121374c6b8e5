package bglua

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bglua/bglua/luabind"
	"github.com/bglua/bglua/mpi"
)

// UsageError is bad input: a program, machine, mapping or suite file that
// cannot be used. (A Config field that cannot is a *ConfigError.)
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usage(format string, args ...any) error { return &UsageError{Msg: fmt.Sprintf(format, args...)} }

// RankError is a Lua error that a rank did not catch; it stops every rank.
type RankError struct {
	Rank      int
	Time      int64   // virtual time of the error, in cycles
	Seconds   float64 // the same in seconds
	Msg       string  // the error, most often "file:line: message"
	Traceback string  // the rank's Lua stack traceback, "" if none
}

func (e *RankError) Error() string { return (*luabind.RankError)(e).Error() }

// AbortError is a call of mpi.abort; it stops every rank.
type AbortError struct {
	Rank    int
	Seconds float64 // virtual time of the call
	Msg     string  // mpi.abort's message
	Code    int     // mpi.abort's code
	Where   string  // Lua file:line of the call
}

func (e *AbortError) Error() string { return (*luabind.AbortError)(e).Error() }

// DeadlockError says that ranks wait for each other with nothing in flight.
type DeadlockError struct {
	Seconds float64
	Blocked []BlockedRank // in rank order
}

// BlockedRank is one rank of a deadlock and what it waits for.
type BlockedRank struct {
	Rank  int
	Wait  string // e.g. "recv from 3 tag 7 on COMM_WORLD"
	Where string // Lua file:line of the blocking call
}

// MaxListed is how many kinds of wait (the same wait at the same place) a
// deadlock report lists, a line each; with more, it lists the rarest
// MaxListed-1, counts the others and ends with the commonest.
const MaxListed = 20

// maxRanges is how many runs of ranks a line of a deadlock report names.
const maxRanges = 8

func (e *DeadlockError) Error() string {
	var b strings.Builder
	// A rank's progress contexts (nonblocking collectives) are listed as
	// the rank: count ranks once.
	ranks := map[int]bool{}
	for _, bl := range e.Blocked {
		ranks[bl.Rank] = true
	}
	fmt.Fprintf(&b, "deadlock at t=%s: %s blocked and no message in flight", FormatSeconds(e.Seconds), plural(len(ranks), "rank"))
	// Ranks that wait for the same thing at the same place share a line,
	// and the rarest waits come first: at scale the rank that is not where
	// the others are is most often the one to look at.
	type group struct {
		wait, where string
		ranks       []int
	}
	var groups []*group
	byKey := map[[2]string]*group{}
	for _, r := range e.Blocked {
		k := [2]string{r.Wait, r.Where}
		g := byKey[k]
		if g == nil {
			g = &group{wait: r.Wait, where: r.Where}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.ranks = append(g.ranks, r.Rank)
	}
	slices.SortStableFunc(groups, func(x, y *group) int { return len(x.ranks) - len(y.ranks) })
	line := func(g *group) {
		if len(g.ranks) == 1 {
			fmt.Fprintf(&b, "\n  rank %d: %s", g.ranks[0], g.wait)
		} else {
			fmt.Fprintf(&b, "\n  ranks %s (%d): %s", rankRuns(g.ranks, maxRanges), len(g.ranks), g.wait)
		}
		if g.where != "" {
			fmt.Fprintf(&b, " at %s", g.where)
		}
	}
	if len(groups) <= MaxListed {
		for _, g := range groups {
			line(g)
		}
		sendrecvHint(&b, e.Blocked)
		formsHint(&b, e.Blocked)
		return b.String()
	}
	// Too many kinds: the rarest, a count of the rest, and the commonest,
	// which says what most ranks do.
	shown, last := groups[:MaxListed-1], groups[len(groups)-1]
	for _, g := range shown {
		line(g)
	}
	n, k := 0, len(groups)-len(shown)-1
	for _, g := range groups[len(shown) : len(groups)-1] {
		n += len(g.ranks)
	}
	fmt.Fprintf(&b, "\n  ... and %s, waiting in %s", plural(n, "more rank"), plural(k, "other way"))
	line(last)
	sendrecvHint(&b, e.Blocked)
	formsHint(&b, e.Blocked)
	return b.String()
}

// sendrecvHint ends a deadlock report where a rank waits in mpi.sendrecv
// with a note on its argument order: mpi.sendrecv(x, right, 0) reads 0 as
// the source, where mpi4py's sendrecv(x, right, 0) means sendtag 0.
func sendrecvHint(b *strings.Builder, blocked []BlockedRank) {
	for _, r := range blocked {
		if strings.HasPrefix(r.Wait, "sendrecv from ") {
			b.WriteString("\n  (mpi.sendrecv's arguments are data, dest, source [, sendtag [, recvtag]]: the third is the source," +
				" not mpi4py's sendtag; mpi.sendrecv{data=x, dest=d, sendtag=t} takes mpi4py's keywords)")
			return
		}
	}
}

// formsHint ends a deadlock report where, on one communicator, a rank waits
// in a blocking collective while another, with no blocking collective
// there, waits for a nonblocking one (its progress context blocked in the
// algorithm): the two forms never match each other (MPI-3 5.12), so those
// ranks wait for ever. (The bcs runtime, which matches collectives itself,
// says so as an error.)
func formsHint(b *strings.Builder, blocked []BlockedRank) {
	type key struct {
		rank int
		comm string
	}
	blocking := map[key]string{}    // a blocking collective a rank waits in
	nonblocking := map[key]string{} // a nonblocking one it waits for
	var order []key                 // the blocking ones, in report order
	for _, r := range blocked {
		i := strings.LastIndex(r.Wait, " on ")
		if i < 0 {
			continue
		}
		comm := r.Wait[i+len(" on "):]
		if rest, ok := strings.CutPrefix(r.Wait, "progress of its mpi.i"); ok {
			name, _, _ := strings.Cut(rest, ":")
			if c, err := mpi.CanonColl(name); err == nil {
				nonblocking[key{r.Rank, comm}] = "i" + c
			}
			continue
		}
		name, _, _ := strings.Cut(r.Wait, " ")
		if c, err := mpi.CanonColl(name); err == nil {
			k := key{r.Rank, comm}
			blocking[k] = c
			order = append(order, k)
		}
	}
	for _, k := range order {
		if _, both := nonblocking[k]; both {
			continue
		}
		for _, o := range blocked { // the first other rank, in report order
			ko := key{o.Rank, k.comm}
			nc, ok := nonblocking[ko]
			if _, has := blocking[ko]; !ok || has || o.Rank == k.rank {
				continue
			}
			fmt.Fprintf(b, "\n  (rank %d waits in %s and rank %d for %s on %s: a blocking collective and a nonblocking one never match each other; every rank must call the same form)",
				k.rank, blocking[k], o.Rank, nc, k.comm)
			return
		}
	}
}

// plural is "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// rankRuns writes ascending ranks as runs, "0-999,1001-1023", at most most
// runs and then "...".
func rankRuns(ranks []int, most int) string {
	var b strings.Builder
	runs := 0
	for i := 0; i < len(ranks); {
		j := i
		for j+1 < len(ranks) && ranks[j+1] == ranks[j]+1 {
			j++
		}
		if runs == most {
			b.WriteString(",...")
			break
		}
		if runs > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", ranks[i], ranks[j])
		} else {
			fmt.Fprintf(&b, "%d", ranks[i])
		}
		runs++
		i = j + 1
	}
	return b.String()
}

// LimitError says that the run passed a limit set in the Config: "virtual
// time" (MaxVTime), "wall time" (Timeout) or "memory" (MaxMemory).
type LimitError struct {
	What  string
	Limit string
	// InUse is the memory the process used when a memory limit stopped it.
	InUse string
	// Seconds is the virtual time when a wall-time or memory limit stopped
	// the run, and Running the ranks whose Lua was running then.
	Seconds float64
	Running []RunningRank
}

// RunningRank is a rank whose Lua was running when a run was stopped from
// outside.
type RunningRank struct {
	Rank  int
	Where string // Lua file:line, "" if not known
}

// String is "3 at ring.lua:12", or "3" without Where.
func (r RunningRank) String() string { return luabind.Running(r).String() }

// formatRunning says which ranks were running Lua, and where.
func formatRunning(r []RunningRank) string {
	return luabind.FormatRunning(convert(r, func(x RunningRank) luabind.Running { return luabind.Running(x) }))
}

// convert is f of every element of in, nil for nil.
func convert[F, T any](in []F, f func(F) T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i, x := range in {
		out[i] = f(x)
	}
	return out
}

func (e *LimitError) Error() string {
	switch e.What {
	case "wall time":
		return fmt.Sprintf("wall-time limit of %s reached at t=%s; %s; raise Config.Timeout or look for a runaway loop",
			e.Limit, FormatSeconds(e.Seconds), formatRunning(e.Running))
	case "memory":
		return fmt.Sprintf("memory limit of %s reached (%s in use) at t=%s; %s; raise Config.MaxMemory or look for a table or string that grows without end",
			e.Limit, e.InUse, FormatSeconds(e.Seconds), formatRunning(e.Running))
	}
	return fmt.Sprintf("%s limit of %s reached; raise Config.MaxVTime or look for a runaway loop", e.What, e.Limit)
}

// InterruptedError says that the run was stopped from outside before it
// ended: its context was canceled (the command: SIGINT or SIGTERM).
type InterruptedError struct {
	Seconds float64
	Running []RunningRank
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted at t=%s; %s", FormatSeconds(e.Seconds), formatRunning(e.Running))
}
