package hw

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// BGC returns the earlier cellular design of the emulator paper ([EMU]): a
// 34x34x36 torus of 41,616 nodes, 128-byte packets with an 8-byte header,
// 1 GB/s links, about 1 ns per hop and 75 ns to turn a corner, and 1 us to
// execute a handler. Its clock is taken as 1 GHz so that those constants are
// whole cycles; its links then move 1 byte per cycle.
func BGC() *Machine {
	return &Machine{
		Name:              "bgc",
		ClockHz:           1e9,
		CPUsPerNode:       2,
		LinkBytesPerCycle: 1,
		PacketMax:         128,
		PacketMin:         16,
		PacketGranule:     8,
		PacketHeader:      8,
		WireOverhead:      0,
		HopCycles:         1,
		CornerTurnCycles:  75,
		NetworkCycles:     0,
		InjectionFIFO:     32,
		ReceptionFIFO:     64,
		PacketWriteCycles: 0,
		PacketReadCycles:  0,
		CopyBytesPerCycle: 8,
		InterruptCycles:   0,

		PacketOverheadCycles: 0,
		CacheLine:            32,
		AdaptiveHeader:       8,

		MLSendCycles:     0,
		MLDispatchCycles: 1000,
		EagerSetupCycles: 0,

		MPICallCycles:          100,
		MPISendCycles:          300,
		MPIMatchCycles:         350,
		ReduceCyclesPerElement: 6,

		EagerLimit: 1000,
		RzvLimit:   1000,

		VNComputePenalty: 0,
		FlopsPerCycle:    1,

		// The cellular design of [EMU] has no collective network and no
		// global interrupt network: the hardware algorithms fall back.
		TreeBytesPerCycle: 0,
		TreePacket:        256,
		TreeOverhead:      0,
		TreeHopCycles:     0,
		GIBarrierCycles:   0,
		GILevelCycles:     0,

		// 200 thread units per node ([EMU]: 25 processors of 8). The paper
		// does not say how many of them monitor the InBuffer: we take one
		// processor's 8 as communication units and the other 24
		// processors' 192 as workers, an assumption of ours. Handing work
		// to a worker is taken as free (HandoffCycles 0, no figure given).
		CommThreads:   8,
		WorkerThreads: 192,
		HandoffCycles: 0,
	}
}

// Named returns a built-in machine by name, and the names there are.
func Named(name string) (*Machine, bool) {
	switch name {
	case "bgl":
		return BGL(), true
	case "bgc":
		return BGC(), true
	}
	return nil, false
}

// MachineNames lists the built-in machines.
var MachineNames = []string{"bgl", "bgc"}

// Set changes the field called name (as Fields names it) to v, which must be
// a float64 (any Lua number) or a string. Integer fields refuse fractions.
func (m *Machine) Set(name string, v any) error {
	rv := reflect.ValueOf(m).Elem()
	t := rv.Type()
	for i := 0; i < t.NumField(); i++ {
		if SnakeCase(t.Field(i).Name) != name {
			continue
		}
		f := rv.Field(i)
		switch f.Kind() {
		case reflect.String:
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("field %s: want a string, got %s", name, typeName(v))
			}
			f.SetString(s)
		case reflect.Int, reflect.Int64:
			x, ok := v.(float64)
			if !ok {
				return fmt.Errorf("field %s: want an integer, got %s", name, typeName(v))
			}
			if x != float64(int64(x)) {
				return fmt.Errorf("field %s: want an integer, got %v", name, x)
			}
			f.SetInt(int64(x))
		case reflect.Float64:
			x, ok := v.(float64)
			if !ok {
				return fmt.Errorf("field %s: want a number, got %s", name, typeName(v))
			}
			f.SetFloat(x)
		}
		return nil
	}
	return fmt.Errorf("unknown field %s (valid: %s)", name, strings.Join(m.fieldNames(), ", "))
}

func (m *Machine) fieldNames() []string {
	var names []string
	for _, f := range m.Fields() {
		names = append(names, f.Name)
	}
	sort.Strings(names)
	return names
}

// OtherValue stands for a value of a machine file that is neither a number
// nor a string; it names the value's type ("table", "function").
type OtherValue string

func typeName(v any) string {
	switch x := v.(type) {
	case OtherValue:
		return "a " + string(x)
	case float64:
		return "a number"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "nil"
	}
	return "a table"
}

// Validate checks that the constants make a machine the model can run.
func (m *Machine) Validate() error {
	positive := []struct {
		name string
		ok   bool
	}{
		{"clock_hz", m.ClockHz > 0},
		{"cpus_per_node", m.CPUsPerNode >= 1},
		{"link_bytes_per_cycle", m.LinkBytesPerCycle > 0},
		{"packet_granule", m.PacketGranule >= 1},
		{"packet_min", m.PacketMin >= 1},
		{"copy_bytes_per_cycle", m.CopyBytesPerCycle > 0},
		{"flops_per_cycle", m.FlopsPerCycle > 0},
	}
	for _, p := range positive {
		if !p.ok {
			return fmt.Errorf("field %s must be positive", p.name)
		}
	}
	if m.PacketMax < m.PacketMin || m.PacketHeader < 0 || m.PacketHeader >= m.PacketMax {
		return fmt.Errorf("packets: want packet_min <= packet_max and 0 <= packet_header < packet_max (got %d, %d, %d)", m.PacketMin, m.PacketMax, m.PacketHeader)
	}
	if m.AdaptiveHeader < 0 || m.AdaptiveHeader >= m.PayloadPerPacket() {
		return fmt.Errorf("field adaptive_header must be at least 0 and less than a packet's payload, %d (got %d)", m.PayloadPerPacket(), m.AdaptiveHeader)
	}
	nonneg := []struct {
		name string
		v    int64
	}{
		{"wire_overhead", int64(m.WireOverhead)}, {"hop_cycles", m.HopCycles}, {"corner_turn_cycles", m.CornerTurnCycles},
		{"reception_fifo", int64(m.ReceptionFIFO)}, {"dynamic_buffer", int64(m.DynamicBuffer)}, {"escape_buffer", int64(m.EscapeBuffer)}, {"packet_overhead_cycles", m.PacketOverheadCycles}, {"cache_line", int64(m.CacheLine)},
		{"adaptive_setup_cycles", m.AdaptiveSetupCycles}, {"adaptive_header", int64(m.AdaptiveHeader)}, {"reorder_cycles", m.ReorderCycles},
		{"co_sync_cycles", m.CoSyncCycles}, {"mpi_eager_cycles", m.MPIEagerCycles}, {"mpi_adaptive_cycles", m.MPIAdaptiveCycles}, {"mpi_rzv_cycles", m.MPIRzvCycles},
		{"network_cycles", m.NetworkCycles}, {"injection_fifo", int64(m.InjectionFIFO)}, {"packet_write_cycles", m.PacketWriteCycles},
		{"packet_read_cycles", m.PacketReadCycles}, {"interrupt_cycles", m.InterruptCycles}, {"ml_send_cycles", m.MLSendCycles},
		{"ml_dispatch_cycles", m.MLDispatchCycles}, {"eager_setup_cycles", m.EagerSetupCycles}, {"rzv_setup_cycles", m.RzvSetupCycles}, {"mpi_call_cycles", m.MPICallCycles},
		{"mpi_send_cycles", m.MPISendCycles}, {"mpi_match_cycles", m.MPIMatchCycles}, {"reduce_cycles_per_element", m.ReduceCyclesPerElement},
		{"eager_limit", int64(m.EagerLimit)}, {"rzv_limit", int64(m.RzvLimit)},
		{"comm_threads", int64(m.CommThreads)}, {"worker_threads", int64(m.WorkerThreads)}, {"handoff_cycles", m.HandoffCycles},
	}
	for _, f := range nonneg {
		if f.v < 0 {
			return fmt.Errorf("field %s must not be negative (got %d)", f.name, f.v)
		}
	}
	if fifo := max(m.InjectionFIFO, 1); m.EscapeBuffer != 0 && m.EscapeBuffer < 2*fifo {
		return fmt.Errorf("field escape_buffer must be 0 (unbounded) or at least twice injection_fifo (%d), room for a train and the bubble rule's train more (got %d)", 2*fifo, m.EscapeBuffer)
	}
	if m.VNComputePenalty < 0 {
		return fmt.Errorf("field vn_compute_penalty must not be negative")
	}
	if m.TreeBytesPerCycle < 0 || m.TreeOverhead < 0 || m.TreeHopCycles < 0 || m.GIBarrierCycles < 0 || m.GILevelCycles < 0 {
		return fmt.Errorf("fields tree_bytes_per_cycle, tree_overhead, tree_hop_cycles, gi_barrier_cycles and gi_level_cycles must not be negative")
	}
	if m.WorkerThreads > 0 && m.CommThreads == 0 {
		return fmt.Errorf("field worker_threads needs comm_threads > 0: communication units hand the work to the workers (got comm_threads 0, worker_threads %d)", m.WorkerThreads)
	}
	if m.TreeBytesPerCycle > 0 && m.TreePacket < 1 {
		return fmt.Errorf("field tree_packet must be positive when the machine has a collective network (tree_bytes_per_cycle > 0)")
	}
	return nil
}
