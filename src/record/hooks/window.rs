//! Windows and files, the handles whose calls are collective over the group of the
//! communicator they were created on (`record::groups`); and MPI_Comm_create_group,
//! collective over a group rather than a communicator.
//!
//! One-sided windows (MPI 4.0 §12): created and freed calls counted and timed, with each
//! window's communicator kept; MPI_Win_fence, collective over the window's group
//! (§12.5.1), recorded with the group's size and numbered and kept like a collective on
//! its communicator, so that the waits' split finds who entered each fence last (a rank
//! that reaches the fence early waits there for the others).
//!
//! Files (§14): MPI_File_open, collective over the communicator it names (§14.2.1), kept
//! like a collective there, and the file's communicator kept; the collective calls on an
//! open file (MPI_File_close, _set_size, _preallocate, _sync, _set_view, the `_all` and
//! `_ordered` data access calls) kept like MPI_Win_fence, with the data they name as a
//! collective's bytes; a split collective's `_begin` too (ROMIO and ompio do the
//! collective there). Its `_end` is counted only (`counted`); a nonblocking collective
//! I/O call is numbered at its start and kept at the call that completes it, as a
//! nonblocking collective is (`file_icollective`).
use super::coll::{collective, comm_size, named, pause_since_last, track};
use super::common::timed;
use crate::base::mpi::{self, Handle, MPI_Comm, MPI_File, MPI_Group, MPI_Win};
use crate::base::runtime::{guarded, protect};
use crate::record::groups::{Groups, FILES, WINDOWS};
use crate::record::peers;
use crate::record::requests::{self, Info, Sample};
use crate::record::samples;
use crate::record::stats::record_in;
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
    keep_group(&WINDOWS, rc, comm, || win().bits());
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
    protect(|| WINDOWS.freed(win().bits()));
    super::counted(func, mode, || 0, call)
}

/// MPI_Win_fence on `win`.
#[inline(always)]
pub(crate) fn fence(func: u8, mode: Mode, win: MPI_Win, call: impl FnOnce() -> c_int) -> c_int {
    in_group(func, mode, || WINDOWS.group_of(win.bits()), || 0, call)
}

/// MPI_File_open on `comm`: collective there, as a communicator constructor is; `fh`
/// reads the new handle after the call.
#[inline(always)]
pub(crate) fn file_opened(
    func: u8,
    mode: Mode,
    comm: MPI_Comm,
    fh: impl FnOnce() -> MPI_File,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let rc = collective(func, mode, comm, || 0, call);
    keep_group(&FILES, rc, comm, || fh().bits());
    rc
}

/// MPI_File_close: collective over the file's group, whose entry is let go (the call
/// frees the handle; `fh` reads it before).
#[inline(always)]
pub(crate) fn file_closed(
    func: u8,
    mode: Mode,
    fh: impl FnOnce() -> MPI_File,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let group = guarded("recording", || {
        let bits = fh().bits();
        let group = FILES.group_of(bits);
        FILES.freed(bits);
        group
    })
    .flatten();
    in_group(func, mode, || group, || 0, call)
}

/// A collective call on the open file `fh` (MPI_File_write_all, MPI_File_set_view, …),
/// with the data it names (`bytes`, run after the call).
#[inline(always)]
pub(crate) fn file_collective(
    func: u8,
    mode: Mode,
    fh: MPI_File,
    bytes: impl FnOnce() -> u64,
    call: impl FnOnce() -> c_int,
) -> c_int {
    in_group(func, mode, || FILES.group_of(fh.bits()), bytes, call)
}

/// A nonblocking collective call on the open file `fh` (MPI_File_iwrite_all,
/// MPI_File_iread_at_all, …; MPI 4.0 §14.4.2, §14.4.3): recorded at its start with the
/// file group's size and the data it names, numbered among its function's calls on the
/// file's communicator as a nonblocking collective is (every member starts them in the
/// same order, §14.6.1), and its request followed under mode `collective` to the Wait
/// or Test that completes it, where the collective's members meet (ROMIO's
/// MPI_File_iwrite_at_all: rank 0's MPI_Wait 1.007 ms with the other rank 1 ms late; the
/// start 2.5 µs). A file whose group is not known (its table was full): followed under
/// mode `none`, as an independent nonblocking I/O call is (`counted_request`).
#[inline(always)]
pub(crate) fn file_icollective(
    func: u8,
    mode: Mode,
    fh: MPI_File,
    bytes: impl FnOnce() -> u64,
    request: impl FnOnce() -> Option<u64>,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let (rc, t0, t1) = timed(func, None, call);
    protect(|| {
        let group = FILES.group_of(fh.bits());
        let b = bytes();
        let n = group.map_or(0, |g| g.1);
        record_in(func, mode, PeerClass::Unknown, b, b, t1.wrapping_sub(t0), n);
        let Some((name, n)) = group else {
            if let (true, Some(req)) = (rc == mpi::success(), request()) {
                requests::insert(req, Info::other());
            }
            return;
        };
        let kept = (rc == mpi::success()).then(|| samples::number_coll(func, name));
        let sample = (kept.flatten())
            .map(|(ch, k, stride)| Sample::kept(ch, k, stride, Sample::coll_tag(func, n)));
        let no_comm = MPI_Comm::from_bits(0);
        track(
            rc,
            request,
            Mode::Collective,
            b,
            false,
            t0,
            no_comm,
            sample.unwrap_or_default(),
        );
    });
    rc
}

/// MPI_Comm_disconnect (MPI 4.0 §11.10.4): collective over the communicator it frees
/// (it waits for the communicator's pending messages, and for the other members), so its
/// name and size are read before the call, its cached rank translation let go (as
/// MPI_Comm_free's: the handle may come back for another communicator), and the call
/// numbered and kept like a collective on that name. An intercommunicator's is numbered
/// on its local group, as MPI_Intercomm_merge's is.
#[inline(always)]
pub(crate) fn comm_disconnected(
    func: u8,
    mode: Mode,
    comm: impl FnOnce() -> MPI_Comm,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let group = guarded("recording", || {
        let c = Some(comm()).filter(|c| c.bits() != mpi::comm_null().bits())?;
        let group = (named(c), comm_size(c));
        peers::forget(c);
        Some(group)
    })
    .flatten();
    in_group(func, mode, || group, || 0, call)
}

/// MPI_Comm_create_group (MPI 4.0 §7.4.2): collective over the members of `group`
/// only, so numbered and kept on a name its members give it (`peers::group_name`: the
/// members' world ranks, `comm`'s name, `tag`), with the group's size. A group of more
/// than 256 members, or one the job's layout cannot translate: counted, not kept.
#[inline(always)]
pub(crate) fn group_collective(
    func: u8,
    mode: Mode,
    comm: MPI_Comm,
    group: MPI_Group,
    tag: c_int,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let of_group = || {
        let mut ranks = [0i32; 256];
        let n = peers::group_to_world(group, &mut ranks)?;
        Some((peers::group_name(&ranks[..n], named(comm), tag), n as u32))
    };
    in_group(func, mode, of_group, || 0, call)
}

/// Keeps the communicator of a handle a successful call created (`bits` reads it).
#[inline(always)]
fn keep_group(table: &'static Groups, rc: c_int, comm: MPI_Comm, bits: impl FnOnce() -> u64) {
    if rc == mpi::success() {
        protect(|| table.created(bits(), named(comm), comm_size(comm)));
    }
}

/// A call collective over the group (name, size) of its window or file, where known:
/// recorded with the group's size, then numbered and kept like a collective on that
/// communicator's name (`coll::reduction`). `bytes` runs after the call.
#[inline(always)]
fn in_group(
    func: u8,
    mode: Mode,
    group: impl FnOnce() -> Option<(u64, u32)>,
    bytes: impl FnOnce() -> u64,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let (rc, t0, t1) = timed(func, None, call);
    protect(|| {
        let group = group();
        let n = group.map_or(0, |g| g.1);
        let b = bytes();
        record_in(func, mode, PeerClass::Unknown, b, b, t1.wrapping_sub(t0), n);
        if let (true, Some((name, n))) = (rc == mpi::success(), group) {
            let pause = pause_since_last(name, func, t0, t1);
            if let Some(k) = samples::number_coll(func, name) {
                samples::keep_coll(k, func, n, (b, 0), [t0, t0, t1, pause]);
            }
        }
    });
    rc
}
