/* MPI_THREAD_MULTIPLE: T threads per rank, each exchanging N 8-byte messages with the
 * same thread of the partner rank (tag = thread). Even ranks MPI_Send; odd ranks
 * MPI_Irecv + MPI_Wait, so requests start and complete under concurrency.
 * Rank 0 prints the expected totals. Usage: threads [N] [T] */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, N = 100000, T = 4;

static void *work(void *arg) {
    int t = (int)(long)arg;
    long long v = 0;
    for (int i = 0; i < N; i++) {
        if (rank % 2 == 0) {
            v = i;
            MPI_Send(&v, 1, MPI_LONG_LONG, rank + 1, t, MPI_COMM_WORLD);
        } else {
            MPI_Request rq;
            MPI_Irecv(&v, 1, MPI_LONG_LONG, rank - 1, t, MPI_COMM_WORLD, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            if (v != i) { fprintf(stderr, "thread %d: got %lld, want %d\n", t, v, i); abort(); }
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    int provided, size;
    if (argc > 1) N = atoi(argv[1]);
    if (argc > 2) T = atoi(argv[2]);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) { printf("no MPI_THREAD_MULTIPLE\n"); MPI_Abort(MPI_COMM_WORLD, 3); }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pthread_t th[64];
    for (int t = 0; t < T; t++) pthread_create(&th[t], NULL, work, (void *)(long)t);
    for (int t = 0; t < T; t++) pthread_join(th[t], NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    long long pairs = size / 2, msgs = pairs * (long long)T * N;
    if (rank == 0) {
        printf("EXPECT MPI_Send %lld %lld\n", msgs, msgs * 8);
        printf("EXPECT MPI_Irecv %lld %lld\n", msgs, msgs * 8);
        printf("EXPECT MPI_Wait %lld 0\n", msgs);
    }
    MPI_Finalize();
    return 0;
}
