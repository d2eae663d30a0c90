/* A ping-pong of one message size between ranks 0 and 1 (issue 14's check of the advice):
 *     pingpong <bytes> <round trips> [<reference bytes>]
 * With a reference size, blocks of BLOCK round trips alternate with as many of the
 * reference size: a control that the advice leaves alone (eager in both runs of a pair),
 * timed in the same seconds as the priced messages, so the two runs' levels are compared
 * where the job ran, not at MPI_Init (on this VM the cost of the same exchange moves over
 * seconds). In blocks, not one after each: a 1000-byte round trip right after a 6000-byte
 * rendezvous one took 8-15 % longer than after an eager one, which biased the control by
 * the very change it controls for; in blocks of 500 it took 1.86-2.17 us in both.
 * Other ranks wait at the final barrier. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void round_trip(int rank, char *buf, int size) {
  if (rank == 0) {
    MPI_Send(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
  }
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int size = argc > 1 ? atoi(argv[1]) : 6000;
  int trips = argc > 2 ? atoi(argv[2]) : 10000;
  int reference = argc > 3 ? atoi(argv[3]) : 0;
  int most = size > reference ? size : reference;
  char *buf = calloc(1, most > 0 ? most : 1);
  enum { BLOCK = 500 };
  for (int i = 0; i < trips && rank < 2; i++) {
    round_trip(rank, buf, size);
    if (reference > 0 && ((i + 1) % BLOCK == 0 || i + 1 == trips))
      for (int j = 0; j < (i % BLOCK) + 1; j++)
        round_trip(rank, buf, reference);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(buf);
  MPI_Finalize();
  return 0;
}
