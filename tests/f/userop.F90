! A user-defined sum of doubles through a Fortran binding: -DF08 (use mpi_f08),
! -DUSEMPI (use mpi) or -DMPIFH (mpif.h). ITER Allreduces of N doubles by it; the sum
! counts its own calls and elements, and each rank prints
! "user_op_calls <rank> <calls> <elements>", then rank 0 a checksum of the results (the
! same with and without the shim). 2 ranks.
module counted
  implicit none
  integer(kind=8) :: calls = 0, elements = 0
end module counted

#ifdef F08
subroutine usum(invec, inoutvec, len, datatype)
  use mpi_f08
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
  use counted
  implicit none
  type(c_ptr), value :: invec, inoutvec
  integer :: len
  type(MPI_Datatype) :: datatype
  double precision, pointer :: a(:), b(:)
  call c_f_pointer(invec, a, [len])
  call c_f_pointer(inoutvec, b, [len])
  b = a + b
  calls = calls + 1
  elements = elements + len
end subroutine usum
#else
subroutine usum(invec, inoutvec, len, datatype)
  use counted
  implicit none
  integer :: len, datatype
  double precision :: invec(len), inoutvec(len)
  inoutvec = invec + inoutvec
  calls = calls + 1
  elements = elements + len
end subroutine usum
#endif

program userop
#ifdef F08
  use mpi_f08
#elif defined(USEMPI)
  use mpi
#endif
  use counted
  implicit none
#ifdef MPIFH
  include 'mpif.h'
#endif
  integer, parameter :: N = 512, ITER = 50
  integer :: ierr, rank, size, it, i
  double precision :: x(N), y(N), checksum
#ifdef F08
  type(MPI_Op) :: op
  procedure(MPI_User_function) :: usum
#else
  integer :: op
  external usum
#endif
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Op_create(usum, .true., op, ierr)
  checksum = 0
  do it = 1, ITER
    do i = 1, N
      x(i) = rank * 1000 + it + i
    end do
    call MPI_Allreduce(x, y, N, MPI_DOUBLE_PRECISION, op, MPI_COMM_WORLD, ierr)
    checksum = checksum + sum(y)
  end do
  call MPI_Op_free(op, ierr)
  print '(A,I0,A,I0,A,I0)', 'user_op_calls ', rank, ' ', calls, ' ', elements
  if (rank == 0) print '(A,F20.1)', 'checksum ', checksum
  call MPI_Finalize(ierr)
end program userop
