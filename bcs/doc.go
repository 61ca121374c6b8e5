// Package bcs models buffered coscheduling (BCS-MPI, [BCS]), the transport
// of --runtime bcs. A global strobe starts every time slice; in each slice
// the descriptors that MPI calls posted in the slice before are exchanged
// and matched (the descriptor exchange and message scheduling microphases)
// and carried out in the point-to-point, broadcast-and-barrier and reduce
// microphases, messages too large for a slice over several. It also gives
// the core primitives (Xfer-And-Signal, Test-Event, Compare-And-Write) and
// the per-slice monitoring metrics (EMDS). docs/model.md sets it against
// the paper.
package bcs
