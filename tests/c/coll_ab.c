/* Collective algorithms side by side in one job (issue 26 §4, tests/coll_advice.rs): the
 * ground truth of an algorithm advice's saving on a machine whose cost for a call changes
 * level over seconds. Two jobs run one after the other can differ by 3× in the cost of
 * the same call, and by more in what one algorithm saves over another; blocks of 100
 * calls a moment apart cannot.
 *
 * argv[1]: sizes in bytes, comma separated; argv[2]: calls per algorithm and size;
 * argv[3..]: the candidates, each one argument of NAME=VALUE words, each a control
 * variable (MPI_T cvar) as the advice names it (Open MPI's MCA name without OMPI_MCA_,
 * MPICH's MPIR_CVAR_…).
 *
 * Algorithm 0 is the one in use, set by the job's environment; it alone is profiled. Each
 * candidate runs inside MPI_Pcontrol(0) … MPI_Pcontrol(1), so that the job's report holds
 * the algorithm in use only, as a job that never ran the candidates would, and the advice
 * read from it is checked against savings measured in the same job, at the same level.
 *
 * A candidate is set through MPI_T. Open MPI's coll tuned reads its forced algorithm when
 * a communicator is created, MPICH reads MPIR_CVAR_<COLL>_INTRA_ALGORITHM at each call:
 * so each algorithm has its own duplicate of MPI_COMM_WORLD, created under its settings,
 * and its settings are written again before each of its blocks. The blocks rotate
 * (0 1 … n, 1 … n 0, …); each call follows a barrier (as in coll_model.c) and is timed
 * with MPI_Wtime.
 *
 * Prints, per size and algorithm, the mean over the ranks of its typical call: the mean of
 * its fastest 90 % (as tests/coll_advice.rs takes a profiled job's):
 * "size <bytes> algorithm <k> typical_ns <ns>". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SETTINGS 8
#define BLOCK 100

static int cvar_index(const char *name, int *idx, MPI_T_enum *en, char *desc, int desc_len) {
  int n;
  MPI_T_cvar_get_num(&n);
  for (int i = 0; i < n; i++) {
    char nm[256];
    int nl = sizeof nm, dl = desc_len, verb, bind, scope;
    MPI_Datatype dt;
    MPI_T_cvar_get_info(i, nm, &nl, &verb, &dt, en, desc, &dl, &bind, &scope);
    if (!strcmp(nm, name)) {
      *idx = i;
      return 0;
    }
  }
  return 1;
}

/* A value: an integer, an item of the cvar's MPI_T enum (Open MPI), or, where the cvar has
 * no enum (MPICH 4.0 exposes its algorithm choices as a plain int), the position of `v`
 * among the "name - text" items of the cvar's description, which is the order of
 * MPICH's generated enum. -1 if none. */
static int value_of(MPI_T_enum en, const char *desc, const char *v) {
  char *end;
  long x = strtol(v, &end, 10);
  if (*v && !*end) return (int)x;
  if (en != MPI_T_ENUM_NULL) {
    char ename[256];
    int el = sizeof ename, items;
    MPI_T_enum_get_info(en, &items, ename, &el);
    for (int i = 0; i < items; i++) {
      int val;
      char nm[256];
      int nl = sizeof nm;
      MPI_T_enum_get_item(en, i, &val, nm, &nl);
      if (!strcmp(nm, v)) return val;
    }
    return -1;
  }
  size_t vl = strlen(v);
  int item = 0;
  for (const char *p = strstr(desc, " - "); p; p = strstr(p + 3, " - "), item++) {
    const char *q = p;
    while (q > desc && q[-1] == ' ') q--;
    if ((size_t)(q - desc) >= vl && !strncmp(q - vl, v, vl)) return item;
  }
  return -1;
}

static void write_cvar(int idx, int val) {
  MPI_T_cvar_handle h;
  int count;
  MPI_T_cvar_handle_alloc(idx, NULL, &h, &count);
  if (MPI_T_cvar_write(h, &val) != MPI_SUCCESS) {
    fprintf(stderr, "coll_ab: MPI_T_cvar_write refused\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_T_cvar_handle_free(&h);
}

static int read_cvar(int idx) {
  MPI_T_cvar_handle h;
  /* zeroed: Open MPI's bool cvars (coll_tuned_use_dynamic_rules) say MPI_INT but fill
   * one byte */
  int count, val = 0;
  MPI_T_cvar_handle_alloc(idx, NULL, &h, &count);
  MPI_T_cvar_read(h, &val);
  MPI_T_cvar_handle_free(&h);
  return val;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

#define MAX_ALGORITHMS 8

int main(int argc, char **argv) {
  int provided, rank, size;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int nalg = argc - 2;
  if (argc < 4 || nalg > MAX_ALGORITHMS) {
    if (rank == 0) fprintf(stderr, "usage: coll_ab SIZES CALLS 'NAME=VALUE…'…\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* The variables any candidate sets, and each algorithm's value of each (the one in
   * use: the value read at start). */
  int nvar = 0, idx[MAX_SETTINGS], val[MAX_ALGORITHMS][MAX_SETTINGS];
  for (int k = 1; k < nalg; k++) {
    char words[1024];
    snprintf(words, sizeof words, "%s", argv[2 + k]);
    for (int v = 0; v < nvar; v++) val[k][v] = val[0][v];
    for (char *w = strtok(words, " "); w; w = strtok(NULL, " ")) {
      char *eq = strchr(w, '='), desc[8192];
      MPI_T_enum en;
      int i = -1;
      if (!eq || cvar_index((*eq = 0, w), &i, &en, desc, sizeof desc)) {
        fprintf(stderr, "coll_ab: no control variable %s\n", w);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      int v = 0;
      while (v < nvar && idx[v] != i) v++;
      if (v == nvar) {
        if (nvar == MAX_SETTINGS) MPI_Abort(MPI_COMM_WORLD, 2);
        idx[nvar] = i;
        for (int j = 0; j < nalg; j++) val[j][nvar] = read_cvar(i);
        nvar++;
      }
      val[k][v] = value_of(en, desc, eq + 1);
      if (val[k][v] < 0) {
        fprintf(stderr, "coll_ab: %s has no value %s\n", w, eq + 1);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      if (rank == 0) printf("algorithm %d: %s = %d (in use %d)\n", k, w, val[k][v], val[0][v]);
    }
  }
  /* Only the variables the algorithms differ in are written (Open MPI refuses a write to
   * coll_tuned_use_dynamic_rules, which every candidate sets as the job does). */
  int differ = 0;
  for (int v = 0; v < nvar; v++) {
    int same = 1;
    for (int k = 1; k < nalg; k++) same &= val[k][v] == val[0][v];
    if (!same) {
      idx[differ] = idx[v];
      for (int k = 0; k < nalg; k++) val[k][differ] = val[k][v];
      differ++;
    }
  }
  nvar = differ;
  MPI_Comm comm[MAX_ALGORITHMS];
  for (int k = 0; k < nalg; k++) {
    for (int v = 0; v < nvar; v++) write_cvar(idx[v], val[k][v]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[k]);
  }
  for (int v = 0; v < nvar; v++) write_cvar(idx[v], val[0][v]);
  char sizes_arg[256];
  snprintf(sizes_arg, sizeof sizes_arg, "%s", argv[1]);
  int calls = atoi(argv[2]);
  double *took[MAX_ALGORITHMS];
  for (int k = 0; k < nalg; k++) took[k] = malloc(calls * sizeof(double));
  long max = 8;
  for (char *t = strtok(sizes_arg, ","); t; t = strtok(NULL, ","))
    if (atol(t) > max) max = atol(t);
  char *a = calloc(1, max), *b = calloc(1, max);
  snprintf(sizes_arg, sizeof sizes_arg, "%s", argv[1]);
  for (char *t = strtok(sizes_arg, ","); t; t = strtok(NULL, ",")) {
    long m = atol(t);
    int count = m / 8 ? (int)(m / 8) : 1, n[MAX_ALGORITHMS] = {0};
    for (int round = 0; n[0] < calls; round++) {
      for (int o = 0; o < nalg; o++) {
        int k = (round + o) % nalg;
        if (k != 0) {
          MPI_Pcontrol(0);
          for (int v = 0; v < nvar; v++) write_cvar(idx[v], val[k][v]);
        }
        MPI_Barrier(comm[k]);
        for (int i = 0; i < BLOCK && n[k] < calls; i++) {
          MPI_Barrier(comm[k]);
          double t0 = MPI_Wtime();
          MPI_Allreduce(a, b, count, MPI_DOUBLE, MPI_SUM, comm[k]);
          took[k][n[k]++] = MPI_Wtime() - t0;
        }
        if (k != 0) {
          for (int v = 0; v < nvar; v++) write_cvar(idx[v], val[0][v]);
          MPI_Pcontrol(1);
        }
      }
    }
    for (int k = 0; k < nalg; k++) {
      qsort(took[k], calls, sizeof(double), by_value);
      int keep = (calls * 9 + 9) / 10;
      double sum = 0, mean;
      for (int i = 0; i < keep; i++) sum += took[k][i];
      sum = sum / keep * 1e9;
      MPI_Reduce(&sum, &mean, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      if (rank == 0) printf("size %ld algorithm %d typical_ns %.1f\n", m, k, mean / size);
    }
  }
  for (int k = 0; k < nalg; k++) {
    MPI_Comm_free(&comm[k]);
    free(took[k]);
  }
  free(a);
  free(b);
  /* MPI_T before MPI_Finalize: the other order crashed Open MPI 4.1 at exit here. */
  MPI_T_finalize();
  MPI_Finalize();
  return 0;
}
