/* common.h: what every bench workload shares with its Lua twin in
 * ../workloads. The workload's simulated time is rank 0's MPI_Wtime from its
 * start to its end, printed as "time <seconds>" (as common.lua prints it). */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* bench_buffer returns n bytes of message buffer whose contents nobody looks
 * at. Under SMPI it is SMPI_SHARED_MALLOC memory, which SMPI neither copies
 * nor keeps per rank, and, as the programs run without privatization (one
 * copy of the static variables for all ranks), one allocation serves every
 * rank: one allocation per rank would take a memory mapping per rank, more
 * than Linux allows a process (65,530) at 131,072 ranks. Ranks are threads
 * SMPI switches between only in MPI calls, so the test-and-set is safe.
 * Under another MPI it is an ordinary malloc per process. Never freed. */
static void *bench_buffer(size_t n)
{
  static void *buf;
  static size_t cap;
  if (n == 0)
    n = 1;
  if (n > cap) {
#ifdef SMPI_SHARED_MALLOC
    buf = SMPI_SHARED_MALLOC(n);
#else
    buf = malloc(n);
#endif
    if (buf == NULL) {
      fprintf(stderr, "out of memory for a %zu-byte buffer\n", n);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    cap = n;
  }
  return buf;
}

/* bench_args parses argv[1..n] as integers into v, or aborts with the usage. */
static void bench_args(int argc, char **argv, int n, long *v, const char *usage)
{
  int i;
  if (argc < n + 1) {
    fprintf(stderr, "usage: %s %s\n", argv[0], usage);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (i = 0; i < n; i++) {
    char *end;
    v[i] = strtol(argv[i + 1], &end, 10);
    if (*end != '\0') {
      fprintf(stderr, "usage: %s %s (bad number %s)\n", argv[0], usage, argv[i + 1]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
}

static void bench_report(double t0)
{
  double t = MPI_Wtime() - t0;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    printf("time %.9e\n", t);
    fflush(stdout);
  }
}

#endif
