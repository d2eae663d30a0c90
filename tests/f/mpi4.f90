! MPI-4 calls through MPICH's `use mpi_f08` (issue 13 §3): a count of kind MPI_COUNT_KIND
! selects the large-count binding, which calls the C MPI_Send_c / MPI_Recv_c; MPI_Isendrecv
! is new in MPI 4.0. 2 ranks. Rank 0 prints "EXPECT <function> <count> <bytes>" for both.
program mpi4
  use mpi_f08
  implicit none
  integer :: rank, peer
  integer(kind=MPI_COUNT_KIND) :: n
  integer :: a(1000), b(1000)
  type(MPI_Request) :: rq
  type(MPI_Status) :: st
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  peer = ieor(rank, 1)
  n = 1000
  a = rank
  if (rank == 0) then
     call MPI_Send(a, n, MPI_INTEGER, peer, 1, MPI_COMM_WORLD)
     call MPI_Recv(b, n, MPI_INTEGER, peer, 2, MPI_COMM_WORLD, st)
  else
     call MPI_Recv(b, n, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, st)
     call MPI_Send(a, n, MPI_INTEGER, peer, 2, MPI_COMM_WORLD)
  end if
  call MPI_Isendrecv(a, 10, MPI_INTEGER, peer, 3, b, 10, MPI_INTEGER, peer, 3, MPI_COMM_WORLD, rq)
  call MPI_Wait(rq, st)
  print '(A,I0,A,I0)', 'r', rank, ' got ', b(1)
  if (rank == 0) then
     print '(A)', 'EXPECT MPI_Send_c 2 8000'
     print '(A)', 'EXPECT MPI_Recv_c 2 8000'
     print '(A)', 'EXPECT MPI_Isendrecv 2 160'
     print '(A)', 'EXPECT MPI_Wait 2 0'
  end if
  call MPI_Finalize()
end program
