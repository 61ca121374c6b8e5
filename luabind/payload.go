package luabind

// A payload is a Lua value copied out of the sending rank's Lua state into Go values
// that no state owns, because MPI has copy semantics and the receiving rank runs in a
// different state. This file converts Lua values to payloads and back, models each
// payload's size on the network, and gives payloads a compact binary encoding.

import (
	"github.com/bglua/bglua/mpi"

	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// Phantom is a payload that carries no data but costs the network N bytes
// (mpi.bytes(n)); it is mpi's own type so that reductions can combine phantoms.
type Phantom = mpi.Phantom

// Table is a Lua table with non-array content, in a form independent of any Lua state.
// Array holds t[1..n], the consecutive integer keys 1..n present; Keys/Vals hold the
// other entries in the source table's pairs() order. Keys are float64, string or bool;
// values are payloads. Empty parts are nil.
type Table struct {
	Array []any
	Keys  []any
	Vals  []any
}

// phantomTypeName names the metatable of mpi.bytes userdata in the registry.
const phantomTypeName = "mpi.bytes"

// codecMaxDepth bounds table nesting in Encode and Unmarshal; it keeps both away from
// deep recursion on hostile or runaway input.
const codecMaxDepth = 200

// Tags of the binary encoding. Each value is a tag byte followed by its data.
const (
	codecTagNil     = 0x00
	codecTagFalse   = 0x01
	codecTagTrue    = 0x02
	codecTagNumber  = 0x03 // 8 bytes: float64 bits, little-endian
	codecTagString  = 0x04 // uvarint length, bytes
	codecTagNumbers = 0x05 // uvarint n, n*8 bytes: []float64
	codecTagPhantom = 0x06 // uvarint N
	codecTagTable   = 0x07 // uvarint na, na values, uvarint nk, nk (key, value) pairs
)

var (
	payloadErrCyclic = errors.New("cannot send a cyclic table")
	payloadErrDeep   = errors.New("table nested too deeply")
	payloadErrNaNKey = errors.New("cannot send a table key that is NaN")
)

// Encode converts a Lua value into a payload: nil -> nil, boolean -> bool, number ->
// float64, string -> string (shared, not copied), a table whose entries are exactly
// 1..n (n >= 1), all numbers -> []float64, any other table -> *Table, an mpi.bytes
// userdata -> Phantom. It also returns the payload's modeled size in bytes (see
// PayloadSize). Tables are read raw: metatables are neither consulted nor sent.
func Encode(v lua.LValue) (payload any, size int, err error) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), 8, nil
	case lua.LString:
		return string(x), len(x), nil
	case lua.LBool:
		return bool(x), 1, nil
	case *lua.LNilType:
		return nil, 0, nil
	case nil:
		return nil, 0, nil
	case *lua.LTable:
		var enc payloadEncoder
		p, n, err := enc.table(x)
		if err != nil {
			return nil, 0, err
		}
		if arr, ok := p.([]float64); ok {
			return p, 8 * len(arr), nil
		}
		return p, payloadSat(n + enc.phantom), nil
	case *lua.LUserData:
		ph, ok := x.Value.(Phantom)
		if !ok {
			return nil, 0, errors.New("cannot send a userdata")
		}
		if ph.N < 0 {
			return nil, 0, fmt.Errorf("cannot send mpi.bytes(%d)", ph.N)
		}
		return x.Value, ph.N, nil // the Phantom as it is boxed: no copy made
	}
	return nil, 0, errors.New("cannot send a " + v.Type().String())
}

// payloadEncoder walks one table tree. path holds the tables being encoded, outermost
// first, to detect cycles; phantom sums the N of nested mpi.bytes, which cost the
// network their full size inside a table too.
type payloadEncoder struct {
	path    []*lua.LTable
	phantom int
}

// value encodes a value inside a table and returns it with its encoded length.
func (e *payloadEncoder) value(v lua.LValue) (any, int, error) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), 9, nil
	case lua.LString:
		return string(x), 1 + codecUvarintLen(uint64(len(x))) + len(x), nil
	case lua.LBool:
		return bool(x), 1, nil
	case *lua.LTable:
		return e.table(x)
	case *lua.LUserData:
		if ph, ok := x.Value.(Phantom); ok {
			if ph.N < 0 {
				return nil, 0, fmt.Errorf("cannot send mpi.bytes(%d)", ph.N)
			}
			e.phantom = payloadSat(e.phantom + ph.N)
			return ph, 1 + codecUvarintLen(uint64(ph.N)), nil
		}
		return nil, 0, errors.New("cannot send a userdata")
	case *lua.LNilType, nil:
		// Tables do not store nil values; kept for completeness.
		return nil, 1, nil
	}
	return nil, 0, errors.New("cannot send a " + v.Type().String())
}

// key encodes a table key and returns it with its encoded length.
func (e *payloadEncoder) key(k lua.LValue) (any, int, error) {
	switch x := k.(type) {
	case lua.LNumber:
		if x != x {
			return nil, 0, payloadErrNaNKey
		}
		return float64(x), 9, nil
	case lua.LString:
		return string(x), 1 + codecUvarintLen(uint64(len(x))) + len(x), nil
	case lua.LBool:
		return bool(x), 1, nil
	}
	return nil, 0, errors.New("cannot send a table key of type " + k.Type().String())
}

// table encodes tb and returns the payload with its encoded length.
func (e *payloadEncoder) table(tb *lua.LTable) (any, int, error) {
	for _, t := range e.path {
		if t == tb {
			return nil, 0, payloadErrCyclic
		}
	}
	if len(e.path) >= codecMaxDepth {
		return nil, 0, payloadErrDeep
	}

	// The array prefix 1..n, and whether it holds only numbers.
	n := 0
	allNum := true
	for {
		v := tb.RawGetInt(n + 1)
		if v == lua.LNil {
			break
		}
		if _, ok := v.(lua.LNumber); !ok {
			allNum = false
		}
		n++
	}
	if allNum && n > 0 && payloadPrefixOnly(tb, n) {
		arr := make([]float64, n)
		for i := range arr {
			arr[i] = float64(tb.RawGetInt(i + 1).(lua.LNumber))
		}
		return arr, 1 + codecUvarintLen(uint64(n)) + 8*n, nil
	}

	e.path = append(e.path, tb)
	defer func() { e.path = e.path[:len(e.path)-1] }()

	t := &Table{}
	size := 1 + codecUvarintLen(uint64(n))
	if n > 0 {
		t.Array = make([]any, n)
		for i := range t.Array {
			p, sz, err := e.value(tb.RawGetInt(i + 1))
			if err != nil {
				return nil, 0, err
			}
			t.Array[i] = p
			size += sz
		}
	}
	// The entries after the prefix, in pairs() order. Next(LNumber(0)) would skip the
	// first hash key (gopher-lua treats key 0 as a hash key there), so start from nil.
	var k, v lua.LValue
	if n == 0 {
		k, v = tb.Next(lua.LNil)
	} else {
		k, v = tb.Next(lua.LNumber(n))
	}
	nk := 0
	for ; k != lua.LNil; k, v = tb.Next(k) {
		kp, ksz, err := e.key(k)
		if err != nil {
			return nil, 0, err
		}
		vp, vsz, err := e.value(v)
		if err != nil {
			return nil, 0, err
		}
		t.Keys = append(t.Keys, kp)
		t.Vals = append(t.Vals, vp)
		size += ksz + vsz
		nk++
	}
	size += codecUvarintLen(uint64(nk))
	return t, size, nil
}

// payloadPrefixOnly reports whether tb has no entries after t[1..n], n >= 1. It is a
// function of its own so that the boxed key stays on the stack.
func payloadPrefixOnly(tb *lua.LTable, n int) bool {
	if tb.MaxN() != n {
		return false
	}
	k, _ := tb.Next(lua.LNumber(n))
	return k == lua.LNil
}

// decodedSlot is about what a decoded value costs in a Lua table: an
// interface (16 bytes) and its boxed number (8), so that a large payload is
// asked of the memory limit (Guard) before it is built.
const decodedSlot = 24

// Decode builds a fresh Lua value in L from a payload made by Encode or Unmarshal. Every
// call makes new tables; []float64 becomes an array table and Phantom an mpi.bytes
// userdata. It panics on a value that is not a payload.
func Decode(L *lua.LState, p any) lua.LValue {
	switch x := p.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(x)
	case float64:
		return lua.LNumber(x)
	case string:
		return lua.LString(x)
	case []float64:
		L.CheckAlloc(int64(len(x)) * decodedSlot)
		tb := L.CreateTable(len(x), 0)
		for i, f := range x {
			tb.RawSetInt(i+1, lua.LNumber(f))
		}
		return tb
	case Phantom:
		return NewPhantom(L, x.N)
	case *Table:
		L.CheckAlloc(int64(len(x.Array)+2*len(x.Keys)) * decodedSlot)
		tb := L.CreateTable(len(x.Array), 0)
		for i, e := range x.Array {
			tb.RawSetInt(i+1, Decode(L, e))
		}
		for i, k := range x.Keys {
			// RawSet, not RawSetH: integer keys must land where Lua looks them up.
			tb.RawSet(Decode(L, k), Decode(L, x.Vals[i]))
		}
		return tb
	}
	panic(fmt.Sprintf("luabind: Decode: %T is not a payload", p))
}

// PayloadSize returns the modeled size in bytes of a payload: nil 0, boolean 1, number
// 8, string its length, []float64 8 per element, Phantom N, and *Table the length of
// its binary encoding plus the N of every Phantom inside it.
func PayloadSize(p any) int {
	switch x := p.(type) {
	case nil:
		return 0
	case bool:
		return 1
	case float64:
		return 8
	case string:
		return len(x)
	case []float64:
		return 8 * len(x)
	case Phantom:
		return x.N
	case *Table:
		return payloadSat(codecLen(x) + payloadPhantoms(x))
	}
	panic(fmt.Sprintf("luabind: PayloadSize: %T is not a payload", p))
}

// payloadPhantoms sums the N of the Phantoms inside t.
func payloadPhantoms(t *Table) int {
	sum := 0
	add := func(p any) {
		switch x := p.(type) {
		case Phantom:
			sum = payloadSat(sum + x.N)
		case *Table:
			sum = payloadSat(sum + payloadPhantoms(x))
		}
	}
	for _, e := range t.Array {
		add(e)
	}
	for _, e := range t.Vals {
		add(e)
	}
	return sum
}

// payloadSat clamps an int sum that overflowed (phantom sizes near MaxInt) to MaxInt.
func payloadSat(n int) int {
	if n < 0 {
		return math.MaxInt
	}
	return n
}

// NewPhantom returns an mpi.bytes userdata of n bytes. Its metatable, registered under
// phantomTypeName, gives __tostring "mpi.bytes(N)" and __len N.
//
// A phantom is a value, like a string: it has no fields and its metatable is
// locked, so a rank's state hands out one userdata per size (from a small
// cache of the sizes used last), and mpi.bytes(n) == mpi.bytes(n). A Lua
// algorithm that moves thousands of received blocks then makes no garbage
// for them.
func NewPhantom(L *lua.LState, n int) *lua.LUserData {
	var c *phantomCache
	if rk, ok := L.G.Registry.RawGetInt(rankSlot).(*rankCtx); ok {
		if rk.phantoms == nil {
			rk.phantoms = &phantomCache{}
		}
		c = rk.phantoms
		if ud := c.slot[phantomSlot(n)]; ud != nil && ud.Value.(Phantom).N == n {
			return ud
		}
	}
	var mt *lua.LTable
	if c != nil && c.mt != nil {
		mt = c.mt
	} else {
		mt = L.NewTypeMetatable(phantomTypeName)
		if mt.RawGetString("__tostring") == lua.LNil {
			mt.RawSetString("__tostring", L.NewFunction(payloadPhantomToString))
			mt.RawSetString("__len", L.NewFunction(payloadPhantomLen))
			mt.RawSetString("__metatable", lua.LString(phantomTypeName))
		}
	}
	ud := L.NewUserData()
	ud.Value = Phantom{N: n}
	ud.Metatable = mt
	if c != nil {
		c.mt = mt
		c.slot[phantomSlot(n)] = ud
	}
	return ud
}

// phantomCache is a rank's mpi.bytes metatable and the phantoms it made
// last, direct-mapped by size.
type phantomCache struct {
	mt   *lua.LTable
	slot [8]*lua.LUserData
}

// phantomSlot is the cache slot of a phantom of n bytes.
func phantomSlot(n int) int { return int(uint64(n) * 0x9e3779b97f4a7c15 >> 61) }

// CheckPhantom reports whether v is an mpi.bytes userdata, and its Phantom.
func CheckPhantom(v lua.LValue) (Phantom, bool) {
	if ud, ok := v.(*lua.LUserData); ok {
		if ph, ok := ud.Value.(Phantom); ok {
			return ph, true
		}
	}
	return Phantom{}, false
}

func payloadPhantomToString(L *lua.LState) int {
	ph, ok := CheckPhantom(L.Get(1))
	if !ok {
		L.ArgError(1, "mpi.bytes expected")
	}
	L.Push(lua.LString("mpi.bytes(" + strconv.Itoa(ph.N) + ")"))
	return 1
}

func payloadPhantomLen(L *lua.LState) int {
	ph, ok := CheckPhantom(L.Get(1))
	if !ok {
		L.ArgError(1, "mpi.bytes expected")
	}
	L.Push(lua.LNumber(ph.N))
	return 1
}

// Marshal returns the binary encoding of a payload. It panics on a value that is not a
// payload or on a Phantom with negative N.
func Marshal(p any) []byte {
	return AppendMarshal(make([]byte, 0, codecLen(p)), p)
}

// AppendMarshal appends the binary encoding of a payload to dst.
func AppendMarshal(dst []byte, p any) []byte {
	switch x := p.(type) {
	case nil:
		return append(dst, codecTagNil)
	case bool:
		if x {
			return append(dst, codecTagTrue)
		}
		return append(dst, codecTagFalse)
	case float64:
		dst = append(dst, codecTagNumber)
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(x))
	case string:
		dst = append(dst, codecTagString)
		dst = binary.AppendUvarint(dst, uint64(len(x)))
		return append(dst, x...)
	case []float64:
		dst = append(dst, codecTagNumbers)
		dst = binary.AppendUvarint(dst, uint64(len(x)))
		for _, f := range x {
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(f))
		}
		return dst
	case Phantom:
		if x.N < 0 {
			panic(fmt.Sprintf("luabind: Marshal: mpi.bytes(%d)", x.N))
		}
		dst = append(dst, codecTagPhantom)
		return binary.AppendUvarint(dst, uint64(x.N))
	case *Table:
		dst = append(dst, codecTagTable)
		dst = binary.AppendUvarint(dst, uint64(len(x.Array)))
		for _, e := range x.Array {
			dst = AppendMarshal(dst, e)
		}
		dst = binary.AppendUvarint(dst, uint64(len(x.Keys)))
		for i, k := range x.Keys {
			dst = AppendMarshal(dst, k)
			dst = AppendMarshal(dst, x.Vals[i])
		}
		return dst
	}
	panic(fmt.Sprintf("luabind: Marshal: %T is not a payload", p))
}

// codecLen returns len(Marshal(p)) without encoding.
func codecLen(p any) int {
	switch x := p.(type) {
	case nil, bool:
		return 1
	case float64:
		return 9
	case string:
		return 1 + codecUvarintLen(uint64(len(x))) + len(x)
	case []float64:
		return 1 + codecUvarintLen(uint64(len(x))) + 8*len(x)
	case Phantom:
		return 1 + codecUvarintLen(uint64(x.N))
	case *Table:
		n := 1 + codecUvarintLen(uint64(len(x.Array))) + codecUvarintLen(uint64(len(x.Keys)))
		for _, e := range x.Array {
			n += codecLen(e)
		}
		for i, k := range x.Keys {
			n += codecLen(k) + codecLen(x.Vals[i])
		}
		return n
	}
	panic(fmt.Sprintf("luabind: %T is not a payload", p))
}

func codecUvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// Unmarshal decodes one payload that fills b exactly. It rejects malformed input with
// an error: unknown tags, truncation, trailing bytes, lengths beyond the input, nesting
// deeper than Encode allows, table keys Encode cannot produce (nil, NaN, tables, keys
// repeated or overlapping the array part). No length field can make it allocate more
// than a small multiple of len(b).
func Unmarshal(b []byte) (any, error) {
	p, rest, err := unmarshalPrefix(b)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("payload: %d trailing bytes at offset %d", len(rest), len(b)-len(rest))
	}
	return p, nil
}

// unmarshalPrefix decodes the payload at the start of b, as Unmarshal does,
// and returns the bytes that follow it.
func unmarshalPrefix(b []byte) (any, []byte, error) {
	d := codecDecoder{b: b}
	p, err := d.value(0)
	if err != nil {
		return nil, b, err
	}
	return p, b[d.off:], nil
}

type codecDecoder struct {
	b   []byte
	off int
}

func (d *codecDecoder) errorf(format string, args ...any) error {
	return fmt.Errorf("payload: offset %d: "+format, append([]any{d.off}, args...)...)
}

// count reads a uvarint length of items that take at least min bytes each, and checks
// it against the remaining input.
func (d *codecDecoder) count(what string, min int) (int, error) {
	x, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		return 0, d.errorf("bad %s varint", what)
	}
	d.off += n
	if rest := uint64(len(d.b) - d.off); x > rest/uint64(min) {
		return 0, d.errorf("%s %d exceeds the %d bytes left", what, x, rest)
	}
	return int(x), nil
}

// value decodes one value; depth is the number of enclosing tables.
func (d *codecDecoder) value(depth int) (any, error) {
	if d.off >= len(d.b) {
		return nil, d.errorf("unexpected end of input")
	}
	tag := d.b[d.off]
	d.off++
	switch tag {
	case codecTagNil:
		return nil, nil
	case codecTagFalse:
		return false, nil
	case codecTagTrue:
		return true, nil
	case codecTagNumber:
		if len(d.b)-d.off < 8 {
			return nil, d.errorf("truncated number")
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.off:]))
		d.off += 8
		return f, nil
	case codecTagString:
		n, err := d.count("string length", 1)
		if err != nil {
			return nil, err
		}
		s := string(d.b[d.off : d.off+n])
		d.off += n
		return s, nil
	case codecTagNumbers:
		if depth >= codecMaxDepth {
			return nil, d.errorf("table nested too deeply")
		}
		n, err := d.count("array length", 8)
		if err != nil {
			return nil, err
		}
		arr := make([]float64, n)
		for i := range arr {
			arr[i] = math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.off:]))
			d.off += 8
		}
		return arr, nil
	case codecTagPhantom:
		x, n := binary.Uvarint(d.b[d.off:])
		if n <= 0 {
			return nil, d.errorf("bad mpi.bytes varint")
		}
		if x > math.MaxInt {
			return nil, d.errorf("mpi.bytes size %d too large", x)
		}
		d.off += n
		return Phantom{N: int(x)}, nil
	case codecTagTable:
		if depth >= codecMaxDepth {
			return nil, d.errorf("table nested too deeply")
		}
		return d.table(depth + 1)
	}
	return nil, d.errorf("unknown tag 0x%02x", tag)
}

func (d *codecDecoder) table(depth int) (any, error) {
	t := &Table{}
	na, err := d.count("array length", 1)
	if err != nil {
		return nil, err
	}
	if na > 0 {
		t.Array = make([]any, na)
		for i := range t.Array {
			p, err := d.value(depth)
			if err != nil {
				return nil, err
			}
			if p == nil {
				return nil, d.errorf("nil in a table")
			}
			t.Array[i] = p
		}
	}
	nk, err := d.count("key count", 2)
	if err != nil {
		return nil, err
	}
	if nk == 0 {
		return t, nil
	}
	t.Keys = make([]any, nk)
	t.Vals = make([]any, nk)
	keys := newTableKeys(na, nk)
	for i := 0; i < nk; i++ {
		at := d.off
		k, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		if err := keys.add(k); err != nil {
			return nil, fmt.Errorf("payload: offset %d: %w", at, err)
		}
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, d.errorf("nil in a table")
		}
		t.Keys[i] = k
		t.Vals[i] = v
	}
	return t, nil
}

// tableKeys checks the keys of a table's hash part one at a time, as Encode
// makes them: numbers that are not NaN and not in or just past the array
// part (of na entries), strings and booleans, each once.
type tableKeys struct {
	na   int
	seen map[any]struct{}
}

func newTableKeys(na, nk int) tableKeys {
	t := tableKeys{na: na}
	if nk > 1 {
		t.seen = make(map[any]struct{}, nk)
	}
	return t
}

// add says why k cannot be the next key (nil if it can).
func (t *tableKeys) add(k any) error {
	switch x := k.(type) {
	case float64:
		if x != x {
			return errors.New("NaN table key")
		}
		if x == math.Trunc(x) && x >= 1 && x <= float64(t.na+1) {
			return fmt.Errorf("table key %v belongs in the array part", x)
		}
	case string, bool:
	default:
		return fmt.Errorf("table key of type %s", codecKind(k))
	}
	if t.seen != nil {
		if _, dup := t.seen[k]; dup {
			return fmt.Errorf("repeated table key %v", k)
		}
		t.seen[k] = struct{}{}
	}
	return nil
}

// codecKind names a payload's kind for error messages.
func codecKind(p any) string {
	switch p.(type) {
	case nil:
		return "nil"
	case []float64, *Table:
		return "table"
	case Phantom:
		return "userdata"
	}
	return fmt.Sprintf("%T", p)
}
