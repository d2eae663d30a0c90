//! Collectives the model leaves unpriced because no algorithm runs: on a communicator of
//! one rank, and of count 0 where the MPI returns at once.
use loggp_report::{CollectiveModel, Report};

/// The note of a collective on a communicator of one rank, which is not priced.
pub const ONE_RANK: &str = "one rank: no messages and no algorithm to choose (Open MPI's coll self, MPICH's local copy), so not priced";

/// The note of a collective of count 0 that the MPI returns from at once.
pub const NOTHING_AT_COUNT_0: &str = "a count of 0: the MPI returns at once, with no message and no algorithm run (Open MPI 4.1 before its coll component, ompi/mpi/c/<collective>.c; MPICH 4.0 before any message), so not priced";

/// Whether this MPI returns at once from `coll` called with a count of 0. Open MPI 4.1:
/// MPI_Bcast, MPI_Allreduce, MPI_Reduce, MPI_Allgather and MPI_Alltoall return before the
/// coll component (ompi/mpi/c/*.c); MPICH 4.0: the same but MPI_Allreduce, which still
/// exchanges messages. Measured (2 ranks, 20000 calls each, 2026-11-30): Open MPI 3–6 ns
/// a call at count 0 against 67–385 ns at count 1; MPICH 5–68 ns for its four, and its
/// MPI_Allreduce 308 ns against 501. hpcc's 0-byte MPI_Bcast was priced 307 ns, measured
/// 11 ns.
pub(super) fn returns_at_count_0(r: &Report, coll: &str) -> bool {
    match r.job.mpi_flavor.as_str() {
        "openmpi" => matches!(
            coll,
            "bcast" | "allreduce" | "reduce" | "allgather" | "alltoall"
        ),
        "mpich" => matches!(coll, "bcast" | "reduce" | "allgather" | "alltoall"),
        _ => false,
    }
}

/// Whether a row is of count 0 that this MPI returns from at once
/// ([`NOTHING_AT_COUNT_0`]): neither priced nor advised on. Read from the row and the
/// report (every call of the row moved nothing), not from its note, whose words change.
pub fn nothing_at_count_0(r: &Report, x: &CollectiveModel) -> bool {
    x.comm_size > 1
        && x.size_hi_bytes == 0
        && super::short_name(&x.function).is_some_and(|c| returns_at_count_0(r, c))
}
