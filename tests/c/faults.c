/* Ways a job ends without MPI_Finalize. Usage: faults abort|sigterm|exit
 *   abort:   rank 1 calls MPI_Abort(…, 7) while rank 0 waits in MPI_Recv;
 *   sigterm: rank 1 is killed by SIGTERM while rank 0 waits in MPI_Recv;
 *   exit:    every rank calls exit(0) without MPI_Finalize.
 * Both ranks first exchange 10 messages, so each has statistics to leave behind. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, v = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 10; i++) {
        if (rank == 0) MPI_Send(&i, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        else if (rank == 1) MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const char *how = argc > 1 ? argv[1] : "abort";
    if (!strcmp(how, "exit")) exit(0);
    if (rank == 1) {
        usleep(200000);
        if (!strcmp(how, "abort")) MPI_Abort(MPI_COMM_WORLD, 7);
        kill(getpid(), SIGTERM);
        pause();
    }
    if (rank == 0) MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* never comes */
    MPI_Finalize();
    return 0;
}
