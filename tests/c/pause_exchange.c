/* The exchange after a pause away from MPI, measured by the program itself (ground truth
 * for the calibration's `exchange_after_pause`). Two ranks; for each pause P of 0, 100 µs
 * and 1 ms, 41 times: a 0-byte PMPI_Sendrecv that brings both ranks together, both spin
 * on CLOCK_MONOTONIC alone for P, then an 8-byte PMPI_Sendrecv each way, each side's
 * entry and exit read on CLOCK_MONOTONIC (one clock for the ranks of one host). Per
 * exchange: from the later entry to each side's exit, the two sides' mean. PMPI_ so that
 * the shim, when preloaded, adds nothing to it. Prints "EXCHANGES <P> <ns> <ns> ...", one
 * line per pause (the test takes the median). */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

#define REPS 41

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "pause_exchange: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const double pauses[3] = {0, 100e3, 1e6};
    int peer = 1 - rank;
    char out[8] = {0}, in[8];
    for (int k = 0; k < 3; k++) {
        double mine[2 * REPS], theirs[2 * REPS];
        for (int i = 0; i < REPS; i++) {
            PMPI_Sendrecv(out, 0, MPI_BYTE, peer, 1, in, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE);
            double p0 = now_ns();
            while (now_ns() - p0 < pauses[k])
                ;
            mine[2 * i] = now_ns();
            PMPI_Sendrecv(out, 8, MPI_BYTE, peer, 2, in, 8, MPI_BYTE, peer, 2, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE);
            mine[2 * i + 1] = now_ns();
        }
        PMPI_Sendrecv(mine, 2 * REPS, MPI_DOUBLE, peer, 3, theirs, 2 * REPS, MPI_DOUBLE, peer,
                      3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank == 0) {
            printf("EXCHANGES %.0f", pauses[k]);
            for (int i = 0; i < REPS; i++) {
                double later = mine[2 * i] > theirs[2 * i] ? mine[2 * i] : theirs[2 * i];
                printf(" %.1f", (mine[2 * i + 1] - later + theirs[2 * i + 1] - later) / 2);
            }
            printf("\n");
        }
    }
    MPI_Finalize();
    return 0;
}
