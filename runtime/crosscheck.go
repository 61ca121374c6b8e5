package runtime

import (
	"bytes"
	"fmt"
)

// A CrossingCheck is a debug check for running partitions in several
// processes (docs/distributed.md): there an event sent to another
// partition is encoded when it is sent, while in one process it reads what
// it points to when it runs, a window or more later. The two agree only if
// nothing the event carries changes in between. Under a check
// (Group.Check), every event sent to another partition is put in its wire
// form when it is sent and again when it runs, before its Act; forms that
// differ stop the run with a *CrossingError.
type CrossingCheck interface {
	// Form is a's wire form as its fields are now, nil if a is not
	// checked. It is called in the sender's partition at Send and in the
	// destination's before a runs.
	Form(a Action) []byte
	// Differ says how two forms of a differ.
	Differ(a Action, sent, ran []byte) string
}

// A CrossingError stops a run under a CrossingCheck: an event of kind Kind
// sent by partition From at Sent ran in partition To at Ran with other
// fields than it was sent with (Diff says which).
type CrossingError struct {
	Kind      string
	From, To  int
	Sent, Ran Time
	Diff      string
}

func (e *CrossingError) Error() string {
	return fmt.Sprintf("runtime: a %s sent by partition %d at cycle %d ran in partition %d at cycle %d with other fields than it was sent with: %s",
		e.Kind, e.From, e.Sent, e.To, e.Ran, e.Diff)
}

// checked is an event sent under a CrossingCheck, with its form at Send.
type checked struct {
	a        Action
	form     []byte
	check    CrossingCheck
	dst      *Engine
	from     int
	sentTime Time
}

func (c *checked) Act(now Time) {
	if ran := c.check.Form(c.a); !bytes.Equal(ran, c.form) {
		c.dst.Stop(&CrossingError{Kind: fmt.Sprintf("%T", c.a), From: c.from, To: c.dst.part.idx, Sent: c.sentTime, Ran: now,
			Diff: c.check.Differ(c.a, c.form, ran)})
		return
	}
	c.a.Act(now)
}

// checkSent wraps a, sent by e to dst, under the group's check (a itself
// if it has none, or a has no form).
func (e *Engine) checkSent(dst *Engine, a Action) Action {
	c := e.part.g.Check
	if c == nil {
		return a
	}
	form := c.Form(a)
	if form == nil {
		return a
	}
	return &checked{a: a, form: form, check: c, dst: dst, from: e.part.idx, sentTime: e.now}
}
