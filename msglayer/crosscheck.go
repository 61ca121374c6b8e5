package msglayer

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"strings"

	"github.com/bglua/bglua/runtime"

	"github.com/bglua/bglua/internal/wire"
)

// The layer's side of runtime.CrossingCheck, a debug check that what an
// event sent to another partition carries does not change between its
// Send and its run (docs/distributed.md): the event's wire form, and of
// its message the envelope and the fields of its flow that the reader
// reads (made again from the envelope across processes), and the CPU the
// receiver chose for rendezvous data, which the sender reads at the grant.

// Kinds of the check's forms.
const (
	formTrain byte = iota + 1
	formRelease
	formDeposit
)

// CrossingForm is the check's form of a, an event the layer sent to
// another partition, with sig the layer above's signature of a message
// (nil: none); nil if a is none of the layer's.
func CrossingForm(a runtime.Action, sig func(*Message) []byte) []byte {
	var b []byte
	var m *Message
	switch x := a.(type) {
	case *trainIn:
		b, m = appendTrainWire([]byte{formTrain}, (*train)(x), msgRef{}), x.m
	case *trainHop:
		b, m = appendTrainWire([]byte{formTrain}, (*train)(x), msgRef{}), x.m
	case *linkRelease:
		return appendReleaseWire([]byte{formRelease}, x)
	case *depositTransit:
		b, _ = appendDepositWire([]byte{formDeposit}, x, payloadIdentity{})
		return b
	default:
		return nil
	}
	var s []byte
	if sig != nil {
		s = sig(m)
	}
	b, _ = appendEnvelopeWire(b, m, s, payloadIdentity{})
	f := &m.f
	b = binary.AppendUvarint(b, f.tie)
	for _, v := range [...]int{f.total, f.per, f.bytes, int(f.from), int(f.to), int(m.rzvRx)} {
		b = binary.AppendVarint(b, int64(v))
	}
	return b
}

// CrossingPayload is the payload of the layer above that a, an event the
// layer sends to another partition, carries: its message's, or the active
// message a deposit line leaves; ok is false if a is none of the layer's
// events with a payload. For the tests of the layers' PayloadCodec.
func CrossingPayload(a runtime.Action) (v any, ok bool) {
	var m *Message
	switch x := a.(type) {
	case *trainIn:
		m = x.m
	case *trainHop:
		m = x.m
	case *transit:
		m = x.m
	case *depositTransit:
		if d, ok := x.d.(*amDeposit); ok {
			return d.payload, true
		}
	}
	if m == nil {
		return nil, false
	}
	return m.Payload, true
}

// crossForm is a check's form read back, for saying how two differ.
type crossForm struct {
	Event        string
	Message      Message
	Sig          []byte
	Tie          uint64
	Total, Per   int
	Bytes        int
	From, To, Rx int
}

// CrossingDiff says which fields of two check forms of a differ.
func CrossingDiff(sent, ran []byte) string {
	a, errA := readCrossForm(sent)
	b, errB := readCrossForm(ran)
	if errA != nil || errB != nil {
		return fmt.Sprintf("forms %x and %x", sent, ran)
	}
	var diffs []string
	if a.Event != b.Event {
		diffs = append(diffs, fmt.Sprintf("the event: %s, then %s", a.Event, b.Event))
	}
	va, vb := reflect.ValueOf(a.Message), reflect.ValueOf(b.Message)
	for i := range va.NumField() {
		if !va.Type().Field(i).IsExported() {
			continue
		}
		if x, y := va.Field(i).Interface(), vb.Field(i).Interface(); !reflect.DeepEqual(x, y) {
			diffs = append(diffs, fmt.Sprintf("Message.%s: %v, then %v", va.Type().Field(i).Name, x, y))
		}
	}
	if string(a.Sig) != string(b.Sig) {
		diffs = append(diffs, fmt.Sprintf("the signature: %q, then %q", a.Sig, b.Sig))
	}
	fa, fb := []any{a.Tie, a.Total, a.Per, a.Bytes, a.From, a.To, a.Rx}, []any{b.Tie, b.Total, b.Per, b.Bytes, b.From, b.To, b.Rx}
	for i, name := range []string{"flow.tie", "flow.total", "flow.per", "flow.bytes", "flow.from", "flow.to", "rzvRx"} {
		if fa[i] != fb[i] {
			diffs = append(diffs, fmt.Sprintf("%s: %v, then %v", name, fa[i], fb[i]))
		}
	}
	if len(diffs) == 0 && string(sent) != string(ran) {
		return fmt.Sprintf("forms %x, then %x", sent, ran)
	}
	return strings.Join(diffs, "; ")
}

// readCrossForm reads a check form back.
func readCrossForm(b []byte) (*crossForm, error) {
	if len(b) == 0 {
		return nil, errCrossWire
	}
	var c crossForm
	var rest []byte
	var err error
	switch b[0] {
	case formTrain:
		var x train
		var ref msgRef
		ref, rest, err = readTrainWire(b[1:], &x)
		x.h.Ref = nil
		c.Event = fmt.Sprintf("train %+v %+v", ref, x)
	case formRelease:
		var x linkRelease
		rest, err = readReleaseWire(b[1:], &x)
		c.Event = fmt.Sprintf("linkRelease link %d class %d, %d from %d to %d", x.link, x.class, x.k, x.from, x.to)
		return &c, err
	case formDeposit:
		x := depositTransit{}
		rest, err = readDepositWire(b[1:], &x, payloadIdentity{})
		c.Event = fmt.Sprintf("depositTransit %+v %+v", x.tr, x.d)
		return &c, err
	default:
		return nil, errCrossWire
	}
	if err != nil {
		return nil, err
	}
	c.Sig, rest, err = readEnvelopeWire(rest, &c.Message, payloadIdentity{})
	if err != nil {
		return nil, err
	}
	r := wireIn{wire.Reader{B: rest}}
	c.Tie = r.Uvarint()
	for _, p := range [...]*int{&c.Total, &c.Per, &c.Bytes, &c.From, &c.To, &c.Rx} {
		*p = r.Int()
	}
	if r.Bad {
		return nil, errCrossWire
	}
	return &c, nil
}

// payloadIdentity is the check's PayloadCodec: not the payload's bytes
// (the layers above have no codec for all of theirs yet) but what tells
// one payload from another: its type, and its value, length and hash, or
// address.
type payloadIdentity struct{}

func (payloadIdentity) AppendPayload(b []byte, v any) ([]byte, error) {
	var id string
	switch x := v.(type) {
	case nil:
		id = "nil"
	case float64:
		id = fmt.Sprintf("float64 %x", math.Float64bits(x))
	case string:
		h := fnv.New64a()
		h.Write([]byte(x))
		id = fmt.Sprintf("string %d %x", len(x), h.Sum64())
	case bool, int, int64, int32:
		id = fmt.Sprintf("%T %v", x, x)
	default:
		rv := reflect.ValueOf(v)
		switch rv.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
			id = fmt.Sprintf("%T %#x", v, rv.Pointer())
		case reflect.Slice:
			id = fmt.Sprintf("%T %#x %d", v, rv.Pointer(), rv.Len())
		default:
			id = fmt.Sprintf("%T %v", v, v)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(id)))
	return append(b, id...), nil
}

func (payloadIdentity) ReadPayload(b []byte) (any, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, b, errCrossWire
	}
	return string(b[k : k+int(n)]), b[k+int(n):], nil
}
