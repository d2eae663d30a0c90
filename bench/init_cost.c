/* Wall time of MPI_Init and MPI_Finalize as the application sees them (CLOCK_MONOTONIC
 * around the calls), printed by rank 0: run with and without the shim to compare. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
int main(int argc, char **argv) {
    double t0 = now_ms();
    MPI_Init(&argc, &argv);
    double t1 = now_ms();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = now_ms();
    MPI_Finalize();
    double t3 = now_ms();
    if (rank == 0) printf("MPI_Init %.1f ms, MPI_Finalize %.1f ms\n", t1 - t0, t3 - t2);
    return 0;
}
