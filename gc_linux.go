package bglua

import (
	"bytes"
	"os"
	"syscall"
)

// hugePagesOn reports whether the kernel backs memory with transparent huge
// pages, always or where asked (madvise), rather than never.
func hugePagesOn() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && !bytes.Contains(b, []byte("[never]"))
}

// adviseHuge asks the kernel to back [lo, hi) with transparent huge pages,
// or no longer to (on false). Failure changes nothing but speed: it is
// ignored.
func adviseHuge(lo, hi uintptr, on bool) {
	if lo >= hi {
		return
	}
	advice := uintptr(syscall.MADV_NOHUGEPAGE)
	if on {
		advice = syscall.MADV_HUGEPAGE
	}
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, advice)
}
