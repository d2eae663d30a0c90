/* A job that does not end by itself, for the interim and kill tests.
 * Usage: forever busy|hang [seconds]
 *   busy: ranks 0 and 1 ping-pong messages of 1..64 KiB and allocate and free memory
 *         of random sizes between messages (so signals land inside malloc too), until
 *         killed or, with a time given, until it has passed (then MPI_Finalize);
 *         prints "ITERATIONS n" at the end;
 *   hang: 10 messages, then rank 0 waits in MPI_Recv from rank 1 (tag 1) and rank 1 in
 *         MPI_Recv from rank 0 (tag 2): a deadlock, as a hung production job has;
 *   snapshot N: N ping-pong iterations as busy does (no allocation), then each rank
 *         raises SIGUSR1, waits for its interim rank file (LOGGP_REPORT's
 *         <stem>.rank<R>.json), copies it into snap/, and ends with MPI_Finalize without
 *         another MPI call: the interim files and the final report hold the same counts.
 * Each rank first writes its process id to the file pid.<rank> in the working directory. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <time.h>
#include <signal.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *how = argc > 1 ? argv[1] : "busy";
    double limit = argc > 2 ? atof(argv[2]) : 0, t0 = now();
    static char buf[65536];
    int peer = rank ^ 1;
    char name[32];
    snprintf(name, sizeof name, "pid.%d", rank);
    FILE *f = fopen(name, "w");
    if (f) { fprintf(f, "%d\n", (int)getpid()); fclose(f); }
    long iterations = 0;
    if (!strcmp(how, "hang")) {
        for (int i = 0; i < 10 && peer < size; i++) {
            if (rank % 2 == 0) MPI_Send(buf, 100, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
            else MPI_Recv(buf, 100, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (peer < size)
            MPI_Recv(buf, 1000, MPI_CHAR, peer, rank % 2 ? 2 : 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (!strcmp(how, "snapshot")) {
        long n_iter = argc > 2 ? atol(argv[2]) : 100;
        for (long i = 0; i < n_iter && peer < size; i++) {
            int n = 1 << (i % 17);
            if (rank % 2 == 0) {
                MPI_Send(buf, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
            }
        }
        const char *report = getenv("LOGGP_REPORT");
        char path[4096], copy[4096];
        snprintf(path, sizeof path, "%.*s.rank%d.json",
                 (int)(strlen(report) - 5), report, rank);
        snprintf(copy, sizeof copy, "snap/r.rank%d.json", rank);
        raise(SIGUSR1);
        /* The file appears whole (written unnamed, then renamed). */
        FILE *in = NULL;
        for (int t = 0; t < 4000 && !(in = fopen(path, "rb")); t++) usleep(10000);
        if (!in) { fprintf(stderr, "rank %d: no interim file %s\n", rank, path); return 2; }
        FILE *out = fopen(copy, "wb");
        size_t k;
        while (out && (k = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, k, out);
        fclose(in);
        if (out) fclose(out);
    } else {
        srand(rank + 1);
        /* The even rank decides when to stop and says so in the message's first byte. */
        for (long i = 0; peer < size; i++) {
            int n = 1 << (i % 17), stop = 0;
            if (rank % 2 == 0) {
                buf[0] = stop = limit > 0 && now() - t0 >= limit;
                MPI_Send(buf, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                stop = buf[0];
                MPI_Send(buf, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
            }
            for (int k = 0; k < 8; k++) {
                size_t m = 16 + rand() % 200000;
                char *p = malloc(m);
                if (p) { p[0] = p[m - 1] = 1; free(p); }
            }
            iterations++;
            if (stop) break;
        }
        if (rank == 0) { printf("ITERATIONS %ld\n", iterations); fflush(stdout); }
    }
    MPI_Finalize();
    return 0;
}
