package runtime

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// tick is one event per window per partition: it reschedules itself one
// lookahead later and, if send, also sends an event to the next partition.
type tick struct {
	e    *Engine
	next *Engine
	left int
	look Time
	send bool
}

func (k *tick) Act(now Time) {
	if k.left--; k.left > 0 {
		k.e.At(now+k.look, k)
		if k.send {
			k.e.Send(k.next, now+k.look, PrioLate, ActionFunc(func(Time) {}))
		}
	}
}

// BenchmarkGroupWindow measures what a window costs beyond its events: every
// partition has one event in each window, which does nothing but reschedule
// itself (an action), resume a process that sleeps again (proc), or also send
// an event to the next partition (msg). ns/window is the figure.
func BenchmarkGroupWindow(b *testing.B) {
	const look = 63
	for _, kind := range []string{"action", "proc", "msg"} {
		for _, parts := range []int{2, 4, 16} {
			for _, threads := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/parts=%d/threads=%d", kind, parts, threads), func(b *testing.B) {
					g := NewGroup(parts, look)
					for i := range parts {
						e := g.Part(i)
						switch kind {
						case "proc":
							e.Spawn(i, 0, func(p *Proc) {
								for n := 0; n < b.N; n++ {
									p.Sleep(look)
								}
							})
						default:
							e.At(0, &tick{e: e, next: g.Part((i + 1) % parts), left: b.N, look: look, send: kind == "msg"})
						}
					}
					b.ResetTimer()
					if err := g.Run(context.Background(), threads); err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(g.Windows()), "ns/window")
					b.ReportMetric(0, "ns/op")
				})
			}
		}
	}
}

// gridNode is a node of a 2-D torus of ranks: each round it computes (a few
// microseconds of hashing), then sends to its four neighbours and waits for
// their four messages of the round, as a halo exchange does. Nodes are laid
// out on the partitions in blocks of rows.
type gridNode struct {
	g       *gridModel
	id      int
	e       *Engine
	rank    *Proc
	got     []uint8
	waiting int
	h       uint64
}

type gridModel struct {
	side, rounds, work int
	look               Time
	nodes              []*gridNode
}

type gridMsg struct {
	n     *gridNode
	round int
	val   uint64
}

func (m *gridMsg) Act(now Time) {
	n := m.n
	n.got[m.round]++
	n.h = hashWork(n.h^m.val, n.g.work/8) // the network's share of the work
	if n.waiting == m.round && n.got[m.round] == 4 {
		n.e.Wake(n.rank, now)
	}
}

func hashWork(h uint64, n int) uint64 {
	for k := 0; k < n; k++ {
		h = (h ^ uint64(k)) * 0x100000001b3
	}
	return h
}

func (n *gridNode) run(p *Proc) {
	m := n.g
	x, y := n.id%m.side, n.id/m.side
	nb := [4]int{
		y*m.side + (x+1)%m.side, y*m.side + (x+m.side-1)%m.side,
		(y+1)%m.side*m.side + x, (y+m.side-1)%m.side*m.side + x,
	}
	for r := 0; r < m.rounds; r++ {
		n.h = hashWork(n.h, m.work)
		p.Sleep(100 + Time(n.h%64))
		for k, dst := range nb {
			d := m.nodes[dst]
			n.e.Send(d.e, p.Now()+m.look+Time(n.h>>(8*k)%8), PrioModel, &gridMsg{n: d, round: r, val: n.h})
		}
		if n.got[r] < 4 {
			n.waiting = r
			p.Block("halo")
			n.waiting = -1
		}
	}
}

// BenchmarkGroupSpeedup runs a halo exchange of 32x32 ranks with about two
// microseconds of work per event on 4 to 16 partitions, on one thread and on
// two (with -cpu 2): the ratio of the two is the speedup. ns/op is per round.
// The "hash" variants do a round's hashing alone, split among the threads
// without any engine: their ratio is the parallelism the machine gives at
// the time (on a shared machine, often less than its cores).
func BenchmarkGroupSpeedup(b *testing.B) {
	const side, look, work = 32, 63, 2000
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("hash/threads=%d", threads), func(b *testing.B) {
			perRound := side * side * (work + 4*(work/8))
			var wg sync.WaitGroup
			sink := make([]uint64, threads*8) // a cache line each
			for i := range threads {
				wg.Add(1)
				go func() {
					defer wg.Done()
					sink[i*8] = hashWork(uint64(i), b.N*perRound/threads)
				}()
			}
			wg.Wait()
		})
	}
	for _, parts := range []int{4, 8, 16} {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("parts=%d/threads=%d", parts, threads), func(b *testing.B) {
				g := NewGroup(parts, look)
				m := &gridModel{side: side, rounds: b.N, work: work, look: look}
				for id := 0; id < side*side; id++ {
					n := &gridNode{g: m, id: id, e: g.Part(id * parts / (side * side)), got: make([]uint8, b.N), waiting: -1, h: uint64(id)}
					m.nodes = append(m.nodes, n)
				}
				for _, n := range m.nodes {
					n.rank = n.e.Spawn(n.id, 0, n.run)
				}
				b.ResetTimer()
				if err := g.Run(context.Background(), threads); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(g.Events())/b.Elapsed().Seconds(), "events/s")
				b.ReportMetric(float64(g.Windows())/float64(b.N), "windows/round")
			})
		}
	}
}
