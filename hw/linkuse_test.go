package hw

import (
	"reflect"
	"testing"
)

// Link accounting counts every link a train takes, by whichever way it is
// reserved: hop by hop (Grant, the head's Label) or a whole route at once
// (SendTrain, under Network.Label), per link, per dimension and per label.
func TestLinkAccounting(t *testing.T) {
	m := BGL()
	n := NewNetwork(m, Torus{Dims: Dims{X: 4, Y: 2, Z: 1}})
	if n.Links() != nil {
		t.Fatal("links listed with accounting off")
	}
	n.CountLinks()
	wire := int64(3*(256+m.WireOverhead) + 64 + m.WireOverhead)
	_, _, occupy := n.train(4, 256, 64)
	// A head from node 0 to node 2 (x+ twice), label 7.
	var h Head
	n.Launch(&h, 0, 2, 0, 4, 256, 64, false, 0, 1)
	h.Label = 7
	for now := int64(0); !h.Done(); {
		n.Choose(&h)
		now = max(now, n.Enqueue(&h))
		if g, _ := n.Grant(h.Link(), now); g != &h {
			t.Fatalf("head not granted at %d", now)
		}
		now = h.At
	}
	// A route reserved at once from node 0 to node 4 (y+), unlabelled.
	n.Label = 0
	n.SendTrain(n.Route(nil, 0, 4), 0, 4, 256, 64)
	got := n.Links()
	want := []LinkUse{
		{Link: LinkIndex(0, XPlus), Bytes: wire, Busy: occupy, Labels: []LabelBytes{{7, wire}}},
		{Link: LinkIndex(0, YPlus), Bytes: wire, Busy: occupy},
		{Link: LinkIndex(1, XPlus), Bytes: wire, Busy: occupy, Labels: []LabelBytes{{7, wire}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links:\n got %+v\nwant %+v", got, want)
	}
	if d := n.DimBusy(); d != [3]int64{2 * occupy, occupy, 0} {
		t.Errorf("busy per dimension %v, want [%d %d 0]", d, 2*occupy, occupy)
	}
}
