package runtime

import (
	"context"
	"errors"
	"testing"
)

// A run that ends with an idle process parked is not a deadlock, and the
// process is stopped; the same process blocked while not idle is.
func TestIdleIsNotDeadlock(t *testing.T) {
	for _, idle := range []bool{true, false} {
		e := New()
		stopped := false
		e.Spawn(0, 0, func(p *Proc) {
			defer func() { stopped = true }()
			p.Idle = idle
			p.Block("work")
		})
		err := e.Run(context.Background())
		var d *DeadlockError
		switch {
		case idle && err != nil:
			t.Errorf("idle: %v", err)
		case !idle && !errors.As(err, &d):
			t.Errorf("not idle: got %v, want a deadlock", err)
		}
		if !stopped {
			t.Errorf("idle %v: the parked process was not stopped", idle)
		}
	}
}

// OnRun is called each time a process gets the baton back after it parked
// (Block, or a SleepUntil that yields), and not when SleepUntil just moves
// the clock on.
func TestOnRun(t *testing.T) {
	e := New()
	var log []string
	var a *Proc
	a = e.Spawn(0, 0, func(p *Proc) {
		p.OnRun = func() { log = append(log, "a") }
		p.SleepUntil(10) // nothing else is due: the clock moves on
		p.Block("b's wake")
		p.SleepUntil(30) // b is due at 20: a yields
	})
	e.Spawn(1, 15, func(p *Proc) {
		p.OnRun = func() { log = append(log, "b") }
		e.Wake(a, 15)
		p.SleepUntil(20)
	})
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := len(log); got != 3 || log[0] != "a" || log[1] != "b" || log[2] != "a" {
		t.Errorf("OnRun calls %v, want [a b a]", log)
	}
}
