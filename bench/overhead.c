/* The shim's cost per intercepted call, measured side by side in one run: MPI_X goes
 * through libloggp.so (when preloaded), PMPI_X does not. Blocks of each alternate, and the
 * median over blocks is reported, so both see the same machine state.
 *   1. MPI_Send to MPI_PROC_NULL (the call does nothing: the shim's cost stands alone);
 *   2. an 8-byte ping-pong between ranks 0 and 1 (added ns per intercepted call);
 *   3. an 8-byte nonblocking exchange: each of ranks 0 and 1 posts MPI_Irecv and MPI_Isend
 *      and completes both with one MPI_Waitall (three intercepted calls per rank, the
 *      Waitall completing two requests);
 *   3b. the same exchange through PMPI_ with a busy wait of the shim's own added cost (1.'s
 *      figure) before each call, and no shim: a control that tells the shim's work from what
 *      a mere delay of that length costs the exchange (on MPICH ch4:ucx a delay of 30 ns per
 *      call, with no shim, added 38-49 ns per call; on Open MPI vader about 0);
 *   4. and 5. the same calls on messages to the rank itself (MPI_Send then MPI_Recv; MPI_Irecv,
 *      MPI_Isend, MPI_Waitall), on every rank. Here nothing of a call overlaps anything
 *      else, so the added time divided by the calls is the cost of one message call. In the
 *      ping-pong the round trip holds four calls in series, but a receive's work before its
 *      MPI call runs while the message is in flight, and a send's after it while the peer
 *      takes the message: its figure is what a latency-bound exchange feels per call, a
 *      lower figure than the calls' cost.
 * Also the cost of one rdtsc, for the budget: 2 x rdtsc + 15 ns per intercepted call. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return (x > y) - (x < y); }
static double median(double *v, int n) { qsort(v, n, sizeof *v, cmp); return v[n / 2]; }
/* Busy-waits `ticks` TSC ticks: a delay with no memory traffic. */
static void busy(unsigned long long ticks) {
    if (!ticks) return;
    unsigned long long t = __rdtsc();
    while (__rdtsc() - t < ticks) {}
}

#define BLOCKS 31
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char buf[8] = {0};
    double shim[BLOCKS], base[BLOCKS];

    /* rdtsc cost */
    volatile unsigned long long sink = 0;
    int n = 1000000;
    double t0 = now_ns();
    for (int i = 0; i < n; i++) sink += __rdtsc();
    double rdtsc_ns = (now_ns() - t0) / n;

    /* 1. PROC_NULL */
    n = 200000;
    for (int b = 0; b < BLOCKS; b++) {
        t0 = now_ns();
        for (int i = 0; i < n; i++) MPI_Send(buf, 8, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        shim[b] = (now_ns() - t0) / n;
        t0 = now_ns();
        for (int i = 0; i < n; i++) PMPI_Send(buf, 8, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        base[b] = (now_ns() - t0) / n;
    }
    double s1 = median(shim, BLOCKS), b1 = median(base, BLOCKS);

    /* 2. ping-pong, ranks 0 and 1 */
    double s2 = 0, b2 = 0;
    if (size >= 2 && rank < 2) {
        int peer = 1 - rank;
        n = 20000;
        for (int b = 0; b < BLOCKS; b++) {
            for (int pass = 0; pass < 2; pass++) {
                int (*snd)(const void *, int, MPI_Datatype, int, int, MPI_Comm) = pass ? PMPI_Send : MPI_Send;
                int (*rcv)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *) = pass ? PMPI_Recv : MPI_Recv;
                PMPI_Barrier(MPI_COMM_WORLD);
                t0 = now_ns();
                for (int i = 0; i < n; i++) {
                    if (rank == 0) { snd(buf, 8, MPI_CHAR, peer, 0, MPI_COMM_WORLD); rcv(buf, 8, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
                    else { rcv(buf, 8, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); snd(buf, 8, MPI_CHAR, peer, 0, MPI_COMM_WORLD); }
                }
                double per_rt = (now_ns() - t0) / n;
                if (pass) base[b] = per_rt; else shim[b] = per_rt;
            }
        }
        s2 = median(shim, BLOCKS);
        b2 = median(base, BLOCKS);
    } else {
        PMPI_Barrier(MPI_COMM_WORLD);
    }

    /* 3. nonblocking exchange, ranks 0 and 1 */
    double s3 = 0, b3 = 0;
    if (size >= 2 && rank < 2) {
        int peer = 1 - rank;
        char out[8] = {0};
        MPI_Request req[2];
        MPI_Status st[2];
        n = 20000;
        for (int b = 0; b < BLOCKS; b++) {
            for (int pass = 0; pass < 2; pass++) {
                PMPI_Barrier(MPI_COMM_WORLD);
                t0 = now_ns();
                if (pass) {
                    for (int i = 0; i < n; i++) {
                        PMPI_Irecv(buf, 8, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &req[0]);
                        PMPI_Isend(out, 8, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &req[1]);
                        PMPI_Waitall(2, req, st);
                    }
                } else {
                    for (int i = 0; i < n; i++) {
                        MPI_Irecv(buf, 8, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &req[0]);
                        MPI_Isend(out, 8, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &req[1]);
                        MPI_Waitall(2, req, st);
                    }
                }
                double per_x = (now_ns() - t0) / n;
                if (pass) base[b] = per_x; else shim[b] = per_x;
            }
        }
        s3 = median(shim, BLOCKS);
        b3 = median(base, BLOCKS);
    }
    /* 3b. the exchange with a busy wait of 1.'s added ns before each PMPI call (no shim). */
    double s3b = 0, b3b = 0;
    if (size >= 2 && rank < 2) {
        int peer = 1 - rank;
        char out[8] = {0};
        MPI_Request req[2];
        MPI_Status st[2];
        /* Ticks per ns, over 20 ms, for the busy wait. */
        double w0 = now_ns();
        unsigned long long c0 = __rdtsc();
        while (now_ns() - w0 < 2e7) {}
        double ticks_per_ns = (__rdtsc() - c0) / (now_ns() - w0);
        double own = s1 - b1;
        PMPI_Bcast(&own, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* both ranks wait alike */
        unsigned long long wait_ticks = own > 0 ? (unsigned long long)(own * ticks_per_ns) : 0;
        n = 20000;
        for (int b = 0; b < BLOCKS; b++) {
            for (int pass = 0; pass < 2; pass++) {
                unsigned long long w = pass ? 0 : wait_ticks;
                PMPI_Barrier(MPI_COMM_WORLD);
                t0 = now_ns();
                for (int i = 0; i < n; i++) {
                    busy(w);
                    PMPI_Irecv(buf, 8, MPI_CHAR, peer, 4, MPI_COMM_WORLD, &req[0]);
                    busy(w);
                    PMPI_Isend(out, 8, MPI_CHAR, peer, 4, MPI_COMM_WORLD, &req[1]);
                    busy(w);
                    PMPI_Waitall(2, req, st);
                }
                double per_x = (now_ns() - t0) / n;
                if (pass) base[b] = per_x; else shim[b] = per_x;
            }
        }
        s3b = median(shim, BLOCKS);
        b3b = median(base, BLOCKS);
    } else if (size >= 2) {
        double own = 0;
        PMPI_Bcast(&own, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    /* 4. and 5. messages to self: every rank, all of each call in series */
    double s4, b4, s5, b5;
    {
        char out[8] = {0};
        MPI_Request req[2];
        MPI_Status st[2];
        double shim5[BLOCKS], base5[BLOCKS];
        n = 20000;
        for (int b = 0; b < BLOCKS; b++) {
            t0 = now_ns();
            for (int i = 0; i < n; i++) {
                MPI_Send(out, 8, MPI_CHAR, rank, 2, MPI_COMM_WORLD);
                MPI_Recv(buf, 8, MPI_CHAR, rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            shim[b] = (now_ns() - t0) / n;
            t0 = now_ns();
            for (int i = 0; i < n; i++) {
                PMPI_Send(out, 8, MPI_CHAR, rank, 2, MPI_COMM_WORLD);
                PMPI_Recv(buf, 8, MPI_CHAR, rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            base[b] = (now_ns() - t0) / n;
            t0 = now_ns();
            for (int i = 0; i < n; i++) {
                MPI_Irecv(buf, 8, MPI_CHAR, rank, 3, MPI_COMM_WORLD, &req[0]);
                MPI_Isend(out, 8, MPI_CHAR, rank, 3, MPI_COMM_WORLD, &req[1]);
                MPI_Waitall(2, req, st);
            }
            shim5[b] = (now_ns() - t0) / n;
            t0 = now_ns();
            for (int i = 0; i < n; i++) {
                PMPI_Irecv(buf, 8, MPI_CHAR, rank, 3, MPI_COMM_WORLD, &req[0]);
                PMPI_Isend(out, 8, MPI_CHAR, rank, 3, MPI_COMM_WORLD, &req[1]);
                PMPI_Waitall(2, req, st);
            }
            base5[b] = (now_ns() - t0) / n;
        }
        s4 = median(shim, BLOCKS);
        b4 = median(base, BLOCKS);
        s5 = median(shim5, BLOCKS);
        b5 = median(base5, BLOCKS);
    }
    if (rank == 0) {
        double budget = 2 * rdtsc_ns + 15;
        printf("rdtsc: %.1f ns; budget per intercepted call: 2 x rdtsc + 15 = %.1f ns\n", rdtsc_ns, budget);
        printf("MPI_Send to MPI_PROC_NULL: PMPI %.1f ns, MPI %.1f ns, added %.1f ns per call, ratio %.2f\n",
               b1, s1, s1 - b1, s1 / b1);
        if (size >= 2)
            printf("8-byte ping-pong round trip: PMPI %.1f ns, MPI %.1f ns, added %.1f ns per round trip, %.1f ns per intercepted call (4 in series, parts overlapping the flight), ratio %.3f\n",
                   b2, s2, s2 - b2, (s2 - b2) / 4, s2 / b2);
        if (size >= 2)
            printf("8-byte nonblocking exchange (Irecv, Isend, Waitall): PMPI %.1f ns, MPI %.1f ns, added %.1f ns per intercepted call (3 per rank per exchange), ratio %.3f\n",
                   b3, s3, (s3 - b3) / 3, s3 / b3);
        if (size >= 2)
            printf("control, no shim: the same exchange with a busy wait of %.1f ns (the PROC_NULL figure) before each PMPI call: PMPI %.1f ns, delayed %.1f ns, added %.1f ns per call, ratio %.3f\n",
                   s1 - b1, b3b, s3b, (s3b - b3b) / 3, s3b / b3b);
        printf("8-byte message to self (Send, Recv): PMPI %.1f ns, MPI %.1f ns, added %.1f ns per intercepted call, ratio %.3f\n",
               b4, s4, (s4 - b4) / 2, s4 / b4);
        printf("8-byte exchange with self (Irecv, Isend, Waitall): PMPI %.1f ns, MPI %.1f ns, added %.1f ns per intercepted call, ratio %.3f\n",
               b5, s5, (s5 - b5) / 3, s5 / b5);
    }
    MPI_Finalize();
    return 0;
}
