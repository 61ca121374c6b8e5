package runtime

// A model that takes some of its events out of the queue for a while (it
// knows what they do without running them) may have to run them after all,
// up to the point the run has reached: it runs them on an engine of its
// own (NewAt), up to the current event of the run's engine (Current,
// RunBefore), and puts those left back in the run's queue (MoveTo).

// NewAt returns a lone engine whose clock starts at t, for a model's own
// events: RunBefore runs them, MoveTo hands them on. It has no processes.
func NewAt(t Time) *Engine {
	e := New()
	e.now = t
	return e
}

// Current is the event being dispatched: its time, key and action (a
// process's resumption while the process runs).
func (e *Engine) Current() (Time, uint64, Action) { return e.now, e.cur, e.curAct }

// RunBefore dispatches, in order, the events that come before an event of
// time t, key key and action act (Current), and returns how many it ran.
// They must be actions, not processes.
func (e *Engine) RunBefore(t Time, key uint64, act Action) uint64 {
	bound := event{t: t, key: key, act: act}
	var ran uint64
	for e.q.len() > 0 {
		top := e.q.top()
		if !top.before(&bound) && !(top.same(&bound) && top.tieBefore(&bound)) {
			break
		}
		ev := e.q.pop()
		if ev.key&keyedFlag != 0 && e.q.twin(&ev) {
			ev = e.q.popTie(ev)
		}
		if !ev.before(&bound) && !(ev.same(&bound) && ev.tieBefore(&bound)) {
			e.q.push(ev, e.now)
			break
		}
		e.prev, e.now = e.now, ev.t
		e.events++
		ran++
		e.cur, e.curAct = ev.key, ev.act
		ev.act.Act(e.now)
	}
	return ran
}

// MoveTo moves e's pending events to dst's queue, with their times and
// keys; none may be due before dst's current time.
func (e *Engine) MoveTo(dst *Engine) {
	e.q.each(func(ev *event) { dst.q.push(*ev, dst.now) })
	e.q = queue{}
}

// AddEvents counts n more events as dispatched by e (a model's events that
// it did not need to run; n < 0: events it ran that stand for none).
func (e *Engine) AddEvents(n int64) { e.events += uint64(n) }

// ScheduleTied is ScheduleKey with a key as Current gives it: an event
// placed where another of that time and key would be.
func (e *Engine) ScheduleTied(t Time, key uint64, a Action) { e.schedule(t, key, a) }

// TiedKey is the key ScheduleKey gives an event of priority prio and tie
// key tie.
func TiedKey(prio int32, tie uint64) uint64 { return tiedKey(prio, tie) }

// StopPoint is where a run that has stopped stopped: the events before it
// in queue order ran, none after. After an error of its own, the event that
// stopped it; otherwise the cycle after the last one the engine could run
// (its last window's, or its time limit).
func (e *Engine) StopPoint() (Time, uint64, Action) {
	if e.err != nil {
		if _, ok := e.err.(*LimitError); !ok {
			return e.Current()
		}
	}
	end := min(e.horizon, e.limit)
	if g := e.part.g; g != nil && (len(g.parts) > 1 || g.forceWindows) {
		end = g.lastHz
		if _, ok := g.err.(*LimitError); ok {
			end = g.limit // every event up to it ran
		}
	}
	if end == Never {
		return Never, 0, nil
	}
	return end + 1, 0, nil
}

// Reach moves a stopped engine's clock on to t, if later: the time of the
// last of a model's events that it ran on an engine of its own.
func (e *Engine) Reach(t Time) { e.now = max(e.now, t) }

// EachPending calls fn for every event still queued in e, in no set order:
// its time, its key, its action. A model that runs some of its events on
// an engine of its own reads what is left of them there.
func (e *Engine) EachPending(fn func(t Time, key uint64, act Action)) {
	e.q.each(func(ev *event) { fn(ev.t, ev.key, ev.act) })
}

// RunAll dispatches every event of a lone engine (NewAt), in order, and
// returns how many it ran.
func (e *Engine) RunAll() uint64 { return e.RunBefore(Never, ^uint64(0), nil) }

// Ended reports whether e's run has dispatched its last event: what runs
// now is the run's ending (its processes unwinding, its reports), and a
// model that must bring its state to where the run stopped goes to
// StopPoint, not to Current.
func (e *Engine) Ended() bool { return e.ended }

// Void undoes the dispatch of the event being dispatched, which stands for
// nothing (a model's event whose work was done otherwise): it is not
// counted, and the clock goes back to where the event before left it, so
// that it cannot be the last time a run reached.
func (e *Engine) Void() { e.now, e.events = e.prev, e.events-1 }
