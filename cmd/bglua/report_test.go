package main

import (
	"testing"

	"github.com/bglua/bglua"
)

// The summary line says what moved on every network, not only MPI's
// messages.
func TestMoved(t *testing.T) {
	for _, c := range []struct {
		r    bglua.Result
		want string
	}{
		{bglua.Result{}, "0 messages"},
		{bglua.Result{Messages: 1}, "1 message"},
		{bglua.Result{Messages: 48}, "48 messages"},
		{bglua.Result{ActiveMessages: 7}, "7 messages (7 active)"},
		{bglua.Result{Messages: 3, ActiveMessages: 2}, "5 messages (2 active)"},
		{bglua.Result{TreeOps: 1}, "0 messages, 1 tree operation"},
		{bglua.Result{Messages: 69, GIOps: 2}, "69 messages, 2 global-interrupt barriers"},
		{bglua.Result{Messages: 4, ActiveMessages: 1, TreeOps: 3, GIOps: 1}, "5 messages (1 active), 3 tree operations, 1 global-interrupt barrier"},
		{bglua.Result{Messages: 20, BCSCollectives: 1}, "20 messages, 1 bcs collective"},
	} {
		if got := moved(&c.r); got != c.want {
			t.Errorf("moved(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}
