/* Issue 25's split under MPI_THREAD_MULTIPLE (tests/waits.rs): on each of ranks 0 and 1,
 * two threads; thread t of rank 1 sleeps (t + 1) ms before each of 100 MPI_Send of 64 B
 * to thread t of rank 0 (tag t), which receives them with MPI_Recv. Truth, on
 * CLOCK_MONOTONIC (shared by the ranks of one host): the part of each of rank 0's
 * receives before its send started (TRUTH late_sender_ns), and the rest (TRUTH
 * after_send_ns), summed over both threads. Under Open MPI the two receiving threads
 * contend for its progress, and some runs complete their receives long after the sends
 * start. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 100
static int rank;
static double sent[2][N], entered[2][N], left[2][N];

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static void *work(void *arg) {
  int t = (int)(long)arg;
  char b[64] = {0};
  for (int i = 0; i < N; i++) {
    if (rank == 1) {
      struct timespec ts = {0, 1000000L * (t + 1)};
      nanosleep(&ts, NULL);
      sent[t][i] = now_ns();
      MPI_Send(b, 64, MPI_BYTE, 0, t, MPI_COMM_WORLD);
    } else if (rank == 0) {
      entered[t][i] = now_ns();
      MPI_Recv(b, 64, MPI_BYTE, 1, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      left[t][i] = now_ns();
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided != MPI_THREAD_MULTIPLE) {
    printf("no MPI_THREAD_MULTIPLE\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pthread_t th[2];
  for (long t = 0; t < 2; t++) pthread_create(&th[t], NULL, work, (void *)t);
  for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
  if (rank == 1) MPI_Send(sent, 2 * N, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Recv(sent, 2 * N, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double late = 0, rest = 0;
    for (int t = 0; t < 2; t++)
      for (int i = 0; i < N; i++) {
        double d = left[t][i] - entered[t][i], a = sent[t][i] - entered[t][i];
        a = a < 0 ? 0 : (a > d ? d : a);
        late += a;
        rest += d - a;
      }
    printf("TRUTH late_sender_ns %.0f\nTRUTH after_send_ns %.0f\n", late, rest);
  }
  MPI_Finalize();
  return 0;
}
