//! What every hook family shares: the clock reads around the PMPI_ call, the in-progress
//! record, message sizes and the status the shim may substitute.
use crate::base::clock::now;
use crate::base::mpi::{self, Handle, MPI_Comm, MPI_Datatype, MPI_Status};
use crate::base::runtime::{protect, THREAD};
use crate::record::progress::InProgress;
use std::cell::Cell;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Bytes of `count` elements of `dt` (0 on error or a negative count).
#[inline(always)]
pub(crate) fn msg_bytes(count: i64, dt: MPI_Datatype) -> u64 {
    if count <= 0 {
        return 0;
    }
    let mut size: c_int = 0;
    // SAFETY: PMPI_Type_size writes one int.
    if unsafe { mpi::PMPI_Type_size(dt, &mut size) } != mpi::success() || size < 0 {
        return 0;
    }
    (count as u64).saturating_mul(size as u64)
}

/// The user's status pointer, or `local` when the user passed MPI_STATUS_IGNORE.
#[inline(always)]
pub(crate) fn visible_status(status: *mut MPI_Status, local: &mut MPI_Status) -> *mut MPI_Status {
    if status == mpi::status_ignore() || status.is_null() {
        local
    } else {
        status
    }
}

#[inline(always)]
pub(crate) fn status_source(st: *const MPI_Status) -> c_int {
    // SAFETY: st points to a status the call filled (or the shim's own, whose source is
    // MPI_ANY_SOURCE until filled: see `mpi::empty_status`).
    unsafe { (*st).MPI_SOURCE }
}

#[inline(always)]
pub(crate) fn status_tag(st: *const MPI_Status) -> c_int {
    // SAFETY: as for `status_source` (the shim's own status says MPI_ANY_TAG until filled).
    unsafe { (*st).MPI_TAG }
}

/// The in-progress record's peer: world rank + 1, 0 when not known.
#[inline(always)]
pub(crate) fn peer_what(peer: i32) -> u64 {
    if peer < 0 {
        0
    } else {
        peer as u64 + 1
    }
}

/// Times `call` between two clock reads; meanwhile the thread's in-progress record says
/// what it waits on (`waits_on`: what and bytes, see [`InProgress`]), for interim reports.
#[inline(always)]
pub(crate) fn timed<R>(
    func: u8,
    waits_on: Option<(u64, u64)>,
    call: impl FnOnce() -> R,
) -> (R, u64, u64) {
    let cur = waits_on.and_then(|(what, bytes)| InProgress::begin(what, bytes));
    let t0 = now();
    if let Some(c) = &cur {
        c.started(func, t0);
    }
    let rc = call();
    let t1 = now();
    drop(cur);
    (rc, t0, t1)
}

/// Runs shim code before the PMPI_ call; a panic stops profiling and gives `default`.
#[inline(always)]
pub(crate) fn before<T>(default: T, f: impl FnOnce() -> T) -> T {
    let mut out = default;
    protect(|| out = f());
    out
}

/// An array of datatypes as a binding passes it: C handles, or Fortran INTEGER handles
/// (converted one by one, nothing allocated).
#[derive(Clone, Copy)]
pub(crate) enum Types {
    C(*const MPI_Datatype),
    F(*const mpi::MPI_Fint),
}

impl From<*const MPI_Datatype> for Types {
    fn from(p: *const MPI_Datatype) -> Types {
        Types::C(p)
    }
}

impl Types {
    fn is_null(self) -> bool {
        match self {
            Types::C(p) => p.is_null(),
            Types::F(p) => p.is_null(),
        }
    }
    /// SAFETY: i is within the array the standard requires.
    unsafe fn at(self, i: usize) -> MPI_Datatype {
        match self {
            Types::C(p) => unsafe { *p.add(i) },
            Types::F(p) => unsafe { mpi::loggp_type_f2c(*p.add(i)) },
        }
    }
}

/// Σ counts[i] × size(types[i]) over n entries (a null array gives 0).
pub(crate) fn typed_sum(counts: *const c_int, types: Types, n: i64) -> u64 {
    if counts.is_null() || types.is_null() {
        return 0;
    }
    (0..n.max(0) as usize)
        // SAFETY: n entries each, as the standard requires.
        .map(|i| unsafe { msg_bytes(*counts.add(i) as i64, types.at(i)) })
        .sum()
}

/// Σ counts[i] × size(dt) over n entries (a null array gives 0): a v-variant's blocks.
pub(crate) fn sum(counts: *const c_int, n: i64, dt: MPI_Datatype) -> u64 {
    if counts.is_null() {
        return 0;
    }
    let size = msg_bytes(1, dt);
    (0..n.max(0) as usize)
        // SAFETY: the standard requires n entries where the array is significant.
        .map(|i| unsafe { *counts.add(i) }.max(0) as u64 * size)
        .sum()
}

/// One call of a polling loop (`cell`: the key polled and the first poll's entry, 0:
/// none; `ticks`: the time inside the polls so far), entered at `t0`, left at `t1`: one
/// that finds nothing starts a poll under `key` unless one with the same key runs, and
/// adds its time; one that finds (or completes) ends the poll. Returns where the wait for
/// what it found began (the first poll's entry when it ends a poll of the same key, else
/// `t0`) and, for a call that found, the earlier polls' time (else 0). Shared by MPI_Test*
/// loops (`complete::polled_since`) and MPI_Iprobe or MPI_Improbe loops
/// (`probe::probe_polled_since`).
#[inline(always)]
pub(crate) fn poll_step(
    cell: &Cell<(u64, u64)>,
    ticks: &Cell<u64>,
    key: u64,
    found: bool,
    (t0, t1): (u64, u64),
) -> (u64, u64) {
    let (k, since) = cell.get();
    let polling = since != 0 && k == key;
    let earlier = if polling { ticks.get() } else { 0 };
    if found {
        if since != 0 {
            cell.set((0, 0));
            ticks.set(0);
        }
        if polling {
            (since, earlier)
        } else {
            (t0, 0)
        }
    } else {
        if !polling {
            cell.set((key, t0));
        }
        ticks.set(earlier.wrapping_add(t1.wrapping_sub(t0)));
        (t0, 0)
    }
}

/// Whether any thread has made a blocking probe that found a message: until then a
/// receive does not look for one (one load on its path).
static PROBED: AtomicBool = AtomicBool::new(false);

/// The waits' sample (issue 25) of a blocking receive that a blocking MPI_Probe of this
/// thread announced (the usual way to receive a message of unknown size: MPI_Probe,
/// MPI_Get_count, then MPI_Recv from the status's source and tag): the receive waited
/// from the probe's entry, as MPI_Mrecv does from its MPI_Mprobe's. The receive gets the
/// probed message, the first on its channel (MPI 4.0 §3.8.1), when it names the same
/// communicator, source and tag. Any blocking receive of the thread that completes
/// forgets the probe, so a probe whose message is received otherwise is never used
/// later. Returns the probe's entry and the ticks inside the probe calls that found the
/// message (`probe_found`), or `t0` and 0.
#[inline(always)]
pub(crate) fn probed_from(comm: MPI_Comm, peer: i32, tag: c_int, t0: u64) -> (u64, u64) {
    if !PROBED.load(Relaxed) {
        return (t0, 0);
    }
    let (c, what, entry, ticks) = THREAD.with(|t| t.probed.replace((0, 0, 0, 0)));
    let want = peer as u32 as u64 | (tag as u32 as u64) << 32;
    if entry != 0 && c == comm.bits() && what == want && peer >= 0 && entry <= t0 {
        (entry, ticks)
    } else {
        (t0, 0)
    }
}

/// A probe of this thread found a message from world rank `peer` with `tag` on `comm`,
/// waited for from `t0` (its entry, or the first poll's), `ticks` inside the probe calls
/// (see [`probed_from`]).
#[inline(always)]
pub(crate) fn probe_found(comm: MPI_Comm, peer: i32, tag: c_int, t0: u64, ticks: u64) {
    let what = peer as u32 as u64 | (tag as u32 as u64) << 32;
    if !PROBED.load(Relaxed) {
        PROBED.store(true, Relaxed);
    }
    THREAD.with(|t| t.probed.set((comm.bits(), what, t0, ticks)));
}
