package mpi

import (
	"errors"
	"fmt"
)

// Cancel takes back q, a receive that no message has matched yet (MPI_Cancel
// of a receive): it is complete at once, received nothing (its status has
// its source and tag and 0 bytes), and Cancelled says so. A receive already matched (its data may still be on the
// way) is not affected: it completes as it would have. Sends cannot be
// cancelled (MPI-3.1 deprecated it; bglua never supported it): Cancel of a
// send is an error, as is Cancel under the bcs runtime, whose receives are
// descriptors that the runtime matches at its strobes.
func (r *Rank) Cancel(q *Request) error {
	if q.isSend {
		return errors.New("sends cannot be cancelled (only receives; MPI deprecated cancelling sends)")
	}
	if err := r.w.directOnly(); err != nil {
		return err
	}
	r.Call()
	if q.done || !r.posted.drop(q) {
		return nil
	}
	q.done = true
	q.Value = Value{}
	q.Status = Status{Source: q.src, Tag: q.tag}
	q.flags |= fCancelled
	return nil
}

// Cancelled reports whether Cancel took q back before a message matched it.
func (q *Request) Cancelled() bool { return q.has(fCancelled) }

// directOnly is the error of a call the bcs runtime does not offer.
func (w *World) directOnly() error {
	if w.bcs != nil {
		return fmt.Errorf("not supported under --runtime bcs (its runtime matches messages itself at each strobe); use --runtime direct")
	}
	return nil
}
