! The collectives of tests/c/collectives.c through a Fortran binding, with the same
! arguments (so the same per-rank counts and bytes): -DF08 (use mpi_f08) or -DUSEMPI
! (use mpi). Blocking and nonblocking, ITER times each, then an in-place Allreduce (by
! a user-defined sum under use mpi) and the checksum's Reduce. 4 ranks. Prints a checksum, the same with and without the shim.
#ifdef F08
#define REQ_T type(MPI_Request)
#define DT_T type(MPI_Datatype)
#else
#define REQ_T integer
#define DT_T integer
#endif
program collectives
#ifdef F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer, parameter :: ITER = 3
  integer :: ierr, rank, n, nb, it, i
  integer :: sendb(64), recvb(64), counts(4), displs(4), ones(4), steps(4), bsteps(4)
  DT_T :: ints(4)
  REQ_T :: q
  integer(kind=8) :: checksum, total
#ifndef F08
  ! The in-place Allreduce's user-defined sum (use mpi: an external subroutine).
  integer :: usum
  external int_sum
#endif
  counts = (/1, 2, 3, 4/)
  displs = (/0, 1, 3, 6/)
  ones = 1
  steps = (/0, 1, 2, 3/)
  bsteps = (/0, 4, 8, 12/)
  checksum = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  if (n /= 4) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  ints = MPI_INTEGER
  do i = 1, 64
    sendb(i) = rank * 100 + i - 1
  end do
  do nb = 0, 1
    do it = 1, ITER
      recvb = 0
      if (nb == 1) then
        call MPI_Ibarrier(MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
      else
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
      end if
      do i = 1, 10
        recvb(i) = merge(7 * (i - 1), 0, rank == 0)
      end do
      if (nb == 1) then
        call MPI_Ibcast(recvb, 10, MPI_INTEGER, 0, MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
      else
        call MPI_Bcast(recvb, 10, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      end if
      call add(recvb, 10)
      recvb = 0
      if (nb == 1) then
        call MPI_Igather(sendb, 5, MPI_INTEGER, recvb, 5, MPI_INTEGER, 1, MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
        call MPI_Igatherv(sendb, rank + 1, MPI_INTEGER, recvb, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
        call MPI_Iscatter(sendb, 5, MPI_INTEGER, recvb, 5, MPI_INTEGER, 2, MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
        call MPI_Iscatterv(sendb, counts, displs, MPI_INTEGER, recvb, rank + 1, MPI_INTEGER, 3, MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
        call MPI_Iallgather(sendb, 5, MPI_INTEGER, recvb, 5, MPI_INTEGER, MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
        call MPI_Iallgatherv(sendb, rank + 1, MPI_INTEGER, recvb, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
        call MPI_Ialltoall(sendb, 2, MPI_INTEGER, recvb, 2, MPI_INTEGER, MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
        call MPI_Ialltoallv(sendb, ones, steps, MPI_INTEGER, recvb, ones, steps, MPI_INTEGER, MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
        call MPI_Ialltoallw(sendb, ones, bsteps, ints, recvb, ones, bsteps, ints, MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
        call MPI_Ireduce(sendb, recvb, 6, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
        call MPI_Iallreduce(sendb, recvb, 6, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
        call MPI_Ireduce_scatter(sendb, recvb, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
        call MPI_Ireduce_scatter_block(sendb, recvb, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
        call MPI_Iscan(sendb, recvb, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
        call MPI_Iexscan(sendb, recvb, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, q, ierr)
        call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
      else
        call MPI_Gather(sendb, 5, MPI_INTEGER, recvb, 5, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
        call MPI_Gatherv(sendb, rank + 1, MPI_INTEGER, recvb, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
        call MPI_Scatter(sendb, 5, MPI_INTEGER, recvb, 5, MPI_INTEGER, 2, MPI_COMM_WORLD, ierr)
        call MPI_Scatterv(sendb, counts, displs, MPI_INTEGER, recvb, rank + 1, MPI_INTEGER, 3, MPI_COMM_WORLD, ierr)
        call MPI_Allgather(sendb, 5, MPI_INTEGER, recvb, 5, MPI_INTEGER, MPI_COMM_WORLD, ierr)
        call MPI_Allgatherv(sendb, rank + 1, MPI_INTEGER, recvb, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
        call MPI_Alltoall(sendb, 2, MPI_INTEGER, recvb, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
        call MPI_Alltoallv(sendb, ones, steps, MPI_INTEGER, recvb, ones, steps, MPI_INTEGER, MPI_COMM_WORLD, ierr)
        call MPI_Alltoallw(sendb, ones, bsteps, ints, recvb, ones, bsteps, ints, MPI_COMM_WORLD, ierr)
        call MPI_Reduce(sendb, recvb, 6, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
        call MPI_Allreduce(sendb, recvb, 6, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
        call MPI_Reduce_scatter(sendb, recvb, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
        call MPI_Reduce_scatter_block(sendb, recvb, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
        call MPI_Scan(sendb, recvb, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
        call MPI_Exscan(sendb, recvb, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
      end if
      call add(recvb, 64)
    end do
  end do
  ! In place: the send part is not counted.
  do i = 1, 6
    recvb(i) = rank + i - 1
  end do
#ifdef F08
  call MPI_Allreduce(MPI_IN_PLACE, recvb, 6, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
#else
  ! Through a user-defined sum, as the C program: MPICH's binding creates it through the
  ! C MPI_Op_create, and so with the shim's trampoline; Open MPI's calls PMPI_Op_create.
  call MPI_Op_create(int_sum, .true., usum, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, recvb, 6, MPI_INTEGER, usum, MPI_COMM_WORLD, ierr)
  call MPI_Op_free(usum, ierr)
#endif
  call add(recvb, 6)
  total = 0
  call MPI_Reduce(checksum, total, 1, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0)', 'collectives done: checksum ', total
  call MPI_Finalize(ierr)
contains
  subroutine add(v, m)
    integer, intent(in) :: v(*), m
    integer :: j
    do j = 1, m
      checksum = checksum + int(v(j), 8) * j
    end do
  end subroutine add
end program collectives

#ifndef F08
! The user-defined integer sum of the in-place Allreduce.
subroutine int_sum(invec, inoutvec, len, datatype)
  integer :: len, datatype
  integer :: invec(len), inoutvec(len)
  inoutvec = inoutvec + invec
end subroutine int_sum
#endif
