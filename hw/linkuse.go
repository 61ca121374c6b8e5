package hw

import "sort"

// Link accounting, for statistics and traces: what crossed each link (bytes
// on the wire, headers included), how long the link was held, the busy time
// per dimension, and the bytes of each labelled kind of traffic per link.
// It is off unless CountLinks is called; then every reservation of a link
// adds to it (one nil test per link taken otherwise).
//
// A label is a number the caller gives traffic (0: none): Head.Label for a
// head taken hop by hop, Network.Label for the routes reserved at once
// (Send, SendTrain, SendTrainTo, SendPath, SendAdaptiveTrain, DepositTrain,
// Inject, InjectDeposit, which keep it for the rest of their walk).

// linkUse is the per-link counters, shared by the views of a network in
// blocks: a link's are only touched by the block of the node it leaves.
type linkUse struct {
	bytes, busy []int64 // per LinkIndex
}

// CountLinks turns link accounting on (for every block's view). Call it
// before any packet is sent.
func (n *Network) CountLinks() {
	u := &linkUse{bytes: make([]int64, len(n.linkFree)), busy: make([]int64, len(n.linkFree))}
	for _, v := range n.allViews() {
		v.use = u
	}
}

// Counting reports whether link accounting is on.
func (n *Network) Counting() bool { return n.use != nil }

func (n *Network) allViews() []*Network {
	if n.views == nil {
		return []*Network{n}
	}
	return n.views
}

// count adds a train of wire bytes holding link l for occupy cycles, of
// traffic labelled label.
func (n *Network) count(l int, occupy, wire int64, label int32) {
	u := n.use
	u.busy[l] += occupy
	u.bytes[l] += wire
	n.dimBusy[l%NumDirs/2] += occupy
	if label != 0 {
		if n.labelBytes == nil {
			n.labelBytes = map[uint64]int64{}
		}
		n.labelBytes[uint64(label)<<32|uint64(l)] += wire
	}
}

// wireOf is the bytes on the wire of count packets of full bytes but the
// last, of last bytes (sizes as on the wire, less its overhead).
func (n *Network) wireOf(count, full, last int) int64 {
	o := n.M.WireOverhead
	return int64(count-1)*int64(full+o) + int64(last+o)
}

// DimBusy is the cycles links of each dimension (x, y, z) were held, summed
// over the links and every block's view (0s unless CountLinks).
func (n *Network) DimBusy() (busy [3]int64) {
	for _, v := range n.allViews() {
		for d := range busy {
			busy[d] += v.dimBusy[d]
		}
	}
	return busy
}

// LinkUse is what crossed one link: bytes on the wire, cycles held, and
// the bytes of each label (Labels, by label; 0 for unlabelled traffic
// left out).
type LinkUse struct {
	Link        int
	Bytes, Busy int64
	Labels      []LabelBytes
}

// LabelBytes is the bytes of one label's traffic on a link.
type LabelBytes struct {
	Label int32
	Bytes int64
}

// Links lists the use of every link that carried traffic, in link order,
// with each link's labelled bytes in label order (nil unless CountLinks).
func (n *Network) Links() []LinkUse {
	if n.use == nil {
		return nil
	}
	var out []LinkUse
	at := make(map[int]int) // link -> its place in out
	for l, b := range n.use.bytes {
		if b > 0 || n.use.busy[l] > 0 {
			at[l] = len(out)
			out = append(out, LinkUse{Link: l, Bytes: b, Busy: n.use.busy[l]})
		}
	}
	for _, v := range n.allViews() {
		for k, b := range v.labelBytes {
			u := &out[at[int(k&(1<<32-1))]]
			u.Labels = append(u.Labels, LabelBytes{Label: int32(k >> 32), Bytes: b})
		}
	}
	for i := range out {
		ls := out[i].Labels
		sort.Slice(ls, func(a, b int) bool { return ls[a].Label < ls[b].Label })
	}
	return out
}
