/* Memo entries taken for other calls again and again (tests/memo.rs): world rank 0
 * sends 3000 messages to rank 1 from one call site and 1000 from another, with 300
 * tags (and so 300 different remembered calls for 64 entries a thread) and sizes
 * 8 × (1 + tag % 5) bytes; rank 1 receives each with its tag. A thread's memo entry
 * holds its calls' counts until it is taken for another call, so every count below
 * passes through an entry that gives up what it held. Known truth, printed by rank 0:
 * messages, bytes, and the calls of each send site. Needs 2 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define TAGS 300
static char buf[64];

static int bytes_of(int tag) { return 8 * (1 + tag % 5); }

__attribute__((noinline)) static long send_from_a(int n) {
    long bytes = 0;
    for (int i = 0; i < n; i++) {
        int tag = (i * 7) % TAGS;
        MPI_Send(buf, bytes_of(tag), MPI_BYTE, 1, tag, MPI_COMM_WORLD);
        bytes += bytes_of(tag);
    }
    return bytes;
}
__attribute__((noinline)) static long send_from_b(int n) {
    long bytes = 0;
    for (int i = 0; i < n; i++) {
        int tag = (i * 13) % TAGS;
        MPI_Send(buf, bytes_of(tag), MPI_BYTE, 1, tag, MPI_COMM_WORLD);
        bytes += bytes_of(tag);
    }
    return bytes;
}
__attribute__((noinline)) static void recv_like(int n, int step) {
    for (int i = 0; i < n; i++) {
        int tag = (i * step) % TAGS;
        MPI_Recv(buf, bytes_of(tag), MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    memset(buf, 1, sizeof buf);
    if (rank == 0) {
        long a = send_from_a(3000);
        long b = send_from_b(1000);
        printf("messages: %d bytes: %ld site a: 3000 site b: 1000\n", 4000, a + b);
    } else if (rank == 1) {
        recv_like(3000, 7);
        recv_like(1000, 13);
    }
    MPI_Finalize();
    return 0;
}
