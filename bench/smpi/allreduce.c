/* allreduce COUNT: COUNT allreduces (sum) of one double.
 * Twin of ../workloads/allreduce.lua. */
#include "common.h"

int main(int argc, char **argv)
{
  long a[1];
  int size, i;
  double one = 1.0, x = 0.0, t0;
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bench_args(argc, argv, 1, a, "COUNT");
  t0 = MPI_Wtime();
  for (i = 0; i < a[0]; i++)
    MPI_Allreduce(&one, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (a[0] > 0 && x != (double)size) {
    fprintf(stderr, "allreduce gave %g\n", x);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  bench_report(t0);
  MPI_Finalize();
  return 0;
}
