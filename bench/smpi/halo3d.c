/* halo3d STEPS FACE_BYTES X Y Z: STEPS steps of a 3D 7-point stencil's halo
 * exchange on an X x Y x Z torus (one rank per node, x fastest): each step
 * posts six irecvs and six isends of FACE_BYTES to the torus neighbours and
 * waits for all twelve. No computation. Twin of ../workloads/halo3d.lua. */
#include "common.h"

int main(int argc, char **argv)
{
  long a[5];
  int rank, size, X, Y, Z, x, y, z, s, i;
  int nbr[6];
  char *sbuf, *rbuf;
  MPI_Request req[12];
  double t0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bench_args(argc, argv, 5, a, "STEPS FACE_BYTES X Y Z");
  X = (int)a[2];
  Y = (int)a[3];
  Z = (int)a[4];
  if (X * Y * Z != size) {
    fprintf(stderr, "torus %dx%dx%d does not hold %d ranks\n", X, Y, Z, size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  x = rank % X;
  y = (rank / X) % Y;
  z = rank / (X * Y);
#define AT(a, b, c) (((a) + X) % X + X * (((b) + Y) % Y + Y * (((c) + Z) % Z)))
  /* x-, x+, y-, y+, z-, z+ */
  nbr[0] = AT(x - 1, y, z);
  nbr[1] = AT(x + 1, y, z);
  nbr[2] = AT(x, y - 1, z);
  nbr[3] = AT(x, y + 1, z);
  nbr[4] = AT(x, y, z - 1);
  nbr[5] = AT(x, y, z + 1);
  sbuf = bench_buffer(7 * (size_t)a[1]);
  rbuf = sbuf + a[1];
  t0 = MPI_Wtime();
  for (s = 0; s < a[0]; s++) {
    for (i = 0; i < 6; i++)
      MPI_Irecv(rbuf + i * a[1], (int)a[1], MPI_BYTE, nbr[i], i + 1, MPI_COMM_WORLD, &req[i]);
    for (i = 0; i < 6; i++) {
      /* the tag names the direction as the receiver sees it (Lua's 1-based
       * slot): what goes to x+ arrives from the receiver's x- */
      int tag = (i % 2 == 0) ? i + 2 : i;
      MPI_Isend(sbuf, (int)a[1], MPI_BYTE, nbr[i], tag, MPI_COMM_WORLD, &req[6 + i]);
    }
    MPI_Waitall(12, req, MPI_STATUSES_IGNORE);
  }
  bench_report(t0);
  MPI_Finalize();
  return 0;
}
