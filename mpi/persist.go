package mpi

import (
	"errors"
	"strconv"
)

// Persistent requests (MPI_Send_init, MPI_Recv_init, MPI_Start,
// MPI_Startall): a request made once and started many times. It is
// inactive when made; Start posts its send or receive, as Isend or Irecv
// would, and it is active until a wait or test has returned it complete
// (Wait, Test, Waitall, Waitany, Testall); then it may be started again.
// Waiting for an inactive request returns at once, with an empty status.
// A persistent send sends, at each start, the value given when it was made
// (kept in its Value, which a send does not otherwise use).

// SendInit makes a persistent send of v to dest with tag.
func (c *Comm) SendInit(v Value, dest, tag int) (*Request, error) {
	if err := c.checkPeer("destination", dest, false); err != nil {
		return nil, err
	}
	c.r.Call()
	return &Request{r: c.r, comm: c, isSend: true, tag: tag, src: dest, done: true, flags: fPersistent, Value: v}, nil
}

// RecvInit makes a persistent receive from src (or AnySource) with tag (or
// AnyTag).
func (c *Comm) RecvInit(src, tag int) (*Request, error) {
	if err := c.checkPeer("source", src, true); err != nil {
		return nil, err
	}
	c.r.Call()
	q := &Request{r: c.r, comm: c, src: src, tag: tag, ctx: c.ctx, done: true, flags: fPersistent}
	q.idle()
	return q, nil
}

// Persistent reports whether q was made by SendInit or RecvInit.
func (q *Request) Persistent() bool { return q.has(fPersistent) }

// Active reports whether q is a persistent request started and not yet
// returned complete by a wait or test.
func (q *Request) Active() bool { return q.has(fActive) }

var (
	errNotPersistent = errors.New("the request is not persistent (make it with send_init or recv_init)")
	errActive        = errors.New("the request is active: it was started and no wait or test has completed it yet")
)

func (q *Request) startable() error {
	switch {
	case !q.has(fPersistent):
		return errNotPersistent
	case q.has(fActive):
		return errActive
	}
	return nil
}

// Start starts q, a persistent request that is not active.
func (r *Rank) Start(q *Request) error {
	if err := q.startable(); err != nil {
		return err
	}
	q.start()
	r.sync()
	return nil
}

// Startall starts every request of qs; none starts if one cannot (not
// persistent, active, or listed twice).
func (r *Rank) Startall(qs []*Request) error {
	seen := make(map[*Request]int, len(qs))
	for i, q := range qs {
		if err := q.startable(); err != nil {
			return &ReqError{Index: i, Err: err}
		}
		if j, ok := seen[q]; ok {
			return &ReqError{Index: i, Err: errors.New("the request is also element " + strconv.Itoa(j+1) + ": it would start twice")}
		}
		seen[q] = i
	}
	for _, q := range qs {
		q.start()
	}
	r.sync()
	return nil
}

// ReqError is an error about element Index (0-based) of a list of requests.
type ReqError struct {
	Index int
	Err   error
}

func (e *ReqError) Error() string { return "element " + strconv.Itoa(e.Index+1) + ": " + e.Err.Error() }

func (e *ReqError) Unwrap() error { return e.Err }

// start posts q's operation afresh, charging what Isend or Irecv charge.
func (q *Request) start() {
	c := q.comm
	q.flags = q.flags&^fCancelled | fActive
	q.done, q.msgID, q.bad = false, 0, nil
	q.Status = Status{}
	if q.isSend {
		c.postReq(q, q.Value, c.ctx)
		return
	}
	q.Value = Value{}
	c.r.busy(c.r.w.m.MPICallCycles)
	c.recvReq(q)
}

// inactive reports whether q is a persistent request not started.
func (q *Request) inactive() bool { return q.flags&(fPersistent|fActive) == fPersistent }

// idle gives an inactive persistent receive the empty result that waiting
// for it or testing it returns (MPI's empty status); a send keeps its
// value, which its next start sends.
func (q *Request) idle() {
	if q.inactive() && !q.isSend {
		q.Value, q.Status = Value{}, Status{Source: AnySource, Tag: AnyTag}
	}
}

// completed notes that a wait or test returned q complete: a persistent
// request is inactive again.
func (q *Request) completed() {
	if q.done {
		q.flags &^= fActive
	}
}
