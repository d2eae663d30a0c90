/* An application's own MPI_T sessions (MPI 4.0 §15.3.4), after MPI_Init and after
 * MPI_Finalize: prints what each returns, the thread level provided, the number of
 * control variables and the value of one, which must be the same with or without loggp.
 * The number grows as Open MPI registers its components' variables, and its first
 * session registers all of them: a session loggp held from MPI_Init on showed this
 * program 1282 where it sees 1116 without loggp (Open MPI 4.1.4). loggp now reads Open
 * MPI's registry with no session of its own. No session before MPI_Init: under Open MPI
 * 4.1 one opened and closed there made MPI_Finalize abort ("double free or
 * corruption"), without loggp. */
#include <mpi.h>
#include <stdio.h>

static void look(const char *when, int rank, int required, int count_cvars) {
    int provided = -1, idx = -1;
    int rc = MPI_T_init_thread(required, &provided);
    long long value = -1;
    /* A variable of each MPI: Open MPI's vader eager limit, MPICH's short Bcast size. */
    const char *names[] = {"btl_vader_eager_limit", "MPIR_CVAR_BCAST_SHORT_MSG_SIZE"};
    const char *found = "none";
    for (int k = 0; k < 2; k++) {
        if (MPI_T_cvar_get_index(names[k], &idx) == MPI_SUCCESS) {
            MPI_T_cvar_handle h;
            int count = 0;
            if (MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) == MPI_SUCCESS) {
                long long buf[4] = {0, 0, 0, 0};
                if (count <= 4 && MPI_T_cvar_read(h, buf) == MPI_SUCCESS) value = buf[0];
                MPI_T_cvar_handle_free(&h);
            }
            found = names[k];
            break;
        }
    }
    /* Open MPI's only, and not after MPI_Finalize: MPICH 4.0.2's MPI_T_cvar_get_num
     * crashed here (a null dereference in any of these sessions, without loggp). */
    int ncvars = -1;
#ifdef OPEN_MPI
    if (rc == MPI_SUCCESS && count_cvars) MPI_T_cvar_get_num(&ncvars);
#else
    (void)count_cvars;
#endif
    int frc = MPI_T_finalize();
    printf("rank %d %s: init %d provided %d cvars %d %s %lld finalize %d\n", rank, when, rc,
           provided, ncvars, found, value, frc);
    fflush(stdout);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    look("after MPI_Init", rank, MPI_THREAD_MULTIPLE, 1);
    look("again", rank, MPI_THREAD_SINGLE, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    look("after MPI_Finalize", rank, MPI_THREAD_FUNNELED, 0);
    return 0;
}
