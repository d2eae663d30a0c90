/* Collectives at known sizes (issue 26): MPI_Allreduce (MPI_SUM of doubles), MPI_Bcast,
 * MPI_Allgather and MPI_Alltoall of 8 B, 4 KiB and 256 KiB (per block for the last
 * two), each call after an MPI_Barrier so that the members enter together, as the
 * model assumes (and as OSU's collective benchmarks time them): back to back, a Bcast's
 * root runs ahead of its eager sends and the calls overlap. argv[1]: which collectives ("all" or a
 * comma list of allreduce,bcast,allgather,alltoall); argv[2]: the sizes in bytes, comma
 * separated (default 8,4096,262144); argv[3]: calls per size below 64 KiB (default 300;
 * 60 from 64 KiB up). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int want(const char *list, const char *name) {
  return !strcmp(list, "all") || strstr(list, name) != NULL;
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *list = argc > 1 ? argv[1] : "all";
  char sizes_arg[256] = "8,4096,262144";
  if (argc > 2) snprintf(sizes_arg, sizeof sizes_arg, "%s", argv[2]);
  long sizes[16];
  int nsizes = 0;
  for (char *t = strtok(sizes_arg, ","); t && nsizes < 16; t = strtok(NULL, ",")) sizes[nsizes++] = atol(t);
  long max = 0;
  for (int i = 0; i < nsizes; i++) if (sizes[i] > max) max = sizes[i];
  char *a = calloc(size, max), *b = calloc(size, max);
  for (int i = 0; i < nsizes; i++) {
    long m = sizes[i];
    int reps = m >= 65536 ? 60 : (argc > 3 ? atoi(argv[3]) : 300);
    if (want(list, "allreduce")) {
      MPI_Barrier(MPI_COMM_WORLD);
      for (int k = 0; k < reps; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Allreduce(a, b, (int)(m / 8 ? m / 8 : 1), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      }
    }
    if (want(list, "bcast")) {
      MPI_Barrier(MPI_COMM_WORLD);
      for (int k = 0; k < reps; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Bcast(a, (int)m, MPI_BYTE, 0, MPI_COMM_WORLD);
      }
    }
    if (want(list, "allgather")) {
      MPI_Barrier(MPI_COMM_WORLD);
      for (int k = 0; k < reps; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Allgather(a, (int)m, MPI_BYTE, b, (int)m, MPI_BYTE, MPI_COMM_WORLD);
      }
    }
    if (want(list, "alltoall")) {
      MPI_Barrier(MPI_COMM_WORLD);
      for (int k = 0; k < reps; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Alltoall(a, (int)m, MPI_BYTE, b, (int)m, MPI_BYTE, MPI_COMM_WORLD);
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
