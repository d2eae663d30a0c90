/* A flood (bell2003 §3): rank 0 starts bursts of 64 back-to-back MPI_Isend of 64 bytes to
 * rank 1, then waits for them all; rank 1 pre-posts the receives. 200 bursts. */
#include <mpi.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    char buf[64][64];
    MPI_Request rq[64];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int b = 0; b < 200; b++) {
        for (int i = 0; i < 64; i++) {
            if (rank == 0) MPI_Isend(buf[i], 64, MPI_CHAR, 1, i, MPI_COMM_WORLD, &rq[i]);
            else if (rank == 1) MPI_Irecv(buf[i], 64, MPI_CHAR, 0, i, MPI_COMM_WORLD, &rq[i]);
        }
        if (rank < 2) MPI_Waitall(64, rq, MPI_STATUSES_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
