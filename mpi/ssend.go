package mpi

// Synchronous sends (MPI_Ssend, MPI_Issend): the send completes only once a
// receive has matched its message. Under direct the message carries the
// request for an acknowledgement (msglayer.Message.Sync): the receiver's
// CPU writes one when a receive matches it (at once for a posted receive,
// when the receive is posted for an unexpected message, at Mrecv for one
// taken by a matched probe), and the send completes when the sender's CPU
// has read it and the data has left. A message large enough to go by
// rendezvous needs none: the receiver grants its data only once matched.
// Under bcs every send already waits for its receive, so a synchronous send
// is a standard one there.

// Ssend is a blocking synchronous send of v to dest with tag.
func (c *Comm) Ssend(v Value, dest, tag int) error {
	q, err := c.Issend(v, dest, tag)
	if err != nil {
		return err
	}
	c.r.wait(q, c.r.waiting(WaitInfo{Call: "ssend", Peer: dest, Tag: tag, Comm: c.Name}))
	c.r.sync()
	return nil
}

// Issend starts a synchronous send; its request completes once a receive
// matched the message and its data has left.
func (c *Comm) Issend(v Value, dest, tag int) (*Request, error) {
	if err := c.checkPeer("destination", dest, false); err != nil {
		return nil, err
	}
	q := &Request{r: c.r, comm: c, isSend: true, flags: fSync, tag: tag, src: dest}
	c.postReq(q, v, c.ctx)
	c.r.sync()
	return q, nil
}
