//! One-sided windows (MPI 4.0 §12): created and freed calls counted and timed, with each
//! window's communicator kept (`record::windows`); MPI_Win_fence, collective over the
//! window's group (§12.5.1), recorded with the group's size and numbered and kept like a
//! collective on its communicator, so that the waits' split finds who entered each fence
//! last (a rank that reaches the fence early waits there for the others).
use super::coll::{comm_size, named, pause_since_last};
use super::common::timed;
use crate::base::mpi::{self, MPI_Comm, MPI_Win};
use crate::base::runtime::protect;
use crate::record::samples;
use crate::record::stats::record_in;
use crate::record::windows;
use loggp_report::{Mode, PeerClass};
use std::os::raw::c_int;

/// A window created on `comm` (MPI_Win_create, _allocate, _allocate_shared,
/// _create_dynamic); `win` reads the new handle after the call.
#[inline(always)]
pub(crate) fn window_created(
    func: u8,
    mode: Mode,
    comm: MPI_Comm,
    win: impl FnOnce() -> MPI_Win,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let rc = super::counted(func, mode, || 0, call);
    if rc == mpi::success() {
        protect(|| windows::created(win(), named(comm), comm_size(comm)));
    }
    rc
}

/// MPI_Win_free: the window's entry is let go before the call frees the handle.
#[inline(always)]
pub(crate) fn window_freed(
    func: u8,
    mode: Mode,
    win: impl FnOnce() -> MPI_Win,
    call: impl FnOnce() -> c_int,
) -> c_int {
    protect(|| windows::freed(win()));
    super::counted(func, mode, || 0, call)
}

/// MPI_Win_fence on `win`.
#[inline(always)]
pub(crate) fn fence(func: u8, mode: Mode, win: MPI_Win, call: impl FnOnce() -> c_int) -> c_int {
    let (rc, t0, t1) = timed(func, None, call);
    protect(|| {
        let group = windows::group_of(win);
        let n = group.map_or(0, |g| g.1);
        record_in(func, mode, PeerClass::Unknown, 0, 0, t1.wrapping_sub(t0), n);
        if let (true, Some((name, n))) = (rc == mpi::success(), group) {
            let pause = pause_since_last(name, func, t0, t1);
            if let Some(k) = samples::number_coll(func, name) {
                samples::keep_coll(k, func, n, (0, 0), [t0, t0, t1, pause]);
            }
        }
    });
    rc
}
