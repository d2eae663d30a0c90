! A Fortran point-to-point call whose MPI routine loggp cannot find (the test setting
! LOGGP_INJECT_FAULT=fortran_missing hides it): the call must fail, never succeed silently.
program missing
  use mpi
  implicit none
  integer :: ierr, buf(1)
  call MPI_INIT(ierr)
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  buf(1) = 7
  call MPI_SEND(buf, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, ierr)
  print '(A,I0)', 'send ierror ', ierr
  call MPI_FINALIZE(ierr)
end program missing
