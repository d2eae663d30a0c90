/* Collectives at known sizes (issue 26): MPI_Allreduce (MPI_SUM of doubles, or a user
 * operation: COLL_MODEL_OP, see user_sum), MPI_Bcast,
 * MPI_Allgather and MPI_Alltoall of 8 B, 4 KiB and 256 KiB (per block for the last
 * two), and MPI_Reduce to rank 0 where named, each call after an MPI_Barrier so that the members enter together, as the
 * model assumes (and as OSU's collective benchmarks time them): back to back, a Bcast's
 * root runs ahead of its eager sends and the calls overlap. argv[1]: which collectives ("all" or a
 * comma list of allreduce,bcast,allgather,alltoall,reduce); argv[2]: the sizes in bytes, comma
 * separated (default 8,4096,262144); argv[3]: calls per size below 64 KiB (default 300;
 * 60 from 64 KiB up); argv[4]: "ref" to time a reference that the shim does not model:
 * an MPI_Sendrecv of the same size with rank ^ 1, each after a barrier, by MPI_Wtime;
 * right after MPI_Init (where the calibration just ran) and right after each
 * collective's loop (as many as the loop's calls: `loop_reference`), printed by rank 0
 * as "ref <where> <bytes> <median ns>"; and
 * right after MPI_Init as the calibration times its exchange probe ("init_train"), and
 * its refill exchange from 64 KiB ("init_refill_train": each sends what it just received,
 * into the buffer it sent from). Their
 * ratio is the machine's level in that loop against the calibration's, measured
 * independently of the model (this VM's cost of a call moves by up to 3x over
 * seconds). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int want(const char *list, const char *name) {
  return !strcmp(list, "all") || strstr(list, name) != NULL;
}

/* Whether `name` is one of the comma list's words: MPI_Reduce runs only where named
 * ("reduce": not under "all", whose rows the tests count; strstr would find it in
 * "allreduce"). */
static int named(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == 0)) return 1;
  return 0;
}

static int rank, size, timed;
static double ref_s[600];
static long ref_calls;

/* One reference exchange of m bytes with rank ^ 1 (none for an odd last rank), timed
 * between barriers, added to ref_s. */
static void reference(char *a, char *b, long m) {
  if (!timed) return;
  int peer = rank ^ 1;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (peer < size)
    MPI_Sendrecv(a, (int)m, MPI_BYTE, peer, 7, b, (int)m, MPI_BYTE, peer, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  if (ref_calls < 600) ref_s[ref_calls++] = MPI_Wtime() - t0;
}

/* The calibration's way of timing an exchange (src/calib/engine/probes.rs,
 * exchange_train): after a barrier, k + 1 exchanges back to back, timed from the end of
 * the first to the end of the last, per exchange. `refill`: each exchange sends what the
 * one before received, into the buffer it sent from, as the calibration's refill exchange
 * does (src/calib/transports/mpi.rs, exchange_refill: two buffers that swap). */
static double train(char *a, char *b, long m, int k, int refill) {
  int peer = rank ^ 1;
  if (peer >= size) return 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Sendrecv(a, (int)m, MPI_BYTE, peer, 8, b, (int)m, MPI_BYTE, peer, 8, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  double t0 = MPI_Wtime();
  for (int i = 0; i < k; i++) {
    if (refill) {
      char *t = a;
      a = b;
      b = t;
    }
    MPI_Sendrecv(a, (int)m, MPI_BYTE, peer, 8, b, (int)m, MPI_BYTE, peer, 8, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  }
  return (MPI_Wtime() - t0) / k;
}

/* The loop's level: `reps` reference exchanges right after a collective's loop, not
 * between its calls. Between them, the exchange's own 2 x m bytes displaced the
 * collective's lines: a 2-rank MPI_Allgather of 256 KiB under Open MPI vader (two_proc)
 * took 34-39 us with one after each call, 28-32 us without (three pairs of jobs, a
 * program timing only that, 2026-11-27), and its Alltoall 32-44 against 29-30 us. The
 * machine's level moves over seconds; a loop lasts milliseconds. */
static void loop_reference(char *a, char *b, long m, int reps) {
  for (int k = 0; k < reps; k++) reference(a, b, m);
}

/* After each loop's barrier, under MPICH, a 0-byte MPI_Sendrecv with rank ^ 1, so that
 * the members enter the collective together, as the model prices them. MPICH's ch4
 * barrier ends in the node leader's 1-byte Bcast: rank 0 left it first, and entered a
 * Bcast rooted at it 242-306 ns before rank 1 (2 ranks, 8 B, three jobs), so the cost
 * measured from the last entry left out most of the root's message (315-451 ns against
 * a price of 510-620). After a symmetric exchange the root entered 115-206 ns after
 * rank 1 (five jobs), so the cost from the last entry holds the root's whole message:
 * 694-920 ns (a receive inside MPICH's Bcast costs more than the calibration's o_r).
 * Open MPI's 2-rank barrier is already such an exchange, and so is MPICH's where no two
 * ranks share a host (MPICH then makes no node communicator, and its barrier is the
 * dissemination alone). There the exchange is left out (`flat`: the rank and its partner
 * are each alone on their host; on 2 ranks, that no two share one): over TCP between two
 * namespace hosts (UCX_TLS=tcp,self, 2 ranks, no shim, 2026-11-29) an 8-byte message
 * right after it took 5.8-6.0 us from the last entry to the receiver's exit, against
 * 4.0-4.2 us after the barrier alone and a ping-pong's 3.5 us one way. */
static int flat;
static void enter_together(void) {
#ifdef MPICH_VERSION
  int peer = rank ^ 1;
  if (peer < size && !flat)
    MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 9, NULL, 0, MPI_BYTE, peer, 9, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
#endif
}

static int by_value(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* The median of the exchanges timed since the last call (a preempted one moves a mean
 * of 60, not the median; the report's measured cost is a median too). */
static void print_reference(const char *where, long m) {
  if (timed && rank == 0 && ref_calls) {
    qsort(ref_s, (size_t)ref_calls, sizeof ref_s[0], by_value);
    printf("ref %s %ld %.1f\n", where, m, 1e9 * ref_s[ref_calls / 2]);
  }
  ref_calls = 0;
}

/* A user-defined sum of doubles: the reductions' operation where COLL_MODEL_OP is "user"
 * (declared commutative) or "user_nc" (declared non-commutative); else MPI_SUM (or
 * user_slow_sum). The
 * MPIs choose their algorithms by it. */
/* The user operations' calls on this rank and their elements, counted by the functions
 * themselves (printed at the end: "user_op_calls <rank> <calls> <elements>"). */
static long user_calls, user_elements;

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  user_calls++;
  user_elements += *len;
  const double *x = in;
  double *y = inout;
  for (int i = 0; i < *len; i++) y[i] += x[i];
}

/* A user-defined sum that costs far more than MPI_SUM: each element goes through 24
 * dependent multiply-adds before it is added (several ns an element, where MPI_SUM
 * takes under one), as an expensive operation (a complex or a custom reduction) would.
 * COLL_MODEL_OP "user_slow". The values stay normal: the buffers' doubles are 7.8e-304,
 * and each step adds 1e-300 (scaled down instead, they turn denormal, and each step
 * then costs about 100 ns here). */
static void user_slow_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  user_calls++;
  user_elements += *len;
  const double *x = in;
  double *y = inout;
  for (int i = 0; i < *len; i++) {
    double v = x[i];
    for (int k = 0; k < 24; k++) v = v * 1.0000001 + 1e-300;
    y[i] += v;
  }
}

#if MPI_VERSION >= 4
/* user_sum for MPI_Op_create_c (MPI-4: the count is an MPI_Count): COLL_MODEL_OP
 * "user_c", where the MPI has it (MPICH 4; not Open MPI 4.1). */
static void user_sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt) {
  (void)dt;
  user_calls++;
  user_elements += *len;
  const double *x = in;
  double *y = inout;
  for (MPI_Count i = 0; i < *len; i++) y[i] += x[i];
}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Op op = MPI_SUM;
  const char *which_op = getenv("COLL_MODEL_OP");
  if (which_op && !strcmp(which_op, "user")) MPI_Op_create(user_sum, 1, &op);
  if (which_op && !strcmp(which_op, "user_slow")) MPI_Op_create(user_slow_sum, 1, &op);
  if (which_op && !strcmp(which_op, "user_nc")) MPI_Op_create(user_sum, 0, &op);
#if MPI_VERSION >= 4
  if (which_op && !strcmp(which_op, "user_c")) MPI_Op_create_c(user_sum_c, 1, &op);
#endif
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
#ifdef MPICH_VERSION
  /* Whether this rank and its partner are each alone on their host, told by a message
   * rather than a collective, which would add a row to the report. */
  MPI_Comm node;
  int alone, partner_alone = 0;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &alone);
  MPI_Comm_free(&node);
  alone = alone == 1;
  if ((rank ^ 1) < size)
    MPI_Sendrecv(&alone, 1, MPI_INT, rank ^ 1, 10, &partner_alone, 1, MPI_INT, rank ^ 1, 10,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  flat = alone && partner_alone;
#endif
  const char *list = argc > 1 ? argv[1] : "all";
  char sizes_arg[256] = "8,4096,262144";
  if (argc > 2) snprintf(sizes_arg, sizeof sizes_arg, "%s", argv[2]);
  long sizes[16];
  int nsizes = 0;
  for (char *t = strtok(sizes_arg, ","); t && nsizes < 16; t = strtok(NULL, ",")) sizes[nsizes++] = atol(t);
  long max = 0;
  for (int i = 0; i < nsizes; i++) if (sizes[i] > max) max = sizes[i];
  char *a = calloc(size, max), *b = calloc(size, max);
  /* Written before use, as an application's data is: pages calloc never wrote all map
   * the kernel's one zero page, so a Bcast's root or an Alltoall's sender would read
   * 256 KiB from 4 KiB that stay in cache, faster than any real buffer and than the
   * calibration's (0x01 bytes: doubles of 7.8e-304, far from denormal when summed). */
  memset(a, 1, (size_t)size * max);
  memset(b, 2, (size_t)size * max);
  /* The reference exchanges have buffers of their own: exchanging the collective's
   * buffers left the lines of a Bcast's destination in the other core's cache, and the
   * next Bcast of 256 KiB under Open MPI vader took 41 us where it takes 20-26 us after
   * an exchange of other buffers (2 ranks, a program timing only that). */
  char *ra = malloc(max), *rb = malloc(max);
  memset(ra, 3, max);
  memset(rb, 4, max);
  timed = argc > 4 && !strcmp(argv[4], "ref");
  for (int i = 0; i < nsizes; i++) {
    long m = sizes[i];
    int reps = m >= 65536 ? 60 : 300;
    /* Untimed first: the first exchanges of a size pay for its first touch. */
    for (int k = 0; k < 2 * reps; k++) reference(ra, rb, m);
    ref_calls = 0;
    for (int k = 0; k < reps; k++) reference(ra, rb, m);
    print_reference("init", m);
    /* The same exchange timed as the calibration times it, so that the test can compare
     * the program's start with the calibration itself ("init_train"): the machine may
     * change its level between the two. */
    if (timed) {
      double t[15];
      for (int k = 0; k < 15; k++) t[k] = train(ra, rb, m, 20, 0);
      qsort(t, 15, sizeof t[0], by_value);
      if (rank == 0) printf("ref init_train %ld %.1f\n", m, 1e9 * t[7]);
      if (m >= 65536) {
        char *x = malloc(m), *y = malloc(m);
        memset(x, 5, m);
        memset(y, 6, m);
        for (int k = 0; k < 15; k++) t[k] = train(x, y, m, 20, 1);
        qsort(t, 15, sizeof t[0], by_value);
        if (rank == 0) printf("ref init_refill_train %ld %.1f\n", m, 1e9 * t[7]);
        free(x);
        free(y);
      }
    }
  }
  for (int i = 0; i < nsizes; i++) {
    long m = sizes[i];
    int reps = m >= 65536 ? 60 : (argc > 3 ? atoi(argv[3]) : 300);
    if (want(list, "allreduce")) {
      MPI_Barrier(MPI_COMM_WORLD);
      for (int k = 0; k < reps; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        enter_together();
        MPI_Allreduce(a, b, (int)(m / 8 ? m / 8 : 1), MPI_DOUBLE, op, MPI_COMM_WORLD);
      }
      loop_reference(ra, rb, m, reps);
      print_reference("allreduce", m);
    }
    if (want(list, "bcast")) {
      MPI_Barrier(MPI_COMM_WORLD);
      for (int k = 0; k < reps; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        enter_together();
        MPI_Bcast(a, (int)m, MPI_BYTE, 0, MPI_COMM_WORLD);
      }
      loop_reference(ra, rb, m, reps);
      print_reference("bcast", m);
    }
    if (want(list, "allgather")) {
      MPI_Barrier(MPI_COMM_WORLD);
      for (int k = 0; k < reps; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        enter_together();
        MPI_Allgather(a, (int)m, MPI_BYTE, b, (int)m, MPI_BYTE, MPI_COMM_WORLD);
      }
      loop_reference(ra, rb, m, reps);
      print_reference("allgather", m);
    }
    if (want(list, "alltoall")) {
      MPI_Barrier(MPI_COMM_WORLD);
      for (int k = 0; k < reps; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        enter_together();
        MPI_Alltoall(a, (int)m, MPI_BYTE, b, (int)m, MPI_BYTE, MPI_COMM_WORLD);
      }
      loop_reference(ra, rb, m, reps);
      print_reference("alltoall", m);
    }
    if (named(list, "reduce")) {
      MPI_Barrier(MPI_COMM_WORLD);
      for (int k = 0; k < reps; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        enter_together();
        MPI_Reduce(a, b, (int)(m / 8 ? m / 8 : 1), MPI_DOUBLE, op, 0, MPI_COMM_WORLD);
      }
      loop_reference(ra, rb, m, reps);
      print_reference("reduce", m);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(a);
  free(b);
  free(ra);
  free(rb);
  /* The user sum's result is the sum (the shim runs the application's function through
   * a trampoline of its own): 1 + 2 + ... + size in every element, or the job fails. */
  int wrong = 0;
  if (which_op && (!strcmp(which_op, "user") || !strcmp(which_op, "user_nc") ||
                   !strcmp(which_op, "user_c"))) {
    double v[3] = {rank + 1, rank + 1, rank + 1}, sum[3] = {0, 0, 0};
    MPI_Allreduce(v, sum, 3, MPI_DOUBLE, op, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++) wrong |= sum[i] != size * (size + 1) / 2.0;
    if (wrong) fprintf(stderr, "user operation: %g, not %g\n", sum[0], size * (size + 1) / 2.0);
  }
  if (op != MPI_SUM) {
    MPI_Op_free(&op);
    printf("user_op_calls %d %ld %ld\n", rank, user_calls, user_elements);
  }
  MPI_Finalize();
  return wrong;
}
