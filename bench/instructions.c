/* The shim's instructions per intercepted call, counted by valgrind's cachegrind (one
 * rank, no MPI peer): a count does not move with the machine's level as a time does, so
 * two shims (or the shim and none) compare exactly. Run at two loop lengths; the
 * difference over the difference of iterations is the loop's cost per iteration, with
 * MPI_Init, MPI_Finalize and the report taken out.
 *   instructions <which> <iterations>
 *   which 0: MPI_Send to MPI_PROC_NULL (one call)
 *         1: MPI_Send then MPI_Recv of 8 bytes to the rank itself (two calls)
 *         2: MPI_Irecv, MPI_Isend to itself, MPI_Waitall of both (three calls) */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int which = argc > 1 ? atoi(argv[1]) : 0;
    long n = argc > 2 ? atol(argv[2]) : 100000;
    char buf[8], out[8] = {0};
    MPI_Request req[2];
    MPI_Status st[2];
    for (long i = 0; i < n; i++) {
        if (which == 0) {
            MPI_Send(buf, 8, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        } else if (which == 1) {
            MPI_Send(out, 8, MPI_CHAR, rank, 2, MPI_COMM_WORLD);
            MPI_Recv(buf, 8, MPI_CHAR, rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Irecv(buf, 8, MPI_CHAR, rank, 3, MPI_COMM_WORLD, &req[0]);
            MPI_Isend(out, 8, MPI_CHAR, rank, 3, MPI_COMM_WORLD, &req[1]);
            MPI_Waitall(2, req, st);
        }
    }
    MPI_Finalize();
    return 0;
}
