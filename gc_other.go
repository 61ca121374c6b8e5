//go:build !linux

package bglua

// adviseHuge does nothing: transparent huge pages are a Linux feature.
func adviseHuge([]byte) {}
