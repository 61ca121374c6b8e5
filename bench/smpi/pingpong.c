/* pingpong BYTES REPS PEER: REPS round trips of a BYTES-byte message between
 * rank 0 and rank PEER; the other ranks do nothing.
 * Twin of ../workloads/pingpong.lua. */
#include "common.h"

int main(int argc, char **argv)
{
  long a[3];
  int rank, size, i, peer;
  char *buf;
  double t0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bench_args(argc, argv, 3, a, "BYTES REPS PEER");
  peer = (int)a[2];
  if (peer <= 0 || peer >= size) {
    fprintf(stderr, "PEER must be in 1..%d\n", size - 1);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  buf = bench_buffer((size_t)a[0]);
  t0 = MPI_Wtime();
  if (rank == 0) {
    for (i = 0; i < a[1]; i++) {
      MPI_Send(buf, (int)a[0], MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, (int)a[0], MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else if (rank == peer) {
    for (i = 0; i < a[1]; i++) {
      MPI_Recv(buf, (int)a[0], MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, (int)a[0], MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
  }
  bench_report(t0);
  MPI_Finalize();
  return 0;
}
