/* bcast BYTES COUNT: COUNT broadcasts of BYTES bytes from rank 0.
 * Twin of ../workloads/bcast.lua. */
#include "common.h"

int main(int argc, char **argv)
{
  long a[2];
  int i;
  char *buf;
  double t0;
  MPI_Init(&argc, &argv);
  bench_args(argc, argv, 2, a, "BYTES COUNT");
  buf = bench_buffer((size_t)a[0]);
  t0 = MPI_Wtime();
  for (i = 0; i < a[1]; i++)
    MPI_Bcast(buf, (int)a[0], MPI_BYTE, 0, MPI_COMM_WORLD);
  bench_report(t0);
  MPI_Finalize();
  return 0;
}
