//go:build !linux

package bglua

// hugePagesOn is false: transparent huge pages are a Linux feature.
func hugePagesOn() bool { return false }

// adviseHuge does nothing.
func adviseHuge(lo, hi uintptr, on bool) {}
