package msglayer

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/runtime"
)

var update = flag.Bool("update", false, "rewrite the expected traces of testdata/*.scn")

// A scenario file drives the message layer without MPI: a machine, messages
// posted at given cycles, work on ranks' CPUs; after a line "----" comes the
// trace the run gives, as the layer's Observer saw it (every CPU charge,
// batch of packets written and read, control packet, envelope handed over,
// sender released), then each CPU's busy cycles and the network's counters.
// `go test ./msglayer -update` rewrites what follows "----". Lines before it:
//
//	machine NAME KEY=VALUE...   first line. NAME: bgl or bgc. Keys: torus=XxYxZ
//	                            (default 2x1x1), ranks=N (default: one per
//	                            node), mode=heater|co|vn (default heater; vn
//	                            puts two ranks on a node), routing=per-protocol|
//	                            deterministic|adaptive, seed=N (adaptive
//	                            routing's ties), and any machine field by its
//	                            snake-case name (reception_fifo=16)
//	send SRC->DST bytes=N [protocol=P] [header=H] [at=T]
//	                            rank SRC's code sends N bytes to DST at cycle T
//	                            (default 0; P: auto, onepacket, eager, adaptive,
//	                            rendezvous, vn; header default 16). The receiver
//	                            is a client library whose receive is posted: it
//	                            grants a rendezvous message at once.
//	work RANK cycles=N [at=T]   rank RANK's code keeps its CPU busy N cycles
//
// Messages are numbered #0, #1, ... in file order. CPUs are named
// node.slot. Times are cycles; each trace line starts with the cycle the
// layer took the step at.
type scenario struct {
	path  string
	line  int
	lines []string // up to "----"
	want  string   // after it
}

func readScenario(t *testing.T, path string) *scenario {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := &scenario{path: path}
	head, want, ok := strings.Cut(string(b), "----\n")
	if !ok {
		t.Fatalf("%s: no \"----\" line ending the commands", path)
	}
	s.lines, s.want = strings.Split(head, "\n"), want
	return s
}

// fail reports bad input at the line being read.
func (s *scenario) fail(t *testing.T, format string, a ...any) {
	t.Helper()
	t.Fatalf("%s:%d: %s", s.path, s.line, fmt.Sprintf(format, a...))
}

// keys reads KEY=VALUE words.
func (s *scenario) keys(t *testing.T, words []string) map[string]string {
	t.Helper()
	kv := map[string]string{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" || v == "" {
			s.fail(t, "%q is not KEY=VALUE", w)
		}
		if _, dup := kv[k]; dup {
			s.fail(t, "%s given twice", k)
		}
		kv[k] = v
	}
	return kv
}

func (s *scenario) num(t *testing.T, what, v string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		s.fail(t, "%s: %q is not a count", what, v)
	}
	return n
}

// setField sets the machine field named key (snake case) to v.
func (s *scenario) setField(t *testing.T, m *hw.Machine, key, v string) {
	t.Helper()
	rv := reflect.ValueOf(m).Elem()
	for i := 0; i < rv.NumField(); i++ {
		if hw.SnakeCase(rv.Type().Field(i).Name) != key {
			continue
		}
		f := rv.Field(i)
		switch f.Kind() {
		case reflect.Int, reflect.Int64:
			f.SetInt(s.num(t, key, v))
		case reflect.Float64:
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				s.fail(t, "%s: %q is not a number", key, v)
			}
			f.SetFloat(x)
		default:
			s.fail(t, "machine field %s cannot be set here", key)
		}
		return
	}
	s.fail(t, "unknown key %q", key)
}

// play runs the scenario and returns its trace.
func (s *scenario) play(t *testing.T) string {
	t.Helper()
	var (
		l    *Layer
		eng  = runtime.New()
		msgs []*Message
		out  strings.Builder
	)
	rec := &scnReceiver{}
	for i, text := range s.lines {
		s.line = i + 1
		w := strings.Fields(text)
		if len(w) == 0 || strings.HasPrefix(w[0], "#") {
			continue
		}
		if l == nil && w[0] != "machine" {
			s.fail(t, "the first line must be \"machine\", not %q", w[0])
		}
		switch w[0] {
		case "machine":
			if l != nil {
				s.fail(t, "a second machine line")
			}
			l = s.machine(t, w[1:], eng)
			l.Obs = &tracer{l: l, out: &out}
		case "send":
			if len(w) < 2 {
				s.fail(t, "send needs SRC->DST")
			}
			a, b, ok := strings.Cut(w[1], "->")
			if !ok {
				s.fail(t, "%q is not SRC->DST", w[1])
			}
			kv := s.keys(t, w[2:])
			m := &Message{Src: s.rank(t, l, a), Dst: s.rank(t, l, b), Header: 16, To: rec, ID: int64(len(msgs))}
			at := Time(0)
			for k, v := range kv {
				switch k {
				case "bytes":
					m.Bytes = int(s.num(t, k, v))
				case "header":
					m.Header = int(s.num(t, k, v))
				case "at":
					at = s.num(t, k, v)
				case "protocol":
					p, ok := ParseProtocol(v)
					if !ok {
						s.fail(t, "unknown protocol %q (want %s)", v, ProtocolNames)
					}
					m.Protocol = p
				default:
					s.fail(t, "send: unknown key %q", k)
				}
			}
			if _, ok := kv["bytes"]; !ok {
				s.fail(t, "send needs bytes=N")
			}
			msgs = append(msgs, m)
			eng.Schedule(at, runtime.PrioProc, runtime.ActionFunc(func(now Time) { l.Send(now, m) }))
		case "work":
			if len(w) < 2 {
				s.fail(t, "work needs a rank")
			}
			rank := s.rank(t, l, w[1])
			kv := s.keys(t, w[2:])
			at, cycles := Time(0), Time(-1)
			for k, v := range kv {
				switch k {
				case "at":
					at = s.num(t, k, v)
				case "cycles":
					cycles = s.num(t, k, v)
				default:
					s.fail(t, "work: unknown key %q", k)
				}
			}
			if cycles < 0 {
				s.fail(t, "work needs cycles=N")
			}
			eng.Schedule(at, runtime.PrioProc, runtime.ActionFunc(func(now Time) {
				end := l.CPU(rank).Run(now, cycles)
				fmt.Fprintf(&out, "%9d work     rank %d  cpu %s [%d,%d)\n", now, rank, cpuName(l, l.cpuIndex(rank)), end-cycles, end)
			}))
		default:
			s.fail(t, "unknown command %q (want machine, send or work)", w[0])
		}
	}
	if l == nil {
		t.Fatalf("%s: no machine line", s.path)
	}
	if err := eng.Run(context.Background()); err != nil {
		fmt.Fprintf(&out, "run: %v\n", err)
	}
	for i, m := range msgs {
		if !rec.done[m] {
			fmt.Fprintf(&out, "#%d never completed\n", i)
		}
	}
	for i := range l.cpus {
		if c := l.cpus[i]; c.Busy > 0 {
			fmt.Fprintf(&out, "cpu %s busy %d free at %d\n", cpuName(l, i), c.Busy, c.Free)
		}
	}
	fmt.Fprintf(&out, "network: %d packets, %d bytes on the wire, links busy %d cycles\n", l.net.Packets, l.net.WireBytes, l.net.LinkBusy)
	return out.String()
}

// machine reads the machine line's words (after "machine").
func (s *scenario) machine(t *testing.T, w []string, eng *runtime.Engine) *Layer {
	t.Helper()
	if len(w) == 0 {
		s.fail(t, "machine needs a name (bgl or bgc)")
	}
	var m *hw.Machine
	switch w[0] {
	case "bgl":
		m = hw.BGL()
	case "bgc":
		m = hw.BGC()
	default:
		s.fail(t, "unknown machine %q (want bgl or bgc)", w[0])
	}
	kv := s.keys(t, w[1:])
	dims := hw.Dims{X: 2, Y: 1, Z: 1}
	if v, ok := kv["torus"]; ok {
		d, err := hw.ParseDims(v)
		if err != nil {
			s.fail(t, "torus: %v", err)
		}
		dims = d
	}
	perNode, co := 1, false
	switch kv["mode"] {
	case "", "heater":
	case "co":
		co = true
	case "vn":
		perNode = 2
	default:
		s.fail(t, "unknown mode %q (want heater, co or vn)", kv["mode"])
	}
	ranks := dims.Nodes() * perNode
	if v, ok := kv["ranks"]; ok {
		ranks = int(s.num(t, "ranks", v))
	}
	routing := PerProtocol
	seed := int64(1)
	for k, v := range kv {
		switch k {
		case "torus", "mode", "ranks":
		case "routing":
			r, ok := ParseRouting(v)
			if !ok {
				s.fail(t, "unknown routing %q", v)
			}
			routing = r
		case "seed":
			seed = s.num(t, k, v)
		default:
			s.setField(t, m, k, v)
		}
	}
	mp, err := hw.MapXYZT(hw.Torus{Dims: dims}, ranks, perNode)
	if err != nil {
		s.fail(t, "%v", err)
	}
	l := New(m, mp, eng)
	l.Coprocessor, l.Routing = co, routing
	l.net.SetSeed(seed)
	return l
}

func (s *scenario) rank(t *testing.T, l *Layer, v string) int {
	t.Helper()
	r := int(s.num(t, "rank", v))
	if r >= l.Map.Ranks() {
		s.fail(t, "rank %d: the machine has %d ranks", r, l.Map.Ranks())
	}
	return r
}

// scnReceiver is a client library whose receives are always posted.
type scnReceiver struct{ done map[*Message]bool }

func (r *scnReceiver) Deliver(m *Message, now, done Time) {
	if done == Pending {
		m.l.Grant(m, now)
		return
	}
	r.mark(m)
}

func (r *scnReceiver) Complete(m *Message, done Time) { r.mark(m) }

func (r *scnReceiver) mark(m *Message) {
	if r.done == nil {
		r.done = map[*Message]bool{}
	}
	r.done[m] = true
}

func cpuName(l *Layer, i int) string {
	return fmt.Sprintf("%d.%d", i/l.M.CPUsPerNode, i%l.M.CPUsPerNode)
}

// tracer writes what the layer observes, a line a step.
type tracer struct {
	l   *Layer
	out *strings.Builder
}

func (tr *tracer) Observe(e *Event) {
	l, m := tr.l, e.Msg
	var b strings.Builder
	fmt.Fprintf(&b, "%9d %-8s #%d", e.At, e.Kind, m.ID)
	work := func() {
		if e.CPU >= 0 {
			fmt.Fprintf(&b, "  cpu %s [%d,%d)", cpuName(l, e.CPU), e.Start, e.End)
		}
	}
	pkts := func() string {
		if e.Packets == 1 {
			return fmt.Sprintf("pkt %d", e.Index)
		}
		return fmt.Sprintf("pkts %d-%d", e.Index, e.Index+e.Packets-1)
	}
	switch e.Kind {
	case EvPost:
		fmt.Fprintf(&b, " %s", e.What)
		if e.What == "send" {
			fmt.Fprintf(&b, " %d->%d %s %dB", m.Src, m.Dst, m.Protocol, m.Bytes)
		}
		work()
	case EvWrite:
		fmt.Fprintf(&b, " %s node %d->%d", pkts(), e.From, e.To)
		work()
		fmt.Fprintf(&b, "  ready %d", e.Ready)
	case EvRoute:
		if e.What != "" {
			fmt.Fprintf(&b, " %s node %d->%d", e.What, e.From, e.To)
		} else {
			fmt.Fprintf(&b, " %s node %d->%d", pkts(), e.From, e.To)
		}
		fmt.Fprintf(&b, "  left %d arrive %d..%d", e.Left, e.First, e.Last)
	case EvRead:
		fmt.Fprintf(&b, " %s", pkts())
		work()
		fmt.Fprintf(&b, "  in at %d", e.Done)
	case EvCtlSend:
		fmt.Fprintf(&b, " %s node %d->%d", e.What, e.From, e.To)
		work()
		fmt.Fprintf(&b, "  ready %d", e.Ready)
	case EvCtlRead, EvCopy:
		if e.What != "" {
			fmt.Fprintf(&b, " %s", e.What)
		}
		work()
	case EvHold:
		fmt.Fprintf(&b, " overtook an earlier message (data in at %d)", e.Done)
	case EvDeliver:
		if e.Done == Pending {
			fmt.Fprintf(&b, " envelope at rank %d, data pending", m.Dst)
		} else {
			fmt.Fprintf(&b, " at rank %d, data in at %d", m.Dst, e.Done)
		}
	case EvComplete:
		fmt.Fprintf(&b, " data in at %d", e.Done)
		if e.CPU >= 0 {
			work()
			b.WriteString(" (cache sync)")
		}
	case EvSent:
		fmt.Fprintf(&b, " sender done at %d", e.Done)
	}
	b.WriteByte('\n')
	tr.out.WriteString(b.String())
}

func TestScenarios(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.scn")
	if len(files) == 0 {
		t.Fatal("no scenarios in testdata")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s := readScenario(t, path)
			got := s.play(t)
			if *update {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				head, _, _ := strings.Cut(string(b), "----\n")
				if err := os.WriteFile(path, []byte(head+"----\n"+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != s.want {
				t.Errorf("%s: the trace differs (go test ./msglayer -run TestScenarios -update rewrites it):\n%s", path, diffLines(s.want, got))
			}
		})
	}
}

// diffLines shows the first lines where want and got differ, with a little
// context.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	for j := max(0, i-2); j < i; j++ {
		fmt.Fprintf(&b, "  %s\n", w[j])
	}
	for j := i; j < min(len(w), i+6); j++ {
		fmt.Fprintf(&b, "- %s\n", w[j])
	}
	for j := i; j < min(len(g), i+6); j++ {
		fmt.Fprintf(&b, "+ %s\n", g[j])
	}
	return b.String()
}
