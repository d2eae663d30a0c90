! Issue 24 §2: a call site through Fortran `use mpi`. Rank 0 sends to rank 1 six times
! from one line (marked); built with -g. 2 ranks.
program callsites
  use mpi
  implicit none
  integer :: ierr, rank, i, buf(10)
  buf = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  do i = 1, 6
    if (rank == 0) then
      call MPI_Send(buf, 10, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, ierr) ! SITE_F
    else if (rank == 1) then
      call MPI_Recv(buf, 10, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end if
  end do
  if (rank == 0) print *, 'sent', 6
  call MPI_Finalize(ierr)
end program callsites
