"""mpi4py through both of its APIs, with counts it knows.

Object API: comm.send pickles and calls MPI_Send; comm.recv matches with MPI_Mprobe and
receives with MPI_Mrecv. Buffer API: comm.Send / comm.Recv / comm.Isend + Wait.
Rank 0 prints "EXPECT <function> <count> <bytes>" summed over both ranks."""
import sys
from array import array
from mpi4py import MPI


comm = MPI.COMM_WORLD
rank, peer = comm.Get_rank(), comm.Get_rank() ^ 1
N = 20
objs = [{"i": i, "data": list(range(i * 10))} for i in range(N)]
pickled = sum(len(MPI.pickle.dumps(o)) for o in objs)
buf = bytearray(4096)

if rank == 0:
    for o in objs:
        comm.send(o, dest=peer, tag=1)
    for _ in range(N):
        comm.Send([buf, 1000, MPI.BYTE], dest=peer, tag=2)
    reqs = [comm.Isend([buf, 64, MPI.BYTE], dest=peer, tag=3) for _ in range(N)]
    MPI.Request.Waitall(reqs)
else:
    got = [comm.recv(source=peer, tag=1) for _ in range(N)]
    assert got == objs
    for _ in range(N):
        comm.Recv([buf, 1000, MPI.BYTE], source=peer, tag=2)
    for _ in range(N):
        comm.Recv([buf, 64, MPI.BYTE], source=MPI.ANY_SOURCE, tag=3)
comm.Barrier()
# Collectives through the buffer API, with the bytes the standard counts per rank:
# Allreduce 8 ints sent and received (64 B), Bcast 8 ints (32 B), Alltoall 2 ints to and
# from each of the 2 ranks (32 B).
a, b = array("i", range(8)), array("i", [0] * 8)
comm.Allreduce([a, MPI.INT], [b, MPI.INT], op=MPI.SUM)
assert list(b) == [2 * i for i in range(8)]
c = array("i", range(8)) if rank == 0 else array("i", [0] * 8)
comm.Bcast([c, MPI.INT], root=0)
assert list(c) == list(range(8))
s, r = array("i", [rank * 10 + i for i in range(4)]), array("i", [0] * 4)
comm.Alltoall([s, MPI.INT], [r, MPI.INT])
assert list(r) == [0 + 2 * rank, 1 + 2 * rank, 10 + 2 * rank, 11 + 2 * rank]
if rank == 0:
    print("EXPECT MPI_Barrier 2 0")
    print("EXPECT MPI_Allreduce 2 128")
    print("EXPECT MPI_Bcast 2 64")
    print("EXPECT MPI_Alltoall 2 64")
    print("EXPECT MPI_Send %d %d" % (2 * N, pickled + N * 1000))
    print("EXPECT MPI_Mprobe %d 0" % N)
    print("EXPECT MPI_Mrecv %d %d" % (N, pickled))
    print("EXPECT MPI_Recv %d %d" % (2 * N, N * 1000 + N * 64))
    print("EXPECT MPI_Isend %d %d" % (N, N * 64))
    print("EXPECT MPI_Waitall 1 0")
sys.stdout.flush()
