//! What an intercepted call does around its PMPI_ call, one function per family of MPI
//! calls. Each hook: read the clock, make the call, read the clock, then record — the
//! recording is wrapped by `protect`, so a fault stops profiling instead of the job.
//! Return codes and out-arguments are the call's own. Where the shim needs a status the
//! user did not ask for (the source of a wildcard receive, a cancellation), it passes its
//! own in place of MPI_STATUS_IGNORE for single-request calls only: for the array
//! variants that would change what MPI_ERR_IN_STATUS reports.
//!
//! Every hook takes the function's id and mode first (`hook(id, mode, …)`, as the
//! function table calls it), then the call's arguments, and last the call itself.
pub mod access;
pub mod coll;
pub mod common;
pub mod complete;
pub mod completion;
pub mod counted;
pub mod epoch;
pub mod exchange;
pub mod neighbor;
pub mod p2p;
pub mod persistent;
pub mod probe;
pub mod user_op;
pub mod window;

pub(crate) use crate::record::epochs::Epoch;
#[cfg(mpi_persistent_coll)]
pub(crate) use coll::init_collective;
pub(crate) use coll::{bytes, collective, icollective, reduction};
pub(crate) use common::Types;
pub(crate) use complete::{wait_all, wait_any, wait_one, wait_some};
pub(crate) use counted::{counted, counted_request, data};
pub(crate) use epoch::{epoch_closed, epoch_opened, epoch_tested};
#[cfg(mpi_isendrecv)]
pub(crate) use exchange::isendrecv;
pub(crate) use exchange::sendrecv;
pub(crate) use p2p::{blocking_recv, blocking_send, start_nonblocking};
pub(crate) use persistent::{cancel, comm_free, request_free, start, startall};
pub(crate) use probe::{mprobe, mrecv, probe};
pub(crate) use user_op::op_create;
#[cfg(mpi_large_count)]
pub(crate) use user_op::op_create_c;
pub(crate) use user_op::op_create_f;
pub(crate) use window::{
    comm_disconnected, fence, file_closed, file_collective, file_icollective, file_opened,
    group_collective, window_created, window_freed,
};
