package hw

import (
	"slices"
	"sort"
)

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

// The counters are the links' own (link.go: busy, bytes, labels), which a
// network in blocks shares among its views: a link's are only touched by
// the block of the node it leaves.

// CountLinks turns link accounting on (for every block's view). Call it
// before any packet is sent.
func (n *Network) CountLinks() {
	for _, v := range n.allViews() {
		v.counting = true
	}
}

// Counting reports whether link accounting is on.
func (n *Network) Counting() bool { return n.counting }

func (n *Network) allViews() []*Network {
	if n.views == nil {
		return []*Network{n}
	}
	return n.views
}

// count adds a train of wire bytes holding link l for occupy cycles, of
// traffic labelled label.
func (n *Network) count(l int, occupy, wire int64, label int32) {
	lk := &n.links[l]
	lk.busy += occupy
	lk.bytes += wire
	n.dimBusy[l%NumDirs/2] += occupy
	if label != 0 {
		// A link carries a few labels: the last one first.
		ls := lk.labels
		for i := len(ls) - 1; i >= 0; i-- {
			if ls[i].Label == label {
				ls[i].Bytes += wire
				return
			}
		}
		lk.labels = append(ls, LabelBytes{Label: label, Bytes: wire})
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
	n.touchAll()
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
	n.touchAll()
	if !n.counting {
		return nil
	}
	var out []LinkUse
	for l := range n.links {
		lk := &n.links[l]
		if lk.bytes > 0 || lk.busy > 0 {
			u := LinkUse{Link: l, Bytes: lk.bytes, Busy: lk.busy}
			if len(lk.labels) > 0 {
				u.Labels = slices.Clone(lk.labels)
				sort.Slice(u.Labels, func(a, b int) bool { return u.Labels[a].Label < u.Labels[b].Label })
			}
			out = append(out, u)
		}
	}
	return out
}
