! The Fortran side of tests/c/rma_io.c (tests/rma_io.rs holds the counts): communicator
! constructors, one-sided calls and MPI-IO through one binding, -DF08 (use mpi_f08) or
! -DUSEMPI (use mpi), 2 ranks. Prints what it fetched and read back.
!   rma_io_f <file path>
program rma_io
#ifdef F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer :: rank, nranks, ierr, i, right, left
#ifdef F08
  type(MPI_Group) :: wgroup, from, to
  type(MPI_Comm) :: split, cart
  type(MPI_Win) :: win
  type(MPI_File) :: fh
  type(MPI_Status) :: st
  type(MPI_Request) :: rq
#else
  integer :: split, cart, win, fh, rq, wgroup, from, to
  integer :: st(MPI_STATUS_SIZE)
#endif
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  integer(kind=MPI_OFFSET_KIND) :: off, fsize
  double precision :: local(64), src(64), dst(64)
  integer :: wbuf(64), rbuf(64), dims(1)
  logical :: periods(1)
  character(len=1024) :: path
  character(len=1100) :: gone
  double precision :: fetched, fetched_all
  double precision :: readsum, readsum_all

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, path)
  right = mod(rank + 1, nranks)
  do i = 1, 64
    src(i) = rank * 100 + i
    local(i) = 0
    dst(i) = 0
    wbuf(i) = rank * 1000 + i
    rbuf(i) = 0
  end do

  ! Communicator constructors.
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, split, ierr)
  dims(1) = nranks
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierr)

  ! One-sided: fences, then a passive-target epoch.
  winsize = 64 * 8
  disp = 0
  call MPI_Win_create(local, winsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  do i = 1, 3
    call MPI_Win_fence(0, win, ierr)
    call MPI_Put(src, 16, MPI_DOUBLE_PRECISION, right, disp, 16, MPI_DOUBLE_PRECISION, win, ierr)
    call MPI_Win_fence(0, win, ierr)
    call MPI_Get(dst, 8, MPI_DOUBLE_PRECISION, right, disp, 8, MPI_DOUBLE_PRECISION, win, ierr)
  end do
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win, ierr)
  call MPI_Accumulate(src, 4, MPI_DOUBLE_PRECISION, right, disp, 4, MPI_DOUBLE_PRECISION, &
                      MPI_SUM, win, ierr)
  call MPI_Win_unlock(right, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  ! General active-target synchronization with the neighbours (an epoch of no access).
  left = mod(rank + nranks - 1, nranks)
  call MPI_Comm_group(MPI_COMM_WORLD, wgroup, ierr)
  call MPI_Group_incl(wgroup, 1, [left], from, ierr)
  call MPI_Group_incl(wgroup, 1, [right], to, ierr)
  call MPI_Win_post(from, 0, win, ierr)
  call MPI_Win_start(to, 0, win, ierr)
  call MPI_Win_complete(win, ierr)
  call MPI_Win_wait(win, ierr)
  call MPI_Group_free(from, ierr)
  call MPI_Group_free(to, ierr)
  call MPI_Group_free(wgroup, ierr)
  fetched = sum(dst) + sum(local)
  call MPI_Win_free(win, ierr)

  ! I/O, explicit offsets (MPI_File_open and MPI_File_set_view have a CHARACTER
  ! argument, whose hidden length the shim's entry points pass on).
  call MPI_File_open(MPI_COMM_WORLD, trim(path), MPI_MODE_CREATE + MPI_MODE_RDWR, &
                     MPI_INFO_NULL, fh, ierr)
  off = 0
  call MPI_File_set_view(fh, off, MPI_BYTE, MPI_BYTE, 'native', MPI_INFO_NULL, ierr)
  off = rank * 4096
  call MPI_File_write_at(fh, off, wbuf, 16, MPI_INTEGER, st, ierr)
  call MPI_File_write_at_all(fh, off + 64, wbuf, 32, MPI_INTEGER, st, ierr)
  call MPI_File_iwrite_at(fh, off + 192, wbuf, 8, MPI_INTEGER, rq, ierr)
  call MPI_Wait(rq, st, ierr)
  call MPI_File_get_size(fh, fsize, ierr)
  call MPI_File_set_atomicity(fh, .false., ierr)
  call MPI_File_seek(fh, off, MPI_SEEK_SET, ierr)
  call MPI_File_get_position(fh, fsize, ierr)
  call MPI_File_sync(fh, ierr)
  call MPI_File_read_at_all(fh, off, rbuf, 16, MPI_INTEGER, st, ierr)
  call MPI_File_close(fh, ierr)
  ! Each rank deletes a file of its own, written by none (an error returned: files' default
  ! handler is MPI_ERRORS_RETURN; the call counts).
  write(gone, '(a, a, i0)') trim(path), '.gone.', rank
  call MPI_File_delete(trim(gone), MPI_INFO_NULL, ierr)
  readsum = dble(sum(rbuf))

  call MPI_Reduce(fetched, fetched_all, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Reduce(readsum, readsum_all, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, f12.1, a, f12.1)', 'fetched ', fetched_all, ' read ', readsum_all
  call MPI_Comm_free(split, ierr)
  call MPI_Comm_free(cart, ierr)
  call MPI_Finalize(ierr)
end program rma_io
