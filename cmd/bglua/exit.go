package main

import (
	"context"
	"errors"
	"strings"

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
	var c *bglua.ConfigError
	var d *bglua.DeadlockError
	var l *bglua.LimitError
	var in *bglua.InterruptedError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &u), errors.As(err, &c):
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

// flagOf is the run flag that sets each field of bglua.Config, for the
// errors of a run (a case field has the flag's name).
var flagOf = map[string]string{
	"Ranks": "--ranks", "Torus": "--torus", "Mode": "--mode", "Mapping": "--mapping",
	"Machine": "--machine", "Runtime": "--runtime", "Timeslice": "--timeslice", "EMDS": "--mds emds",
	"Coll": "--coll", "Routing": "--routing", "MaxVTime": "--max-vtime", "Timeout": "--timeout",
	"MaxMemory": "--max-memory", "EagerLimit": "--eager-limit", "RzvLimit": "--rzv-limit", "Grain": "--grain",
	"Threads": "--threads",
}

// fieldsAsFlags names in a reason the fields it mentions as flags.
var fieldsAsFlags = strings.NewReplacer(`Runtime "bcs"`, "--runtime bcs")

// flagError says a *bglua.ConfigError in the command's words, naming the
// flag of the field; other errors it returns as they are.
func flagError(err error) error {
	var c *bglua.ConfigError
	if !errors.As(err, &c) {
		return err
	}
	name, ok := flagOf[c.Field]
	if !ok {
		return err
	}
	return &bglua.UsageError{Msg: fieldsAsFlags.Replace(c.Named(name))}
}
