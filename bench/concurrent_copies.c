/* Copies at once on one host: k pairs of ranks (2i, 2i+1 for i < k) exchange m bytes at
 * the same moment with MPI_Sendrecv while the other ranks wait in the next barrier. Per
 * (pattern, k, m): the median over repetitions of the slowest active rank's exchange,
 * and of the active ranks' mean, printed as
 *   conc <pattern> <k pairs> <m bytes> <median of the slowest, ns> <median of the mean, ns>
 * Patterns: "pair", the same buffers at every repetition (in cache, as the calibration's
 * exchange probe has them); "pair_cold", each repetition at the next of 16 blocks of m
 * bytes (what a collective over a large buffer reads and writes); "shift" and
 * "shift_cold", every rank sending to rank + s and receiving from rank - s, s moving
 * from 1 to np - 1 by repetition (a pairwise exchange's or linear Alltoall's pattern:
 * each rank read by one other, which is not the one it reads).
 * Within a host the exchange's two copies (each receiver copies from its partner's
 * buffer, or through a bounce buffer) share the memory system with every other pair's:
 * the model of collectives prices two copies at once by the calibration's exchange probe,
 * and this measures what more cost. A benchmark (not run by the tests): run it on as
 * many cores as ranks, e.g. mpirun --bind-to core -np 16 ./concurrent_copies. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int reps = argc > 1 ? atoi(argv[1]) : 40;
  const size_t sizes[] = {16384, 65536, 262144, 1048576, 4194304};
  const int nsizes = sizeof sizes / sizeof sizes[0];
  enum { BLOCKS = 16 };
  const size_t cold_max = 1048576; /* cold patterns up to 1 MiB: 16 MiB a buffer */
  char *out = malloc(BLOCKS * cold_max), *in = malloc(BLOCKS * cold_max);
  memset(out, rank + 1, BLOCKS * cold_max);
  memset(in, 0, BLOCKS * cold_max);
  double *slowest = malloc(sizeof(double) * reps), *mean = malloc(sizeof(double) * reps);
  const char *patterns[] = {"pair", "pair_cold", "shift", "shift_cold"};
  for (int s = 0; s < nsizes; s++) {
    int m = (int)sizes[s];
    for (int pi = 0; pi < 4; pi++) {
      int cold = pi % 2, shift = pi >= 2;
      if (cold && (size_t)m > cold_max) continue;
      if (shift && np < 3) continue;
      int ks[32], nk = 0;
      if (!shift)
        for (int k = 1; k < np / 2; k *= 2)
          ks[nk++] = k;
      ks[nk++] = np / 2; /* last, every rank active */
      for (int ki = 0; ki < nk; ki++) {
        int k = ks[ki];
        int active = shift || rank < 2 * k;
        for (int r = -3; r < reps; r++) {
          int d = shift ? 1 + (r + 3) % (np - 1) : 0;
          int to = shift ? (rank + d) % np : rank ^ 1;
          int from = shift ? (rank - d + np) % np : rank ^ 1;
          size_t at = cold ? (size_t)((r + 3) % BLOCKS) * (size_t)m : 0;
          MPI_Barrier(MPI_COMM_WORLD);
          double dt = 0;
          if (active) {
            double t0 = MPI_Wtime();
            MPI_Sendrecv(out + at, m, MPI_BYTE, to, 7, in + at, m, MPI_BYTE, from, 7,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            dt = (MPI_Wtime() - t0) * 1e9;
          }
          double mx, sum;
          MPI_Reduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
          MPI_Reduce(&dt, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
          if (r >= 0) {
            slowest[r] = mx;
            mean[r] = sum / (shift ? np : 2 * k);
          }
        }
        if (rank == 0) {
          qsort(slowest, reps, sizeof(double), cmp);
          qsort(mean, reps, sizeof(double), cmp);
          printf("conc %s %d %d %.0f %.0f\n", patterns[pi], k, m, slowest[reps / 2],
                 mean[reps / 2]);
          fflush(stdout);
        }
      }
    }
  }
  free(out);
  free(in);
  free(slowest);
  free(mean);
  MPI_Finalize();
  return 0;
}
