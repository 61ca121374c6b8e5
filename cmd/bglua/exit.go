package main

import (
	"context"
	"errors"

	"github.com/bglua/bglua"
)

// Exit statuses of API.md.
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitDeadlock = 3
	exitLimit    = 4
	// exitInterrupted is the shell's status for a process ended by SIGINT.
	exitInterrupted = 130
)

// exitCode maps an error of a run to the exit status of the command.
func exitCode(err error) int {
	var u *bglua.UsageError
	var d *bglua.DeadlockError
	var l *bglua.LimitError
	var in *bglua.InterruptedError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &u):
		return exitUsage
	case errors.As(err, &d):
		return exitDeadlock
	case errors.As(err, &l):
		return exitLimit
	case errors.As(err, &in), errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.Is(err, context.DeadlineExceeded):
		return exitLimit
	}
	return exitError
}
