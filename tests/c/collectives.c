/* Each collective of MPI 4.0 §6.3–6.12, blocking and nonblocking, ITER times on every
 * rank of 4, with counts that differ per rank where the function allows it (the test
 * checks the shim's per-rank counts and bytes against these). Prints a checksum of every
 * result, the same with and without the shim. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ITER 3

static long checksum = 0;
static void sum(const int *v, int n) {
    for (int i = 0; i < n; i++) checksum += (long)v[i] * (i + 1);
}

/* A user-defined integer sum (MPI_Op_create): the shim creates the operation with a
 * trampoline of its own that calls this one, so the checksum shows any change it made. */
static void int_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    const int *x = in;
    int *y = inout;
    for (int i = 0; i < *len; i++) y[i] += x[i];
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (n != 4) {
        if (rank == 0) fprintf(stderr, "collectives: needs 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int send[64], recv[64], counts[4] = {1, 2, 3, 4}, displs[4] = {0, 1, 3, 6};
    int ones[4] = {1, 1, 1, 1}, steps[4] = {0, 1, 2, 3}, bsteps[4] = {0, 4, 8, 12};
    MPI_Datatype ints[4] = {MPI_INT, MPI_INT, MPI_INT, MPI_INT};
    for (int i = 0; i < 64; i++) send[i] = rank * 100 + i;
    for (int nb = 0; nb < 2; nb++) {
        for (int it = 0; it < ITER; it++) {
            MPI_Request q[17];
            int k = 0;
#define RUN(blocking, nonblocking)                    \
    do {                                              \
        for (int i = 0; i < 64; i++) recv[i] = 0;     \
        if (nb) {                                     \
            nonblocking;                              \
            MPI_Wait(&q[k++], MPI_STATUS_IGNORE);     \
        } else {                                      \
            blocking;                                 \
        }                                             \
        sum(recv, 64);                                \
    } while (0)
            RUN(MPI_Barrier(MPI_COMM_WORLD), MPI_Ibarrier(MPI_COMM_WORLD, &q[k]));
            for (int i = 0; i < 10; i++) recv[i] = rank == 0 ? 7 * i : 0;
            if (nb) { MPI_Ibcast(recv, 10, MPI_INT, 0, MPI_COMM_WORLD, &q[k]); MPI_Wait(&q[k++], MPI_STATUS_IGNORE); }
            else MPI_Bcast(recv, 10, MPI_INT, 0, MPI_COMM_WORLD);
            sum(recv, 10);
            RUN(MPI_Gather(send, 5, MPI_INT, recv, 5, MPI_INT, 1, MPI_COMM_WORLD),
                MPI_Igather(send, 5, MPI_INT, recv, 5, MPI_INT, 1, MPI_COMM_WORLD, &q[k]));
            RUN(MPI_Gatherv(send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD),
                MPI_Igatherv(send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, &q[k]));
            RUN(MPI_Scatter(send, 5, MPI_INT, recv, 5, MPI_INT, 2, MPI_COMM_WORLD),
                MPI_Iscatter(send, 5, MPI_INT, recv, 5, MPI_INT, 2, MPI_COMM_WORLD, &q[k]));
            RUN(MPI_Scatterv(send, counts, displs, MPI_INT, recv, rank + 1, MPI_INT, 3, MPI_COMM_WORLD),
                MPI_Iscatterv(send, counts, displs, MPI_INT, recv, rank + 1, MPI_INT, 3, MPI_COMM_WORLD, &q[k]));
            RUN(MPI_Allgather(send, 5, MPI_INT, recv, 5, MPI_INT, MPI_COMM_WORLD),
                MPI_Iallgather(send, 5, MPI_INT, recv, 5, MPI_INT, MPI_COMM_WORLD, &q[k]));
            RUN(MPI_Allgatherv(send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD),
                MPI_Iallgatherv(send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD, &q[k]));
            RUN(MPI_Alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, MPI_COMM_WORLD),
                MPI_Ialltoall(send, 2, MPI_INT, recv, 2, MPI_INT, MPI_COMM_WORLD, &q[k]));
            RUN(MPI_Alltoallv(send, ones, steps, MPI_INT, recv, ones, steps, MPI_INT, MPI_COMM_WORLD),
                MPI_Ialltoallv(send, ones, steps, MPI_INT, recv, ones, steps, MPI_INT, MPI_COMM_WORLD, &q[k]));
            RUN(MPI_Alltoallw(send, ones, bsteps, ints, recv, ones, bsteps, ints, MPI_COMM_WORLD),
                MPI_Ialltoallw(send, ones, bsteps, ints, recv, ones, bsteps, ints, MPI_COMM_WORLD, &q[k]));
            RUN(MPI_Reduce(send, recv, 6, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD),
                MPI_Ireduce(send, recv, 6, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &q[k]));
            RUN(MPI_Allreduce(send, recv, 6, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                MPI_Iallreduce(send, recv, 6, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[k]));
            RUN(MPI_Reduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                MPI_Ireduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[k]));
            RUN(MPI_Reduce_scatter_block(send, recv, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                MPI_Ireduce_scatter_block(send, recv, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[k]));
            RUN(MPI_Scan(send, recv, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                MPI_Iscan(send, recv, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[k]));
            RUN(MPI_Exscan(send, recv, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                MPI_Iexscan(send, recv, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[k]));
        }
    }
#if MPI_VERSION >= 4
    /* Persistent collectives (MPI 4.0 §6.13), where the MPI has them: each started ITER
     * times, each start completed by MPI_Wait. */
    {
        MPI_Request pq[2];
        MPI_Allreduce_init(send, recv, 6, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &pq[0]);
        MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &pq[1]);
        for (int it = 0; it < ITER; it++) {
            for (int j = 0; j < 2; j++) {
                MPI_Start(&pq[j]);
                MPI_Wait(&pq[j], MPI_STATUS_IGNORE);
            }
            sum(recv, 6);
        }
        MPI_Request_free(&pq[0]);
        MPI_Request_free(&pq[1]);
        if (rank == 0) printf("persistent collectives: yes\n");
    }
#endif
    /* In place: the send part is not counted (MPI 4.0 §6.9.3). Through a user-defined
     * sum. */
    for (int i = 0; i < 6; i++) recv[i] = rank + i;
    MPI_Op usum;
    MPI_Op_create(int_sum, 1, &usum);
    MPI_Allreduce(MPI_IN_PLACE, recv, 6, MPI_INT, usum, MPI_COMM_WORLD);
    MPI_Op_free(&usum);
    sum(recv, 6);
    long total = 0;
    MPI_Reduce(&checksum, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("collectives done: checksum %ld\n", total);
    MPI_Finalize();
    return 0;
}
