/* Issue 24 §3: a ring plus 7 extra messages from rank 0 to rank 2, through every way of
 * sending (blocking, synchronous, buffered, nonblocking, persistent, send-receive) and
 * receiving (wildcard source, probe and matched receive), so that the report's matrix
 * can be checked exactly. Sends to MPI_PROC_NULL must not appear. Run on 4 ranks.
 *
 * Per ring pair i -> i+1: 14 messages, 6540 bytes. Pair 0 -> 2: 7 messages, 2800 bytes
 * (100 * (1 + ... + 7)). Prints a checksum. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    char *sbuf = calloc(1 << 16, 1), *rbuf = calloc(1 << 16, 1);
    for (int i = 0; i < 4096; i++) sbuf[i] = (char)(rank + i);
    long sum = 0;

    /* 5 blocking sends of 1000 B (Send, Ssend alternately); receives with a wildcard. */
    for (int k = 0; k < 5; k++) {
        if (rank % 2 == 0) {
            if (k % 2) MPI_Ssend(sbuf, 1000, MPI_CHAR, to, 1, MPI_COMM_WORLD);
            else MPI_Send(sbuf, 1000, MPI_CHAR, to, 1, MPI_COMM_WORLD);
            MPI_Recv(rbuf, 1000, MPI_CHAR, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, 1000, MPI_CHAR, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (k % 2) MPI_Ssend(sbuf, 1000, MPI_CHAR, to, 1, MPI_COMM_WORLD);
            else MPI_Send(sbuf, 1000, MPI_CHAR, to, 1, MPI_COMM_WORLD);
        }
        sum += rbuf[7];
    }
    /* 3 nonblocking sends of 300 B, wildcard nonblocking receives, Waitall. */
    for (int k = 0; k < 3; k++) {
        MPI_Request r[2];
        MPI_Irecv(rbuf, 300, MPI_CHAR, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(sbuf, 300, MPI_CHAR, to, 2, MPI_COMM_WORLD, &r[1]);
        MPI_Status st[2];
        MPI_Waitall(2, r, st);
        sum += rbuf[3];
    }
    /* 2 send-receives of 64 B. */
    for (int k = 0; k < 2; k++) {
        MPI_Sendrecv(sbuf, 64, MPI_CHAR, to, 3, rbuf, 64, MPI_CHAR, from, 3, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        sum += rbuf[5];
    }
    /* 4 starts of a persistent send of 128 B. */
    MPI_Request ps, pr;
    MPI_Send_init(sbuf, 128, MPI_CHAR, to, 4, MPI_COMM_WORLD, &ps);
    MPI_Recv_init(rbuf, 128, MPI_CHAR, from, 4, MPI_COMM_WORLD, &pr);
    for (int k = 0; k < 4; k++) {
        MPI_Start(&pr);
        MPI_Start(&ps);
        MPI_Wait(&ps, MPI_STATUS_IGNORE);
        MPI_Wait(&pr, MPI_STATUS_IGNORE);
        sum += rbuf[9];
    }
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);
    /* Nothing moves to or from MPI_PROC_NULL. */
    MPI_Send(sbuf, 500, MPI_CHAR, MPI_PROC_NULL, 5, MPI_COMM_WORLD);
    MPI_Recv(rbuf, 500, MPI_CHAR, MPI_PROC_NULL, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* 7 extra messages from 0 to 2, 100 * k bytes: buffered and plain sends; rank 2
     * takes them with a wildcard probe and a matched receive. */
    if (rank == 0 && size > 2) {
        int bsize = 8 * (1000 + MPI_BSEND_OVERHEAD);
        void *b = malloc(bsize);
        MPI_Buffer_attach(b, bsize);
        for (int k = 1; k <= 7; k++) {
            if (k % 2) MPI_Bsend(sbuf, 100 * k, MPI_CHAR, 2, 6, MPI_COMM_WORLD);
            else MPI_Send(sbuf, 100 * k, MPI_CHAR, 2, 6, MPI_COMM_WORLD);
        }
        MPI_Buffer_detach(&b, &bsize);
        free(b);
    } else if (rank == 2) {
        for (int k = 1; k <= 7; k++) {
            MPI_Message m;
            MPI_Status st;
            int n;
            MPI_Mprobe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &m, &st);
            MPI_Get_count(&st, MPI_CHAR, &n);
            MPI_Mrecv(rbuf, n, MPI_CHAR, &m, MPI_STATUS_IGNORE);
            sum += n;
        }
    }
    long total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("checksum %ld\n", total);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
