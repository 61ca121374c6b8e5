package bcs

// The core primitives of [BCS] section 2, for system software written in
// Lua: Xfer-And-Signal, Test-Event and Compare-And-Write. They act at once on
// the network, outside the slice schedule (the runtime itself is built from
// them), and they are sequentially consistent: the engine runs one thing at
// a time, and a Compare-And-Write compares and writes at one instant.

// Signal is one delivery of an Xfer-And-Signal to an event.
type Signal struct {
	Src     int // world rank of the sender
	Payload any
	Bytes   int
}

type eventKey struct {
	rank int
	name string
}

type varKey struct {
	rank int
	name string
}

type coreState struct {
	events  map[eventKey][]Signal
	waiting map[eventKey]bool
	vars    map[varKey]float64
}

func (s *Sched) core() *coreState {
	if s.cs == nil {
		s.cs = &coreState{events: map[eventKey][]Signal{}, waiting: map[eventKey]bool{}, vars: map[varKey]float64{}}
	}
	return s.cs
}

// XferAndSignal puts bytes of payload from rank src into every rank of
// dests, signalling event remote at each when its copy has arrived, and
// event local ("" for none) at src once every copy has. It returns when the
// last copy arrives.
func (s *Sched) XferAndSignal(src int, dests []int, payload any, bytes int, remote, local string) Time {
	now := s.eng.Now()
	last := now
	sn := s.mp.Node(src)
	for _, d := range dests {
		at := s.move(sn, s.mp.Node(d), bytes, now)
		last = max(last, at)
		k := eventKey{d, remote}
		sig := Signal{Src: src, Payload: payload, Bytes: bytes}
		s.eng.At(at, signalAction{s, k, sig})
	}
	if local != "" {
		s.eng.At(last, signalAction{s, eventKey{src, local}, Signal{Src: src, Bytes: 0}})
	}
	return last
}

type signalAction struct {
	s   *Sched
	k   eventKey
	sig Signal
}

func (a signalAction) Act(now Time) {
	cs := a.s.core()
	cs.events[a.k] = append(cs.events[a.k], a.sig)
	if cs.waiting[a.k] {
		delete(cs.waiting, a.k)
		a.s.WakeNow(a.k.rank, now)
	}
}

// TestEvent takes one signal of rank's event if there is one.
func (s *Sched) TestEvent(rank int, name string) (Signal, bool) {
	cs := s.core()
	k := eventKey{rank, name}
	q := cs.events[k]
	if len(q) == 0 {
		return Signal{}, false
	}
	sig := q[0]
	if len(q) == 1 {
		delete(cs.events, k)
	} else {
		cs.events[k] = q[1:]
	}
	return sig, true
}

// AwaitEvent asks that rank be woken (WakeNow) when its event is signalled.
func (s *Sched) AwaitEvent(rank int, name string) {
	s.core().waiting[eventKey{rank, name}] = true
}

// Var is rank's global variable name (0 if never written).
func (s *Sched) Var(rank int, name string) float64 { return s.core().vars[varKey{rank, name}] }

// SetVar writes rank's global variable name.
func (s *Sched) SetVar(rank int, name string, v float64) { s.core().vars[varKey{rank, name}] = v }

// Compare is the comparison of a Compare-And-Write.
type Compare func(a, b float64) bool

// Compares are the comparisons Compare-And-Write knows, by their Lua names.
var Compares = map[string]Compare{
	"==": func(a, b float64) bool { return a == b },
	"~=": func(a, b float64) bool { return a != b },
	"<":  func(a, b float64) bool { return a < b },
	"<=": func(a, b float64) bool { return a <= b },
	">":  func(a, b float64) bool { return a > b },
	">=": func(a, b float64) bool { return a >= b },
}

// CompareAndWrite compares the variable name on every rank of dests with
// value; if cmp holds on all of them and write is not "", it writes
// writeValue into variable write on all of them. The caller is expected to
// have waited P.CAW first (the query's latency).
func (s *Sched) CompareAndWrite(dests []int, name string, cmp Compare, value float64, write string, writeValue float64) bool {
	cs := s.core()
	for _, d := range dests {
		if !cmp(cs.vars[varKey{d, name}], value) {
			return false
		}
	}
	if write != "" {
		for _, d := range dests {
			cs.vars[varKey{d, write}] = writeValue
		}
	}
	return true
}
