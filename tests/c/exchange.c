/* A blocking exchange with computation: each even rank sends a message, its odd partner computes for about
 * 20 µs — polling MPI now and then, as compute loops with MPI_Test/MPI_Iprobe do — before
 * receiving it, then answers with an empty message. Sizes 8 B to 64 KiB, 8
 * per power of two, 100 times each. An eager send returns at once; a rendezvous send waits
 * for the computing receiver — which is what the passive bracket sees.
 * First, WARMUP iterations of the same with empty messages (about 130 ms here), in no
 * size bin the tests compare: in CI at bb86913 the receives of the first sizes, 8-215 B,
 * waited for their message, their 10th percentile falling from 1120 ns at 8 B to 114 ns
 * at 215 B over the loop's first 80 ms, against 66-148 ns from the start in nine runs
 * here; the sender was late by more than the receiver's 20 us in most of those
 * iterations, a start-up transient of the machine, not of the calls measured.
 * The sweep runs twice, each pass with every other repetition, so that each size's calls
 * come from two moments about a sweep apart: in CI at af97100 the receives' 10th
 * percentile was 656-880 ns in the bins of 22-38 B and 180-215 B and 62-86 ns in those
 * of 8-19 B, the machine changing level for some milliseconds at a time (the active
 * calibration's 55-97 ns; here 58-172 ns in three runs). A level that holds for less
 * than a sweep then moves at most half of a bin's calls. */
#include <mpi.h>
#include <stdlib.h>
static void compute(double us, int peer) {
    double t0 = MPI_Wtime();
    int flag;
    while ((MPI_Wtime() - t0) * 1e6 < us)
        MPI_Iprobe(peer, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1; /* pairs (0,1), (2,3), … */
    /* [min bytes] [max bytes] [repetitions] [compute µs] */
    double lo = argc > 1 ? atof(argv[1]) : 8, hi = argc > 2 ? atof(argv[2]) : 65536;
    int reps = argc > 3 ? atoi(argv[3]) : 100;
    double us = argc > 4 ? atof(argv[4]) : 20;
    char *buf = calloc(1, (size_t)hi + 1);
    enum { WARMUP = 6000 };
    for (int it = 0; it < WARMUP; it++) {
        if (rank % 2 == 0 && peer < size) {
            MPI_Send(buf, 0, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, 0, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank % 2 == 1) {
            compute(us, peer);
            MPI_Recv(buf, 0, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 0, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        for (double s = lo; s <= hi; s *= 1.0905) {
            int n = (int)s;
            for (int it = pass; it < reps; it += 2) {
                if (rank % 2 == 0 && peer < size) {
                    MPI_Send(buf, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
                    MPI_Recv(buf, 0, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else if (rank % 2 == 1) {
                    compute(us, peer);
                    MPI_Recv(buf, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, 0, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                }
            }
        }
    }
    MPI_Finalize();
    return 0;
}
