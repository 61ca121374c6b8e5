package hw

import "testing"

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"ClockHz": "clock_hz", "MPICallCycles": "mpi_call_cycles", "CPUsPerNode": "cpus_per_node",
		"HopCycles": "hop_cycles", "MLSendCycles": "ml_send_cycles", "VNComputePenalty": "vn_compute_penalty",
		"Name": "name", "RzvLimit": "rzv_limit", "CommThreads": "comm_threads", "WorkerThreads": "worker_threads",
		"HandoffCycles": "handoff_cycles",
	} {
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFieldsListsEveryConstant(t *testing.T) {
	fs := BGL().Fields()
	seen := map[string]bool{}
	for _, f := range fs {
		if seen[f.Name] {
			t.Fatalf("field %s listed twice", f.Name)
		}
		seen[f.Name] = true
	}
	for _, name := range []string{"clock_hz", "hop_cycles", "packet_read_cycles", "eager_limit", "vn_compute_penalty",
		"comm_threads", "worker_threads", "handoff_cycles"} {
		if !seen[name] {
			t.Errorf("missing field %s", name)
		}
	}
}
