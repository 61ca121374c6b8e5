package hw

import (
	"strings"
	"testing"
)

func TestBuiltinMachinesAreValid(t *testing.T) {
	for _, name := range MachineNames {
		m, ok := Named(name)
		if !ok || m.Name != name {
			t.Fatalf("Named(%q) = %v, %v", name, m, ok)
		}
		if err := m.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, ok := Named("cray"); ok {
		t.Error("Named accepted an unknown machine")
	}
	// [EMU]: 1 ns per hop, 75 ns per corner, 1 us per handler, 128-byte packets.
	c := BGC()
	if c.Seconds(c.HopCycles) != 1e-9 || c.Seconds(c.CornerTurnCycles) != 75e-9 || c.Seconds(c.MLDispatchCycles) != 1e-6 || c.PacketMax != 128 {
		t.Errorf("bgc constants: %+v", c)
	}
	// 1 GB/s links.
	if rate := c.LinkBytesPerCycle * c.ClockHz; rate != 1e9 {
		t.Errorf("bgc link rate %g B/s", rate)
	}
	// 25 processors x 8 thread units per node; BG/L has none.
	if n := c.CommThreads + c.WorkerThreads; n != 200 || c.CommThreads < 1 {
		t.Errorf("bgc thread units: %d comm + %d worker", c.CommThreads, c.WorkerThreads)
	}
	if l := BGL(); l.CommThreads != 0 || l.WorkerThreads != 0 {
		t.Errorf("bgl thread units: %d comm + %d worker, want none", l.CommThreads, l.WorkerThreads)
	}
}

func TestSet(t *testing.T) {
	cases := []struct {
		name string
		v    any
		err  string
	}{
		{"hop_cycles", 70.0, ""},
		{"clock_hz", 850e6, ""},
		{"name", "mine", ""},
		{"hop_cycles", 1.5, "field hop_cycles: want an integer, got 1.5"},
		{"hop_cycles", "fast", "field hop_cycles: want an integer, got a string"},
		{"clock_hz", true, "field clock_hz: want a number, got a boolean"},
		{"name", 3.0, "field name: want a string, got a number"},
		{"hop_latency", 1.0, "unknown field hop_latency (valid: adaptive_header, adaptive_setup_cycles, cache_line, clock_hz, "},
	}
	for _, c := range cases {
		m := BGL()
		err := m.Set(c.name, c.v)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("Set(%s, %v): %v", c.name, c.v, err)
		case c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err)):
			t.Errorf("Set(%s, %v) = %v, want %q", c.name, c.v, err, c.err)
		}
	}
	m := BGL()
	m.Set("hop_cycles", 70.0)
	m.Set("clock_hz", 850e6)
	if m.HopCycles != 70 || m.ClockHz != 850e6 {
		t.Errorf("Set did not take: %d %g", m.HopCycles, m.ClockHz)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		field string
		v     float64
		want  string
	}{
		{"clock_hz", 0, "field clock_hz must be positive"},
		{"hop_cycles", -1, "field hop_cycles must not be negative"},
		{"packet_header", 300, "packets: want"},
		{"cpus_per_node", 0, "field cpus_per_node must be positive"},
		{"comm_threads", -1, "field comm_threads must not be negative"},
		{"worker_threads", -2, "field worker_threads must not be negative"},
		{"handoff_cycles", -1, "field handoff_cycles must not be negative"},
		{"worker_threads", 4, "field worker_threads needs comm_threads > 0"},
	} {
		m := BGL()
		if err := m.Set(c.field, c.v); err != nil {
			t.Fatal(err)
		}
		if err := m.Validate(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s=%v: %v, want %q", c.field, c.v, err, c.want)
		}
	}
}
