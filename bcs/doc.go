// Package bcs will model buffered coscheduling (BCS-MPI, [BCS]): a global
// strobe every time slice, descriptor exchange and message scheduling
// microphases, and point-to-point, broadcast-and-barrier and reduce
// microphases, with the monitoring and debugging system (MDS). It is the
// transport of --runtime bcs; until it exists, that flag is refused with a
// clear error.
package bcs
