package msglayer

import (
	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

// Control packets carry no data: the rendezvous scout and grant, the
// adaptive eager confirmation and the synchronous send's acknowledgement.
// They are one packet each, travel in the high-priority FIFOs (no reception
// slot is counted for them) and are read by the CPU of the rank they are
// for.
type ctlKind uint8

const (
	ctlScout   ctlKind = iota // sender to receiver: a rendezvous envelope
	ctlGrant                  // receiver to sender: send the data
	ctlConfirm                // receiver to sender: the adaptive eager message is matched
	ctlAck                    // receiver to sender: a receive matched the synchronous message
)

var ctlNames = [...]string{"scout", "grant", "confirm", "sync-ack"}

type control struct {
	kind ctlKind
	m    *Message
	rx   int32 // a grant: the CPU the receiver chose for the data
}

// sendControl has cpu write a control packet of kind about m from t on, from
// rank src's node to rank dst's, and schedules its arrival. The scout carries
// the envelope (m.Header bytes); the others only the hardware header. It
// returns when the CPU is done.
func (l *Layer) sendControl(kind ctlKind, m *Message, cpu *hw.CPU, t Time, src, dst int, adaptive bool) Time {
	w := l.M.PacketWriteCycles + l.M.PacketOverheadCycles
	end := cpu.Run(t, w)
	payload := 0
	if kind == ctlScout {
		payload = m.Header
	}
	b := l.M.PacketBytes(payload)
	from, to := l.Map.Node(src), l.Map.Node(dst)
	ci := l.endIndex(m, src)
	if l.Obs != nil {
		l.Obs.Observe(&Event{Kind: EvCtlSend, Msg: m, What: ctlNames[kind], At: l.Eng.Now(), CPU: ci, Start: end - w, End: end,
			Packets: 1, From: from, To: to, Ready: end, Left: -1, First: -1, Last: -1})
	}
	x := l.newTrain()
	x.m, x.ctl, x.kind = m, true, kind
	if kind == ctlGrant {
		// The grant carries the receiver's choice of CPU for the data, so
		// that the sender need not read it from the receiver's side of the
		// message.
		x.rx = m.rzvRx
	}
	l.on(from).launch(x, from, to, end, 1, b, b, adaptive, ci%l.M.CPUsPerNode)
	return end
}

// controlAt schedules the arrival of a control packet of kind about m at t:
// at the receiver's node for a scout, the sender's for the others (rx: what
// a grant's train carries).
func (l *Layer) controlAt(t Time, kind ctlKind, m *Message, rx int32) {
	c := l.newControl()
	c.kind, c.m, c.rx = kind, m, rx
	node := l.Map.Node(m.Src)
	if kind == ctlScout {
		node = l.Map.Node(m.Dst)
	}
	l.Eng.AtKey(t, controlTie(node, m, kind), c)
}

func (l *Layer) newControl() *control {
	if n := len(l.ctlPool); n > 0 {
		c := l.ctlPool[n-1]
		l.ctlPool = l.ctlPool[:n-1]
		return c
	}
	return &control{}
}

func (c *control) Tie() runtime.Tie {
	node := c.m.Src
	if c.kind == ctlScout {
		node = c.m.Dst
	}
	return fullTie(c.m, c.m.l.Map.Node(node), tieControl, 0, true, c.kind)
}

// Act reads the control packet at its destination and does what it says.
func (c *control) Act(now Time) {
	kind, m, grantRx := c.kind, c.m, c.rx
	l := m.l
	if l.views != nil {
		if kind == ctlScout {
			l = l.on(l.Map.Node(m.Dst))
		} else {
			l = l.on(l.Map.Node(m.Src))
		}
	}
	*c = control{}
	l.ctlPool = append(l.ctlPool, c)
	if kind != ctlScout && m.cross != 0 {
		l.dist.controlBack(m)
	}
	mc := l.M
	read := mc.MLDispatchCycles + mc.PacketReadCycles + mc.PacketOverheadCycles
	switch kind {
	case ctlScout:
		d := read + l.clientCost(m, mc.MPIRzvCycles)
		t := l.endCPU(m, m.Dst).Run(now, d)
		l.ctlRead(kind, m, l.endIndex(m, m.Dst), now, t-d, t)
		l.deliver(m, now, Pending)
	case ctlGrant:
		t := l.endCPU(m, m.Src).Run(now, read)
		l.ctlRead(kind, m, l.endIndex(m, m.Src), now, t-read, t)
		rx := int(grantRx)
		if l.views == nil {
			rx = l.rzvCPU(m)
		}
		l.startData(t, m, l.endIndex(m, m.Src), rx)
	case ctlConfirm:
		// The sender's token for its next message to this receiver.
		d := read + l.clientCost(m, mc.MPIAdaptiveCycles)
		t := l.endCPU(m, m.Src).Run(now, d)
		l.ctlRead(kind, m, l.endIndex(m, m.Src), now, t-d, t)
		l.sent(t, m)
		l.release(t, m)
	case ctlAck:
		t := l.CPU(m.Src).Run(now, read)
		l.ctlRead(kind, m, l.cpuIndex(m.Src), now, t-read, t)
		l.sent(t, m)
	}
}

// ctlRead tells the observer, if any, that CPU i read a control packet.
func (l *Layer) ctlRead(kind ctlKind, m *Message, i int, now, start, end Time) {
	if l.Obs != nil {
		l.Obs.Observe(&Event{Kind: EvCtlRead, Msg: m, What: ctlNames[kind], At: l.Eng.Now(), CPU: i, Start: start, End: end})
	}
}
