//go:build mpi

package mpinet

// The binding: a few MPI calls on MPI_COMM_WORLD, through C helpers, since
// MPI's handles (MPI_COMM_WORLD, MPI_INT64_T, MPI_MIN, ...) are macros that
// cgo cannot always name. pkg-config's "mpi" is Debian's name for the MPI
// chosen by its alternatives (Open MPI or MPICH); elsewhere set CGO_CFLAGS
// and CGO_LDFLAGS, or PKG_CONFIG_PATH to a directory with an mpi.pc.

/*
#cgo pkg-config: mpi
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

static int bg_init(int *provided) {
	int err = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, provided);
	if (err != MPI_SUCCESS) return err;
	// Errors come back as codes, for Go errors, instead of aborting.
	return MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}
static int bg_rank(int *r) { return MPI_Comm_rank(MPI_COMM_WORLD, r); }
static int bg_size(int *s) { return MPI_Comm_size(MPI_COMM_WORLD, s); }
static int bg_allreduce_i64(int64_t *v, int n, int op) {
	MPI_Op o;
	switch (op) {
	case 0: o = MPI_MIN; break;
	case 1: o = MPI_MAX; break;
	case 2: o = MPI_SUM; break;
	case 3: o = MPI_BOR; break;
	default: return MPI_ERR_OP;
	}
	return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, o, MPI_COMM_WORLD);
}
static int bg_alltoall_int(int *send, int *recv) {
	return MPI_Alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, MPI_COMM_WORLD);
}
static int bg_alltoallv(void *sb, int *sc, int *sd, void *rb, int *rc, int *rd) {
	return MPI_Alltoallv(sb, sc, sd, MPI_BYTE, rb, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
}
static int bg_bcast(void *b, int n, int root) { return MPI_Bcast(b, n, MPI_BYTE, root, MPI_COMM_WORLD); }
static int bg_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }
static int bg_abort(int code) { return MPI_Abort(MPI_COMM_WORLD, code); }
static int bg_finalize(void) { return MPI_Finalize(); }
static void bg_error_string(int code, char *buf, int *len) {
	if (MPI_Error_string(code, buf, len) != MPI_SUCCESS) *len = 0;
}
static int bg_max_error_string(void) { return MPI_MAX_ERROR_STRING; }
*/
import "C"

import (
	"fmt"
	"math"
	"os"
	goruntime "runtime"
	"sync"
	"unsafe"
)

// Available is true in a build with MPI.
const Available = true

// mpiNet is MPI_COMM_WORLD. Its calls run on one goroutine locked to the
// OS thread that initialized MPI (calls).
type mpiNet struct {
	rank, size int
	calls      chan func()
	mu         sync.Mutex // one call at a time, in the order callers come
	closed     bool
}

var (
	initOnce sync.Once
	world    *mpiNet
	initErr  error
)

// Init initializes MPI (MPI_Init_thread with MPI_THREAD_FUNNELED) on a
// goroutine locked to its OS thread, which then makes every MPI call of
// the returned Net. It is called once per process; later calls return the
// same Net and error. A process not started by mpirun runs as a job of one
// process (MPI's singleton start).
func Init() (Net, error) {
	initOnce.Do(func() {
		n := &mpiNet{calls: make(chan func())}
		ready := make(chan error)
		go n.serve(ready)
		if initErr = <-ready; initErr == nil {
			world = n
		}
	})
	if initErr != nil {
		return nil, initErr
	}
	return world, nil
}

// serve initializes MPI and runs the calls, on a thread of its own for
// good: the goroutine never unlocks it, so its thread ends with it.
func (n *mpiNet) serve(ready chan<- error) {
	goruntime.LockOSThread()
	var provided, r, s C.int
	if code := C.bg_init(&provided); code != C.MPI_SUCCESS {
		ready <- mpiError("MPI_Init_thread", code)
		return
	}
	// provided may be MPI_THREAD_SINGLE on a library without threads:
	// every call comes from this thread anyway, which is all FUNNELED asks.
	if code := C.bg_rank(&r); code != C.MPI_SUCCESS {
		ready <- mpiError("MPI_Comm_rank", code)
		return
	}
	if code := C.bg_size(&s); code != C.MPI_SUCCESS {
		ready <- mpiError("MPI_Comm_size", code)
		return
	}
	n.rank, n.size = int(r), int(s)
	ready <- nil
	for f := range n.calls {
		f()
	}
}

// do runs f on the MPI thread and returns its error.
func (n *mpiNet) do(what string, f func() C.int) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return fmt.Errorf("mpinet: %s after Close", what)
	}
	done := make(chan C.int)
	n.calls <- func() { done <- f() }
	if code := <-done; code != C.MPI_SUCCESS {
		return mpiError(what, code)
	}
	return nil
}

func mpiError(what string, code C.int) error {
	buf := make([]byte, int(C.bg_max_error_string()))
	var n C.int
	C.bg_error_string(code, (*C.char)(unsafe.Pointer(&buf[0])), &n)
	return fmt.Errorf("mpinet: %s: %s (error %d)", what, string(buf[:n]), int(code))
}

func (n *mpiNet) Rank() int { return n.rank }
func (n *mpiNet) Size() int { return n.size }

func (n *mpiNet) ExchangeBytes(out [][]byte) ([][]byte, error) {
	if err := checkOut(n, out); err != nil {
		return nil, err
	}
	p := n.size
	// One int slice holds the four count and displacement vectors.
	v := make([]C.int, 4*p)
	sc, sd, rc, rd := v[:p], v[p:2*p], v[2*p:3*p], v[3*p:]
	total := 0
	for i, b := range out {
		if len(b) > math.MaxInt32-total {
			return nil, fmt.Errorf("mpinet: ExchangeBytes of more than %d bytes from one process", math.MaxInt32)
		}
		sd[i], sc[i] = C.int(total), C.int(len(b))
		total += len(b)
	}
	// One contiguous send buffer (Go memory without pointers: cgo lets C
	// read it for the call).
	send := make([]byte, 0, max(total, 1))
	for _, b := range out {
		send = append(send, b...)
	}
	if err := n.do("MPI_Alltoall", func() C.int { return C.bg_alltoall_int(&sc[0], &rc[0]) }); err != nil {
		return nil, err
	}
	rtotal := 0
	for i := range rc {
		if rc[i] < 0 || int(rc[i]) > math.MaxInt32-rtotal {
			return nil, fmt.Errorf("mpinet: ExchangeBytes of more than %d bytes to one process", math.MaxInt32)
		}
		rd[i] = C.int(rtotal)
		rtotal += int(rc[i])
	}
	recv := make([]byte, max(rtotal, 1))
	sendp, recvp := unsafe.Pointer(unsafe.SliceData(send[:1])), unsafe.Pointer(&recv[0])
	if err := n.do("MPI_Alltoallv", func() C.int {
		return C.bg_alltoallv(sendp, &sc[0], &sd[0], recvp, &rc[0], &rd[0])
	}); err != nil {
		return nil, err
	}
	in := make([][]byte, p)
	for i := range in {
		lo, hi := int(rd[i]), int(rd[i])+int(rc[i])
		in[i] = recv[lo:hi:hi]
	}
	return in, nil
}

func (n *mpiNet) AllreduceInt64(op Op, v []int64) error {
	if op >= opCount {
		return fmt.Errorf("mpinet: AllreduceInt64 with %s", op)
	}
	if len(v) == 0 {
		return n.Barrier() // still collective, as every process's call is
	}
	if len(v) > math.MaxInt32 {
		return fmt.Errorf("mpinet: AllreduceInt64 of %d values", len(v))
	}
	// int64_t and int64 have the same size and layout.
	p := (*C.int64_t)(unsafe.Pointer(&v[0]))
	return n.do("MPI_Allreduce", func() C.int { return C.bg_allreduce_i64(p, C.int(len(v)), C.int(op)) })
}

func (n *mpiNet) Bcast(root int, b []byte) ([]byte, error) {
	if root < 0 || root >= n.size {
		return nil, fmt.Errorf("mpinet: Bcast from process %d of %d", root, n.size)
	}
	var size [1]int64
	if n.rank == root {
		size[0] = int64(len(b))
	}
	// The length first (as a max: only root's is not zero), then the bytes.
	if err := n.AllreduceInt64(OpMax, size[:]); err != nil {
		return nil, err
	}
	if size[0] > math.MaxInt32 {
		return nil, fmt.Errorf("mpinet: Bcast of %d bytes", size[0])
	}
	buf := make([]byte, max(size[0], 1))
	if n.rank == root {
		copy(buf, b)
	}
	bp := unsafe.Pointer(&buf[0])
	if err := n.do("MPI_Bcast", func() C.int { return C.bg_bcast(bp, C.int(size[0]), C.int(root)) }); err != nil {
		return nil, err
	}
	return buf[:size[0]], nil
}

func (n *mpiNet) Barrier() error {
	return n.do("MPI_Barrier", func() C.int { return C.bg_barrier() })
}

func (n *mpiNet) Abort(code int) {
	err := n.do("MPI_Abort", func() C.int { return C.bg_abort(C.int(code)) })
	// MPI_Abort does not return when it works; after Close (MPI finalized)
	// this process can only end itself.
	fmt.Fprintf(os.Stderr, "mpinet: MPI_Abort(%d) did not end the job (%v)\n", code, err)
	os.Exit(code)
}

func (n *mpiNet) Close() error {
	err := n.do("MPI_Finalize", func() C.int { return C.bg_finalize() })
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.closed {
		n.closed = true
		close(n.calls)
	}
	return err
}
