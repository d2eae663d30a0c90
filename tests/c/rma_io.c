/* Communicator constructors, one-sided communication and MPI-IO, each function called a
 * known number of times with known data (tests/rma_io.rs holds the counts), on any
 * number of ranks. Prints what it read back and fetched, the same with and without the
 * shim, and how many MPI_Win_test calls its last epoch took (the only count the program
 * cannot know beforehand).
 *   rma_io <file path>   */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define N 64
#define ITER 5

static void comms(int rank, int size, MPI_Comm *shared) {
    MPI_Comm d1, d2, di, s, c, cart, sub, g, dga, dg;
    MPI_Comm_dup(MPI_COMM_WORLD, &d1);
    MPI_Comm_dup(d1, &d2);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &di);
    MPI_Comm idup;
    MPI_Request rq;
    MPI_Comm_idup(MPI_COMM_WORLD, &idup, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &s);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, shared);
    MPI_Group wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_create(MPI_COMM_WORLD, wg, &c);
    MPI_Group_free(&wg);
    int dims[1] = {size}, periods[1] = {1}, remain[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Cart_sub(cart, remain, &sub);
    int index[64], edges[64];
    for (int i = 0; i < size && i < 64; i++) {
        index[i] = i + 1;
        edges[i] = (i + 1) % size;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g);
    int left = (rank + size - 1) % size, right = (rank + 1) % size, one = 1;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &right,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dga);
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &one, &right, MPI_UNWEIGHTED,
                          MPI_INFO_NULL, 0, &dg);
    /* A communicator of a group's members only; the two halves of the split (even and
     * odd ranks) joined by an intercommunicator, then merged. */
    MPI_Comm cg, inter, merged;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_create_group(MPI_COMM_WORLD, wg, 7, &cg);
    MPI_Group_free(&wg);
    MPI_Intercomm_create(s, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 9, &inter);
    MPI_Intercomm_merge(inter, rank % 2, &merged);
    MPI_Comm all[] = {d1, d2, di, idup, s, c, cart, sub, g, dga, dg, cg, inter, merged};
    for (int i = 0; i < 14; i++)
        MPI_Comm_free(&all[i]);
}

/* Returns a checksum of what was fetched. */
static double rma(int rank, int size, MPI_Comm shared, int *tests) {
    int right = (rank + 1) % size;
    double *base, local[N], src[N], dst[N];
    for (int i = 0; i < N; i++) {
        src[i] = rank * 100 + i;
        local[i] = 0;
        dst[i] = 0;
    }
    MPI_Win w1, w2, w3, w4;
    MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &base, &w1);
    for (int i = 0; i < N; i++)
        base[i] = 0;
    MPI_Win_create(local, N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                   &w2);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w3);
    double *sbase;
    MPI_Win_allocate_shared(N * sizeof(double), sizeof(double), MPI_INFO_NULL, shared,
                            &sbase, &w4);

    /* Active target, fences: 3 a pass. */
    for (int it = 0; it < ITER; it++) {
        MPI_Win_fence(0, w1);
        MPI_Put(src, 16, MPI_DOUBLE, right, 0, 16, MPI_DOUBLE, w1);
        MPI_Win_fence(0, w1);
        MPI_Get(dst, 8, MPI_DOUBLE, right, 0, 8, MPI_DOUBLE, w1);
        MPI_Win_fence(0, w1);
    }
    MPI_Win_fence(0, w1);
    MPI_Accumulate(src, 4, MPI_DOUBLE, right, 20, 4, MPI_DOUBLE, MPI_SUM, w1);
    MPI_Get_accumulate(src, 2, MPI_DOUBLE, dst + 8, 2, MPI_DOUBLE, right, 30, 2, MPI_DOUBLE,
                       MPI_SUM, w1);
    MPI_Win_fence(0, w1);

    /* Passive target. */
    double one = 1.0, fetched = 0;
    long cmp = 0, val = 7, old = -1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w1);
    MPI_Fetch_and_op(&one, &fetched, MPI_DOUBLE, right, 40, MPI_SUM, w1);
    MPI_Compare_and_swap(&val, &cmp, &old, MPI_LONG, right, 41, w1);
    MPI_Win_unlock(right, w1);
    MPI_Request rq[4];
    MPI_Win_lock_all(0, w1);
    MPI_Rput(src, 8, MPI_DOUBLE, right, 48, 8, MPI_DOUBLE, w1, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Win_flush(right, w1);
    MPI_Rget(dst + 16, 4, MPI_DOUBLE, right, 48, 4, MPI_DOUBLE, w1, &rq[1]);
    MPI_Raccumulate(src, 2, MPI_DOUBLE, right, 56, 2, MPI_DOUBLE, MPI_SUM, w1, &rq[2]);
    MPI_Rget_accumulate(src, 1, MPI_DOUBLE, dst + 24, 1, MPI_DOUBLE, right, 60, 1, MPI_DOUBLE,
                        MPI_NO_OP, w1, &rq[3]);
    MPI_Waitall(3, &rq[1], MPI_STATUSES_IGNORE);
    MPI_Win_flush_all(w1);
    MPI_Win_flush_local(right, w1);
    MPI_Win_flush_local_all(w1);
    MPI_Win_sync(w1);
    MPI_Win_unlock_all(w1);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Post-start-complete-wait with the neighbours, then with MPI_Win_test. */
    int left = (rank + size - 1) % size;
    MPI_Group world, from, to;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &from);
    MPI_Group_incl(world, 1, &right, &to);
    for (int round = 0; round < 2; round++) {
        MPI_Win_post(from, 0, w2);
        MPI_Win_start(to, 0, w2);
        MPI_Put(src, 4, MPI_DOUBLE, right, round * 4, 4, MPI_DOUBLE, w2);
        MPI_Win_complete(w2);
        if (round == 0) {
            MPI_Win_wait(w2);
        } else {
            int flag = 0;
            while (!flag) {
                MPI_Win_test(w2, &flag);
                ++*tests;
            }
        }
    }
    MPI_Group_free(&from);
    MPI_Group_free(&to);
    MPI_Group_free(&world);

    double sum = fetched + (double)old;
    for (int i = 0; i < N; i++)
        sum += dst[i] + local[i] + base[i] * (i + 1);
    MPI_Win_free(&w4);
    MPI_Win_free(&w3);
    MPI_Win_free(&w2);
    MPI_Win_free(&w1);
    return sum;
}

/* Returns a checksum of what was read back. */
static long io(int rank, const char *path) {
    int wbuf[N], rbuf[N];
    long sum = 0;
    for (int i = 0; i < N; i++)
        wbuf[i] = rank * 1000 + i;
    memset(rbuf, 0, sizeof rbuf);
    MPI_File fh;
    MPI_Status st;
    MPI_Request rq;
    MPI_Offset at = (MPI_Offset)rank * 4096;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_size(fh, 0);
    MPI_File_preallocate(fh, 65536);
    /* Explicit offsets. */
    MPI_File_write_at(fh, at, wbuf, 16, MPI_INT, &st);
    MPI_File_write_at_all(fh, at + 64, wbuf, 32, MPI_INT, &st);
    MPI_File_iwrite_at(fh, at + 192, wbuf, 8, MPI_INT, &rq);
    MPI_Wait(&rq, &st);
    MPI_File_iwrite_at_all(fh, at + 224, wbuf, 8, MPI_INT, &rq);
    MPI_Wait(&rq, &st);
    MPI_File_sync(fh);
    MPI_File_read_at(fh, at, rbuf, 16, MPI_INT, &st);
    MPI_File_read_at_all(fh, at + 64, rbuf + 16, 32, MPI_INT, &st);
    MPI_File_iread_at(fh, at + 192, rbuf + 48, 8, MPI_INT, &rq);
    MPI_Wait(&rq, &st);
    MPI_File_iread_at_all(fh, at + 224, rbuf + 56, 8, MPI_INT, &rq);
    MPI_Wait(&rq, &st);
    for (int i = 0; i < N; i++)
        sum += rbuf[i];
    /* Split collectives, explicit offsets. */
    MPI_File_write_at_all_begin(fh, at + 256, wbuf, 4, MPI_INT);
    MPI_File_write_at_all_end(fh, wbuf, &st);
    MPI_File_read_at_all_begin(fh, at + 256, rbuf, 4, MPI_INT);
    MPI_File_read_at_all_end(fh, rbuf, &st);
    sum += rbuf[3];
    /* Individual file pointers, in a view of this rank's 1 KiB from at + 1024. */
    MPI_File_set_view(fh, at + 1024, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_File_write(fh, wbuf, 16, MPI_INT, &st);
    MPI_File_write_all(fh, wbuf, 16, MPI_INT, &st);
    MPI_File_iwrite(fh, wbuf, 8, MPI_INT, &rq);
    MPI_Wait(&rq, &st);
    MPI_File_iwrite_all(fh, wbuf, 8, MPI_INT, &rq);
    MPI_Wait(&rq, &st);
    MPI_File_write_all_begin(fh, wbuf, 4, MPI_INT);
    MPI_File_write_all_end(fh, wbuf, &st);
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    MPI_File_read(fh, rbuf, 16, MPI_INT, &st);
    MPI_File_read_all(fh, rbuf, 16, MPI_INT, &st);
    MPI_File_iread(fh, rbuf, 8, MPI_INT, &rq);
    MPI_Wait(&rq, &st);
    MPI_File_iread_all(fh, rbuf, 8, MPI_INT, &rq);
    MPI_Wait(&rq, &st);
    MPI_File_read_all_begin(fh, rbuf + 8, 4, MPI_INT);
    MPI_File_read_all_end(fh, rbuf + 8, &st);
    for (int i = 0; i < 12; i++)
        sum += rbuf[i];
    /* The calls that read or set the file's state. */
    MPI_Offset pos, size;
    MPI_File_get_position(fh, &pos);
    MPI_File_get_byte_offset(fh, pos, &pos);
    MPI_File_get_size(fh, &size);
    MPI_File_set_atomicity(fh, 0);
    MPI_Info info; /* Open MPI refuses MPI_INFO_NULL here */
    MPI_Info_create(&info);
    MPI_File_set_info(fh, info);
    MPI_Info_free(&info);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    /* Shared file pointers, in a file of their own (a view over the whole of it). */
    char shared[4096];
    snprintf(shared, sizeof shared, "%s.shared", path);
    MPI_File_open(MPI_COMM_WORLD, shared, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_write_ordered(fh, wbuf, 8, MPI_INT, &st);
    MPI_File_write_ordered_begin(fh, wbuf, 4, MPI_INT);
    MPI_File_write_ordered_end(fh, wbuf, &st);
    MPI_File_write_shared(fh, wbuf, 2, MPI_INT, &st);
    MPI_File_iwrite_shared(fh, wbuf, 2, MPI_INT, &rq);
    MPI_Wait(&rq, &st);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    MPI_File_read_ordered(fh, rbuf, 8, MPI_INT, &st);
    MPI_File_read_ordered_begin(fh, rbuf + 8, 4, MPI_INT);
    MPI_File_read_ordered_end(fh, rbuf + 8, &st);
    MPI_File_read_shared(fh, rbuf + 12, 2, MPI_INT, &st);
    MPI_File_iread_shared(fh, rbuf + 14, 2, MPI_INT, &rq);
    MPI_Wait(&rq, &st);
    for (int i = 0; i < 12; i++)
        sum += rbuf[i];
    MPI_File_get_position_shared(fh, &pos);
    MPI_File_close(&fh);
    /* Each rank deletes the shared file: one of them finds it gone (an error returned,
     * MPI_ERRORS_RETURN being the files' default handler), both calls count. */
    MPI_File_delete(shared, MPI_INFO_NULL);
    return sum;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, tests = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm shared;
    comms(rank, size, &shared);
    double fetched = rma(rank, size, shared, &tests);
    MPI_Comm_free(&shared);
    long read = argc > 1 ? io(rank, argv[1]) : 0;
    double mine[2] = {fetched, (double)read}, all[2];
    MPI_Reduce(mine, all, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    printf("rank %d win_test %d\n", rank, tests);
    if (rank == 0)
        printf("fetched %.1f read %.0f\n", all[0], all[1]);
    MPI_Finalize();
    return 0;
}
