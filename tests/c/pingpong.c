/* A ping-pong of one message size between ranks 0 and 1 (issue 14's check of the advice):
 *     pingpong <bytes> <round trips>
 * Other ranks wait at the final barrier. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int size = argc > 1 ? atoi(argv[1]) : 6000;
  int trips = argc > 2 ? atoi(argv[2]) : 10000;
  char *buf = calloc(1, size > 0 ? size : 1);
  for (int i = 0; i < trips && rank < 2; i++) {
    if (rank == 0) {
      MPI_Send(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(buf);
  MPI_Finalize();
  return 0;
}
