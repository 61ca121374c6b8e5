//go:build !unix

package bglua

// cpuNanos is not measured here.
func cpuNanos() int64 { return -1 }
