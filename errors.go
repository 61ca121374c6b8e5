package bglua

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/bglua/bglua/luabind"
)

// UsageError is bad input: flags, configuration, mapping or program files.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usage(format string, args ...any) error { return &UsageError{Msg: fmt.Sprintf(format, args...)} }

// RankError is a Lua error that a rank did not catch; AbortError is a call
// of mpi.abort. Both stop every rank.
type (
	RankError  = luabind.RankError
	AbortError = luabind.AbortError
)

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

// MaxListed is how many blocked ranks a deadlock report lists.
const MaxListed = 20

func (e *DeadlockError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "deadlock at t=%s: %d ranks blocked and no message in flight", luabind.FormatSeconds(e.Seconds), len(e.Blocked))
	for i, r := range e.Blocked {
		if i == MaxListed {
			fmt.Fprintf(&b, "\n  ... and %d more", len(e.Blocked)-MaxListed)
			break
		}
		fmt.Fprintf(&b, "\n  rank %d: %s", r.Rank, r.Wait)
		if r.Where != "" {
			fmt.Fprintf(&b, " at %s", r.Where)
		}
	}
	return b.String()
}

// LimitError says that the run passed a limit set in the Config.
type LimitError struct {
	What  string
	Limit string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s limit of %s reached; raise --max-vtime or look for a runaway loop", e.What, e.Limit)
}

// Exit statuses of API.md.
const (
	ExitOK       = 0
	ExitError    = 1
	ExitUsage    = 2
	ExitDeadlock = 3
	ExitLimit    = 4
)

// ExitCode maps a Run error to the exit status of the bglua command.
func ExitCode(err error) int {
	var u *UsageError
	var d *DeadlockError
	var l *LimitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &u):
		return ExitUsage
	case errors.As(err, &d):
		return ExitDeadlock
	case errors.As(err, &l):
		return ExitLimit
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return ExitLimit
	}
	return ExitError
}
