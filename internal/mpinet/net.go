// Package mpinet is what a distributed run of bglua needs of MPI: the
// processes of an MPI job, each running a share of the torus's partitions,
// agree on the next window with reductions and exchange what crosses a
// process boundary at the window's end as one contiguous buffer per peer
// (docs/distributed.md).
//
// Net is the interface the layers above use. Two implementations:
//
//   - Init (built with the mpi tag, with an MPI installed): the processes of
//     the job started by mpirun, over a small cgo binding of MPI_Init_thread,
//     Comm_rank/size, Allreduce, Alltoall, Alltoallv, Bcast, Barrier, Abort
//     and Finalize on MPI_COMM_WORLD. Every MPI call is made by one goroutine
//     locked to its OS thread, the one that initialized MPI with
//     MPI_THREAD_FUNNELED: a method of the Net may be called from any
//     goroutine, one call at a time.
//   - NewLocal: P "processes" that are goroutines of one Go process, for
//     tests of everything above without MPI.
//
// Without the mpi tag the package needs no MPI: Init returns ErrNoMPI.
//
// Every method but Rank, Size and Abort is collective: every process of
// the job calls the same methods in the same order, with the same op, root
// and vector length where those are given.
package mpinet

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Net is the communication among the processes of a distributed run.
type Net interface {
	// Rank is this process's number, 0 to Size()-1.
	Rank() int
	// Size is the number of processes.
	Size() int

	// ExchangeBytes sends out[p] to process p, for every p (len(out) ==
	// Size(); nil or empty: nothing), and returns in, in[p] being what
	// process p sent to this one (in[Rank()] is a copy of out[Rank()]).
	// The slices of in are this caller's; out may be reused when it
	// returns. Under MPI it is one MPI_Alltoall of the counts and one
	// MPI_Alltoallv of the bytes, in one contiguous buffer each way.
	ExchangeBytes(out [][]byte) (in [][]byte, err error)

	// AllreduceInt64 combines v element by element over all processes
	// with op, in place: every process gets the same result. Every process
	// passes a vector of the same length.
	AllreduceInt64(op Op, v []int64) error

	// Bcast returns root's b on every process (b is read on root only).
	Bcast(root int, b []byte) ([]byte, error)

	// Barrier returns once every process has called it.
	Barrier() error

	// Abort ends every process of the job with the exit status code, as
	// soon as it can; it does not return. It is not collective.
	Abort(code int)

	// Close ends this process's part in the job (MPI_Finalize); the Net
	// is not used after it.
	Close() error
}

// Op is an elementwise reduction of AllreduceInt64.
type Op uint8

const (
	OpMin Op = iota // the least
	OpMax           // the greatest
	OpSum           // the sum (wrapping on overflow)
	OpBor           // bitwise or: flags
	opCount
)

func (o Op) String() string {
	switch o {
	case OpMin:
		return "min"
	case OpMax:
		return "max"
	case OpSum:
		return "sum"
	case OpBor:
		return "bor"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// combine is a op b.
func (o Op) combine(a, b int64) int64 {
	switch o {
	case OpMin:
		return min(a, b)
	case OpMax:
		return max(a, b)
	case OpSum:
		return a + b
	case OpBor:
		return a | b
	}
	panic("mpinet: " + o.String())
}

// ErrNoMPI is Init's error in a build without the mpi tag.
var ErrNoMPI = errors.New("mpinet: this bglua was built without MPI (go build -tags mpi)")

// ErrAborted is the error of a collective call of a local Net once one of
// its processes has called Abort.
var ErrAborted = errors.New("mpinet: a process aborted the job")

// MinInt64 is the least v over all processes.
func MinInt64(n Net, v int64) (int64, error) { return reduce1(n, OpMin, v) }

// MaxInt64 is the greatest v over all processes.
func MaxInt64(n Net, v int64) (int64, error) { return reduce1(n, OpMax, v) }

// SumInt64 is the sum of v over all processes.
func SumInt64(n Net, v int64) (int64, error) { return reduce1(n, OpSum, v) }

// Or reports whether any process passed true.
func Or(n Net, flag bool) (bool, error) {
	var v int64
	if flag {
		v = 1
	}
	r, err := reduce1(n, OpBor, v)
	return r != 0, err
}

func reduce1(n Net, op Op, v int64) (int64, error) {
	x := [1]int64{v}
	err := n.AllreduceInt64(op, x[:])
	return x[0], err
}

// Gather returns, on root, what every process passed, by process; nil on
// the others. It is an exchange in which only root receives.
func Gather(n Net, root int, b []byte) ([][]byte, error) {
	if root < 0 || root >= n.Size() {
		return nil, fmt.Errorf("mpinet: Gather to process %d of %d", root, n.Size())
	}
	out := make([][]byte, n.Size())
	out[root] = b
	in, err := n.ExchangeBytes(out)
	if err != nil || n.Rank() != root {
		return nil, err
	}
	return in, nil
}

// AllGather returns what every process passed, by process, on every
// process: an exchange in which each sends all the same bytes.
func AllGather(n Net, b []byte) ([][]byte, error) {
	out := make([][]byte, n.Size())
	for p := range out {
		out[p] = b
	}
	return n.ExchangeBytes(out)
}

// Mpirun is the command that starts np processes of prog with args under
// the mpirun on the PATH (an error if there is none): with
// --oversubscribe, which a machine with fewer cores than processes needs
// (Open MPI's; BGLUA_MPIRUN_FLAGS replaces it, e.g. for MPICH, whose
// mpirun has no such flag), and, as root, the two variables without which
// Open MPI refuses to start.
func Mpirun(np int, prog string, args ...string) (*exec.Cmd, error) {
	run, err := exec.LookPath("mpirun")
	if err != nil {
		return nil, errors.New("mpirun is not installed (Debian: apt-get install openmpi-bin libopenmpi-dev)")
	}
	flags := []string{"--oversubscribe"}
	if f, ok := os.LookupEnv("BGLUA_MPIRUN_FLAGS"); ok {
		flags = strings.Fields(f)
	}
	cmd := exec.Command(run, append(append(flags, "-np", strconv.Itoa(np), prog), args...)...)
	cmd.Env = os.Environ()
	if os.Getuid() == 0 {
		cmd.Env = append(cmd.Env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	}
	return cmd, nil
}

// LaunchedJob is, in a process started by an MPI launcher (Launched), its
// number and the job's size as the launcher's environment gives them (ok
// false: none given).
func LaunchedJob() (rank, size int, ok bool) {
	for _, k := range [][2]string{{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, {"PMI_RANK", "PMI_SIZE"}, {"PMIX_RANK", "PMIX_SIZE"}} {
		r, rok := os.LookupEnv(k[0])
		s, sok := os.LookupEnv(k[1])
		if !rok || !sok {
			continue
		}
		rank, err1 := strconv.Atoi(r)
		size, err2 := strconv.Atoi(s)
		if err1 == nil && err2 == nil && size > 0 && rank >= 0 && rank < size {
			return rank, size, true
		}
	}
	return 0, 0, false
}

// Launched reports whether this process looks started by an MPI launcher
// (mpirun, mpiexec, srun): Open MPI, MPICH/Hydra and PMIx set these in the
// environment of the processes they start.
func Launched() bool {
	for _, k := range []string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"} {
		if _, ok := os.LookupEnv(k); ok {
			return true
		}
	}
	return false
}

// checkOut checks the shape of an exchange's out.
func checkOut(n Net, out [][]byte) error {
	if len(out) != n.Size() {
		return fmt.Errorf("mpinet: ExchangeBytes with %d buffers for %d processes", len(out), n.Size())
	}
	return nil
}

// Engine is a Net as the simulator's engine uses it (runtime.Net): the
// window's exchange and the reductions of a Group whose partitions are in
// several processes.
type Engine struct{ Net }

// Exchange is ExchangeBytes.
func (e Engine) Exchange(out [][]byte) ([][]byte, error) { return e.ExchangeBytes(out) }

// Min sets each element of v to its least value over the processes.
func (e Engine) Min(v []int64) error { return e.AllreduceInt64(OpMin, v) }

// Sum sets each element of v to its sum over the processes.
func (e Engine) Sum(v []int64) error { return e.AllreduceInt64(OpSum, v) }
