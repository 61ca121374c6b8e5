package luabind

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/msglayer"
)

// mlDeposit: ml.deposit(dim, dir, handler, data) sends data along one torus
// dimension with the deposit bit ([ML]; hw/deposit.go): one injection, and
// every node the packets pass keeps a copy, whose rank in the caller's slot t
// runs handler(src, data, info) when it advances. On a torus the line goes
// round the ring and stops before the caller; on a mesh it runs to the edge.
// Nonblocking: it costs the caller's CPU the send. It returns how many ranks
// the line reaches.
func (rk *rankCtx) mlDeposit(L *lua.LState) int {
	rk.r.NeedOnePartition("ml.deposit")
	ml := rk.h.W.ML
	mp := ml.Map
	dim := checkDim(L, 1)
	var dir hw.Dir
	switch d := L.Get(2).(type) {
	case lua.LNumber:
		if d == 1 || d == -1 {
			dir = hw.DirOf(dim, int(d))
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
	me := rk.r.ID
	src := mp.Node(me)
	line := hw.Line{From: int32(src), Dir: dir, Hops: int32(mp.Torus.LineHops(src, dir))}
	if line.Hops == 0 {
		L.Push(lua.LNumber(0))
		return 1
	}
	cpu := ml.CPU(me)
	t := cpu.Run(rk.r.Now(), ml.M.MLSendCycles)
	total := size + amHeader
	route := mp.Torus.LineRoute(nil, line)
	_, arr := ml.Net.DepositSend(cpu, t, route, total, nil)
	proto := msglayer.OnePacket
	if ml.M.Packets(total) > 1 {
		proto = msglayer.Eager
	}
	slot := mp.Coord(me).T
	reached := 0
	for _, a := range arr {
		x, y, z := mp.Torus.NodeCoord(int(a.Node))
		dst, ok := mp.RankOf(hw.Coord{X: x, Y: y, Z: z, T: slot})
		if !ok {
			continue // no rank of the job in that slot: the copy is dropped
		}
		reached++
		m := &msglayer.Message{
			Src: me, Dst: dst, Bytes: size, Header: amHeader, Protocol: proto,
			To: msglayer.AM{L: ml}, Payload: amPayload{handler: h, data: data}, From: me,
		}
		ml.Eng.At(a.First, &depositCopy{ml: ml, m: m, a: a, total: total})
	}
	rk.r.Sync()
	L.Push(lua.LNumber(reached))
	return 1
}

// depositCopy is a deposit-bit message reaching one node of its line: the
// node's CPU reads it in, then it waits in the rank's inbox for an advance.
type depositCopy struct {
	ml    *msglayer.Layer
	m     *msglayer.Message
	a     hw.Arrival
	total int
}

func (d *depositCopy) Act(now msglayer.Time) {
	done := d.ml.M.DepositReceive(d.ml.CPU(d.m.Dst), d.a, d.total)
	msglayer.AM{L: d.ml}.Complete(d.m, done)
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
