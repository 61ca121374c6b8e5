package bglua

import (
	"syscall"
	"unsafe"
)

// adviseHuge asks the kernel to back the whole huge pages of b with
// transparent huge pages. Failure (huge pages off, an old kernel) changes
// nothing but speed: it is ignored.
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
