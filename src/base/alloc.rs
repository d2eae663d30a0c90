//! The shim's own heap: every Rust allocation of the shim comes from dlmalloc over its
//! own mmap'd memory, never from the application's malloc.
//!
//! Why (rule 1, the application behaves as without us): glibc's malloc keeps state that
//! follows what was allocated and freed. It raises its mmap threshold to the size of the
//! largest mapped block freed (mallopt(3): M_MMAP_THRESHOLD is dynamic), and blocks freed
//! below a live one stay as holes the next request is served from. When the calibration's
//! buffers and bootstrap tables came from malloc and were freed inside MPI_Init, the
//! application's later 256 KiB blocks landed on the heap instead of in mappings of their
//! own, and the MPI moved them differently: a 2-rank 256 KiB MPI_Allreduce took 134 µs
//! for the rest of the job against 52–55 µs with LOGGP_CALIBRATE=off (Open MPI vader),
//! 150 µs against 58 µs under MPICH. Sending only the large blocks to mmap fixed the time
//! (48–49 µs either way) but still left holes of small blocks: rank 0's 256 KiB block
//! was then served from one. `tests/c/malloc_state.c` checks the application's view.
//!
//! dlmalloc's global instance takes one lock per call; nothing on the hot path allocates
//! (rule 3), so the lock is only taken at MPI_Init, MPI_Finalize, in the writer thread and
//! in the tool.
#[global_allocator]
static ALLOCATOR: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

#[cfg(test)]
mod tests {
    #[test]
    fn blocks_of_every_size_are_usable() {
        let mut v = vec![0u8; 1 << 20];
        v[12345] = 7;
        v.resize(3 << 20, 1);
        assert_eq!((v[12345], v[(3 << 20) - 1]), (7, 1));
        v.truncate(100);
        v.shrink_to_fit();
        assert_eq!(v.len(), 100);
        let small: Vec<u64> = (0..1000).collect();
        assert_eq!(small.iter().sum::<u64>(), 499500);
    }
}
