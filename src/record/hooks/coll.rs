//! Collective hooks (MPI 4.0 §6): the call timed and recorded under mode `collective`,
//! with this rank's send and receive data as the standard defines them for the function
//! (`bytes` below). A collective's own messages run beneath PMPI and are not seen; its
//! peer class is `unknown`, so the passive point-to-point model never takes it in.
//! Nonblocking collectives are tracked from start to completion like point-to-point
//! requests: the completing Wait or Test counts under mode `collective` too.
use super::common::{msg_bytes, sum, timed, typed_sum, Types};
use crate::base::funcs;
use crate::base::mpi::{self, Handle, MPI_Comm, MPI_Datatype};
use crate::base::runtime::{protect, COLL_EXITS, THREAD};
use crate::record::neighbours;
use crate::record::peers::{classify, comm_id};
use crate::record::requests::{self, Info, Sample};
use crate::record::samples;
use crate::record::stats::record_in;
use loggp_report::{Mode, PeerClass};
use std::os::raw::{c_int, c_void};

/// The communicator's size (its local group), a dimension of a collective's cell.
#[inline(always)]
pub(super) fn comm_size(comm: MPI_Comm) -> u32 {
    let mut n: c_int = 0;
    // SAFETY: writes one int.
    unsafe { mpi::PMPI_Comm_size(comm, &mut n) };
    n.max(0) as u32
}

/// A blocking collective (MPI_Barrier, MPI_Bcast, …). `bytes` runs after the call.
#[inline(always)]
pub(crate) fn collective(
    func: u8,
    mode: Mode,
    comm: MPI_Comm,
    bytes: impl FnOnce() -> u64,
    call: impl FnOnce() -> c_int,
) -> c_int {
    reduction(func, mode, comm, bytes, || 0, call)
}

/// A blocking reduction (MPI_Allreduce, MPI_Reduce): a collective whose sampled calls
/// also keep the operation's kind and the datatype's size (`op`, run only for a kept
/// call: `samples::op_meta`), by which the MPIs choose their algorithm.
#[inline(always)]
pub(crate) fn reduction(
    func: u8,
    mode: Mode,
    comm: MPI_Comm,
    bytes: impl FnOnce() -> u64,
    op: impl FnOnce() -> u8,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let (rc, t0, t1) = timed(func, None, call);
    protect(|| {
        let b = bytes();
        let n = comm_size(comm);
        record_in(func, mode, PeerClass::Unknown, b, b, t1.wrapping_sub(t0), n);
        // The waits' sample (issue 25), with the pause before the call.
        if rc == mpi::success() {
            let id = named(comm);
            let pause = pause_since_last(id, func, t0, t1);
            if let Some(k) = number_named(func, comm, id) {
                samples::keep_coll(k, func, n, (b, op()), [t0, t0, t1, pause]);
            }
        }
    });
    rc
}

/// The pause before a blocking collective call entered at `t0`: the ticks since this
/// thread's last call of the same function on the same communicator (`channel`) left
/// it, less those spent inside other blocking collective calls since, + 1 (0: not known:
/// the first call there, or another channel took its entry since); the call's exit `t1`
/// is kept for the next. An MPI call whose code has not run for a while costs more than
/// back to back: on this VM an 8-byte MPI_Send took 43 ns back to back, 216 ns after
/// 100 µs away from MPI and 1.4 µs after 1 ms (Open MPI vader), where a raw shared-memory
/// round trip moved from 275 to 306 ns (`bench/after_pause.c`, `bench/after_pause_raw.c`);
/// and LAMMPS's 16-byte MPI_Allreduce, once per thermo output 37 ms apart, cost 10 µs
/// though another MPI call (point to point) had left 12–18 µs before it. The time split
/// tells those calls apart (`loggp_report::AfterPause`).
///
/// Why the other collectives' time is taken out: a member that leaves a collective early
/// waits for the others in the next one (a barrier), inside MPI, not away from it. On a
/// 16-core VM (2026-11-29, `tests/c/coll_model.c`, each call after an MPI_Barrier) every
/// matched call of 16 ranks' 256 KiB Alltoall was counted after a pause that way
/// (`tests/waits.rs::time_inside_other_collectives_is_no_pause`).
#[inline(always)]
pub(super) fn pause_since_last(comm_id: u64, func: u8, t0: u64, t1: u64) -> u64 {
    let channel = samples::coll_channel(comm_id, func);
    THREAD.with(|t| {
        let before = t.coll_ticks.get();
        let after = before.wrapping_add(t1.wrapping_sub(t0));
        t.coll_ticks.set(after);
        let e = &t.coll_exits[exit_slot(comm_id, func)];
        let (key, exit, ticks_then) = e.replace((channel, t1, after));
        if key == channel && exit != 0 {
            let inside = before.wrapping_sub(ticks_then);
            t0.saturating_sub(exit).saturating_sub(inside) + 1
        } else {
            0
        }
    })
}

/// A channel's entry in `coll_exits`: the communicator's hash (its high bits, the mixed
/// ones) offset by the function, so that the collectives of one communicator never share
/// an entry. (Bits 32–36 of the channel, taken first, depend on no bit of the function:
/// a multiplication carries bits only upward, and every function of a communicator took
/// one entry, so that a job alternating MPI_Barrier and MPI_Bcast had no pause known.)
#[inline(always)]
fn exit_slot(comm_id: u64, func: u8) -> usize {
    ((comm_id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 59) as usize + func as usize) % COLL_EXITS
}

/// Numbers a collective call among those of its function on its communicator (every
/// member calls them in the same order, MPI 4.0 §6.12); (channel, k, stride) where it
/// is kept. A neighbourhood collective is numbered on its topology's name, and this
/// rank's neighbours in it are kept when its first call is (`record::neighbours`): its
/// members wait only for their in-neighbours.
#[inline(always)]
pub(crate) fn number(func: u8, comm: MPI_Comm) -> Option<(u64, u64, u64)> {
    number_named(func, comm, named(comm))
}

/// [`number`] of a communicator whose name `id` the caller has (`named`).
#[inline(always)]
fn number_named(func: u8, comm: MPI_Comm, id: u64) -> Option<(u64, u64, u64)> {
    if !funcs::is_neighborhood(func) {
        return samples::number_coll(func, id);
    }
    let name = neighbours::topology(comm, || id).name;
    let kept = samples::number_coll(func, name)?;
    neighbours::note(comm, name);
    Some(kept)
}

/// The communicator's name as all its members compute it (translated on first use).
#[inline(always)]
pub(crate) fn named(comm: MPI_Comm) -> u64 {
    match comm_id(comm) {
        0 => {
            classify(comm, 0);
            comm_id(comm)
        }
        id => id,
    }
}

/// A nonblocking collective (MPI_Ibarrier, MPI_Ibcast, …): recorded at its start with its
/// bytes, and its request followed to the Wait or Test that completes it.
#[inline(always)]
pub(crate) fn icollective(
    func: u8,
    mode: Mode,
    comm: MPI_Comm,
    bytes: impl FnOnce() -> u64,
    request: impl FnOnce() -> Option<u64>,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let (rc, t0, t1) = timed(func, None, call);
    protect(|| {
        let b = bytes();
        let n = comm_size(comm);
        record_in(func, mode, PeerClass::Unknown, b, b, t1.wrapping_sub(t0), n);
        // The waits' sample (issue 25): numbered at its start, among the collectives of
        // its kind on the communicator (every member starts them in the same order, MPI
        // 4.0 §6.12), and kept when its request completes.
        let sample = if rc == mpi::success() {
            number(func, comm)
                .map(|(ch, k, stride)| Sample::kept(ch, k, stride, Sample::coll_tag(func, n)))
        } else {
            None
        };
        track(
            rc,
            request,
            mode,
            b,
            false,
            t0,
            comm,
            sample.unwrap_or_default(),
        );
    });
    rc
}

/// Follows a collective's request to its completion: a nonblocking one is active from
/// its start; a persistent one from each MPI_Start.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn track(
    rc: c_int,
    request: impl FnOnce() -> Option<u64>,
    mode: Mode,
    bytes: u64,
    persistent: bool,
    t0: u64,
    comm: MPI_Comm,
    sample: Sample,
) {
    if rc != mpi::success() {
        return;
    }
    if let Some(req) = request() {
        requests::insert(
            req,
            Info {
                mode,
                class: PeerClass::Unknown,
                persistent,
                active: !persistent,
                cancel_requested: false,
                message: false,
                bytes,
                polled_ticks: 0,
                peer_world: -1,
                start_ticks: t0,
                comm_bits: comm.bits(),
                sample,
            },
        );
    }
}

/// A persistent collective's init (MPI 4.0 §6.13, MPI_Allreduce_init, …): it moves
/// nothing, as a point-to-point init does not; its bytes count at each MPI_Start, under
/// mode `collective`, and each start is followed to the Wait or Test that completes it.
/// The request keeps its communicator and, in the tag's place, its function and the
/// communicator's size: each start is numbered for the waits' sample (issue 25) from
/// them (`persistent::restart`).
#[cfg(mpi_persistent_coll)]
#[inline(always)]
pub(crate) fn init_collective(
    func: u8,
    mode: Mode,
    comm: MPI_Comm,
    bytes: impl FnOnce() -> u64,
    request: impl FnOnce() -> Option<u64>,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let (rc, t0, t1) = timed(func, None, call);
    protect(|| {
        let b = bytes();
        let n = comm_size(comm);
        record_in(func, mode, PeerClass::Unknown, b, 0, t1.wrapping_sub(t0), n);
        let sample = Sample {
            tag: Sample::coll_tag(func, n),
            ..Sample::default()
        };
        track(rc, request, mode, b, true, t0, comm, sample);
    });
    rc
}

/// The shape of a communicator as the byte rules need it: the number of processes a
/// rank exchanges with (the remote group of an intercommunicator), its own rank, and
/// whether it is an intercommunicator.
pub(crate) struct Shape {
    pub n: i64,
    pub rank: c_int,
    pub inter: bool,
}

pub(crate) fn shape(comm: MPI_Comm) -> Shape {
    let (mut n, mut rank, mut inter) = (0, -1, 0);
    // SAFETY: each call writes one int; errors leave the defaults.
    unsafe {
        mpi::PMPI_Comm_test_inter(comm, &mut inter);
        if inter != 0 {
            mpi::PMPI_Comm_remote_size(comm, &mut n);
        } else {
            mpi::PMPI_Comm_size(comm, &mut n);
        }
        mpi::PMPI_Comm_rank(comm, &mut rank);
    }
    Shape {
        n: n.max(0) as i64,
        rank,
        inter: inter != 0,
    }
}

/// Whether this rank is the root's side: an intracommunicator's root, or MPI_ROOT in an
/// intercommunicator's root group.
fn at_root(s: &Shape, root: c_int) -> bool {
    if s.inter {
        root == mpi::root()
    } else {
        root == s.rank
    }
}

/// In an intercommunicator's root group, the processes other than the root take no part.
fn idle(s: &Shape, root: c_int) -> bool {
    s.inter && root == mpi::proc_null()
}

fn in_place(buf: *const c_void) -> bool {
    std::ptr::eq(buf, mpi::in_place())
}

fn times(count: impl Into<i64>, n: i64, dt: MPI_Datatype) -> u64 {
    msg_bytes(count.into().saturating_mul(n.max(0)), dt)
}

// The byte rules, in their own file.
#[path = "coll_bytes.rs"]
pub(crate) mod bytes;

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls of collectives that alternate on one communicator each time their pause since
    /// their own last call, the time inside the others taken out; the first call of each
    /// has none.
    #[test]
    fn alternating_collectives_each_keep_their_pause() {
        let (barrier, bcast, allreduce) = (1u8, 2u8, 17u8);
        let comm = 0x1234_5678_9abc_def1;
        let mut t = 1000;
        let mut call = |func: u8, inside: u64, pause: u64| {
            let got = pause_since_last(comm, func, t, t + inside);
            t += inside + pause;
            got
        };
        assert_eq!(call(barrier, 10, 100), 0);
        assert_eq!(call(bcast, 10, 100), 0);
        assert_eq!(call(allreduce, 10, 100), 0);
        // Each since its own last exit: three gaps away from the collectives (the two
        // other calls in between, 10 ticks each, were inside them).
        assert_eq!(call(barrier, 10, 100), 3 * 100 + 1);
        assert_eq!(call(bcast, 10, 100), 3 * 100 + 1);
        assert_eq!(call(allreduce, 10, 5), 3 * 100 + 1);
        assert_eq!(call(allreduce, 10, 0), 5 + 1);
        // A long wait inside a barrier between two calls of a Bcast is no pause: the
        // Bcast's is its 100 + 5 ticks away since its last call.
        assert_eq!(call(barrier, 5000, 0), 2 * 100 + 5 + 1);
        assert_eq!(call(bcast, 10, 0), 100 + 5 + 1);
        // The functions of one communicator never share an entry.
        let slots: std::collections::BTreeSet<usize> =
            (0..COLL_EXITS as u8).map(|f| exit_slot(comm, f)).collect();
        assert_eq!(slots.len(), COLL_EXITS);
    }
}
