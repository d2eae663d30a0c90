/* A ping-pong of one message size between ranks 0 and 1 (issue 14's check of the advice):
 *     pingpong <bytes> <round trips> [<reference bytes>]
 * With a reference size, blocks of BLOCK round trips alternate with as many of the
 * reference size: a control that the advice leaves alone (eager in both runs of a pair),
 * timed in the same seconds as the priced messages, so the two runs' levels are compared
 * where the job ran, not at MPI_Init (on this VM the cost of the same exchange moves over
 * seconds). In blocks, not one after each: a 1000-byte round trip right after a 6000-byte
 * rendezvous one took 8-15 % longer than after an eager one, which biased the control by
 * the very change it controls for; in blocks of 500 it took 1.86-2.17 us in both.
 * With a fourth argument `raw`, each reference block is followed by as many round trips
 * of one word through shared memory between ranks 0 and 1 (POSIX shm, no MPI), and rank
 * 0 prints the median over the blocks of their mean: TRUTH raw_round_trip_ns (a median:
 * one preemption of a few ms moved the mean of a job's 12 ms of raw round trips 2 x). A control no MPI setting can touch: under
 * MPICH over UCX, UCX_RNDV_THRESH=65537 took the 1000-byte reference's MPI_Send from 396
 * to 223 ns (2026-11-28), though those messages are eager either way.
 * Other ranks wait at the final barrier. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* `n` round trips of one word through `line` (rank 0 writes, rank 1 echoes); rank 0's
 * time is added to *ns. `seq` numbers the words across calls. */
static void raw_round_trips(int rank, volatile long *line, long *seq, int n, double *ns) {
  for (int j = 0; j < n; j++) {
    long k = ++*seq;
    if (rank == 0) {
      double t = now_ns();
      line[0] = k;
      while (line[8] != k) {
      }
      *ns += now_ns() - t;
    } else {
      while (line[0] != k) {
      }
      line[8] = k;
    }
  }
}

static void round_trip(int rank, char *buf, int size) {
  if (rank == 0) {
    MPI_Send(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
  }
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int size = argc > 1 ? atoi(argv[1]) : 6000;
  int trips = argc > 2 ? atoi(argv[2]) : 10000;
  int reference = argc > 3 ? atoi(argv[3]) : 0;
  int raw = argc > 4 && !strcmp(argv[4], "raw");
  int most = size > reference ? size : reference;
  char *buf = calloc(1, most > 0 ? most : 1);
  /* The shared line: rank 0 names it after its pid and creates it, rank 1 opens it. */
  volatile long *line = NULL;
  char shm_name[64];
  if (raw) {
    int pid = getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(shm_name, sizeof shm_name, "/loggp_pingpong_%d", pid);
    void *p = MAP_FAILED;
    if (rank == 0) {
      int fd = shm_open(shm_name, O_CREAT | O_RDWR, 0600);
      if (fd < 0 || ftruncate(fd, 4096) != 0) MPI_Abort(MPI_COMM_WORLD, 4);
      p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
      int fd = shm_open(shm_name, O_RDWR, 0600);
      if (fd < 0) MPI_Abort(MPI_COMM_WORLD, 4);
      p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      close(fd);
    }
    if (rank < 2 && p == MAP_FAILED) MPI_Abort(MPI_COMM_WORLD, 4);
    if (rank < 2) line = p;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  long seq = 0;
  int n_blocks = 0;
  double *block_ns = calloc((size_t)trips / 500 + 2, sizeof(double));
  enum { BLOCK = 500 };
  for (int i = 0; i < trips && rank < 2; i++) {
    round_trip(rank, buf, size);
    if (reference > 0 && ((i + 1) % BLOCK == 0 || i + 1 == trips)) {
      for (int j = 0; j < (i % BLOCK) + 1; j++)
        round_trip(rank, buf, reference);
      if (line) {
        double ns = 0;
        raw_round_trips(rank, line, &seq, (i % BLOCK) + 1, &ns);
        block_ns[n_blocks++] = ns / ((i % BLOCK) + 1);
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (line) {
    if (rank == 0 && n_blocks > 0) {
      qsort(block_ns, n_blocks, sizeof(double), cmp);
      printf("TRUTH raw_round_trip_ns %.1f\n", block_ns[n_blocks / 2]);
    }
    munmap((void *)line, 4096);
    if (rank == 0) shm_unlink(shm_name);
  }
  free(block_ns);
  free(buf);
  MPI_Finalize();
  return 0;
}
