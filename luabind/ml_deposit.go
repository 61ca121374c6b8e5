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
//
// In partitions the train is carried through the blocks of the line
// (msglayer.Layer.CarryDeposit); each block's copies are made in its own
// partition.
func (rk *rankCtx) mlDeposit(L *lua.LState) int {
	ml := rk.ml()
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
	dep := &deposit{me: me, slot: mp.Coord(me).T, size: size, total: size + amHeader, payload: amPayload{handler: h, data: data},
		proto: msglayer.OnePacket}
	if ml.M.Packets(dep.total) > 1 {
		dep.proto = msglayer.Eager
	}
	cpu := ml.CPU(me)
	t := cpu.Run(rk.r.Now(), ml.M.MLSendCycles)
	t, count, full, last := ml.M.DepositWrite(cpu, t, dep.total)
	left := ml.CarryDeposit(line, t, count, full, last, dep)
	ml.M.DepositWritten(cpu, t, left, count, full)
	reached := 0 // the line's nodes with a rank in the slot (known here, whichever block they are in)
	for node, k := src, 0; k < int(line.Hops); k++ {
		node = mp.Torus.Neighbor(node, dir)
		if dep.rankAt(mp, node) >= 0 {
			reached++
		}
	}
	rk.r.Sync()
	L.Push(lua.LNumber(reached))
	return 1
}

// deposit is one ml.deposit message: the copies it leaves at the nodes of
// its line (msglayer.Deposits), in the partition of each.
type deposit struct {
	me, slot    int
	size, total int
	payload     amPayload
	proto       msglayer.Protocol
}

// rankAt is the rank in the sender's slot at node, or -1.
func (d *deposit) rankAt(mp *hw.Mapping, node int) int {
	x, y, z := mp.Torus.NodeCoord(node)
	if r, ok := mp.RankOf(hw.Coord{X: x, Y: y, Z: z, T: d.slot}); ok {
		return r
	}
	return -1
}

func (d *deposit) Deposited(l *msglayer.Layer, arr []hw.Arrival) {
	for _, a := range arr {
		dst := d.rankAt(l.Map, int(a.Node))
		if dst < 0 {
			continue // no rank of the job in that slot: the copy is dropped
		}
		m := &msglayer.Message{
			Src: d.me, Dst: dst, Bytes: d.size, Header: amHeader, Protocol: d.proto,
			To: msglayer.AM{L: l}, Payload: d.payload, From: d.me,
		}
		l.Eng.At(a.First, &depositCopy{ml: l, m: m, a: a, total: d.total})
	}
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
