/* Issue 24 §1: the communicator size as a dimension of a collective's cell. 4 ranks:
 * MPI_Allreduce 3 times on MPI_COMM_WORLD and 5 times on halves of it (2 ranks each),
 * MPI_Barrier twice on MPI_COMM_SELF. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, v = 1, s = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    for (int i = 0; i < 3; i++) MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 5; i++) MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, half);
    for (int i = 0; i < 2; i++) MPI_Barrier(MPI_COMM_SELF);
    if (rank == 0) printf("sum %d\n", s);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
