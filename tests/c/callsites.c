/* Issue 24 §2: call sites. Rank 0 sends to rank 1 from two lines (3 and 5 times), both
 * ranks call MPI_Allreduce from a third (4 times each). Each marked line is found by its
 * marker comment; the test expects `loggp show --json` to name this file and those lines
 * with these counts. Built with -g. 2 ranks. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, v = 1, sum = 0;
    char buf[256] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 3; i++)
            MPI_Send(buf, 16, MPI_CHAR, 1, 1, MPI_COMM_WORLD); /* SITE_A */
        for (int i = 0; i < 5; i++)
            MPI_Send(buf, 100 + i, MPI_CHAR, 1, 2, MPI_COMM_WORLD); /* SITE_B */
    } else if (rank == 1) {
        for (int i = 0; i < 8; i++)
            MPI_Recv(buf, 256, MPI_CHAR, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < 4; i++)
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* SITE_C */
    if (rank == 0) printf("sum %d\n", sum);
    MPI_Finalize();
    return 0;
}
