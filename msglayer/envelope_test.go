package msglayer

import (
	"reflect"
	"strings"
	"testing"
)

// envelopeFrom fills every envelope field of a message from data, its
// payload a string.
func envelopeFrom(data []byte) (Message, []byte) {
	next := fieldsFrom(data)
	var m Message
	m.Src, m.Dst, m.Bytes, m.Header = int(next()), int(next()), int(next()), int(next())
	m.Protocol = Protocol(uint64(next()) % uint64(len(protocolNames)))
	m.Sync, m.Co = next()&1 != 0, next()&1 != 0
	m.Tag, m.Ctx, m.From, m.ID, m.Label = int(next()), int(next()), int(next()), next(), int32(next())
	m.Payload = string(data[min(len(data), 100):])
	return m, data[:min(len(data), 16)]
}

// envelopeOf is a message's envelope fields alone, for comparing.
func envelopeOf(m *Message) Message {
	return Message{Src: m.Src, Dst: m.Dst, Bytes: m.Bytes, Header: m.Header, Protocol: m.Protocol, Sync: m.Sync,
		Payload: m.Payload, Tag: m.Tag, Ctx: m.Ctx, From: m.From, ID: m.ID, Label: m.Label, Co: m.Co}
}

// FuzzEnvelopeWire: a message's envelope reads back as the same fields and
// signature; other bytes give an error and leave the message alone, or
// read back the same once written again.
func FuzzEnvelopeWire(f *testing.F) {
	f.Add([]byte{})
	m, sig := envelopeFrom([]byte("an envelope of a message of one rank to another, with a payload beyond the hundredth byte: here"))
	b, _ := appendEnvelopeWire(nil, &m, sig, bytesCodec{})
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		m, sig := envelopeFrom(data)
		b, err := appendEnvelopeWire([]byte{0xcd}, &m, sig, bytesCodec{})
		if err != nil {
			t.Fatal(err)
		}
		var y Message
		s, rest, err := readEnvelopeWire(b[1:], &y, bytesCodec{})
		if err != nil || len(rest) != 0 || string(s) != string(sig) || !reflect.DeepEqual(envelopeOf(&y), envelopeOf(&m)) {
			t.Fatalf("read back %+v %q, %d bytes left, %v; want %+v %q", y, s, len(rest), err, m, sig)
		}
		z := Message{Tag: 99}
		s, rest, err = readEnvelopeWire(data, &z, bytesCodec{})
		if err != nil {
			if !reflect.DeepEqual(z, Message{Tag: 99}) || s != nil || len(rest) != len(data) {
				t.Fatalf("a failed read changed the message or consumed bytes")
			}
			return
		}
		var w Message
		b, _ = appendEnvelopeWire(nil, &z, s, bytesCodec{})
		if s2, again, err := readEnvelopeWire(b, &w, bytesCodec{}); err != nil || len(again) != 0 || string(s2) != string(s) || !reflect.DeepEqual(envelopeOf(&w), envelopeOf(&z)) {
			t.Fatalf("%x read as %+v, written and read again as %+v (%v)", data, z, w, err)
		}
	})
}

// Every exported field of Message is in the envelope or is one end's own:
// a field added to Message must be placed (here, and in envelope.go if the
// other end reads it).
func TestEnvelopeFields(t *testing.T) {
	onWire := "Src Dst Bytes Header Protocol Sync Payload Tag Ctx From ID Label Co"
	own := map[string]bool{"To": true, "Sent": true, "Token": true} // the receiver's kind, the sender's action, the receiver's handle
	want := map[string]bool{}
	for _, f := range strings.Fields(onWire) {
		want[f] = true
	}
	typ := reflect.TypeOf(Message{})
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.IsExported() && !want[f.Name] && !own[f.Name] {
			t.Errorf("Message.%s is not in the envelope (envelope.go) nor either end's own", f.Name)
		}
	}
}

// TestMsgRefs: a sender names its messages per rank, from 1, once each;
// the table finds what was kept, until dropped.
func TestMsgRefs(t *testing.T) {
	refs := msgRefs{next: make([]uint64, 4)}
	a, b, c := &Message{Src: 2}, &Message{Src: 2}, &Message{Src: 3}
	got := []msgRef{refs.name(a), refs.name(b), refs.name(c), refs.name(a)}
	want := []msgRef{{2, 1}, {2, 2}, {3, 1}, {2, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("names %v, want %v", got, want)
	}
	mirror := &Message{Src: 1, ref: msgRef{1, 7}}
	refs.keep(mirror.ref, heldMsg{m: mirror, recv: true})
	refs.keep(b.ref, heldMsg{m: b, await: 1})
	refs.keep(a.ref, heldMsg{m: a, await: 1})
	if refs.find(msgRef{2, 2}).m != b || refs.find(msgRef{1, 7}).m != mirror || refs.find(msgRef{1, 8}) != nil {
		t.Errorf("find does not find what was kept")
	}
	refs.drop(msgRef{2, 2})
	if refs.find(msgRef{2, 2}) != nil || refs.find(msgRef{2, 1}).m != a {
		t.Errorf("drop dropped the wrong message")
	}
}

// TestCrossingForm: the check's forms read back, and a change of the
// message between two forms is named by its field.
func TestCrossingForm(t *testing.T) {
	m := &Message{Src: 5, Dst: 900, Bytes: 8192, Header: 16, Protocol: Rendezvous, Tag: 3, Ctx: 6, From: 5, ID: 77, Payload: 1.5}
	m.f = flow{from: 5, to: 900, w: 10, rx: 1801, sent: 14, total: 35, per: 240, tie: 12345}
	x := &train{k: 7, idx: 14, bytes: 1680, m: m}
	sig := func(*Message) []byte { return []byte("allreduce #3") }
	for _, a := range []any{(*trainIn)(x), (*trainHop)(x), &linkRelease{link: 77, class: 1, k: 1, from: 900, to: 900}} {
		sent := CrossingForm(a.(interface{ Act(Time) }), sig)
		if sent == nil {
			t.Fatalf("%T: no form", a)
		}
		if _, err := readCrossForm(sent); err != nil {
			t.Fatalf("%T: form does not read back: %v", a, err)
		}
		if d := CrossingDiff(sent, CrossingForm(a.(interface{ Act(Time) }), sig)); d != "" {
			t.Errorf("%T: two forms of the same event differ: %s", a, d)
		}
	}
	sent := CrossingForm((*trainIn)(x), sig)
	m.Tag, m.f.total, m.Payload = 4, 36, 2.5
	d := CrossingDiff(sent, CrossingForm((*trainIn)(x), sig))
	for _, w := range []string{"Message.Tag: 3, then 4", "flow.total: 35, then 36", "Message.Payload: float64"} {
		if !strings.Contains(d, w) {
			t.Errorf("diff %q does not say %q", d, w)
		}
	}
}
