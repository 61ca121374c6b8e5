package main

import (
	"context"
	"errors"
	"strings"

	"github.com/bglua/bglua"
)

// Exit statuses of the command (docs/cli.md).
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
	var ab *bglua.AbortError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ab):
		return abortStatus(ab.Code)
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

// abortStatus is the exit status of mpi.abort(code): the code as a
// process's exit(code) gives it (its low 8 bits), as MPI_Abort's errorcode
// becomes mpirun's status. An abort is never a success: a code whose low
// bits are 0 exits 1, so that scripts and CI see the failure.
func abortStatus(code int) int {
	if s := code & 0xff; s != 0 {
		return s
	}
	return exitError
}

// flagOf is the run flag that sets each field of bglua.Config, for the
// errors of a run (a case field has the flag's name).
var flagOf = map[string]string{
	"Ranks": "--ranks", "Torus": "--torus", "Mode": "--mode", "Mapping": "--mapping",
	"Machine": "--machine", "Runtime": "--runtime", "Timeslice": "--timeslice", "EMDS": "--mds emds",
	"Coll": "--coll", "Routing": "--routing", "ProgressModel": "--progress-model", "MaxVTime": "--max-vtime", "Timeout": "--timeout",
	"MaxMemory": "--max-memory", "EagerLimit": "--eager-limit", "RzvLimit": "--rzv-limit", "Grain": "--grain",
	"Threads": "--threads",
}

// fieldsAsFlags names as flags the Config fields that the root package's
// messages mention ("raise Config.Timeout").
var fieldsAsFlags = strings.NewReplacer(
	"Config.Timeout", "--timeout", "Config.MaxMemory", "--max-memory", "Config.MaxVTime", "--max-vtime",
	`Config.Runtime "bcs"`, "--runtime bcs", "Config.Coll ", "--coll ",
)

// flagError says an error of a run in the command's words: a
// *bglua.ConfigError names the flag of its field, and the advice of a
// *bglua.LimitError the flag of its limit. Other errors it returns as they
// are.
func flagError(err error) error {
	var c *bglua.ConfigError
	if errors.As(err, &c) {
		if name, ok := flagOf[c.Field]; ok {
			return &bglua.UsageError{Msg: fieldsAsFlags.Replace(c.Named(name))}
		}
		return err
	}
	if errors.As(err, new(*bglua.LimitError)) {
		return &flagged{msg: fieldsAsFlags.Replace(err.Error()), err: err}
	}
	return err
}

// flagged is an error with its message in the command's words.
type flagged struct {
	msg string
	err error
}

func (f *flagged) Error() string { return f.msg }
func (f *flagged) Unwrap() error { return f.err }
