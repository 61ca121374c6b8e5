package bglua

import (
	"bytes"
	"os"
	"syscall"
	"unsafe"
)

// hugePagesOn reports whether the kernel backs memory with transparent huge
// pages, always or where asked (madvise), rather than never.
func hugePagesOn() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && !bytes.Contains(b, []byte("[never]"))
}

// adviseHuge asks the kernel to back the whole huge pages of b with
// transparent huge pages. Failure changes nothing but speed: it is ignored.
func adviseHuge(b []byte) {
	if len(b) == 0 {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo, hi := hugeRange(p, uintptr(len(b)))
	if lo < hi {
		_ = syscall.Madvise(b[lo-p:hi-p], syscall.MADV_HUGEPAGE)
	}
}
