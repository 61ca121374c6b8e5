package mpinet

import (
	"fmt"
	"sync"
)

// NewLocal returns the size processes of a job whose processes are
// goroutines of this Go process: nets[i] is process i's Net, to be used by
// one goroutine (the "process") at a time. Collective calls block until
// every process has made its own, as under MPI; processes that make
// different calls (another method, op, root or vector length) all get an
// error rather than a deadlock or a wrong result. Abort wakes every process
// waiting in a collective with ErrAborted and makes later calls fail with
// it; it returns (a goroutine cannot end its Go process's siblings), and
// Aborted says with which code.
func NewLocal(size int) []Net {
	if size < 1 {
		panic(fmt.Sprintf("mpinet: NewLocal(%d)", size))
	}
	h := &hub{n: size, in: make([]any, size), res: make([]any, size), abortCode: -1}
	h.cond.L = &h.mu
	nets := make([]Net, size)
	for i := range nets {
		nets[i] = &local{h: h, rank: i}
	}
	return nets
}

// Aborted reports the code passed to Abort by a process of n's local job,
// if one did (n must come from NewLocal).
func Aborted(n Net) (code int, ok bool) {
	h := n.(*local).h
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.abortCode, h.abortCode >= 0
}

// hub is the shared state of a local job: one collective call at a time,
// the contributions of those that came, the results of the last one done.
type hub struct {
	mu   sync.Mutex
	cond sync.Cond
	n    int

	gen     uint64 // collective calls completed
	arrived int
	call    callKey
	bad     bool  // the calls of this round differ
	in      []any // this round's contributions, by process
	res     []any // the last completed round's results, by process
	resErr  error
	aborted bool

	abortCode int
}

// callKey is what every process's call of a collective must agree on.
type callKey struct {
	what string
	op   Op
	root int
	n    int
}

type local struct {
	h      *hub
	rank   int
	closed bool
}

func (l *local) Rank() int { return l.rank }
func (l *local) Size() int { return l.h.n }

// collective makes this process's call k with contribution v; the last
// process to arrive runs done on every contribution, whose result i is
// process i's.
func (l *local) collective(k callKey, v any, done func(in []any) []any) (any, error) {
	h := l.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if l.closed {
		return nil, fmt.Errorf("mpinet: %s after Close", k.what)
	}
	if h.aborted {
		return nil, ErrAborted
	}
	if h.arrived == 0 {
		h.call, h.bad = k, false
	} else if k != h.call {
		h.bad = true
	}
	h.in[l.rank] = v
	h.arrived++
	gen := h.gen
	if h.arrived == h.n {
		if h.bad {
			h.res, h.resErr = make([]any, h.n), fmt.Errorf("mpinet: the processes made different collective calls (process %d: %s)", l.rank, describe(k))
		} else {
			h.res, h.resErr = done(h.in), nil
		}
		h.in = make([]any, h.n)
		h.arrived = 0
		h.gen++
		h.cond.Broadcast()
	} else {
		for h.gen == gen && !h.aborted {
			h.cond.Wait()
		}
		if h.gen == gen {
			return nil, ErrAborted
		}
	}
	// The next round cannot complete before this process joins it, so
	// res is still this round's.
	return h.res[l.rank], h.resErr
}

func describe(k callKey) string {
	switch k.what {
	case "AllreduceInt64":
		return fmt.Sprintf("%s(%s, %d values)", k.what, k.op, k.n)
	case "Bcast":
		return fmt.Sprintf("%s(root %d)", k.what, k.root)
	}
	return k.what
}

func (l *local) ExchangeBytes(out [][]byte) ([][]byte, error) {
	if err := checkOut(l, out); err != nil {
		return nil, err
	}
	// Copied now: the caller may reuse out once the call returns, as under
	// MPI, and the receivers' slices are theirs.
	total := 0
	for _, b := range out {
		total += len(b)
	}
	buf := make([]byte, 0, total)
	mine := make([][]byte, len(out))
	for p, b := range out {
		start := len(buf)
		buf = append(buf, b...)
		mine[p] = buf[start:len(buf):len(buf)]
	}
	r, err := l.collective(callKey{what: "ExchangeBytes"}, mine, func(in []any) []any {
		res := make([]any, l.h.n)
		for d := range res {
			got := make([][]byte, l.h.n)
			for s := range got {
				got[s] = in[s].([][]byte)[d]
			}
			res[d] = got
		}
		return res
	})
	if err != nil {
		return nil, err
	}
	return r.([][]byte), nil
}

func (l *local) AllreduceInt64(op Op, v []int64) error {
	if op >= opCount {
		return fmt.Errorf("mpinet: AllreduceInt64 with %s", op)
	}
	r, err := l.collective(callKey{what: "AllreduceInt64", op: op, n: len(v)}, append([]int64(nil), v...), func(in []any) []any {
		acc := append([]int64(nil), in[0].([]int64)...)
		for _, x := range in[1:] {
			for i, y := range x.([]int64) {
				acc[i] = op.combine(acc[i], y)
			}
		}
		res := make([]any, l.h.n)
		for i := range res {
			res[i] = acc
		}
		return res
	})
	if err != nil {
		return err
	}
	copy(v, r.([]int64))
	return nil
}

func (l *local) Bcast(root int, b []byte) ([]byte, error) {
	if root < 0 || root >= l.h.n {
		return nil, fmt.Errorf("mpinet: Bcast from process %d of %d", root, l.h.n)
	}
	var mine []byte
	if l.rank == root {
		mine = append([]byte{}, b...)
	}
	r, err := l.collective(callKey{what: "Bcast", root: root}, mine, func(in []any) []any {
		res := make([]any, l.h.n)
		for i := range res {
			res[i] = append([]byte{}, in[root].([]byte)...)
		}
		return res
	})
	if err != nil {
		return nil, err
	}
	return r.([]byte), nil
}

func (l *local) Barrier() error {
	_, err := l.collective(callKey{what: "Barrier"}, nil, func([]any) []any { return make([]any, l.h.n) })
	return err
}

func (l *local) Abort(code int) {
	h := l.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.aborted {
		h.aborted, h.abortCode = true, code
	}
	h.cond.Broadcast()
}

func (l *local) Close() error {
	// Collective, as MPI_Finalize is: a process that closes while the
	// others wait in another call gets them all an error, not a hang.
	_, err := l.collective(callKey{what: "Close"}, nil, func([]any) []any { return make([]any, l.h.n) })
	if err == nil {
		l.closed = true
	}
	return err
}
