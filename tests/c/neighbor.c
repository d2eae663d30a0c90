/* Issue 24 §1: the neighbourhood collectives (MPI 4.0 §8.6), blocking and nonblocking,
 * on a periodic 1-D Cartesian topology (2 neighbours each way) and on a distributed
 * graph whose ranks have different in- and out-degrees (edges 0->1, 0->2, 1->2, 2->3,
 * 3->0), then on a 2 x 2 periodic Cartesian topology made after the ring is freed (its
 * handle given out again, with other degrees). Each call ITER times with 3 MPI_INT per block. Every rank prints, for each
 * function, "EXPECT <rank> <function> <count> <bytes>" from its own degrees: this rank's
 * send data (one block for allgather(v), one per out-neighbour otherwise) plus its
 * receive data (one block per in-neighbour). Run on 4 ranks. */
#include <mpi.h>
#include <stdio.h>

#define ITER 3
#define B 3

static long run(MPI_Comm c, int indeg, int outdeg, long *bytes) {
    int s[3 * 4 * B] = {0}, r[3 * 4 * B] = {0}, sc[4], rc[4], sd[4], rd[4];
    MPI_Aint sdw[4], rdw[4];
    MPI_Datatype st[4], rt[4];
    for (int i = 0; i < 4; i++) {
        sc[i] = rc[i] = B;
        sd[i] = rd[i] = i * B;
        sdw[i] = rdw[i] = i * B * (MPI_Aint)sizeof(int);
        st[i] = rt[i] = MPI_INT;
    }
    long blk = B * sizeof(int);
    bytes[0] = blk + blk * indeg;            /* allgather(v) */
    bytes[1] = blk * outdeg + blk * indeg;   /* alltoall(v,w) */
    long sum = 0;
    for (int k = 0; k < ITER; k++) {
        MPI_Request q[5];
        MPI_Neighbor_allgather(s, B, MPI_INT, r, B, MPI_INT, c);
        MPI_Neighbor_allgatherv(s, B, MPI_INT, r, rc, rd, MPI_INT, c);
        MPI_Neighbor_alltoall(s, B, MPI_INT, r, B, MPI_INT, c);
        MPI_Neighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, c);
        MPI_Neighbor_alltoallw(s, sc, sdw, st, r, rc, rdw, rt, c);
        MPI_Ineighbor_allgather(s, B, MPI_INT, r, B, MPI_INT, c, &q[0]);
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        MPI_Ineighbor_allgatherv(s, B, MPI_INT, r, rc, rd, MPI_INT, c, &q[1]);
        MPI_Wait(&q[1], MPI_STATUS_IGNORE);
        MPI_Ineighbor_alltoall(s, B, MPI_INT, r, B, MPI_INT, c, &q[2]);
        MPI_Wait(&q[2], MPI_STATUS_IGNORE);
        MPI_Ineighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, c, &q[3]);
        MPI_Wait(&q[3], MPI_STATUS_IGNORE);
        MPI_Ineighbor_alltoallw(s, sc, sdw, st, r, rc, rdw, rt, c, &q[4]);
        MPI_Wait(&q[4], MPI_STATUS_IGNORE);
        sum += r[0];
    }
    return sum;
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) MPI_Abort(MPI_COMM_WORLD, 2);
    int dims[1] = {4}, periods[1] = {1};
    MPI_Comm cart, graph;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    /* Edges 0->1, 0->2, 1->2, 2->3, 3->0. */
    int srcs[4][2] = {{3}, {0}, {0, 1}, {2}}, nsrc[4] = {1, 1, 2, 1};
    int dsts[4][2] = {{1, 2}, {2}, {3}, {0}}, ndst[4] = {2, 1, 1, 1};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nsrc[rank], srcs[rank], MPI_UNWEIGHTED,
                                   ndst[rank], dsts[rank], MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   &graph);
    long a[2], b[2];
    long sum = run(cart, 2, 2, a) + run(graph, nsrc[rank], ndst[rank], b);
#if MPI_VERSION >= 4
    /* Persistent forms (MPI 4.0 §8.8), where the MPI has them: each init moves nothing,
     * each MPI_Start counts the bytes of the collective it starts. */
    {
        long starts = 0, start_bytes = 0;
        MPI_Comm cs[2] = {cart, graph};
        long *per[2] = {a, b};
        int in_s[4] = {0}, in_r[4] = {0}, sc[4] = {B, B, B, B}, dsp[4] = {0, B, 2 * B, 3 * B};
        MPI_Aint dw[4] = {0, B * 4, 2 * B * 4, 3 * B * 4};
        MPI_Datatype ty[4] = {MPI_INT, MPI_INT, MPI_INT, MPI_INT};
        int s2[4 * B] = {0}, r2[4 * B] = {0};
        (void)in_s;
        (void)in_r;
        for (int t = 0; t < 2; t++) {
            MPI_Request q[5];
            MPI_Neighbor_allgather_init(s2, B, MPI_INT, r2, B, MPI_INT, cs[t], MPI_INFO_NULL, &q[0]);
            MPI_Neighbor_allgatherv_init(s2, B, MPI_INT, r2, sc, dsp, MPI_INT, cs[t], MPI_INFO_NULL, &q[1]);
            MPI_Neighbor_alltoall_init(s2, B, MPI_INT, r2, B, MPI_INT, cs[t], MPI_INFO_NULL, &q[2]);
            MPI_Neighbor_alltoallv_init(s2, sc, dsp, MPI_INT, r2, sc, dsp, MPI_INT, cs[t], MPI_INFO_NULL, &q[3]);
            MPI_Neighbor_alltoallw_init(s2, sc, dw, ty, r2, sc, dw, ty, cs[t], MPI_INFO_NULL, &q[4]);
            for (int k = 0; k < ITER; k++)
                for (int f = 0; f < 5; f++) {
                    MPI_Start(&q[f]);
                    MPI_Wait(&q[f], MPI_STATUS_IGNORE);
                    starts++;
                    start_bytes += f < 2 ? per[t][0] : per[t][1];
                }
            for (int f = 0; f < 5; f++) MPI_Request_free(&q[f]);
        }
        const char *pn[5] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};
        for (int f = 0; f < 5; f++) printf("EXPECT %d MPI_Neighbor_%s_init 2 0\n", rank, pn[f]);
        printf("EXPECT %d MPI_Start %ld %ld\n", rank, starts, start_bytes);
    }
#endif
    /* A freed topology's handle given to another of other degrees (both MPIs here hand
     * the freed handle out again): a periodic 2 x 2 Cartesian topology, 4 neighbours
     * each way (each rank twice), in place of the ring's 2. */
    MPI_Comm cart2;
    int dims2[2] = {2, 2}, periods2[2] = {1, 1};
    MPI_Comm_free(&cart);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, periods2, 0, &cart2);
    long c[2];
    sum += run(cart2, 4, 4, c);
    const char *names[5] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};
    for (int f = 0; f < 5; f++) {
        long per = (f < 2 ? a[0] + b[0] + c[0] : a[1] + b[1] + c[1]) * ITER;
        printf("EXPECT %d MPI_Neighbor_%s %d %ld\n", rank, names[f], 3 * ITER, per);
        printf("EXPECT %d MPI_Ineighbor_%s %d %ld\n", rank, names[f], 3 * ITER, per);
    }
    long total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("checksum %ld\n", total);
    MPI_Comm_free(&cart2);
    MPI_Comm_free(&graph);
    MPI_Finalize();
    return 0;
}
