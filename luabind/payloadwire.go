package luabind

import (
	"errors"
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/mpi"
	"github.com/bglua/bglua/msglayer"
)

// The wire form of the payloads a message carries to another process
// (docs/distributed.md): MPI's own payloads by mpi.PayloadCodec, and
// inside it the Lua values by their binary encoding (Marshal) and the
// active messages' (amPayload). Not used by the engine yet.

// codecTagAM is the leaf form's tag of an active message's payload: the
// handler's name (a string or a number) and the data, each in Marshal's
// form. It is none of Marshal's tags, which a Lua value's form starts with.
const codecTagAM = 0x10

// PayloadCodec is the codec of every payload a message of a bglua program
// carries: MPI's, and the Lua values and active messages of the layer
// above it. A payload of another type is an error that names it.
func PayloadCodec() msglayer.PayloadCodec { return mpi.PayloadCodec(luaCodec{}) }

// luaCodec is mpi.PayloadCodec's leaf: Lua values and amPayload.
type luaCodec struct{}

func (luaCodec) AppendPayload(b []byte, v any) ([]byte, error) {
	if x, ok := v.(amPayload); ok {
		var h any
		switch k := x.handler.(type) {
		case lua.LString:
			h = string(k)
		case lua.LNumber:
			h = float64(k)
		default:
			return b, fmt.Errorf("luabind: an active message's handler of type %T", x.handler)
		}
		if err := checkMarshal(x.data, 0); err != nil {
			return b, err
		}
		return AppendMarshal(AppendMarshal(append(b, codecTagAM), h), x.data), nil
	}
	if err := checkMarshal(v, 0); err != nil {
		return b, err
	}
	return AppendMarshal(b, v), nil
}

func (luaCodec) ReadPayload(b []byte) (any, []byte, error) {
	if len(b) == 0 || b[0] != codecTagAM {
		return unmarshalPrefix(b)
	}
	h, rest, err := unmarshalPrefix(b[1:])
	if err != nil {
		return nil, b, err
	}
	var x amPayload
	switch k := h.(type) {
	case string:
		x.handler = lua.LString(k)
	case float64:
		x.handler = lua.LNumber(k)
	default:
		return nil, b, fmt.Errorf("payload: an active message's handler is a %s", codecKind(h))
	}
	if x.data, rest, err = unmarshalPrefix(rest); err != nil {
		return nil, b, err
	}
	return x, rest, nil
}

// checkMarshal says why p, at depth tables deep, is no payload that
// AppendMarshal writes and Unmarshal reads back (nil if it is one):
// Encode makes none such, but a codec's caller gives any value.
func checkMarshal(p any, depth int) error {
	switch x := p.(type) {
	case nil, bool, float64, string:
		return nil
	case Phantom:
		if x.N < 0 {
			return fmt.Errorf("luabind: cannot encode mpi.bytes(%d)", x.N)
		}
		return nil
	case []float64:
		if depth >= codecMaxDepth {
			return payloadErrDeep
		}
		return nil
	case *Table:
		if x == nil {
			return errors.New("luabind: cannot encode a nil *Table")
		}
		if depth >= codecMaxDepth {
			return payloadErrDeep
		}
		if len(x.Vals) != len(x.Keys) {
			return fmt.Errorf("luabind: a table of %d keys and %d values", len(x.Keys), len(x.Vals))
		}
		for _, e := range x.Array {
			if e == nil {
				return errors.New("luabind: cannot encode nil in a table")
			}
			if err := checkMarshal(e, depth+1); err != nil {
				return err
			}
		}
		keys := newTableKeys(len(x.Array), len(x.Keys))
		for i, k := range x.Keys {
			if err := keys.add(k); err != nil {
				return fmt.Errorf("luabind: cannot encode the table: %w", err)
			}
			if x.Vals[i] == nil {
				return errors.New("luabind: cannot encode nil in a table")
			}
			if err := checkMarshal(x.Vals[i], depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("luabind: no wire form for a payload of type %T", p)
}
