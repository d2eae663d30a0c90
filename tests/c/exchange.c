/* A blocking exchange with computation: rank 0 sends a message, rank 1 computes for about
 * 20 µs — polling MPI now and then, as compute loops with MPI_Test/MPI_Iprobe do — before
 * receiving it, then answers with an empty message. Sizes 8 B to 64 KiB, 8
 * per power of two, 30 times each. An eager send returns at once; a rendezvous send waits
 * for the computing receiver — which is what the passive bracket sees. */
#include <mpi.h>
#include <stdlib.h>
static void compute(double us) {
    double t0 = MPI_Wtime();
    int flag;
    while ((MPI_Wtime() - t0) * 1e6 < us)
        MPI_Iprobe(0, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *buf = calloc(1, 1 << 17);
    for (double s = 8; s <= 65536; s *= 1.0905) {
        int n = (int)s;
        for (int it = 0; it < 30; it++) {
            if (rank == 0) {
                MPI_Send(buf, n, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, 0, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                compute(20);
                MPI_Recv(buf, n, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, 0, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
        }
    }
    MPI_Finalize();
    return 0;
}
