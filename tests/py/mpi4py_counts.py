"""mpi4py through both of its APIs, with counts it knows.

Object API: comm.send pickles and calls MPI_Send; comm.recv matches with MPI_Mprobe and
receives with MPI_Mrecv. Buffer API: comm.Send / comm.Recv / comm.Isend + Wait.
Rank 0 prints "EXPECT <function> <count> <bytes>" summed over both ranks."""
import sys
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
if rank == 0:
    print("EXPECT MPI_Send %d %d" % (2 * N, pickled + N * 1000))
    print("EXPECT MPI_Mprobe %d 0" % N)
    print("EXPECT MPI_Mrecv %d %d" % (N, pickled))
    print("EXPECT MPI_Recv %d %d" % (2 * N, N * 1000 + N * 64))
    print("EXPECT MPI_Isend %d %d" % (N, N * 64))
    print("EXPECT MPI_Waitall 1 0")
sys.stdout.flush()
