/* alltoall BYTES: one alltoall of BYTES bytes per pair of ranks.
 * Twin of ../workloads/alltoall.lua. */
#include "common.h"

int main(int argc, char **argv)
{
  long a[1];
  int size;
  char *sbuf, *rbuf;
  double t0;
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bench_args(argc, argv, 1, a, "BYTES");
  sbuf = bench_buffer(2 * (size_t)size * (size_t)a[0]);
  rbuf = sbuf + (size_t)size * (size_t)a[0];
  t0 = MPI_Wtime();
  MPI_Alltoall(sbuf, (int)a[0], MPI_BYTE, rbuf, (int)a[0], MPI_BYTE, MPI_COMM_WORLD);
  bench_report(t0);
  MPI_Finalize();
  return 0;
}
