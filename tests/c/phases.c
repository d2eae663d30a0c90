/* Three phases of known character, for the counters over time (issue 27 §2): each
 * `secs` long (default 3). A: every rank computes, no MPI call. B: a ring of 64 KiB
 * messages, one step in 20 of 8 bytes (MPI_Irecv from the left, MPI_Send to the right,
 * MPI_Wait), with rank 0's MPI_Bcast every 200 steps saying whether B goes on; each
 * rank times its own MPI calls in B (clock_gettime around each step: the large
 * messages keep the clock reads' and the shim's own share of a step below 1 %). C: every rank sleeps, no MPI call. Prints
 * "TRUTH rank <r> b_mpi_share <share>" and "TRUTH b_ns <duration>" from rank 0.
 * Usage: phases [secs] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double secs = argc > 1 ? atof(argv[1]) : 3.0;
    volatile double x = 1.0;
    double t0 = now();
    while (now() - t0 < secs)
        for (int i = 0; i < 10000; i++) x = x * 1.0000001 + 1e-9;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static char s[65536], r[65536];
    double in_mpi = 0, b0 = now(), c;
    int go = 1;
    while (go) {
        for (int i = 0; i < 200; i++) {
            MPI_Request rq;
            int n = i % 20 ? 65536 : 8;
            c = now();
            MPI_Irecv(r, n, MPI_CHAR, left, 1, MPI_COMM_WORLD, &rq);
            MPI_Send(s, n, MPI_CHAR, right, 1, MPI_COMM_WORLD);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            in_mpi += now() - c;
        }
        go = rank == 0 ? now() - b0 < secs : 0;
        c = now();
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
        in_mpi += now() - c;
    }
    double b = now() - b0;
    printf("TRUTH rank %d b_mpi_share %.4f\n", rank, in_mpi / b);
    if (rank == 0) printf("TRUTH b_ns %.0f\n", b * 1e9);
    fflush(stdout);
    struct timespec z = {(time_t)secs, (long)((secs - (time_t)secs) * 1e9)};
    nanosleep(&z, NULL);
    MPI_Finalize();
    return x < 0;
}
