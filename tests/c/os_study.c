/* The o_s study (issue 11): MPI_Send's own duration, timed by the program around each
 * call, under the conditions of each method — isolated sends (a reply between any two),
 * bursts of n back to back, and bursts with a busy delay d between sends as in
 * PRTT(n,d,s) (Hoefler et al. 2007 §3, d = PRTT(1,0,s)) — and the o_s that the PRTT
 * formula derives from the same bursts' round trips:
 *     o_s = (PRTT(n,d,s) - PRTT(1,0,s)) / (n-1) - d.
 * The sizes are on the calibration's schedule (2^(k/4)). Rank 0 sends, rank 1 receives
 * (its receive is always posted first: it waits in MPI_Recv). One line per size and
 * condition:
 *     os_study size=S cond=C [p10_ns=… p50_ns=…] [prtt_os_ns=… | prtt_gall_ns=…]
 * where untimed_* repeat the bursts without call timers, and *_edges takes out the time
 * between sends as read at its edges instead of d.
 * Timer: the TSC, its rate taken against CLOCK_MONOTONIC over 50 ms. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#define N 16
#define REPS 200
#define ISOLATED 1000

static double ns_per_tick;

static double mono_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static void calibrate_tsc(void) {
  double a = mono_ns();
  uint64_t t0 = __rdtsc();
  while (mono_ns() - a < 5e7) {
  }
  ns_per_tick = (mono_ns() - a) / (double)(__rdtsc() - t0);
}

static void busy(uint64_t ticks) {
  uint64_t t0 = __rdtsc();
  while (__rdtsc() - t0 < ticks) {
  }
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double q(double *v, int n, double p) {
  qsort(v, n, sizeof *v, cmp);
  return v[(int)((n - 1) * p + 0.5)];
}

int main(int argc, char **argv) {
  int rank, sizes[] = {1, 8, 64, 1024, 2896};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  calibrate_tsc();
  char *buf = calloc(1, 1 << 16);
  static double call[REPS * N > ISOLATED ? REPS * N : ISOLATED], rtt[REPS];
  for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    int s = sizes[k];
    /* Isolated: one send, then the reply. Also gives PRTT(1,0,s). */
    for (int i = 0; i < ISOLATED; i++) {
      if (rank == 0) {
        uint64_t t0 = __rdtsc();
        MPI_Send(buf, s, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        uint64_t t1 = __rdtsc();
        MPI_Recv(buf, s, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        call[i] = (t1 - t0) * ns_per_tick;
        if (i < REPS) rtt[i] = (__rdtsc() - t0) * ns_per_tick;
      } else {
        MPI_Recv(buf, s, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, s, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
    double prtt1 = 0, d_ns = 0;
    if (rank == 0) {
      prtt1 = q(rtt, REPS, 0.5);
      d_ns = prtt1;
      printf("os_study size=%d cond=isolated p10_ns=%.1f p50_ns=%.1f prtt_1_0_ns=%.1f\n", s,
             q(call, ISOLATED, 0.1), q(call, ISOLATED, 0.5), prtt1);
    }
    MPI_Bcast(&d_ns, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    /* Bursts of N, back to back (d = 0) and with the delay d between sends. */
    /* Passes 0, 1 time each call; 2 and 3 repeat them untimed (the call timers' own
     * cost would otherwise enter the round trips the formula uses). */
    double rtt1_untimed = prtt1;
    for (int pass = 0; pass < 5; pass++) {
      int withd = pass == 4 ? 1 : pass & 1, timed = pass < 2, edges = pass == 4;
      double between = 0;
      uint64_t d = withd ? (uint64_t)(d_ns / ns_per_tick) : 0;
      if (pass == 2) {
        for (int r = 0; r < REPS; r++) {
          if (rank == 0) {
            uint64_t t0 = __rdtsc();
            MPI_Send(buf, s, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, s, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            rtt[r] = (__rdtsc() - t0) * ns_per_tick;
          } else {
            MPI_Recv(buf, s, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, s, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
          }
        }
        if (rank == 0) rtt1_untimed = q(rtt, REPS, 0.5);
      }
      for (int r = 0; r < REPS; r++) {
        if (rank == 0) {
          uint64_t start = __rdtsc(), over = 0, t_a = 0;
          for (int j = 0; j < N; j++) {
            if (j > 0 && d && edges) {
              /* The time between the sends, read at its edges: the delay loop's own
               * timer reads are inside it. */
              busy(d);
              uint64_t t_b = __rdtsc();
              between += (t_b - t_a) * ns_per_tick;
            } else if (j > 0 && d) {
              uint64_t b0 = __rdtsc();
              busy(d);
              over += __rdtsc() - b0 - d;
            }
            if (timed) {
              uint64_t t0 = __rdtsc();
              MPI_Send(buf, s, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
              call[r * N + j] = (__rdtsc() - t0) * ns_per_tick;
            } else {
              MPI_Send(buf, s, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            }
            t_a = __rdtsc();
          }
          MPI_Recv(buf, s, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          rtt[r] = (__rdtsc() - start - over) * ns_per_tick;
        } else {
          for (int j = 0; j < N; j++)
            MPI_Recv(buf, s, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buf, s, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
      }
      if (rank == 0) {
        double t = q(rtt, REPS, 0.5), base = timed ? prtt1 : rtt1_untimed;
        double spent = edges ? between / (REPS * (N - 1)) : d_ns;
        double derived = withd ? (t - base) / (N - 1) - spent : (t - base) / (N - 1);
        if (timed)
          printf("os_study size=%d cond=%s p10_ns=%.1f p50_ns=%.1f %s=%.1f\n", s,
                 withd ? "burst_d" : "burst", q(call, REPS * N, 0.1), q(call, REPS * N, 0.5),
                 withd ? "prtt_os_ns" : "prtt_gall_ns", derived);
        else
          printf("os_study size=%d cond=%s %s=%.1f\n", s,
                 edges ? "untimed_burst_d_edges" : withd ? "untimed_burst_d" : "untimed_burst",
                 withd ? "prtt_os_ns" : "prtt_gall_ns", derived);
      }
    }
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
