/* Collectives on communicators of some of the ranks (issue 26): 4 ranks, two a host
 * (ranks 0, 1 on the first, 2, 3 on the second). "inside": MPI_Comm_split by rank / 2
 * ({0, 1} and {2, 3}, each on one host); "across": by rank % 2 ({0, 2} and {1, 3}, one
 * member a host). On each in turn, argv[1] times (default 200): MPI_Barrier, then
 * MPI_Allreduce (MPI_SUM) of one double. Prints each communicator's world ranks, as
 * "members <comm> <rank> <rank>", from its member 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 4) {
    if (rank == 0) fprintf(stderr, "split_colls: needs 4 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int reps = argc > 1 ? atoi(argv[1]) : 200;
  MPI_Comm comms[2];
  MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &comms[0]);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &comms[1]);
  const char *names[2] = {"inside", "across"};
  double x = rank, y = 0;
  for (int c = 0; c < 2; c++) {
    int mine[2], me;
    MPI_Comm_rank(comms[c], &me);
    MPI_Gather(&rank, 1, MPI_INT, mine, 1, MPI_INT, 0, comms[c]);
    if (me == 0) printf("members %s %d %d\n", names[c], mine[0], mine[1]);
    for (int i = 0; i < reps; i++) {
      MPI_Barrier(comms[c]);
      MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comms[c]);
    }
  }
  MPI_Comm_free(&comms[0]);
  MPI_Comm_free(&comms[1]);
  MPI_Finalize();
  return 0;
}
