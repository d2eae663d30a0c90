/* Whether the application's allocator is left as it was (rule 1): after MPI_Init, a
 * 256 KiB malloc still gets its own mapping, as glibc gives any block above its mmap
 * threshold (128 KiB until the program frees a larger mapped block, mallopt(3)). A
 * library that mallocs and frees larger buffers inside MPI_Init moves that threshold and
 * the block lands on the heap instead. glibc marks a mapped chunk with bit 1 (IS_MMAPPED)
 * of the size word just before the block. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char *p = malloc(256 * 1024);
  size_t word = ((size_t *)p)[-1];
  printf("rank %d: a 256 KiB block after MPI_Init is mapped: %d\n", rank, (int)((word >> 1) & 1));
  free(p);
  MPI_Finalize();
  return 0;
}
