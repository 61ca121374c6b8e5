package runtime

import "fmt"

// DeadlockError says that no event is pending while processes are still blocked.
type DeadlockError struct {
	Time    Time
	Blocked []*Proc  // in spawn order; each has its Wait set
	Where   []string // Engine.Locate of each blocked process, if set
	Waits   []any    // what each waited for, as it was when the deadlock was found
}

func (d *DeadlockError) Error() string {
	return fmt.Sprintf("deadlock at cycle %d: %d processes blocked with nothing pending", d.Time, len(d.Blocked))
}

// LimitError says that virtual time would have passed the limit set with SetLimit.
type LimitError struct {
	Limit, Time Time
}

func (l *LimitError) Error() string {
	return fmt.Sprintf("virtual time limit of %d cycles reached (next event at cycle %d)", l.Limit, l.Time)
}
