/* MPI_Pcontrol (tests/pcontrol.rs): a ring of MPI_Sendrecv, 50 calls profiled, 400 inside
 * MPI_Pcontrol(0) … MPI_Pcontrol(1) (in two pauses, the second with a level 2 resume and
 * a repeated pause), then 30 more profiled. Each call's return code and the sum received
 * are printed, to compare with a run without the shim. */
#include <mpi.h>
#include <stdio.h>

static long ring(int n, int rank, int size) {
  long sum = 0;
  for (int i = 0; i < n; i++) {
    int out = rank * 1000 + i, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 7, &in, 1, MPI_INT, (rank + size - 1) % size,
                 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sum += in;
  }
  return sum;
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long sum = ring(50, rank, size);
  int rc[5];
  rc[0] = MPI_Pcontrol(0);
  sum += ring(300, rank, size);
  rc[1] = MPI_Pcontrol(1);
  rc[2] = MPI_Pcontrol(0);
  rc[3] = MPI_Pcontrol(0);
  sum += ring(100, rank, size);
  rc[4] = MPI_Pcontrol(2);
  sum += ring(30, rank, size);
  printf("rank %d sum %ld rc %d %d %d %d %d\n", rank, sum, rc[0], rc[1], rc[2], rc[3], rc[4]);
  MPI_Finalize();
  return 0;
}
