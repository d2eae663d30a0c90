! Point-to-point through one Fortran binding, chosen at compile time:
! -DMPIFH (include 'mpif.h'), -DUSEMPI (use mpi), -DF08 (use mpi_f08). 2 ranks.
! Prints what it observed (identical with and without the shim) and rank 0 prints
! "EXPECT <function> <count> <bytes>" for both ranks together (rank 1 those of its polls,
! whose count depends on the timing).
#ifdef F08
#define STATUSES type(MPI_Status) :: st, sts(2)
#define REQ_T type(MPI_Request)
#define SRC(s) s%MPI_SOURCE
#define TAG(s) s%MPI_TAG
#define TAG_OF_FIRST(a) a(1)%MPI_TAG
#else
#define STATUSES integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2)
#define REQ_T integer
#define SRC(s) s(MPI_SOURCE)
#define TAG(s) s(MPI_TAG)
#define TAG_OF_FIRST(a) a(MPI_TAG, 1)
#endif
program p2p
#ifdef F08
  use mpi_f08
#elif defined(USEMPI)
  use mpi
#endif
  implicit none
#ifdef MPIFH
  include 'mpif.h'
#endif
  integer :: ierr, rank, peer, i, n, total, ntest, nprobe, ntestall
  logical :: flag
  integer :: a(1000), b(1000), vals(4)
  STATUSES
  REQ_T :: req(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  peer = 1 - rank
  a = rank

  ! 10 blocking ping-pongs of 100 integers (400 bytes), status ignored on one side
  do i = 1, 10
    if (rank == 0) then
      call MPI_Send(a, 100, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, ierr)
      call MPI_Recv(b, 100, MPI_INTEGER, peer, 2, MPI_COMM_WORLD, st, ierr)
    else
      call MPI_Recv(b, 100, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(a, 100, MPI_INTEGER, peer, 2, MPI_COMM_WORLD, ierr)
    end if
  end do
  print '(a,i0,a,i0,a,i0)', 'r', rank, ' pingpong b1=', b(1), ' src=', SRC(st) * (1 - rank)

  ! 5 nonblocking exchanges of 1000 integers, Waitall with statuses
  do i = 1, 5
    call MPI_Irecv(b, 1000, MPI_INTEGER, peer, 3, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Isend(a, 1000, MPI_INTEGER, peer, 3, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Waitall(2, req, sts, ierr)
  end do
  print '(a,i0,a,i0,a,i0)', 'r', rank, ' waitall tag=', TAG_OF_FIRST(sts), ' b1=', b(1)

  ! 3 Sendrecv of 10 integers each way; 2 Ssend; a probe then a wildcard receive
  do i = 1, 3
    call MPI_Sendrecv(a, 10, MPI_INTEGER, peer, 4, b, 10, MPI_INTEGER, peer, 4, MPI_COMM_WORLD, st, ierr)
  end do
  if (rank == 0) then
    call MPI_Ssend(a, 7, MPI_INTEGER, peer, 5, MPI_COMM_WORLD, ierr)
    call MPI_Ssend(a, 7, MPI_INTEGER, peer, 5, MPI_COMM_WORLD, ierr)
  else
    call MPI_Probe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, st, ierr)
    call MPI_Get_count(st, MPI_INTEGER, n, ierr)
    call MPI_Recv(b, n, MPI_INTEGER, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Recv(b, 7, MPI_INTEGER, peer, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
    print '(a,i0,a,i0,a,i0)', 'r', rank, ' probe n=', n, ' tag=', TAG(st)
  end if

  ! Polling (Open MPI's use mpi_f08 calls PMPI_ itself for these): MPI_Test until a
  ! message arrives, MPI_Iprobe until one is there, MPI_Testall; rank 1 counts its polls.
  if (rank == 0) then
    call MPI_Send(a, 4, MPI_INTEGER, peer, 6, MPI_COMM_WORLD, ierr)
    call MPI_Send(a, 4, MPI_INTEGER, peer, 7, MPI_COMM_WORLD, ierr)
    call MPI_Send(a, 4, MPI_INTEGER, peer, 8, MPI_COMM_WORLD, ierr)
  else
    ntest = 0
    nprobe = 0
    ntestall = 0
    call MPI_Irecv(b, 4, MPI_INTEGER, peer, 6, MPI_COMM_WORLD, req(1), ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Test(req(1), flag, st, ierr)
      ntest = ntest + 1
    end do
    flag = .false.
    do while (.not. flag)
      call MPI_Iprobe(peer, 7, MPI_COMM_WORLD, flag, st, ierr)
      nprobe = nprobe + 1
    end do
    call MPI_Recv(b, 4, MPI_INTEGER, peer, 7, MPI_COMM_WORLD, st, ierr)
    call MPI_Irecv(b, 4, MPI_INTEGER, peer, 8, MPI_COMM_WORLD, req(1), ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Testall(1, req, flag, sts, ierr)
      ntestall = ntestall + 1
    end do
    print '(a,i0,a)', 'EXPECT MPI_Test ', ntest, ' 0'
    print '(a,i0,a)', 'EXPECT MPI_Iprobe ', nprobe, ' 0'
    print '(a,i0,a)', 'EXPECT MPI_Testall ', ntestall, ' 0'
    print '(a,i0,a,i0)', 'r', rank, ' polled b1=', b(1)
  end if

  ! MPI_IN_PLACE in a collective the program also uses: must be unaffected
  vals = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, vals, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  print '(a,i0,a,i0)', 'r', rank, ' allreduce in_place=', vals(1)

  if (rank == 0) then
    print '(a)', 'EXPECT MPI_Send 23 8048'
    print '(a)', 'EXPECT MPI_Recv 23 8072'
    print '(a)', 'EXPECT MPI_Irecv 12 40032'
    print '(a)', 'EXPECT MPI_Isend 10 40000'
    print '(a)', 'EXPECT MPI_Waitall 10 0'
    print '(a)', 'EXPECT MPI_Sendrecv 6 480'
    print '(a)', 'EXPECT MPI_Ssend 2 56'
    print '(a)', 'EXPECT MPI_Probe 1 0'
    print '(a)', 'EXPECTREQ isend 10 0 0'
    print '(a)', 'EXPECTREQ irecv 12 0 0'
  end if
  total = 0
  call MPI_Finalize(ierr)
end program p2p
