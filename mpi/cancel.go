package mpi

import "errors"

// Cancel takes back q, a receive that no message has matched yet (MPI_Cancel
// of a receive): it is complete at once, received nothing (its status has
// its source and tag and 0 bytes), and Cancelled says so. A receive already matched (its data may still be on the
// way) is not affected: it completes as it would have. Sends cannot be
// cancelled (MPI-3.1 deprecated it; bglua never supported it): Cancel of a
// send is an error. Under the bcs runtime a receive is matched at a
// strobe: until then its descriptor is taken back (bcs.Sched.CancelRecv).
func (r *Rank) Cancel(q *Request) error {
	if q.isSend {
		return errors.New("sends cannot be cancelled (only receives; MPI deprecated cancelling sends)")
	}
	r.Call()
	if q.done {
		return nil
	}
	if b := r.w.bcs; b != nil {
		if !b.s.CancelRecv(q.r.ID, q) {
			return nil
		}
	} else if !r.posted.drop(q) {
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
