/* The MPI-4 point-to-point calls (issue 13 §3): every large-count `_c` form of the
 * intercepted family, MPI_Isendrecv and MPI_Isendrecv_replace. Needs an MPI whose mpi.h
 * declares them (MPICH 4.0; Open MPI 4.1 has none). Ranks work in pairs (r, r^1).
 * Prints what it observed (identical with and without the shim) and, on rank 0, the
 * per-function totals summed over ranks, "EXPECT <function> <count> <bytes>", and the
 * request lifecycles, "EXPECTREQ <mode> <completed> <cancelled> <freed_active>". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if MPI_VERSION < 4
#error "needs an MPI-4 mpi.h"
#endif

enum { F_Send_c, F_Ssend_c, F_Bsend_c, F_Rsend_c, F_Isend_c, F_Issend_c, F_Ibsend_c, F_Irsend_c,
       F_Recv_c, F_Irecv_c, F_Mrecv_c, F_Imrecv_c, F_Sendrecv_c, F_Sendrecv_replace_c,
       F_Send_init_c, F_Ssend_init_c, F_Bsend_init_c, F_Rsend_init_c, F_Recv_init_c,
       F_Isendrecv, F_Isendrecv_replace, F_Isendrecv_c, F_Isendrecv_replace_c,
       F_Wait, F_Waitall, F_Start, F_Request_free, F_Mprobe, F_Improbe, NF };
static const char *names[NF] = {"MPI_Send_c", "MPI_Ssend_c", "MPI_Bsend_c", "MPI_Rsend_c",
    "MPI_Isend_c", "MPI_Issend_c", "MPI_Ibsend_c", "MPI_Irsend_c", "MPI_Recv_c", "MPI_Irecv_c",
    "MPI_Mrecv_c", "MPI_Imrecv_c", "MPI_Sendrecv_c", "MPI_Sendrecv_replace_c", "MPI_Send_init_c",
    "MPI_Ssend_init_c", "MPI_Bsend_init_c", "MPI_Rsend_init_c", "MPI_Recv_init_c",
    "MPI_Isendrecv", "MPI_Isendrecv_replace", "MPI_Isendrecv_c", "MPI_Isendrecv_replace_c",
    "MPI_Wait", "MPI_Waitall", "MPI_Start", "MPI_Request_free", "MPI_Mprobe", "MPI_Improbe"};
static long long cnt[NF], byt[NF];
#define NOTE(f, b) (cnt[F_##f]++, byt[F_##f] += (long long)(b))
enum { Q_isend, Q_issend, Q_ibsend, Q_irsend, Q_irecv, Q_mrecv, Q_isendrecv, NQ };
static const char *qnames[NQ] = {"isend", "issend", "ibsend", "irsend", "irecv", "mrecv", "isendrecv"};
static long long qdone[NQ];
#define DONE(m, k) (qdone[Q_##m] += (k))

static int rank, size, peer;
static char *sbuf, *rbuf;
#define MAXB (1 << 18)

static void out(const char *fmt, long a, long b, long c) {
    char line[256], body[200];
    snprintf(body, sizeof body, fmt, a, b, c);
    int n = snprintf(line, sizeof line, "r%d %s\n", rank, body);
    fflush(stdout);
    if (write(1, line, n) < 0) abort();
}

static void fill(MPI_Count n, int seed) { for (MPI_Count i = 0; i < n; i++) sbuf[i] = (char)(i * 7 + seed); }
static int check(MPI_Count n, int seed) { for (MPI_Count i = 0; i < n; i++) if (rbuf[i] != (char)(i * 7 + seed)) return 0; return 1; }

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2) { if (!rank) fprintf(stderr, "needs an even number of ranks\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    peer = rank ^ 1;
    int even = !(rank & 1);
    sbuf = malloc(MAXB); rbuf = malloc(MAXB);
    MPI_Status st;
    MPI_Request rq[4];
    const MPI_Count sizes[] = {0, 8, 5000, 70000};

    /* 1. Blocking: Send_c / Recv_c / Ssend_c ping-pong over sizes either side of the
     * eager limits. */
    for (int i = 0; i < 4; i++) {
        MPI_Count n = sizes[i];
        if (even) {
            fill(n, i); MPI_Send_c(sbuf, n, MPI_CHAR, peer, 1, MPI_COMM_WORLD); NOTE(Send_c, n);
            MPI_Recv_c(rbuf, n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &st); NOTE(Recv_c, n);
            MPI_Count got; MPI_Get_count_c(&st, MPI_CHAR, &got);
            out("pingpong %ld ok=%ld got=%ld", (long)n, check(n, i + 1), (long)got);
        } else {
            MPI_Recv_c(rbuf, n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); NOTE(Recv_c, n);
            out("pong %ld ok=%ld %ld", (long)n, check(n, i), 0);
            fill(n, i + 1); MPI_Ssend_c(sbuf, n, MPI_CHAR, peer, 2, MPI_COMM_WORLD); NOTE(Ssend_c, n);
        }
    }

    /* 2. Bsend_c, and Rsend_c to a receive posted (Irecv_c) before a barrier. */
    int bsz = 4 * (MAXB + MPI_BSEND_OVERHEAD);
    char *battach = malloc(bsz);
    MPI_Buffer_attach(battach, bsz);
    if (even) { fill(300, 3); MPI_Bsend_c(sbuf, 300, MPI_CHAR, peer, 3, MPI_COMM_WORLD); NOTE(Bsend_c, 300); }
    else { MPI_Recv_c(rbuf, 300, MPI_CHAR, peer, 3, MPI_COMM_WORLD, &st); NOTE(Recv_c, 300); out("bsend ok=%ld tag=%ld %ld", check(300, 3), st.MPI_TAG, 0); }
    if (!even) { MPI_Irecv_c(rbuf, 64, MPI_INT, peer, 4, MPI_COMM_WORLD, &rq[0]); NOTE(Irecv_c, 256); }
    MPI_Barrier(MPI_COMM_WORLD);
    if (even) { fill(256, 4); MPI_Rsend_c(sbuf, 64, MPI_INT, peer, 4, MPI_COMM_WORLD); NOTE(Rsend_c, 256); }
    else { MPI_Wait(&rq[0], &st); NOTE(Wait, 0); DONE(irecv, 1); out("rsend ok=%ld src=%ld %ld", check(256, 4), st.MPI_SOURCE == peer, 0); }

    /* 3. Nonblocking: Isend_c/Irecv_c both ways, Issend_c, Ibsend_c, Irsend_c. */
    char *r2 = malloc(MAXB);
    fill(2048, 5);
    MPI_Irecv_c(r2, 2048, MPI_CHAR, peer, 5, MPI_COMM_WORLD, &rq[0]); NOTE(Irecv_c, 2048);
    MPI_Isend_c(sbuf, 2048, MPI_CHAR, peer, 5, MPI_COMM_WORLD, &rq[1]); NOTE(Isend_c, 2048);
    MPI_Status sts[4];
    MPI_Waitall(2, rq, sts); NOTE(Waitall, 0); DONE(irecv, 1); DONE(isend, 1);
    out("isend_c src=%ld tag=%ld %ld", sts[0].MPI_SOURCE == peer, sts[0].MPI_TAG, 0);
    if (even) {
        MPI_Issend_c(sbuf, 500, MPI_CHAR, peer, 6, MPI_COMM_WORLD, &rq[0]); NOTE(Issend_c, 500);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE); NOTE(Wait, 0); DONE(issend, 1);
        MPI_Ibsend_c(sbuf, 700, MPI_CHAR, peer, 7, MPI_COMM_WORLD, &rq[0]); NOTE(Ibsend_c, 700);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE); NOTE(Wait, 0); DONE(ibsend, 1);
    } else {
        MPI_Recv_c(rbuf, 500, MPI_CHAR, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE); NOTE(Recv_c, 500);
        MPI_Recv_c(rbuf, 700, MPI_CHAR, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); NOTE(Recv_c, 700);
        out("issend_c/ibsend_c ok=%ld %ld %ld", check(700, 5), 0, 0);
    }
    if (!even) { MPI_Irecv_c(rbuf, 32, MPI_CHAR, peer, 8, MPI_COMM_WORLD, &rq[0]); NOTE(Irecv_c, 32); }
    MPI_Barrier(MPI_COMM_WORLD);
    if (even) {
        MPI_Irsend_c(sbuf, 32, MPI_CHAR, peer, 8, MPI_COMM_WORLD, &rq[0]); NOTE(Irsend_c, 32);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE); NOTE(Wait, 0); DONE(irsend, 1);
    } else { MPI_Wait(&rq[0], MPI_STATUS_IGNORE); NOTE(Wait, 0); DONE(irecv, 1); }

    /* 4. Persistent: Send_init_c / Ssend_init_c against Recv_init_c, started twice each;
     * Bsend_init_c and Rsend_init_c freed unstarted. */
    MPI_Request pr[2];
    if (even) {
        MPI_Send_init_c(sbuf, 128, MPI_CHAR, peer, 9, MPI_COMM_WORLD, &pr[0]); NOTE(Send_init_c, 0);
        MPI_Ssend_init_c(sbuf, 256, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &pr[1]); NOTE(Ssend_init_c, 0);
    } else {
        MPI_Recv_init_c(rbuf, 128, MPI_CHAR, peer, 9, MPI_COMM_WORLD, &pr[0]); NOTE(Recv_init_c, 0);
        MPI_Recv_init_c(r2, 256, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &pr[1]); NOTE(Recv_init_c, 0);
    }
    for (int k = 0; k < 2; k++) {
        MPI_Start(&pr[0]); NOTE(Start, 128);
        MPI_Start(&pr[1]); NOTE(Start, 256);
        MPI_Waitall(2, pr, MPI_STATUSES_IGNORE); NOTE(Waitall, 0);
        if (even) { DONE(isend, 1); DONE(issend, 1); } else DONE(irecv, 2);
    }
    MPI_Request_free(&pr[0]); NOTE(Request_free, 0);
    MPI_Request_free(&pr[1]); NOTE(Request_free, 0);
    if (even) {
        MPI_Bsend_init_c(sbuf, 16, MPI_CHAR, peer, 11, MPI_COMM_WORLD, &pr[0]); NOTE(Bsend_init_c, 0);
        MPI_Rsend_init_c(sbuf, 16, MPI_CHAR, peer, 11, MPI_COMM_WORLD, &pr[1]); NOTE(Rsend_init_c, 0);
        MPI_Request_free(&pr[0]); NOTE(Request_free, 0);
        MPI_Request_free(&pr[1]); NOTE(Request_free, 0);
    }
    out("persistent_c done %ld %ld %ld", 0, 0, 0);

    /* 5. Matched receives with large counts: Mrecv_c and Imrecv_c. */
    if (even) {
        for (int k = 0; k < 2; k++) { fill(200 + k, k); MPI_Send_c(sbuf, 200 + k, MPI_CHAR, peer, 50 + k, MPI_COMM_WORLD); NOTE(Send_c, 200 + k); }
    } else {
        MPI_Message msg;
        MPI_Count n;
        MPI_Mprobe(peer, 50, MPI_COMM_WORLD, &msg, &st); NOTE(Mprobe, 0);
        MPI_Get_count_c(&st, MPI_CHAR, &n);
        MPI_Mrecv_c(rbuf, n, MPI_CHAR, &msg, MPI_STATUS_IGNORE); NOTE(Mrecv_c, n);
        out("mrecv_c n=%ld ok=%ld null=%ld", (long)n, check(n, 0), msg == MPI_MESSAGE_NULL);
        int flag = 0;
        while (!flag) { MPI_Improbe(peer, 51, MPI_COMM_WORLD, &flag, &msg, &st); NOTE(Improbe, 0); }
        MPI_Get_count_c(&st, MPI_CHAR, &n);
        MPI_Imrecv_c(rbuf, n, MPI_CHAR, &msg, &rq[0]); NOTE(Imrecv_c, n);
        MPI_Wait(&rq[0], &st); NOTE(Wait, 0); DONE(mrecv, 1);
        out("imrecv_c n=%ld ok=%ld tag=%ld", (long)n, check(n, 1), st.MPI_TAG);
    }

    /* 6. Sendrecv_c and Sendrecv_replace_c: bytes both ways. */
    fill(1024, 9);
    MPI_Sendrecv_c(sbuf, 1024, MPI_CHAR, peer, 60, rbuf, 1024, MPI_CHAR, peer, 60, MPI_COMM_WORLD, &st); NOTE(Sendrecv_c, 2048);
    out("sendrecv_c ok=%ld %ld %ld", check(1024, 9), 0, 0);
    int vals[16];
    for (int i = 0; i < 16; i++) vals[i] = rank * 100 + i;
    MPI_Sendrecv_replace_c(vals, 16, MPI_INT, peer, 61, peer, 61, MPI_COMM_WORLD, MPI_STATUS_IGNORE); NOTE(Sendrecv_replace_c, 128);
    out("replace_c first=%ld last=%ld %ld", vals[0], vals[15], 0);

    /* 7. Isendrecv and Isendrecv_replace, int and large-count forms, each to its Wait. */
    fill(3000, 10);
    MPI_Isendrecv(sbuf, 3000, MPI_CHAR, peer, 70, rbuf, 3000, MPI_CHAR, peer, 70, MPI_COMM_WORLD, &rq[0]); NOTE(Isendrecv, 6000);
    MPI_Wait(&rq[0], &st); NOTE(Wait, 0); DONE(isendrecv, 1);
    out("isendrecv ok=%ld src=%ld tag=%ld", check(3000, 10), st.MPI_SOURCE == peer, st.MPI_TAG);
    for (int i = 0; i < 16; i++) vals[i] = rank * 1000 + i;
    MPI_Isendrecv_replace(vals, 16, MPI_INT, peer, 71, peer, 71, MPI_COMM_WORLD, &rq[0]); NOTE(Isendrecv_replace, 128);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE); NOTE(Wait, 0); DONE(isendrecv, 1);
    out("isendrecv_replace first=%ld %ld %ld", vals[0], 0, 0);
    fill(90000, 11);
    MPI_Isendrecv_c(sbuf, 90000, MPI_CHAR, peer, 72, rbuf, 90000, MPI_CHAR, peer, 72, MPI_COMM_WORLD, &rq[0]); NOTE(Isendrecv_c, 180000);
    MPI_Wait(&rq[0], &st); NOTE(Wait, 0); DONE(isendrecv, 1);
    out("isendrecv_c ok=%ld tag=%ld %ld", check(90000, 11), st.MPI_TAG, 0);
    for (int i = 0; i < 16; i++) vals[i] = rank * 10000 + i;
    MPI_Isendrecv_replace_c(vals, 16, MPI_INT, peer, 73, peer, 73, MPI_COMM_WORLD, &rq[0]); NOTE(Isendrecv_replace_c, 128);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE); NOTE(Wait, 0); DONE(isendrecv, 1);
    out("isendrecv_replace_c first=%ld %ld %ld", vals[0], 0, 0);

    /* 8. Errors pass through the _c forms: a negative count under ERRORS_RETURN. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Send_c(sbuf, -1, MPI_CHAR, peer, 0, MPI_COMM_WORLD); NOTE(Send_c, 0);
    int cls; MPI_Error_class(rc, &cls);
    out("negative count rc_ok=%ld class=%ld %ld", rc == MPI_SUCCESS, cls, 0);

    MPI_Buffer_detach(&battach, &bsz);
    free(battach);

    long long tot[2 * NF], loc[2 * NF];
    for (int f = 0; f < NF; f++) { loc[2 * f] = cnt[f]; loc[2 * f + 1] = byt[f]; }
    MPI_Reduce(loc, tot, 2 * NF, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    long long qtot[NQ];
    MPI_Reduce(qdone, qtot, NQ, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int f = 0; f < NF; f++)
            if (tot[2 * f]) printf("EXPECT %s %lld %lld\n", names[f], tot[2 * f], tot[2 * f + 1]);
        for (int q = 0; q < NQ; q++)
            if (qtot[q]) printf("EXPECTREQ %s %lld 0 0\n", qnames[q], qtot[q]);
    }
    MPI_Finalize();
    return 0;
}
