! MPI_PCONTROL through one Fortran binding, chosen at compile time: -DMPIFH, -DUSEMPI,
! -DF08. 2 ranks make 40 ping-pongs of 4 integers: 10 profiled, 20 inside
! MPI_PCONTROL(0) ... MPI_PCONTROL(1), 10 profiled again. Each rank prints the sum it
! received (identical with and without the shim).
program pcontrol
#ifdef F08
  use mpi_f08
#elif defined(USEMPI)
  use mpi
#endif
  implicit none
#ifdef MPIFH
  include 'mpif.h'
#endif
  integer :: ierr, rank, peer, i, total
  integer :: a(4), b(4)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  peer = 1 - rank
  total = 0
  do i = 1, 40
    if (i == 11) call MPI_Pcontrol(0)
    if (i == 31) call MPI_Pcontrol(1)
    a = rank + i
    if (rank == 0) then
      call MPI_Send(a, 4, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, ierr)
      call MPI_Recv(b, 4, MPI_INTEGER, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else
      call MPI_Recv(b, 4, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(a, 4, MPI_INTEGER, peer, 2, MPI_COMM_WORLD, ierr)
    end if
    total = total + b(1)
  end do
  print '(a,i0,a,i0)', 'r', rank, ' received ', total
  call MPI_Finalize(ierr)
end program pcontrol
