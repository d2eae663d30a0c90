! The Fortran side of tests/c/spawn.c, through one binding, -DF08 (use mpi_f08) or
! -DUSEMPI (use mpi): the two ranks spawn two more processes of this program
! (MPI_COMM_SPAWN, whose COMMAND and ARGV are CHARACTER arguments with hidden lengths);
! rank 0 of each world exchanges one integer over the intercommunicator; each world
! disconnects. Output: "parent got 43".
!   spawn_f <its own path>
program spawn
#ifdef F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer :: rank, ierr, x, errs(2)
#ifdef F08
  type(MPI_Comm) :: parent, inter
#else
  integer :: parent, inter
#endif
  character(len=1024) :: me
  call MPI_Init(ierr)
  call MPI_Comm_get_parent(parent, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (parent == MPI_COMM_NULL) then
    call get_command_argument(1, me)
    call MPI_Comm_spawn(trim(me), MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &
                        inter, errs, ierr)
    if (rank == 0) then
      x = 42
      call MPI_Send(x, 1, MPI_INTEGER, 0, 7, inter, ierr)
      call MPI_Recv(x, 1, MPI_INTEGER, 0, 8, inter, MPI_STATUS_IGNORE, ierr)
      print '(a,i0)', 'parent got ', x
    end if
    call MPI_Comm_disconnect(inter, ierr)
  else
    if (rank == 0) then
      call MPI_Recv(x, 1, MPI_INTEGER, 0, 7, parent, MPI_STATUS_IGNORE, ierr)
      x = x + 1
      call MPI_Send(x, 1, MPI_INTEGER, 0, 8, parent, ierr)
    end if
    call MPI_Comm_disconnect(parent, ierr)
  end if
  call MPI_Finalize(ierr)
end program spawn
