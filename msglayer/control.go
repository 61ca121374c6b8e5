package msglayer

import "github.com/bglua/bglua/hw"

// Control packets carry no data: the rendezvous scout and grant and the
// adaptive eager confirmation. They are one packet each, travel in the
// high-priority FIFOs (no reception slot is counted for them) and are read
// by the CPU of the rank they are for.
type ctlKind uint8

const (
	ctlScout   ctlKind = iota // sender to receiver: a rendezvous envelope
	ctlGrant                  // receiver to sender: send the data
	ctlConfirm                // receiver to sender: the adaptive eager message is matched
)

type control struct {
	kind ctlKind
	m    *Message
}

// sendControl has cpu write a control packet of kind about m from t on, from
// rank src's node to rank dst's, and schedules its arrival. The scout carries
// the envelope (m.Header bytes); the others only the hardware header. It
// returns when the CPU is done.
func (l *Layer) sendControl(kind ctlKind, m *Message, cpu *hw.CPU, t Time, src, dst int, adaptive bool) Time {
	end := cpu.Run(t, l.M.PacketWriteCycles+l.M.PacketOverheadCycles)
	payload := 0
	if kind == ctlScout {
		payload = m.Header
	}
	b := l.M.PacketBytes(payload)
	from, to := l.Map.Node(src), l.Map.Node(dst)
	var arrived Time
	if adaptive {
		_, arrived = l.Net.SendAdaptive(from, to, end, b)
	} else {
		l.route = l.Net.Route(l.route[:0], from, to)
		_, arrived = l.Net.Send(l.route, end, b)
	}
	var c *control
	if n := len(l.ctlPool); n > 0 {
		c = l.ctlPool[n-1]
		l.ctlPool = l.ctlPool[:n-1]
	} else {
		c = &control{}
	}
	c.kind, c.m = kind, m
	l.Eng.At(arrived, c)
	return end
}

// Act reads the control packet at its destination and does what it says.
func (c *control) Act(now Time) {
	kind, m := c.kind, c.m
	l := m.l
	*c = control{}
	l.ctlPool = append(l.ctlPool, c)
	mc := l.M
	read := mc.MLDispatchCycles + mc.PacketReadCycles + mc.PacketOverheadCycles
	switch kind {
	case ctlScout:
		l.CPU(m.Dst).Run(now, read+l.clientCost(m, mc.MPIRzvCycles))
		l.deliver(m, now, Pending)
	case ctlGrant:
		cpu := l.CPU(m.Src)
		t := cpu.Run(now, read)
		l.startData(t, m, cpu, l.rzvCPU(m))
	case ctlConfirm:
		// The sender's token for its next message to this receiver.
		t := l.CPU(m.Src).Run(now, read+l.clientCost(m, mc.MPIAdaptiveCycles))
		if m.Sent != nil {
			l.Eng.At(t, m.Sent)
		}
		l.release(t, m)
	}
}
