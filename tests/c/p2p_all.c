/* Uses every point-to-point function loggp intercepts, with counts it knows.
 * Ranks work in pairs (r, r^1); an even number of ranks is required.
 * Prints, in a deterministic order, what it observed (statuses, error classes, data
 * checks) — identical with and without the shim — and rank 0 prints the expected
 * per-function totals summed over all ranks: "EXPECT <function> <count> <bytes>". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { F_Send, F_Ssend, F_Bsend, F_Rsend, F_Isend, F_Issend, F_Ibsend, F_Irsend, F_Recv, F_Irecv,
       F_Probe, F_Iprobe, F_Mprobe, F_Improbe, F_Mrecv, F_Imrecv, F_Sendrecv, F_Sendrecv_replace,
       F_Send_init, F_Ssend_init, F_Bsend_init, F_Rsend_init, F_Recv_init, F_Start, F_Startall,
       F_Request_free, F_Cancel, F_Wait, F_Test, F_Waitall, F_Testall, F_Waitany, F_Testany,
       F_Waitsome, F_Testsome, NF };
static const char *names[NF] = {"MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Isend",
    "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", "MPI_Recv", "MPI_Irecv", "MPI_Probe", "MPI_Iprobe",
    "MPI_Mprobe", "MPI_Improbe", "MPI_Mrecv", "MPI_Imrecv", "MPI_Sendrecv", "MPI_Sendrecv_replace",
    "MPI_Send_init", "MPI_Ssend_init", "MPI_Bsend_init", "MPI_Rsend_init", "MPI_Recv_init",
    "MPI_Start", "MPI_Startall", "MPI_Request_free", "MPI_Cancel", "MPI_Wait", "MPI_Test",
    "MPI_Waitall", "MPI_Testall", "MPI_Waitany", "MPI_Testany", "MPI_Waitsome", "MPI_Testsome"};
static long long cnt[NF], byt[NF];
#define NOTE(f, b) (cnt[F_##f]++, byt[F_##f] += (long long)(b))
/* Requests followed to completion, per mode: completed, cancelled, freed while active. */
enum { Q_isend, Q_issend, Q_ibsend, Q_irsend, Q_irecv, Q_mrecv, NQ };
static const char *qnames[NQ] = {"isend", "issend", "ibsend", "irsend", "irecv", "mrecv"};
static long long qdone[NQ], qcancel[NQ], qfreed[NQ];
#define DONE(m, k) (qdone[Q_##m] += (k))

static int rank, size, peer;
static char *sbuf, *rbuf;
#define MAXB (1 << 18)

static void out(const char *fmt, long a, long b, long c) {
    /* One line per event, tagged with the rank, written whole by one write(2) so that
     * launchers cannot interleave ranks within a line; the harness sorts lines. */
    char line[256], body[200];
    snprintf(body, sizeof body, fmt, a, b, c);
    int n = snprintf(line, sizeof line, "r%d %s\n", rank, body);
    fflush(stdout);
    if (write(1, line, n) < 0) abort();
}

static void fill(int n, int seed) { for (int i = 0; i < n; i++) sbuf[i] = (char)(i * 7 + seed); }
static int check(int n, int seed) { for (int i = 0; i < n; i++) if (rbuf[i] != (char)(i * 7 + seed)) return 0; return 1; }

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
    const int sizes[] = {0, 1, 8, 100, 1000, 4000, 4096, 5000, 70000};
    const int ns = sizeof sizes / sizeof sizes[0];

    /* 1. Blocking standard, synchronous: ping-pong over several sizes. */
    for (int i = 0; i < ns; i++) {
        int n = sizes[i];
        if (even) {
            fill(n, i); MPI_Send(sbuf, n, MPI_CHAR, peer, 1, MPI_COMM_WORLD); NOTE(Send, n);
            MPI_Recv(rbuf, n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &st); NOTE(Recv, n);
            out("pingpong %ld ok=%ld src=%ld", n, check(n, i + 1), st.MPI_SOURCE == peer);
        } else {
            MPI_Recv(rbuf, n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); NOTE(Recv, n);
            out("pong %ld ok=%ld %ld", n, check(n, i), 0);
            fill(n, i + 1); MPI_Ssend(sbuf, n, MPI_CHAR, peer, 2, MPI_COMM_WORLD); NOTE(Ssend, n);
        }
    }

    /* 2. Buffered send. */
    int bsz = 4 * (MAXB + MPI_BSEND_OVERHEAD);
    char *battach = malloc(bsz);
    MPI_Buffer_attach(battach, bsz);
    if (even) { fill(300, 3); MPI_Bsend(sbuf, 300, MPI_CHAR, peer, 3, MPI_COMM_WORLD); NOTE(Bsend, 300); }
    else { MPI_Recv(rbuf, 300, MPI_CHAR, peer, 3, MPI_COMM_WORLD, &st); NOTE(Recv, 300); out("bsend ok=%ld tag=%ld %ld", check(300, 3), st.MPI_TAG, 0); }

    /* 3. Ready send: the receive is posted before the barrier. */
    MPI_Request rq[8];
    if (!even) { MPI_Irecv(rbuf, 64, MPI_CHAR, peer, 4, MPI_COMM_WORLD, &rq[0]); NOTE(Irecv, 64); }
    MPI_Barrier(MPI_COMM_WORLD);
    if (even) { fill(64, 4); MPI_Rsend(sbuf, 64, MPI_CHAR, peer, 4, MPI_COMM_WORLD); NOTE(Rsend, 64); }
    else { MPI_Wait(&rq[0], &st); NOTE(Wait, 0); DONE(irecv, 1); out("rsend ok=%ld src=%ld %ld", check(64, 4), st.MPI_SOURCE == peer, 0); }

    /* 4. Nonblocking: Isend/Irecv both ways, Waitall with statuses. */
    char *r2 = malloc(MAXB);
    fill(2048, 5);
    MPI_Irecv(r2, 2048, MPI_CHAR, peer, 5, MPI_COMM_WORLD, &rq[0]); NOTE(Irecv, 2048);
    MPI_Isend(sbuf, 2048, MPI_CHAR, peer, 5, MPI_COMM_WORLD, &rq[1]); NOTE(Isend, 2048);
    MPI_Status sts[8];
    MPI_Waitall(2, rq, sts); NOTE(Waitall, 0); DONE(irecv, 1); DONE(isend, 1);
    out("isend/irecv src=%ld tag=%ld %ld", sts[0].MPI_SOURCE == peer, sts[0].MPI_TAG, 0);

    /* Issend + Wait, Ibsend + Test loop, Irsend (receive posted first). */
    if (even) {
        MPI_Issend(sbuf, 500, MPI_CHAR, peer, 6, MPI_COMM_WORLD, &rq[0]); NOTE(Issend, 500);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE); NOTE(Wait, 0); DONE(issend, 1);
        MPI_Ibsend(sbuf, 700, MPI_CHAR, peer, 7, MPI_COMM_WORLD, &rq[0]); NOTE(Ibsend, 700);
        int flag = 0;
        while (!flag) { MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE); NOTE(Test, 0); }
        DONE(ibsend, 1);
    } else {
        MPI_Recv(rbuf, 500, MPI_CHAR, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE); NOTE(Recv, 500);
        MPI_Recv(rbuf, 700, MPI_CHAR, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); NOTE(Recv, 700);
        out("issend/ibsend ok=%ld %ld %ld", check(700, 5), 0, 0);
    }
    if (!even) { MPI_Irecv(rbuf, 32, MPI_CHAR, peer, 8, MPI_COMM_WORLD, &rq[0]); NOTE(Irecv, 32); }
    MPI_Barrier(MPI_COMM_WORLD);
    if (even) {
        MPI_Irsend(sbuf, 32, MPI_CHAR, peer, 8, MPI_COMM_WORLD, &rq[0]); NOTE(Irsend, 32);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE); NOTE(Wait, 0); DONE(irsend, 1);
    } else { MPI_Wait(&rq[0], MPI_STATUS_IGNORE); NOTE(Wait, 0); DONE(irecv, 1); }

    /* 5. Persistent requests: 3 x Start/Wait, 2 x Startall/Waitall, then free. */
    MPI_Request pr[2];
    if (even) {
        MPI_Send_init(sbuf, 128, MPI_CHAR, peer, 9, MPI_COMM_WORLD, &pr[0]); NOTE(Send_init, 0);
        MPI_Ssend_init(sbuf, 256, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &pr[1]); NOTE(Ssend_init, 0);
    } else {
        MPI_Recv_init(rbuf, 128, MPI_CHAR, peer, 9, MPI_COMM_WORLD, &pr[0]); NOTE(Recv_init, 0);
        MPI_Recv_init(r2, 256, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &pr[1]); NOTE(Recv_init, 0);
    }
    for (int k = 0; k < 3; k++) {
        MPI_Start(&pr[0]); NOTE(Start, 128);
        MPI_Wait(&pr[0], &st); NOTE(Wait, 0);
        if (even) DONE(isend, 1); else DONE(irecv, 1);
    }
    for (int k = 0; k < 2; k++) {
        MPI_Startall(2, pr); NOTE(Startall, 128 + 256);
        MPI_Waitall(2, pr, MPI_STATUSES_IGNORE); NOTE(Waitall, 0);
        if (even) { DONE(isend, 1); DONE(issend, 1); } else DONE(irecv, 2);
    }
    out("persistent done %ld %ld %ld", 0, 0, 0);
    MPI_Request_free(&pr[0]); NOTE(Request_free, 0);
    MPI_Request_free(&pr[1]); NOTE(Request_free, 0);
    if (even) { /* a free on a never-started persistent Bsend_init / Rsend_init */
        MPI_Bsend_init(sbuf, 16, MPI_CHAR, peer, 11, MPI_COMM_WORLD, &pr[0]); NOTE(Bsend_init, 0);
        MPI_Rsend_init(sbuf, 16, MPI_CHAR, peer, 11, MPI_COMM_WORLD, &pr[1]); NOTE(Rsend_init, 0);
        MPI_Request_free(&pr[0]); NOTE(Request_free, 0);
        MPI_Request_free(&pr[1]); NOTE(Request_free, 0);
    }

    /* 6. Partial completions: 4 receives; the sender releases them one at a time. */
    if (!even) {
        for (int k = 0; k < 4; k++) { MPI_Irecv(rbuf + 100 * k, 100, MPI_CHAR, peer, 20 + k, MPI_COMM_WORLD, &rq[k]); NOTE(Irecv, 100); }
        int idx, outc, inds[4];
        MPI_Send(NULL, 0, MPI_CHAR, peer, 30, MPI_COMM_WORLD); NOTE(Send, 0);
        MPI_Waitany(4, rq, &idx, &st); NOTE(Waitany, 0);
        out("waitany idx=%ld tag=%ld %ld", idx, st.MPI_TAG, 0);
        MPI_Send(NULL, 0, MPI_CHAR, peer, 31, MPI_COMM_WORLD); NOTE(Send, 0);
        MPI_Waitsome(4, rq, &outc, inds, sts); NOTE(Waitsome, 0);
        out("waitsome out=%ld first=%ld %ld", outc, inds[0], 0);
        MPI_Send(NULL, 0, MPI_CHAR, peer, 32, MPI_COMM_WORLD); NOTE(Send, 0);
        DONE(irecv, 4); /* all four complete in what follows */
        int got = outc + 1;
        while (got < 4) {
            MPI_Testsome(4, rq, &outc, inds, MPI_STATUSES_IGNORE); NOTE(Testsome, 0);
            if (outc != MPI_UNDEFINED) got += outc;
        }
        int flag = 0; /* all done now: Testany reports flag with MPI_UNDEFINED */
        MPI_Testany(4, rq, &idx, &flag, MPI_STATUS_IGNORE); NOTE(Testany, 0);
        out("testany flag=%ld idx_undef=%ld %ld", flag, idx == MPI_UNDEFINED, 0);
        MPI_Testall(4, rq, &flag, MPI_STATUSES_IGNORE); NOTE(Testall, 0);
        out("testall flag=%ld %ld %ld", flag, 0, 0);
    } else {
        for (int k = 0; k < 4; k++) {
            if (k < 3) { MPI_Recv(NULL, 0, MPI_CHAR, peer, 30 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE); NOTE(Recv, 0); }
            MPI_Send(sbuf, 100, MPI_CHAR, peer, 20 + k, MPI_COMM_WORLD); NOTE(Send, 100);
        }
    }

    /* 7. Cancel a receive that is never matched; Request_free an active send. */
    MPI_Irecv(rbuf, 10, MPI_CHAR, peer, 99, MPI_COMM_WORLD, &rq[0]); NOTE(Irecv, 10);
    MPI_Cancel(&rq[0]); NOTE(Cancel, 0);
    MPI_Wait(&rq[0], &st); NOTE(Wait, 0);
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    if (cancelled) qcancel[Q_irecv]++; else DONE(irecv, 1);
    out("cancelled=%ld %ld %ld", cancelled, 0, 0);
    if (even) {
        MPI_Isend(sbuf, 40, MPI_CHAR, peer, 40, MPI_COMM_WORLD, &rq[0]); NOTE(Isend, 40);
        MPI_Request_free(&rq[0]); NOTE(Request_free, 0); qfreed[Q_isend]++;
    } else { MPI_Recv(rbuf, 40, MPI_CHAR, peer, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE); NOTE(Recv, 40); }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 8. Probes and matched receives, wildcards. */
    if (even) {
        for (int k = 0; k < 4; k++) { fill(200 + k, k); MPI_Send(sbuf, 200 + k, MPI_CHAR, peer, 50 + k, MPI_COMM_WORLD); NOTE(Send, 200 + k); }
    } else {
        int n, flag = 0;
        MPI_Probe(MPI_ANY_SOURCE, 50, MPI_COMM_WORLD, &st); NOTE(Probe, 0);
        MPI_Get_count(&st, MPI_CHAR, &n);
        MPI_Recv(rbuf, n, MPI_CHAR, st.MPI_SOURCE, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE); NOTE(Recv, n);
        out("probe n=%ld ok=%ld %ld", n, check(n, 0), 0);
        while (!flag) { MPI_Iprobe(peer, 51, MPI_COMM_WORLD, &flag, &st); NOTE(Iprobe, 0); }
        MPI_Recv(rbuf, 201, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE); NOTE(Recv, 201);
        MPI_Message msg;
        MPI_Mprobe(peer, 52, MPI_COMM_WORLD, &msg, &st); NOTE(Mprobe, 0);
        MPI_Get_count(&st, MPI_CHAR, &n);
        MPI_Mrecv(rbuf, n, MPI_CHAR, &msg, MPI_STATUS_IGNORE); NOTE(Mrecv, n);
        out("mrecv n=%ld ok=%ld null=%ld", n, check(n, 2), msg == MPI_MESSAGE_NULL);
        flag = 0;
        while (!flag) { MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st); NOTE(Improbe, 0); }
        MPI_Get_count(&st, MPI_CHAR, &n);
        MPI_Imrecv(rbuf, n, MPI_CHAR, &msg, &rq[0]); NOTE(Imrecv, n);
        MPI_Wait(&rq[0], &st); NOTE(Wait, 0); DONE(mrecv, 1);
        out("imrecv n=%ld ok=%ld tag=%ld", n, check(n, 3), st.MPI_TAG);
    }

    /* 9. Sendrecv and Sendrecv_replace. */
    fill(1024, 9);
    MPI_Sendrecv(sbuf, 1024, MPI_CHAR, peer, 60, rbuf, 1024, MPI_CHAR, peer, 60, MPI_COMM_WORLD, &st); NOTE(Sendrecv, 2048);
    out("sendrecv ok=%ld %ld %ld", check(1024, 9), 0, 0);
    int vals[16];
    for (int i = 0; i < 16; i++) vals[i] = rank * 100 + i;
    MPI_Sendrecv_replace(vals, 16, MPI_INT, peer, 61, peer, 61, MPI_COMM_WORLD, MPI_STATUS_IGNORE); NOTE(Sendrecv_replace, 128);
    out("replace first=%ld last=%ld %ld", vals[0], vals[15], 0);

    /* 10. MPI_PROC_NULL: calls count, no bytes move. */
    MPI_Send(sbuf, 77, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD); NOTE(Send, 0);
    MPI_Recv(rbuf, 77, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st); NOTE(Recv, 0);
    out("procnull src=%ld %ld %ld", st.MPI_SOURCE == MPI_PROC_NULL, 0, 0);
    MPI_Isend(sbuf, 77, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rq[0]); NOTE(Isend, 0);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE); NOTE(Wait, 0); DONE(isend, 1);

    /* 11. A derived datatype: 4 blocks of 3 ints, stride 5 -> 48 bytes of data each. */
    MPI_Datatype vec;
    MPI_Type_vector(4, 3, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int vbuf[2 * 20];
    for (int i = 0; i < 40; i++) vbuf[i] = even ? i : -1;
    if (even) { MPI_Send(vbuf, 2, vec, peer, 70, MPI_COMM_WORLD); NOTE(Send, 96); }
    else {
        MPI_Recv(vbuf, 2, vec, peer, 70, MPI_COMM_WORLD, &st); NOTE(Recv, 96);
        int n; MPI_Get_count(&st, MPI_INT, &n);
        out("vector ints=%ld v[5]=%ld v[3]=%ld", n, vbuf[5], vbuf[3]);
    }
    MPI_Type_free(&vec);

    /* 12. A duplicated communicator: peers translate to world ranks. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int drank; MPI_Comm_rank(dup, &drank);
    if (even) { MPI_Send(sbuf, 10, MPI_CHAR, drank ^ 1, 80, dup); NOTE(Send, 10); }
    else { MPI_Recv(rbuf, 10, MPI_CHAR, drank ^ 1, 80, dup, MPI_STATUS_IGNORE); NOTE(Recv, 10); }
    MPI_Comm_free(&dup);

    /* 13a. To itself: peer class "self". */
    fill(16, 13);
    MPI_Sendrecv(sbuf, 16, MPI_CHAR, rank, 90, rbuf, 16, MPI_CHAR, rank, 90, MPI_COMM_WORLD, &st); NOTE(Sendrecv, 32);
    out("self ok=%ld src=%ld %ld", check(16, 13), st.MPI_SOURCE == rank, 0);

    /* 13. Errors pass through: an invalid rank and a negative count, under ERRORS_RETURN. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Send(sbuf, 4, MPI_CHAR, size + 5, 0, MPI_COMM_WORLD); NOTE(Send, 4);
    int cls; MPI_Error_class(rc, &cls);
    out("invalid rank rc_ok=%ld class=%ld %ld", rc == MPI_SUCCESS, cls, 0);
    rc = MPI_Send(sbuf, -1, MPI_CHAR, peer, 0, MPI_COMM_WORLD); NOTE(Send, 0);
    MPI_Error_class(rc, &cls);
    out("negative count rc_ok=%ld class=%ld %ld", rc == MPI_SUCCESS, cls, 0);
    rc = MPI_Wait(NULL, MPI_STATUS_IGNORE); NOTE(Wait, 0);
    MPI_Error_class(rc, &cls);
    out("wait null rc_ok=%ld class=%ld %ld", rc == MPI_SUCCESS, cls, 0);

    MPI_Buffer_detach(&battach, &bsz);
    free(battach);

    long long tot[2 * NF], loc[2 * NF];
    for (int f = 0; f < NF; f++) { loc[2 * f] = cnt[f]; loc[2 * f + 1] = byt[f]; }
    MPI_Reduce(loc, tot, 2 * NF, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    long long qloc[3 * NQ], qtot[3 * NQ];
    for (int q = 0; q < NQ; q++) { qloc[3 * q] = qdone[q]; qloc[3 * q + 1] = qcancel[q]; qloc[3 * q + 2] = qfreed[q]; }
    MPI_Reduce(qloc, qtot, 3 * NQ, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int f = 0; f < NF; f++)
            if (tot[2 * f]) printf("EXPECT %s %lld %lld\n", names[f], tot[2 * f], tot[2 * f + 1]);
        for (int q = 0; q < NQ; q++)
            printf("EXPECTREQ %s %lld %lld %lld\n", qnames[q], qtot[3 * q], qtot[3 * q + 1], qtot[3 * q + 2]);
    }
    MPI_Finalize();
    return 0;
}
