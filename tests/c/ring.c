/* A ring for many-rank jobs (issue 13 §4): each rank posts a receive from its left
 * neighbour and sends to its right, `iters` times, with sizes cycling over 8 B to 64 KiB
 * (either side of the eager limits), then a blocking Send/Recv between pairs. Per-rank
 * counts are exact: MPI_Irecv, MPI_Isend and MPI_Waitall `iters` each; MPI_Send on even
 * ranks with a partner and MPI_Recv on odd ranks `iters / 10` each. Usage: ring [iters] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 100;
    const int sizes[] = {8, 512, 4000, 9000, 65536};
    char *sbuf = calloc(1, 65536), *rbuf = calloc(1, 65536);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int it = 0; it < iters; it++) {
        int n = sizes[it % 5];
        MPI_Request rq[2];
        MPI_Irecv(rbuf, n, MPI_CHAR, left, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(sbuf, n, MPI_CHAR, right, 1, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
    int peer = rank ^ 1;
    for (int it = 0; it < iters / 10 && peer < size; it++) {
        if (rank % 2 == 0)
            MPI_Send(sbuf, 1000, MPI_CHAR, peer, 2, MPI_COMM_WORLD);
        else
            MPI_Recv(rbuf, 1000, MPI_CHAR, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0) printf("ring done %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
