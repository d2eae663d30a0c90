/* What an MPI call costs after a pause away from MPI: rank 0 busy-waits G µs (rdtsc only:
 * no memory traffic, no system call), then sends 8 bytes to rank 1, which waits for it in
 * MPI_Recv and sends it back. Medians over the round trips of each G: rank 0's send, the
 * time from rank 0's entry to rank 1's exit from its receive, rank 1's send, and the way
 * back. Each G runs twice: through PMPI_ (the shim, if preloaded, sees none of it) and
 * through MPI_ (through the shim, if preloaded: its own cost after a pause, beside the
 * MPI's). Pair it with bench/after_pause_raw.c, the same round trip through one shared
 * cache line without MPI. Usage: after_pause [round trips per gap] (the gaps: 0, 50, 100,
 * 200, 500, 1000, 5000 µs). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return (x > y) - (x < y); }
static double median(double *v, int n) { qsort(v, n, sizeof *v, cmp); return v[n / 2]; }

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "after_pause: needs 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    int n = argc > 1 ? atoi(argv[1]) : 200;
    const double gaps_us[] = {0, 50, 100, 200, 500, 1000, 5000};
    /* TSC ticks per ns, over 20 ms, for the busy wait. */
    double w0 = now_ns();
    unsigned long long c0 = __rdtsc();
    while (now_ns() - w0 < 2e7) {}
    double ticks_per_ns = (__rdtsc() - c0) / (now_ns() - w0);
    char b[8] = {0};
    double *t = malloc(4 * n * sizeof *t), *u = malloc(4 * n * sizeof *u), *v[4];
    for (int k = 0; k < 4; k++) v[k] = malloc(n * sizeof(double));
    for (unsigned g = 0; g < sizeof gaps_us / sizeof *gaps_us; g++) {
        unsigned long long gap = (unsigned long long)(gaps_us[g] * 1e3 * ticks_per_ns);
        for (int pass = 0; pass < 2; pass++) {
            int (*snd)(const void *, int, MPI_Datatype, int, int, MPI_Comm) = pass ? MPI_Send : PMPI_Send;
            int (*rcv)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *) = pass ? MPI_Recv : PMPI_Recv;
            PMPI_Barrier(MPI_COMM_WORLD);
            for (int i = 0; i < n; i++) {
                if (rank == 0) {
                    unsigned long long s = __rdtsc();
                    while (__rdtsc() - s < gap) {}
                    t[4 * i] = now_ns();
                    snd(b, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
                    t[4 * i + 1] = now_ns();
                    rcv(b, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    t[4 * i + 2] = now_ns();
                } else if (rank == 1) {
                    rcv(b, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    t[4 * i] = now_ns();
                    snd(b, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
                    t[4 * i + 1] = now_ns();
                }
            }
            /* Both ranks read one clock (CLOCK_MONOTONIC, one host). */
            if (rank == 1) PMPI_Send(t, 4 * n, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
            if (rank == 0) {
                PMPI_Recv(u, 4 * n, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int i = 0; i < n; i++) {
                    v[0][i] = t[4 * i + 1] - t[4 * i];
                    v[1][i] = u[4 * i] - t[4 * i];
                    v[2][i] = u[4 * i + 1] - u[4 * i];
                    v[3][i] = t[4 * i + 2] - u[4 * i];
                }
                printf("after %5.0f us away from MPI, %s: rank 0's send %6.0f ns; to rank 1's receive exit %6.0f ns; rank 1's send %6.0f ns; back %6.0f ns (medians of %d)\n",
                       gaps_us[g], pass ? "MPI_ " : "PMPI_", median(v[0], n), median(v[1], n), median(v[2], n), median(v[3], n), n);
            }
        }
    }
    MPI_Finalize();
    return 0;
}
