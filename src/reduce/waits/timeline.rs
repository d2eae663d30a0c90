//! The timeline's calls (`Waits::trace`, `loggp trace`): which are kept, the number
//! that names a message at both ends, and the one origin and scale of every rank's times.
use crate::base::mpi::{self, MPI_Comm};
use crate::record::samples::{Coll, P2p};

/// Timeline caps per rank (see `Waits::trace`).
pub(super) const TRACE_MESSAGES: usize = 2048;
pub(super) const TRACE_COLLECTIVES: usize = 512;

/// A message's number on the timeline, the same at both ends: its channel and sequence
/// number mixed, below 2^52 (exact in a JSON reader's doubles).
pub(super) fn flow_id(channel: u64, seq: u64) -> u64 {
    (channel ^ seq.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xBF58_476D_1CE4_E5B9) >> 12
}

/// The timeline's origin and scale, the same on every rank: the earliest sampled tick of
/// the job (on rank 0's counter) and rank 0's ns per tick. Each rank's own tick length
/// differs in the fifth or sixth digit, and the counter's absolute values run to 10^15:
/// scaled by its own, ranks sharing one counter were tens of µs to tens of ms apart.
pub(super) fn timeline_scale(comm: MPI_Comm, p2p: &[P2p], coll: &[Coll]) -> (u64, f64) {
    let earliest = p2p
        .iter()
        .flat_map(|s| s[3..6].iter().copied())
        .chain(coll.iter().flat_map(|c| c[2..4].iter().copied()))
        .filter(|&t| t > 0)
        .min()
        .unwrap_or(u64::MAX);
    // u64::MAX − earliest: the largest over the ranks is the earliest of all.
    let mine = u64::MAX - earliest;
    let mut out = 0u64;
    let mut ns0 = crate::reduce::cells::ns_per_tick().to_bits();
    // SAFETY: one u64 each way, then one broadcast from rank 0; private communicator.
    unsafe {
        mpi::PMPI_Allreduce(
            &mine as *const u64 as *const _,
            &mut out as *mut u64 as *mut _,
            1,
            mpi::dt_u64(),
            mpi::op_max(),
            comm,
        );
        mpi::PMPI_Bcast(&mut ns0 as *mut u64 as *mut _, 1, mpi::dt_u64(), 0, comm);
    }
    (u64::MAX - out, f64::from_bits(ns0))
}
