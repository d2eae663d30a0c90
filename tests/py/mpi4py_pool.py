# mpi4py.futures (Debian's mpi4py, on Open MPI): one process starts two workers with
# MPI_Comm_spawn (MPIPoolExecutor) and maps a function over them. Prints the sum of the
# squares of 0..99, 328350.
from mpi4py.futures import MPIPoolExecutor


def square(x):
    return x * x


if __name__ == "__main__":
    with MPIPoolExecutor(max_workers=2) as pool:
        print(sum(pool.map(square, range(100))))
