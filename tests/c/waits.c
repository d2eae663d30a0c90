/* Known waits for issue 25's split (tests/waits.rs):
 *     waits <case> [delay_ms]
 * late_sender:   rank 1 computes D before each of 200 sends of 64 KiB to rank 0.
 * late_sender_nb, late_sender_any: the same with MPI_Irecv (named, or from any source
 *                with any tag) and MPI_Isend, each completed by MPI_Wait.
 * late_sender_mprobe: the same received as mpi4py's comm.recv does: MPI_Mprobe from any
 *                source with any tag, MPI_Get_count, MPI_Mrecv.
 * late_sender_imrecv: the same with MPI_Imrecv and MPI_Wait in place of MPI_Mrecv.
 * late_receiver: rank 0 sends 200 x 64 KiB; rank 1 computes D before each receive.
 * late_receiver_rare: rank 0 sends 3000 x 64 KiB; rank 1 computes D before every
 *                50th receive only (a rare long wait among many short calls).
 * coll_skew:     rank k enters each of 100 MPI_Allreduce (8 B) k*D late.
 * coll_even:     the same 100 MPI_Allreduce, every rank on time.
 * coll_fence:    rank k enters each of 100 MPI_Win_fence (a window of 8 B on
 *                MPI_COMM_WORLD) k*D late.
 * coll_file:     rank k enters each of 100 MPI_File_write_at_all (8 B each, at its own
 *                offset) k*D late, on a file opened on MPI_COMM_WORLD (in /tmp, deleted
 *                on close).
 * pscw:          2 ranks, rank 0 the origin and rank 1 the target of 200 epochs of
 *                general active-target synchronization on a window of 8 B (MPI_Win_start,
 *                MPI_Put of 8 B, MPI_Win_complete; MPI_Win_post, MPI_Win_wait): in the
 *                first 100 the target computes D before its post (a late post), in the
 *                last 100 the origin computes D before its put (an early wait).
 * pscw_many:     3 ranks, 100 epochs of rank 0 exposing its window to ranks 1 and 2
 *                (rank 2 computing D before its put), then 100 of rank 0 accessing ranks
 *                1 and 2 (rank 2 computing D before its post): each of rank 0's calls
 *                waits for the last of its two peers.
 * coll_split:    4 ranks split into two communicators, {0, 1} and {2, 3}; in each, the
 *                second member enters each of 100 MPI_Allreduce on it D (ranks 0-1) or
 *                2D (ranks 2-3) after the first.
 * icoll_skew:    rank k computes k*D, starts MPI_Iallreduce (8 B) and waits for it at
 *                once, except rank 0, which computes D/2 between its start and its
 *                MPI_Wait (work that overlaps the wait); 100 calls.
 * icoll_poll:    the same, rank 0 polling with MPI_Test until the collective completes
 *                in place of its MPI_Wait.
 * pcoll_skew:    icoll_skew with one persistent MPI_Allreduce_init, each call an
 *                MPI_Start (MPI 4.0; exits 3 where mpi.h is older).
 * icoll_waitall: icoll_skew with two MPI_Iallreduce started one after the other and
 *                completed by one MPI_Waitall.
 * icoll_file:    icoll_skew with MPI_File_iwrite_at_all (8 B each, at its own offset) on a
 *                file opened on MPI_COMM_WORLD (in /tmp, deleted on close) in place of
 *                the MPI_Iallreduce: a nonblocking collective I/O call.
 * icoll_mixed:   icoll_skew on 2 ranks with an MPI_Irecv and an MPI_Isend of 4 B to the
 *                other rank started after the MPI_Iallreduce, and the three completed by
 *                one MPI_Waitall (a call that waits for a collective and a message).
 * nbr_skew:      a distributed graph of pairs (rank k's one neighbour, both ways, is
 *                k^1: 0-1, 2-3); rank k computes k*D before each of 100
 *                MPI_Neighbor_allgather (8 B). Rank 0 receives from rank 1 alone and
 *                waits D a call; the pairs keep their own pace, rank 3's call i coming
 *                about i*2D after rank 0's.
 * coll_pause:    60 MPI_Allreduce (8 B) after two of 32 B; before every third, one rank
 *                in turn computes D (the others enter at once): 20 calls after a pause.
 * coll_busy:     60 MPI_Reduce (8 B, to rank 0) each after an MPI_Barrier, under a
 *                user-defined operation that computes D where it runs (rank 0): the
 *                others wait inside the next MPI_Barrier, none away from MPI.
 * pingpong:      1000 round trips of 8 B between ranks 0 and 1.
 * exchange_waitall, exchange_sendrecv: 400 exchanges of 1 KiB between ranks 0 and 1,
 *                each an MPI_Irecv and an MPI_Isend completed by one MPI_Waitall, or one
 *                MPI_Sendrecv (one call for two messages).
 * exchange_waitall_late, exchange_sendrecv_late: 100 of the same, rank 1 computing D
 *                before each (rank 0's call waits for both its message ends).
 * Every case: rank 0's time from MPI_Init's return to its MPI_Finalize call (TRUTH
 * between_init_and_finalize_ns), the application's wall time but for MPI_Init's own;
 * and how far apart the ranks returned from MPI_Init (TRUTH init_return_spread_ns, the
 * ranks of one host reading one CLOCK_MONOTONIC), which loggp's own work there must not
 * stretch. 
 * "Computes" is a busy loop on CLOCK_MONOTONIC; the collective cases on more than 2
 * ranks sleep through all but its last 0.3 ms, so that 4 ranks on 2 cores keep the
 * delay. Besides the nominal delay, the program prints the truth it measured itself on
 * CLOCK_MONOTONIC (shared by the ranks of one host): TRUTH <name> <ns>, each rank's
 * times gathered on rank 0. The collective cases print rank 0's arrival wait of each
 * step too (TRUTH arrival_wait_ns, one line a step, in order), so that a test can tell
 * what any sample of the calls could have held. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Busy for `ns`; with `sleep`, asleep but for its last 0.3 ms (ranks beyond the cores). */
static void compute(double ns, int sleep) {
  double end = now_ns() + ns;
  double left = ns - 3e5;
  if (sleep && left > 0) {
    struct timespec t = {(time_t)(left / 1e9), (long)((long long)left % 1000000000LL)};
    nanosleep(&t, NULL);
  }
  while (now_ns() < end) {
  }
}

/* coll_busy's operation: a sum that computes `busy_ns` first, where it runs. */
static double busy_ns;
static void busy_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  compute(busy_ns, 0);
  for (int i = 0; i < *len; i++) ((double *)inout)[i] += ((double *)in)[i];
}

/* Each rank's `calls` values gathered on rank 0, rank after rank (NULL on the others; the
 * caller frees it). */
/* A file opened on MPI_COMM_WORLD in /tmp, named by the case and rank 0's pid, deleted
 * when closed. */
static MPI_File scratch_file(const char *tag) {
  int pid = (int)getpid();
  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  char path[96];
  snprintf(path, sizeof path, "/tmp/loggp_waits_%s.%d", tag, pid);
  MPI_File fh = MPI_FILE_NULL;
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                MPI_INFO_NULL, &fh);
  return fh;
}

static double *gathered(const double *v, int calls, int rank, int size) {
  double *all = rank == 0 ? calloc((size_t)size * calls, sizeof(double)) : NULL;
  MPI_Gather(v, calls, MPI_DOUBLE, all, calls, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return all;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#define N 200
#define BYTES 65536

/* A polled receive's polls (late_sender_test, late_sender_testany): every 16th poll
 * that completed nothing, as (its exit, the time of the call's polls that completed
 * nothing up to it), ns on this rank's clock, then the completing poll's entry with
 * their whole time; so that, once the sends' start times arrive, the polls' time before
 * each send began is known (within 16 polls' spread). A polling probe's
 * (late_sender_iprobe, late_sender_improbe) the same, every probe counted, the one that
 * found the message last (its exit), the receive after it being the completing call. */
static double *ck_t, *ck_cum;
static int ck_n, ck_cap;
static void ck_push(double t, double cum) {
  if (ck_n == ck_cap) {
    ck_cap = ck_cap ? 2 * ck_cap : 1 << 16;
    ck_t = realloc(ck_t, ck_cap * sizeof(double));
    ck_cum = realloc(ck_cum, ck_cap * sizeof(double));
  }
  ck_t[ck_n] = t;
  ck_cum[ck_n++] = cum;
}

/* The polls' time up to `t` among checkpoints [from, to): the polls taken as spread
 * evenly between two checkpoints. */
static double ck_at(int from, int to, double t) {
  if (t <= ck_t[from]) return 0;
  for (int j = from; j + 1 < to; j++)
    if (t < ck_t[j + 1])
      return ck_cum[j] + (ck_cum[j + 1] - ck_cum[j]) * (t - ck_t[j]) / (ck_t[j + 1] - ck_t[j]);
  return ck_cum[to - 1];
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  double after_init = now_ns();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *c = argc > 1 ? argv[1] : "late_sender";
  double d = (argc > 2 ? atof(argv[2]) : 2.0) * 1e6;
  char *buf = calloc(1, BYTES);
  /* Per call: entry and exit (ns) on this rank. */
  double *in = calloc(3000, sizeof(double)), *out = calloc(3000, sizeof(double));
  int calls = 0;
  double *returned = calloc(size, sizeof(double));
  MPI_Gather(&after_init, 1, MPI_DOUBLE, returned, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double lo = returned[0], hi = returned[0];
    for (int r = 1; r < size; r++) {
      if (returned[r] < lo) lo = returned[r];
      if (returned[r] > hi) hi = returned[r];
    }
    printf("TRUTH init_return_spread_ns %.0f\n", hi - lo);
  }
  free(returned);
  MPI_Barrier(MPI_COMM_WORLD);
  if (!strncmp(c, "late_sender", 11) || !strncmp(c, "late_receiver", 13)) {
    int late_send = !strncmp(c, "late_sender", 11);
    int rare = !strcmp(c, "late_receiver_rare"), n_calls = rare ? 3000 : N;
    /* late_receiver_often: the receiver late before 3 of every 5 receives. */
    int often = !strcmp(c, "late_receiver_often");
    /* late_sender_nb: MPI_Irecv and MPI_Isend, each completed by MPI_Wait;
     * late_sender_any: the same receive from MPI_ANY_SOURCE with MPI_ANY_TAG. */
    /* late_sender_test, late_sender_testany: the receive polled with MPI_Test, or with
     * MPI_Testany over an array of one, until it completes. */
    int test = !strcmp(c, "late_sender_test"), testany = !strcmp(c, "late_sender_testany");
    int nb = !strcmp(c, "late_sender_nb") || !strcmp(c, "late_sender_any") || test || testany;
    int any = !strcmp(c, "late_sender_any");
    int mprobe = !strcmp(c, "late_sender_mprobe");
    /* late_sender_imrecv: the same with MPI_Imrecv and MPI_Wait in place of MPI_Mrecv. */
    int imrecv = !strcmp(c, "late_sender_imrecv");
    /* late_sender_probe: MPI_Probe from any source with any tag, MPI_Get_count, then
     * MPI_Recv from the status's source and tag (a message of unknown size). */
    int probe = !strcmp(c, "late_sender_probe");
    /* late_sender_iprobe: MPI_Iprobe from any source with any tag until it finds the
     * message, then MPI_Get_count and MPI_Recv from the status's source and tag;
     * late_sender_improbe: MPI_Improbe the same way, then MPI_Mrecv;
     * late_sender_improbe_imrecv: then MPI_Imrecv and MPI_Wait. */
    int improbe_imrecv = !strcmp(c, "late_sender_improbe_imrecv");
    int iprobe = !strcmp(c, "late_sender_iprobe");
    int improbe = !strcmp(c, "late_sender_improbe") || improbe_imrecv;
    /* late_sender_persistent: MPI_Send_init and MPI_Recv_init once, then each message
     * through MPI_Start and MPI_Wait. */
    int persistent = !strcmp(c, "late_sender_persistent");
    MPI_Request prq = MPI_REQUEST_NULL;
    if (persistent && rank < 2) {
      if (rank == 1)
        MPI_Send_init(buf, BYTES, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &prq);
      else
        MPI_Recv_init(buf, BYTES, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &prq);
    }
    int *ck_from = calloc(n_calls + 1, sizeof(int));
    double polls_ns = 0;
    for (int i = 0; i < n_calls && rank < 2; i++) {
      int sender = late_send ? rank == 1 : rank == 0;
      MPI_Request rq;
      MPI_Status st;
      if (rank == 1 && (often ? i % 5 < 3 : !rare || i % 50 == 49)) compute(d, 0);
      if (persistent && !sender) MPI_Start(&prq);
      if (nb && !sender)
        MPI_Irecv(buf, BYTES, MPI_BYTE, any ? MPI_ANY_SOURCE : 1 - rank, any ? MPI_ANY_TAG : 7,
                  MPI_COMM_WORLD, &rq);
      in[i] = now_ns();
      if (persistent) {
        if (sender) MPI_Start(&prq);
        MPI_Wait(&prq, MPI_STATUS_IGNORE);
      } else if (nb && sender) {
        MPI_Isend(buf, BYTES, MPI_BYTE, 1 - rank, 7, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
      } else if (test || testany || ((iprobe || improbe) && !sender)) {
        /* A polling loop, every call timed: the Test calls that complete nothing, or all
         * the probes (the one that found the message too: the receive after it is then
         * the completing call), so that the truth is their time before each send. */
        MPI_Message m;
        int flag = 0, idx = -1, k = 0, n = 0, probing = iprobe || improbe;
        double cum = 0;
        ck_from[i] = ck_n;
        ck_push(in[i], 0);
        while (!flag) {
          double a = now_ns();
          if (test)
            MPI_Test(&rq, &flag, &st);
          else if (testany)
            MPI_Testany(1, &rq, &idx, &flag, &st);
          else if (iprobe)
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
          else
            MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st);
          double b = now_ns();
          if (!flag || probing) cum += b - a;
          if (flag)
            ck_push(probing ? b : a, cum);
          else if (++k % 16 == 0)
            ck_push(b, cum);
        }
        polls_ns += cum;
        if (probing) MPI_Get_count(&st, MPI_BYTE, &n);
        if (iprobe)
          MPI_Recv(buf, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else if (improbe_imrecv) {
          MPI_Imrecv(buf, n, MPI_BYTE, &m, &rq);
          MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else if (improbe)
          MPI_Mrecv(buf, n, MPI_BYTE, &m, MPI_STATUS_IGNORE);
      } else if (nb) {
        MPI_Wait(&rq, &st);
      } else if (mprobe && !sender) {
        MPI_Message m;
        int n = 0;
        MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st);
        MPI_Get_count(&st, MPI_BYTE, &n);
        MPI_Mrecv(buf, n, MPI_BYTE, &m, MPI_STATUS_IGNORE);
      } else if (imrecv && !sender) {
        MPI_Message m;
        int n = 0;
        MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st);
        MPI_Get_count(&st, MPI_BYTE, &n);
        MPI_Imrecv(buf, n, MPI_BYTE, &m, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
      } else if (probe && !sender) {
        int n = 0;
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &n);
        MPI_Recv(buf, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (sender)
        MPI_Send(buf, BYTES, MPI_BYTE, 1 - rank, 7, MPI_COMM_WORLD);
      else
        MPI_Recv(buf, BYTES, MPI_BYTE, 1 - rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      out[i] = now_ns();
    }
    if (prq != MPI_REQUEST_NULL) MPI_Request_free(&prq);
    calls = n_calls;
    /* Truth on rank 0: the wait of each of its calls for rank 1's matching call. */
    double *other = calloc(n_calls, sizeof(double));
    if (rank == 1) MPI_Send(in, n_calls, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD);
    if (rank == 0) {
      MPI_Recv(other, n_calls, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double wait = 0, cost = 0;
      for (int i = 0; i < n_calls; i++) {
        double w = other[i] - in[i];
        if (w > out[i] - in[i]) w = out[i] - in[i];
        if (w > 0) wait += w;
        cost += out[i] - in[i] - (w > 0 ? w : 0);
      }
      printf("TRUTH %s_ns %.0f\n", late_send ? "late_sender" : c, wait);
      /* A polled receive: the share of its polls' time (those that completed nothing)
       * that went before the send began, and the sends that began after the completing
       * poll's entry, whose wait the completing call holds (on 2 cores rank 0 can be
       * preempted inside it while rank 1 sends). */
      if (test || testany || iprobe || improbe) {
        double before = 0, in_completing = 0;
        int after_entry = 0;
        for (int i = 0; i < n_calls; i++) {
          int to = i + 1 < n_calls ? ck_from[i + 1] : ck_n;
          before += ck_at(ck_from[i], to, other[i]);
          /* A send that began inside the completing poll (rank 0 preempted in it). */
          if (other[i] > ck_t[to - 1]) {
            after_entry++;
            in_completing += (other[i] < out[i] ? other[i] : out[i]) - ck_t[to - 1];
          }
        }
        printf("TRUTH polls_before_send_share %.6f\n", polls_ns > 0 ? before / polls_ns : 0);
        printf("TRUTH sends_after_completing_entry %d\n", after_entry);
        printf("TRUTH wait_in_completing_poll_ns %.0f\n", in_completing);
      }
      /* The rest of rank 0's calls: what the messages themselves took. */
      printf("TRUTH cost_ns %.0f\n", cost);
      /* Late sender: from the send's entry to the receive's exit, the message's own time
       * once the receiver waits; its median over the calls. */
      if (late_send) {
        for (int i = 0; i < N; i++) other[i] = out[i] - other[i];
        qsort(other, N, sizeof(double), cmp);
        printf("TRUTH one_way_median_ns %.0f\n", other[N / 2]);
        for (int i = 0; i < N; i++) printf("TRUTH one_way_ns %.0f\n", other[i]);
      }
    }
    free(other);
    free(ck_from);
  } else if (!strcmp(c, "coll_skew") || !strcmp(c, "coll_even") || !strcmp(c, "nbr_skew") ||
             !strcmp(c, "coll_fence") || !strcmp(c, "coll_file")) {
    /* Truth: the part of each call before the last member entered (nbr_skew: the last of
     * the rank's in-neighbours; rank 0's is rank 1), and the rest. */
    double x = rank, y = 0;
    int skew = strcmp(c, "coll_even") != 0, nbr = !strcmp(c, "nbr_skew");
    int fence = !strcmp(c, "coll_fence"), file = !strcmp(c, "coll_file");
    MPI_Win win = MPI_WIN_NULL;
    if (fence)
      MPI_Win_create(&y, sizeof y, sizeof y, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_File fh = file ? scratch_file("coll_file") : MPI_FILE_NULL;
    MPI_Comm pairs = MPI_COMM_NULL;
    if (nbr) {
      int partner = rank ^ 1, degree = partner < size ? 1 : 0;
      MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, degree, &partner, MPI_UNWEIGHTED, degree,
                                     &partner, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &pairs);
    }
    calls = 100;
    for (int i = 0; i < calls; i++) {
      if (skew && rank > 0) compute(rank * d, size > 2);
      in[i] = now_ns();
      if (nbr)
        MPI_Neighbor_allgather(&x, 1, MPI_DOUBLE, &y, 1, MPI_DOUBLE, pairs);
      else if (fence)
        MPI_Win_fence(0, win);
      else if (file)
        MPI_File_write_at_all(fh, ((MPI_Offset)i * size + rank) * (MPI_Offset)sizeof x, &x, 1,
                              MPI_DOUBLE, MPI_STATUS_IGNORE);
      else
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      out[i] = now_ns();
    }
    double *all = rank == 0 ? calloc((size_t)size * calls, sizeof(double)) : NULL;
    MPI_Gather(in, calls, MPI_DOUBLE, all, calls, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      double wait = 0, cost = 0;
      for (int i = 0; i < calls; i++) {
        double last = in[i];
        for (int r = 1; r < (nbr ? 2 : size) && r < size; r++)
          if (all[r * calls + i] > last) last = all[r * calls + i];
        /* A collective that does not synchronize (Open MPI's MPI_File_write_at_all of a
         * few bytes returns before the other member enters) waits in none of its call. */
        double a = last - in[i];
        if (file) a = a < 0 ? 0 : (a > out[i] - in[i] ? out[i] - in[i] : a);
        wait += a;
        cost += out[i] - in[i] - a;
        printf("TRUTH arrival_wait_ns %.0f\n", a);
      }
      printf("TRUTH arrival_wait_per_call_ns %.0f\n", wait / calls);
      printf("TRUTH cost_per_call_ns %.0f\n", cost / calls);
    }
    if (nbr && size == 4) {
      /* Ranks 1 and 3's own waits, for their one in-neighbours, ranks 0 and 2 (nominally
       * none: those compute less, but on a loaded VM rank 0 can be off its core when rank
       * 1 enters, and rank 2 can wake late from its sleep): the part of each of their
       * calls before the in-neighbour entered, bounded by the call. */
      double *outs = rank == 0 ? calloc((size_t)size * calls, sizeof(double)) : NULL;
      MPI_Gather(out, calls, MPI_DOUBLE, outs, calls, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        for (int r = 1; r < 4; r += 2) {
          double waited = 0;
          for (int i = 0; i < calls; i++) {
            double a = all[(r - 1) * calls + i] - all[r * calls + i];
            double call = outs[r * calls + i] - all[r * calls + i];
            a = a < 0 ? 0 : (a > call ? call : a);
            waited += a;
            printf("TRUTH rank%d_arrival_wait_ns %.0f\n", r, a);
          }
          printf("TRUTH rank%d_arrival_wait_per_call_ns %.0f\n", r, waited / calls);
        }
        free(outs);
      }
    }
    free(all);
    if (nbr) MPI_Comm_free(&pairs);
    if (fence) MPI_Win_free(&win);
    if (file) {
      /* Rank 0's wait in MPI_File_close, collective too, for the last member's entry,
       * bounded by its call (where the writes did not synchronize, the members meet
       * here). */
      double close_in = now_ns();
      MPI_File_close(&fh);
      double close_out = now_ns(), ins[64];
      MPI_Gather(&close_in, 1, MPI_DOUBLE, ins, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        double last = close_in;
        for (int r = 1; r < size && r < 64; r++)
          if (ins[r] > last) last = ins[r];
        double a = last - close_in;
        a = a < 0 ? 0 : (a > close_out - close_in ? close_out - close_in : a);
        printf("TRUTH close_arrival_wait_ns %.0f\n", a);
      }
    }
  } else if (!strcmp(c, "pscw")) {
    /* Truth (Scalasca's): the origin's late post, the part of its MPI_Win_start and
     * MPI_Win_complete calls before the target's MPI_Win_post entered; the target's
     * early wait, the part of its MPI_Win_wait before the origin's MPI_Win_complete
     * entered. Each a mean over the 200 epochs. */
    double x = rank, y = 0;
    MPI_Win win;
    MPI_Win_create(&y, sizeof y, sizeof y, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Group world, peer;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int other = 1 - rank;
    MPI_Group_incl(world, 1, &other, &peer);
    calls = 200;
    /* Per epoch: origin [start in, start out, complete in, complete out], target [post
     * in, wait in, wait out]. */
    double *t = calloc(4 * (size_t)calls, sizeof(double));
    for (int i = 0; i < calls; i++) {
      double *e = t + 4 * i;
      if (rank == 0) {
        e[0] = now_ns();
        MPI_Win_start(peer, 0, win);
        e[1] = now_ns();
        if (i >= calls / 2) compute(d, 0);
        MPI_Put(&x, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, win);
        e[2] = now_ns();
        MPI_Win_complete(win);
        e[3] = now_ns();
      } else if (rank == 1) {
        if (i < calls / 2) compute(d, 0);
        e[0] = now_ns();
        MPI_Win_post(peer, 0, win);
        e[1] = now_ns();
        MPI_Win_wait(win);
        e[2] = now_ns();
      }
    }
    double *all = rank == 0 ? calloc(8 * (size_t)calls, sizeof(double)) : NULL;
    MPI_Gather(t, 4 * calls, MPI_DOUBLE, all, 4 * calls, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      double late_post = 0, early_wait = 0;
      for (int i = 0; i < calls; i++) {
        double *o = all + 4 * i, *g = all + 4 * calls + 4 * i;
        double a = g[0] - o[0], b = g[0] - o[2];
        late_post += (a < 0 ? 0 : a > o[1] - o[0] ? o[1] - o[0] : a) +
                     (b < 0 ? 0 : b > o[3] - o[2] ? o[3] - o[2] : b);
        double w = o[2] - g[1];
        early_wait += w < 0 ? 0 : w > g[2] - g[1] ? g[2] - g[1] : w;
      }
      printf("TRUTH late_post_per_call_ns %.0f\n", late_post / calls);
      printf("TRUTH early_wait_per_call_ns %.0f\n", early_wait / calls);
    }
    free(all);
    free(t);
    MPI_Group_free(&peer);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
  } else if (!strcmp(c, "pscw_many") && size == 3) {
    /* Truth: rank 0's early wait in its MPI_Win_wait calls, before the later of its two
     * origins' MPI_Win_complete entered, and its late post in its MPI_Win_start and
     * MPI_Win_complete calls, before the later of its two targets' MPI_Win_post
     * entered; each a mean over its 100 epochs. */
    double x = rank, y[2] = {0, 0};
    MPI_Win win;
    MPI_Win_create(y, sizeof y, sizeof y[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Group world, peers;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int others[2] = {1, 2}, zero = 0;
    MPI_Group_incl(world, rank == 0 ? 2 : 1, rank == 0 ? others : &zero, &peers);
    calls = 100;
    /* Per epoch of each phase: [entry, exit] of the opening call, of the closing one. */
    double *t = calloc(8 * (size_t)calls, sizeof(double));
    for (int phase = 0; phase < 2; phase++) {
      for (int i = 0; i < calls; i++) {
        double *e = t + 8 * i + 4 * phase;
        int access = (phase == 0) != (rank == 0);
        if (rank == 2 && !access) compute(d, 1);
        e[0] = now_ns();
        if (access)
          MPI_Win_start(peers, 0, win);
        else
          MPI_Win_post(peers, 0, win);
        e[1] = now_ns();
        if (access) {
          if (rank == 2) compute(d, 1);
          for (int k = 0; k < (rank == 0 ? 2 : 1); k++)
            MPI_Put(&x, 1, MPI_DOUBLE, rank == 0 ? others[k] : 0, rank == 0 ? 0 : rank - 1, 1,
                    MPI_DOUBLE, win);
        }
        e[2] = now_ns();
        if (access)
          MPI_Win_complete(win);
        else
          MPI_Win_wait(win);
        e[3] = now_ns();
      }
    }
    double *all = rank == 0 ? calloc(3 * 8 * (size_t)calls, sizeof(double)) : NULL;
    MPI_Gather(t, 8 * calls, MPI_DOUBLE, all, 8 * calls, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      double early_wait = 0, late_post = 0;
      for (int i = 0; i < calls; i++) {
        double *me = all + 8 * i, *p1 = all + 8 * calls + 8 * i, *p2 = all + 16 * calls + 8 * i;
        /* Phase 0: the later complete; phase 1 (offset 4): the later post. */
        double complete = p1[2] > p2[2] ? p1[2] : p2[2];
        double w = complete - me[2];
        early_wait += w < 0 ? 0 : w > me[3] - me[2] ? me[3] - me[2] : w;
        double post = p1[4] > p2[4] ? p1[4] : p2[4];
        double a = post - me[4], b = post - me[6];
        late_post += (a < 0 ? 0 : a > me[5] - me[4] ? me[5] - me[4] : a) +
                     (b < 0 ? 0 : b > me[7] - me[6] ? me[7] - me[6] : b);
      }
      printf("TRUTH early_wait_per_call_ns %.0f\n", early_wait / calls);
      printf("TRUTH late_post_per_call_ns %.0f\n", late_post / calls);
    }
    free(all);
    free(t);
    MPI_Group_free(&peers);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
  } else if (!strcmp(c, "coll_split")) {
    /* Truth: each first member's mean arrival wait a call (the part of its call before its
     * partner's entry), rank 0's and rank 2's. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half);
    int hr;
    MPI_Comm_rank(half, &hr);
    double x = rank, y = 0, wait = 0, waits[4] = {0};
    double *other = calloc(100, sizeof(double));
    calls = 100;
    for (int i = 0; i < calls; i++) {
      if (hr == 1) compute(d * (1 + rank / 2), size > 2);
      in[i] = now_ns();
      MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, half);
      out[i] = now_ns();
    }
    MPI_Sendrecv(in, calls, MPI_DOUBLE, 1 - hr, 5, other, calls, MPI_DOUBLE, 1 - hr, 5, half,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < calls; i++) {
      double a = other[i] - in[i];
      wait += a < 0 ? 0 : (a > out[i] - in[i] ? out[i] - in[i] : a);
    }
    MPI_Gather(&wait, 1, MPI_DOUBLE, waits, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("TRUTH split_wait_rank0_per_call_ns %.0f\n", waits[0] / calls);
      printf("TRUTH split_wait_rank2_per_call_ns %.0f\n", waits[2] / calls);
    }
    free(other);
    MPI_Comm_free(&half);
  } else if (!strcmp(c, "icoll_skew") || !strcmp(c, "icoll_poll") || !strcmp(c, "pcoll_skew") ||
             !strcmp(c, "icoll_waitall") || !strcmp(c, "icoll_mixed") ||
             !strcmp(c, "icoll_file")) {
    /* Truth: the part of each MPI_Wait before the last rank's MPI_Iallreduce started
     * (icoll_waitall: before each of the two, the second started when the first returned,
     * one line per collective). */
    double x = rank, y, y2, *w = calloc(100, sizeof(double)), *in2 = calloc(100, sizeof(double));
    int persistent = !strcmp(c, "pcoll_skew"), pair = !strcmp(c, "icoll_waitall");
    int mixed = !strcmp(c, "icoll_mixed"), file = !strcmp(c, "icoll_file");
    int msg_in = 0, msg_out = rank;
    MPI_File fh = file ? scratch_file("icoll_file") : MPI_FILE_NULL;
    MPI_Request pr = MPI_REQUEST_NULL;
    if (persistent) {
#if MPI_VERSION >= 4
      MPI_Allreduce_init(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &pr);
#else
      fprintf(stderr, "pcoll_skew needs MPI 4.0's MPI_Allreduce_init\n");
      MPI_Abort(MPI_COMM_WORLD, 3);
#endif
    }
    calls = 100;
    for (int i = 0; i < calls; i++) {
      MPI_Request r, rr[3];
      if (rank > 0) compute(rank * d, size > 2);
      in[i] = now_ns();
      if (persistent) {
        r = pr;
        MPI_Start(&r);
      } else if (file) {
        MPI_File_iwrite_at_all(fh, ((MPI_Offset)i * size + rank) * (MPI_Offset)sizeof x, &x, 1,
                               MPI_DOUBLE, &r);
      } else {
        MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
      }
      if (pair) {
        rr[0] = r;
        in2[i] = now_ns();
        MPI_Iallreduce(&x, &y2, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rr[1]);
      }
      if (mixed) {
        rr[0] = r;
        MPI_Irecv(&msg_in, 1, MPI_INT, 1 - rank, 9, MPI_COMM_WORLD, &rr[1]);
        MPI_Isend(&msg_out, 1, MPI_INT, 1 - rank, 9, MPI_COMM_WORLD, &rr[2]);
      }
      if (rank == 0) compute(d / 2, 0);
      w[i] = now_ns();
      if (rank == 0 && !strcmp(c, "icoll_poll")) {
        int done = 0;
        while (!done) MPI_Test(&r, &done, MPI_STATUS_IGNORE);
      } else if (pair) {
        MPI_Waitall(2, rr, MPI_STATUSES_IGNORE);
      } else if (mixed) {
        MPI_Waitall(3, rr, MPI_STATUSES_IGNORE);
      } else {
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      }
      out[i] = now_ns();
    }
    if (persistent) MPI_Request_free(&pr);
    if (file) MPI_File_close(&fh);
    double *all = gathered(in, calls, rank, size);
    double *all2 = gathered(in2, calls, rank, size);
    if (rank == 0) {
      double wait = 0, in_wait = 0;
      int n_colls = 0;
      for (int i = 0; i < calls; i++) {
        for (int k = 0; k < (pair ? 2 : 1); k++) {
          double *starts = k ? all2 : all, last = 0;
          for (int r = 0; r < size; r++)
            if (starts[r * calls + i] > last) last = starts[r * calls + i];
          double a = last - w[i];
          a = a < 0 ? 0 : (a > out[i] - w[i] ? out[i] - w[i] : a);
          wait += a;
          n_colls++;
          printf("TRUTH arrival_wait_ns %.0f\n", a);
        }
        in_wait += out[i] - w[i];
      }
      printf("TRUTH arrival_wait_per_call_ns %.0f\n", wait / n_colls);
      printf("TRUTH wait_call_ns %.0f\n", in_wait / calls);
      free(all);
      free(all2);
    }
    free(w);
    free(in2);
  } else if (!strncmp(c, "exchange_waitall", 16) || !strncmp(c, "exchange_sendrecv", 17)) {
    /* With _late: rank 1 computes D before each of 100 exchanges; truth: the part of
     * each of rank 0's calls before rank 1's entry into its own. */
    int peer = 1 - rank, waitall = !strncmp(c, "exchange_waitall", 16);
    int late = strstr(c, "_late") != NULL, n = late ? 100 : 400;
    char *in_buf = calloc(1, 1024);
    for (int i = 0; i < n && rank < 2; i++) {
      if (late && rank == 1) compute(d, 0);
      in[i] = now_ns();
      if (waitall) {
        MPI_Request rq[2];
        MPI_Irecv(in_buf, 1024, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(buf, 1024, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
      } else {
        MPI_Sendrecv(buf, 1024, MPI_BYTE, peer, 3, in_buf, 1024, MPI_BYTE, peer, 3,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      out[i] = now_ns();
    }
    if (late && rank < 2) {
      double *other = calloc(n, sizeof(double)), wait = 0;
      MPI_Sendrecv(in, n, MPI_DOUBLE, peer, 4, other, n, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      for (int i = 0; i < n; i++) {
        double a = other[i] - in[i];
        wait += a < 0 ? 0 : (a > out[i] - in[i] ? out[i] - in[i] : a);
      }
      if (rank == 0) printf("TRUTH late_peer_ns %.0f\n", wait);
      free(other);
    }
    free(in_buf);
  } else if (!strcmp(c, "coll_pause")) {
    /* 60 one-double MPI_Allreduce calls; before every third (20 calls), one rank in turn
     * computes D while the others enter at once; the other 40 follow the call before back
     * to back. Truth: a call is after a pause where some rank entered it 100 us or more
     * after it left the one before (the 20, and any back-to-back call whose rank the
     * machine held off its core that long: on MPICH 1-4 of 40 a run here), with the count
     * of calls whose longest such gap lies within 10 % of 100 us (either side may then
     * count it); rank 0's cost of each call from the last entry to its exit, the median
     * over each kind; and the median over the calls after a pause of that longest gap. */
    double x = rank, y = 0, x4[4] = {0}, y4[4], before;
    calls = 60;
    /* Two calls of another size before them (another row of the report): a member's first
     * call of a collective has no pause to time, and loggp's own first-call work after it
     * (its tables' first pages) delayed the next call's entry by 213 us once in 8 runs. */
    MPI_Allreduce(x4, y4, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(x4, y4, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    before = now_ns();
    for (int i = 0; i < calls; i++) {
      if (i % 3 == 2 && rank == (i / 3) % size) compute(d, 0);
      in[i] = now_ns();
      MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      out[i] = now_ns();
    }
    /* Each rank's gap before each call: from its exit of the call before. */
    double gap[60];
    for (int i = 0; i < calls; i++) gap[i] = in[i] - (i ? out[i - 1] : before);
    double *all = gathered(in, calls, rank, size);
    double *gaps = gathered(gap, calls, rank, size);
    if (rank == 0) {
      double paused[60], back[60], paused_gap[60];
      int n_paused = 0, n_back = 0, near = 0;
      for (int i = 0; i < calls; i++) {
        double last = in[i], longest = 0;
        for (int r = 0; r < size; r++) {
          if (all[r * calls + i] > last) last = all[r * calls + i];
          if (gaps[r * calls + i] > longest) longest = gaps[r * calls + i];
        }
        if (longest >= 1e5) {
          paused_gap[n_paused] = longest;
          paused[n_paused++] = out[i] - last;
        } else
          back[n_back++] = out[i] - last;
        near += longest >= 0.9e5 && longest <= 1.1e5;
      }
      qsort(paused, n_paused, sizeof(double), cmp);
      qsort(back, n_back, sizeof(double), cmp);
      printf("TRUTH calls_after_pause %d\n", n_paused);
      printf("TRUTH calls_back_to_back %d\n", n_back);
      printf("TRUTH calls_near_the_pause %d\n", near);
      printf("TRUTH after_pause_cost_median_ns %.0f\n", paused[n_paused / 2]);
      printf("TRUTH back_to_back_cost_median_ns %.0f\n", back[n_back / 2]);
      qsort(paused_gap, n_paused, sizeof(double), cmp);
      printf("TRUTH after_pause_gap_median_ns %.0f\n", paused_gap[n_paused / 2]);
    }
    free(all);
    free(gaps);
  } else if (!strcmp(c, "coll_busy")) {
    /* 60 one-double MPI_Reduce calls to rank 0, each after an MPI_Barrier, under
     * `busy_sum`: rank 0 spends D inside each MPI_Reduce combining the others' values,
     * and the others, out of theirs at once, wait about as long inside the next
     * MPI_Barrier. Truth: the calls some rank entered after 100 us or more away from MPI
     * since it left its MPI_Reduce before (its time outside both calls), and the calls
     * some rank entered 100 us or more after leaving its MPI_Reduce before (inside the
     * MPI_Barrier or not). */
    double x = rank, y = 0, x4[4] = {0}, y4[4], before, b_in[60], b_out[60];
    MPI_Op busy;
    busy_ns = d;
    MPI_Op_create(busy_sum, 1, &busy);
    calls = 60;
    /* Two calls of another size first (another row), as in coll_pause. */
    MPI_Reduce(x4, y4, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(x4, y4, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    before = now_ns();
    for (int i = 0; i < calls; i++) {
      b_in[i] = now_ns();
      MPI_Barrier(MPI_COMM_WORLD);
      b_out[i] = now_ns();
      in[i] = now_ns();
      MPI_Reduce(&x, &y, 1, MPI_DOUBLE, busy, 0, MPI_COMM_WORLD);
      out[i] = now_ns();
    }
    MPI_Op_free(&busy);
    double away[60], gap[60];
    for (int i = 0; i < calls; i++) {
      double prev = i ? out[i - 1] : before;
      away[i] = (b_in[i] - prev) + (in[i] - b_out[i]);
      gap[i] = in[i] - prev;
    }
    double *aways = gathered(away, calls, rank, size);
    double *gaps = gathered(gap, calls, rank, size);
    if (rank == 0) {
      int paused = 0, apart = 0;
      for (int i = 0; i < calls; i++) {
        double longest_away = 0, longest_gap = 0;
        for (int r = 0; r < size; r++) {
          if (aways[r * calls + i] > longest_away) longest_away = aways[r * calls + i];
          if (gaps[r * calls + i] > longest_gap) longest_gap = gaps[r * calls + i];
        }
        paused += longest_away >= 1e5;
        apart += longest_gap >= 1e5;
      }
      printf("TRUTH calls_after_pause %d\n", paused);
      printf("TRUTH calls_apart %d\n", apart);
    }
    free(aways);
    free(gaps);
  } else if (!strcmp(c, "pingpong")) {
    /* Truth: the pong's time from rank 1's send to rank 0's receive returning. */
    for (int i = 0; i < 1000 && rank < 2; i++) {
      if (rank == 0) {
        MPI_Send(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        out[i] = now_ns();
      } else {
        MPI_Recv(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        in[i] = now_ns();
        MPI_Send(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
    if (rank == 1) MPI_Send(in, 1000, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD);
    if (rank == 0 && size > 1) {
      double *o = calloc(1000, sizeof(double));
      MPI_Recv(o, 1000, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int i = 0; i < 1000; i++) o[i] = out[i] - o[i];
      qsort(o, 1000, sizeof(double), cmp);
      printf("TRUTH one_way_median_ns %.0f\n", o[500]);
      for (int i = 0; i < 1000; i++) printf("TRUTH one_way_ns %.0f\n", o[i]);
      free(o);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(buf);
  free(in);
  free(out);
  if (rank == 0) {
    printf("TRUTH between_init_and_finalize_ns %.0f\n", now_ns() - after_init);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
