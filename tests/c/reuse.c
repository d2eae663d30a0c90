/* Handles that come back (tests/memo.rs): a communicator freed and another created at
 * the same handle with other members, and a datatype freed and another of another size
 * created at the same handle, each used from the same call site before and after. The
 * messages are known: world rank 0 sends
 *   3 × 100 B to world rank 2 through a duplicate of MPI_COMM_WORLD (peer 2 there);
 *   5 × 100 B to world rank 1 through a split whose rank 2 is world rank 1;
 *   3 × 4 B and then 3 × 16 B to world rank 1, one element of a contiguous type each.
 * Prints whether each handle came back. Needs 3 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static char buf[128];

/* One call site for every send and one for every receive. */
__attribute__((noinline)) static void send_n(int n, int count, MPI_Datatype t, int dest, MPI_Comm c) {
    for (int i = 0; i < n; i++) MPI_Send(buf, count, t, dest, 7, c);
}
__attribute__((noinline)) static void recv_n(int n, int count, MPI_Datatype t, int src, MPI_Comm c) {
    for (int i = 0; i < n; i++) MPI_Recv(buf, count, t, src, 7, c, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    memset(buf, 1, sizeof buf);

    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    if (rank == 0) send_n(3, 100, MPI_CHAR, 2, a);
    if (rank == 2) recv_n(3, 100, MPI_CHAR, 0, a);
    MPI_Comm a_was = a;
    MPI_Comm_free(&a);
    /* Members in the order world 2, 0, 1. */
    MPI_Comm_split(MPI_COMM_WORLD, 0, (rank + 1) % 3, &b);
    int comm_reused = memcmp(&a_was, &b, sizeof b) == 0;
    if (rank == 0) send_n(5, 100, MPI_CHAR, 2, b);
    if (rank == 1) recv_n(5, 100, MPI_CHAR, 1, b);
    MPI_Comm_free(&b);

    MPI_Datatype t, u;
    MPI_Type_contiguous(4, MPI_CHAR, &t);
    MPI_Type_commit(&t);
    if (rank == 0) send_n(3, 1, t, 1, MPI_COMM_WORLD);
    if (rank == 1) recv_n(3, 1, t, 0, MPI_COMM_WORLD);
    MPI_Datatype t_was = t;
    MPI_Type_free(&t);
    MPI_Type_contiguous(16, MPI_CHAR, &u);
    MPI_Type_commit(&u);
    int type_reused = memcmp(&t_was, &u, sizeof u) == 0;
    if (rank == 0) send_n(3, 1, u, 1, MPI_COMM_WORLD);
    if (rank == 1) recv_n(3, 1, u, 0, MPI_COMM_WORLD);
    MPI_Type_free(&u);

    if (rank == 0) printf("communicator handle reused: %d\ndatatype handle reused: %d\n", comm_reused, type_reused);
    MPI_Finalize();
    return 0;
}
