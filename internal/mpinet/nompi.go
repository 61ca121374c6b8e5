//go:build !mpi

package mpinet

// Available is false in a build without the mpi tag.
const Available = false

// Init returns ErrNoMPI: this build has no MPI (go build -tags mpi).
func Init() (Net, error) { return nil, ErrNoMPI }
