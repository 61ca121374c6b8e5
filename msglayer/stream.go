package msglayer

import "github.com/bglua/bglua/runtime"

// A packet stream sends single packets that need no message around them:
// each is a train of one packet (hw.Head) that takes the links of its route
// hop by hop through their arbiters and into room in the routers' buffers,
// and crosses its last link only into room in its reader's reception FIFOs,
// as every batch of the layer does (links.go). The packets go adaptively
// (at every node, among the links that bring the head closer, the one whose
// arbiter lets it in soonest) or in BG/L's dimension order; where the
// destination is exactly half a ring away either way is minimal, and the
// packet takes one or the other by its hint bits (Flip, set at injection as
// the packet header's are), so that both directions of a ring share that
// traffic. The layer above follows each packet with a StreamSink: when it
// has left its writer's injection FIFO, and when it is in its reader's
// reception FIFO, which the reader then reads with StreamRead (mpi's
// optimized alltoall writes its packets this way: [ML] Fig. 6).

// StreamPacket is a packet of a stream: from rank Src to rank Dst, packet
// Index of the stream between them, Payload bytes.
type StreamPacket struct {
	Src, Dst int
	Index    int
	Payload  int
	Flip     uint8 // hint bits: bit d, half a ring away along d, go the - way
	Adaptive bool
	Label    int32 // for link accounting (Message.Label)
}

// A StreamSink follows a stream packet on its way (StreamSend).
type StreamSink interface {
	// StreamLeft runs when the packet has left its writer's injection
	// FIFO (its head took its first link), at now.
	StreamLeft(now Time)
	// StreamArrived runs when the packet is in its reader's reception
	// FIFO, at now; in is its place there, which StreamRead frees.
	StreamArrived(now Time, in StreamSlot)
}

// StreamSlot is the place a stream packet holds in its reader's reception
// FIFOs until it is read.
type StreamSlot struct {
	link int32 // the last link of its route, plus one (0: it took none)
	cls  int8
}

// StreamWrite has rank's CPU write one packet of a stream from t, first
// setting the stream up if it is the first packet to its destination
// (MLSendCycles), and returns when the CPU is done.
func (l *Layer) StreamWrite(rank int, t Time, first bool) Time {
	work := l.M.PacketWriteWork()
	if first {
		work += l.M.MLSendCycles
	}
	return l.CPU(rank).Run(t, work)
}

// StreamSend sends p, which rank p.Src's CPU has written into its
// injection FIFO by t (StreamWrite), and tells sink of its way.
func (l *Layer) StreamSend(p StreamPacket, t Time, sink StreamSink) {
	from, to := l.Map.Node(p.Src), l.Map.Node(p.Dst)
	v := l.on(from)
	if v.streams == nil {
		v.streams = make([]uint32, len(v.sends))
	}
	x := v.newTrain()
	x.st = v.newStream()
	*x.st = streamInfo{sink: sink, flip: p.Flip, label: p.Label,
		id: streamID{src: int32(p.Src), nth: v.streams[p.Src], key: streamKey(p.Src, p.Dst, p.Index)}}
	v.streams[p.Src]++
	x.k, x.rx = 1, int32(l.cpuIndex(p.Dst))
	b := l.M.PacketBytes(p.Payload)
	v.launch(x, from, to, t, 1, b, b, p.Adaptive, l.cpuIndex(p.Src)%l.M.CPUsPerNode)
}

// StreamRead has rank's CPU read one packet of payload bytes from now on,
// the packet having been in its reception FIFO at in (StreamSlot{} for
// none), and returns when it is done. The place frees as the read ends,
// and the link's node learns of it a hop later.
func (l *Layer) StreamRead(rank int, now Time, payload int, in StreamSlot) Time {
	end := l.readPacket(rank, now, payload)
	if in.link > 0 {
		l.giveBack(int(in.link-1), in.cls, end+l.M.HopCycles)
	}
	return end
}

// readPacket has rank's CPU read one packet of payload bytes from now on
// and returns when it is done.
func (l *Layer) readPacket(rank int, now Time, payload int) Time {
	return l.CPU(rank).Run(now, l.M.PacketReadWork(payload))
}

// streamInfo is what a train that carries a stream packet has beyond a
// message's: the sink told of its way, what tells its events apart, its
// hint bits and its label. (It has no wire form: the optimized alltoall,
// the streams' one user, runs in one partition.)
type streamInfo struct {
	sink  StreamSink
	id    streamID
	flip  uint8
	label int32
}

func (l *Layer) newStream() *streamInfo {
	if s := l.streamInfos.get(); s != nil {
		return s
	}
	return &streamInfo{}
}

func (l *Layer) freeStream(s *streamInfo) {
	*s = streamInfo{}
	l.streamInfos.put(s)
}

// streamID is what a stream packet's events are told apart by: its sender
// and its place among the sender's stream packets (counted apart from its
// messages), and its key, a hash of its ends and its index in the stream.
type streamID struct {
	src int32
	nth uint32
	key uint64
}

// streamKey is a stream packet's tie key (as trainKey, for packet index of
// the stream from src to dst).
func streamKey(src, dst, index int) uint64 {
	z := uint64(src)<<42 ^ uint64(dst)<<21 ^ 0x5bd1e995
	z = z*0x9e3779b97f4a7c15 + uint64(index)<<3
	z = (z ^ z>>31) * 0xbf58476d1ce4e5b9
	return z ^ z>>29
}

// streamFullTie is the full tie (runtime.Tied) of a stream packet's event
// of kind at place: as fullTie, its sender and place among its stream
// packets, marked apart from any message's events.
func streamFullTie(id streamID, place int, kind tieKind) runtime.Tie {
	return runtime.Tie{
		uint64(uint32(id.src))<<32 | uint64(id.nth),
		uint64(uint32(place)) << 32,
		uint64(kind)<<8 | 0xff,
	}
}

// streamIn is a stream packet reaching its reader's reception FIFO.
type streamIn train

func (p *streamIn) Tie() runtime.Tie { return streamFullTie(p.st.id, int(p.rx), tieChunk) }

func (p *streamIn) Act(now Time) {
	x := (*train)(p)
	sink := x.st.sink
	var in StreamSlot
	if link, cls, ok := x.h.Reception(); ok {
		in = StreamSlot{link: int32(link) + 1, cls: cls}
	}
	x.root.on(x.h.Node()).freeTrain(x)
	sink.StreamArrived(now, in)
}
