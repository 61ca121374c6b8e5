package luabind

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// mlDeposit: ml.deposit(dim, dir, handler, data) sends data along one torus
// dimension with the deposit bit (msglayer.Layer.DepositAM): one injection, and
// every node the packets pass keeps a copy, whose rank in the caller's slot t
// runs handler(src, data, info) when it advances. On a torus the line goes
// round the ring and stops before the caller; on a mesh it runs to the edge.
// Nonblocking: it costs the caller's CPU the send. It returns how many ranks
// the line reaches.
//
// In partitions the train is carried through the blocks of the line
// (msglayer.Layer.CarryDeposit); each block's copies are made in its own
// partition.
func (rk *rankCtx) mlDeposit(L *lua.LState) int {
	dim := checkDim(L, 1)
	var dir int
	switch d := L.Get(2).(type) {
	case lua.LNumber:
		if d == 1 || d == -1 {
			dir = int(d)
			break
		}
		L.RaiseError("ml.deposit: dir must be 1 or -1, got %s", d.String())
	default:
		L.RaiseError("ml.deposit: dir must be 1 or -1, got %s", L.Get(2).Type())
	}
	h := checkHandler(L, 3, "deposit")
	data, size, err := Encode(L.Get(4))
	if err != nil {
		L.RaiseError("ml.deposit: %s", err.Error())
	}
	reached, sent := rk.ml().DepositAM(rk.r.ID, rk.r.Now(), dim, dir, size, amPayload{handler: h, data: data})
	if sent {
		rk.r.Sync()
	}
	L.Push(lua.LNumber(reached))
	return 1
}

// checkDim reads a torus dimension: 1, 2, 3 or "x", "y", "z".
func checkDim(L *lua.LState, i int) int {
	switch v := L.Get(i).(type) {
	case lua.LNumber:
		if v == 1 || v == 2 || v == 3 {
			return int(v) - 1
		}
	case lua.LString:
		switch v {
		case "x":
			return 0
		case "y":
			return 1
		case "z":
			return 2
		}
	}
	got := L.Get(i).Type().String()
	switch v := L.Get(i).(type) {
	case lua.LNumber:
		got = v.String()
	case lua.LString:
		got = fmt.Sprintf("%q", string(v))
	}
	L.RaiseError("ml.deposit: dim must be 1, 2, 3 or \"x\", \"y\", \"z\", got %s", got)
	return 0
}
