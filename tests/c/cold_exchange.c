/* The concurrent exchange measured by the program itself (ground truth for the
 * calibration's `concurrent_exchanges`): right after MPI_Init, every rank sends to the
 * next rank and receives from the one before (a ring in rank order; all ranks on one
 * host), all at once after a barrier, each repetition from and into the next block of a
 * 4 MiB buffer, at 16, 64 and 256 KiB, two repetitions to warm up and then argv[1]
 * (default 8) timed, each from the PMPI_Sendrecv's start to its end on CLOCK_MONOTONIC.
 * PMPI_ so that the shim, when preloaded, adds nothing to it. Prints per rank and size
 * "COLD <rank> <bytes> <median ns>". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static int by_value(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

#define BUFFER (4 << 20)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int reps = argc > 1 ? atoi(argv[1]) : 8;
  if (reps < 1 || reps > 1000) reps = 8;
  char *out = malloc(BUFFER), *in = malloc(BUFFER);
  double *t = malloc(sizeof(double) * reps);
  memset(out, 0x5A, BUFFER);
  memset(in, 0xA5, BUFFER);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const int sizes[3] = {16384, 65536, 262144};
  for (int s = 0; s < 3; s++) {
    const int m = sizes[s], blocks = BUFFER / m;
    for (int r = 0; r < 2 + reps; r++) {
      PMPI_Barrier(MPI_COMM_WORLD);
      const size_t at = (size_t)(r % blocks) * (size_t)m;
      double t0 = now_ns();
      PMPI_Sendrecv(out + at, m, MPI_BYTE, next, 5, in + at, m, MPI_BYTE, prev, 5,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double dt = now_ns() - t0;
      if (r >= 2) t[r - 2] = dt;
    }
    qsort(t, reps, sizeof(double), by_value);
    printf("COLD %d %d %.0f\n", rank, m, t[reps / 2]);
    fflush(stdout);
  }
  free(out);
  free(in);
  free(t);
  MPI_Finalize();
  return 0;
}
