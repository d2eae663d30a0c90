/* A job that starts another: the two ranks of the first world call MPI_Comm_spawn for two
 * more processes of this same program, and rank 0 of each world exchanges one message
 * with the other's rank 0 over the intercommunicator (parent: 42 sent, 43 back); each
 * world then disconnects. Output: one line of the parent's rank 0, "parent got 43". */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent, inter;
  MPI_Comm_get_parent(&parent);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (parent == MPI_COMM_NULL) {
    int errs[2];
    MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
    int x = 42, y = 0;
    if (rank == 0) {
      MPI_Send(&x, 1, MPI_INT, 0, 7, inter);
      MPI_Recv(&y, 1, MPI_INT, 0, 8, inter, MPI_STATUS_IGNORE);
      printf("parent got %d\n", y);
    }
    MPI_Comm_disconnect(&inter);
  } else {
    int x = 0;
    if (rank == 0) {
      MPI_Recv(&x, 1, MPI_INT, 0, 7, parent, MPI_STATUS_IGNORE);
      x++;
      MPI_Send(&x, 1, MPI_INT, 0, 8, parent);
    }
    MPI_Comm_disconnect(&parent);
  }
  MPI_Finalize();
  return 0;
}
