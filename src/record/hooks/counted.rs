//! Calls counted and timed with the data they name, without a message model: one-sided
//! communication (MPI 4.0 §12) and I/O (§14), as the function table's `rma.rs` and
//! `io.rs` rows call them. Each call is one record under its function, mode `none` and
//! peer class `unknown` (so neither the passive model nor the waits' sample takes it in),
//! binned by its bytes, and counts in the rank's time in MPI.
use super::common::{msg_bytes, timed};
use crate::base::mpi::MPI_Datatype;
use crate::base::runtime::protect;
use crate::record::requests;
use crate::record::stats::record;
use loggp_report::{Mode, PeerClass};
use std::os::raw::c_int;

/// The call, timed; then its record with `bytes` (run after the call: the datatypes it
/// reads are the caller's, which the call does not free).
#[inline(always)]
pub(crate) fn counted(
    func: u8,
    mode: Mode,
    bytes: impl FnOnce() -> u64,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let (rc, t0, t1) = timed(func, None, call);
    protect(|| {
        let b = bytes();
        record(func, mode, PeerClass::Unknown, b, b, t1.wrapping_sub(t0));
    });
    rc
}

/// A call that starts a request (MPI_File_iwrite_at, MPI_Rput, …): counted as above, and
/// its request followed to the call that completes it, under mode `none`, so that the
/// time of a Wait or Test that completes only such requests is not taken for message
/// time (`completion::OTHER_COMPLETION_TICKS`). `request` reads the new handle.
#[inline(always)]
pub(crate) fn counted_request(
    func: u8,
    mode: Mode,
    bytes: impl FnOnce() -> u64,
    request: impl FnOnce() -> Option<u64>,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let rc = counted(func, mode, bytes, call);
    if rc == crate::base::mpi::success() {
        protect(|| {
            if let Some(req) = request() {
                requests::insert(req, requests::Info::other());
            }
        });
    }
    rc
}

/// The bytes of `count` elements of `datatype` (0 for a negative count or on error).
#[inline(always)]
pub(crate) fn data(count: c_int, datatype: MPI_Datatype) -> u64 {
    msg_bytes(count as i64, datatype)
}
