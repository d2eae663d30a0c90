/* A small halo-style exchange: each rank trades messages of growing size with its
 * neighbours, blocking and nonblocking, across the eager/rendezvous switch.
 * Usage: demo [iterations per size, default 50] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int iterations = argc > 1 ? atoi(argv[1]) : 50;
    if (iterations < 1) iterations = 50;
    char *s = calloc(1, 1 << 20), *r = calloc(1, 1 << 20);
    for (int n = 8; n <= (1 << 18); n *= 2) {
        for (int it = 0; it < iterations; it++) {
            MPI_Request rq[2];
            MPI_Irecv(r, n, MPI_CHAR, left, 0, MPI_COMM_WORLD, &rq[0]);
            MPI_Isend(s, n, MPI_CHAR, right, 0, MPI_COMM_WORLD, &rq[1]);
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
            if (rank % 2 == 0) {
                MPI_Send(s, n, MPI_CHAR, right, 1, MPI_COMM_WORLD);
                MPI_Recv(r, n, MPI_CHAR, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(r, n, MPI_CHAR, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(s, n, MPI_CHAR, right, 1, MPI_COMM_WORLD);
            }
        }
    }
    if (rank == 0) printf("demo: %d ranks exchanged sizes 8 B .. 256 KiB\n", size);
    MPI_Finalize();
    return 0;
}
