//! General active-target synchronization of one-sided windows (MPI 4.0 §12.5.2), split
//! as meetings of each origin–target pair. An origin's k-th access epoch toward a target
//! (MPI_Win_start … MPI_Win_complete) and that target's k-th exposure epoch toward the
//! origin (MPI_Win_post … MPI_Win_wait) are one epoch (§12.5.2: the start matches the
//! post, the wait the completes). Each end keeps its opening call on the pair's `open`
//! meeting and its closing call on its `close` meeting, as a collective of two members
//! (`record::epochs::pair_name`), so that the waits' split finds who came last:
//! - MPI_Win_start (where it blocks, as MPICH's does) waits from its entry to the
//!   target's MPI_Win_post, and MPI_Win_complete (where it blocks, as Open MPI's osc
//!   pt2pt does) to the target's MPI_Win_wait, which follows its post: Scalasca's late
//!   post;
//! - MPI_Win_wait waits from its entry to the last origin's MPI_Win_complete: Scalasca's
//!   early wait.
//!
//! A call whose other end came first waits for nothing; each wait is bounded by its call.
//! MPI_Win_post does not block, nor wait for anybody. MPI_Win_test, the polling form of
//! MPI_Win_wait, is counted and timed, not split (its time is in `other_ns`); the one
//! that finds the epoch complete keeps the closing meetings with the entry of the
//! epoch's first poll, so that each origin's MPI_Win_complete finds its target there.
use super::common::timed;
use crate::base::funcs::Func;
use crate::base::mpi::{self, Handle, MPI_Group, MPI_Win};
use crate::base::runtime::protect;
use crate::record::epochs::{self, Epoch, PEERS};
use crate::record::groups::WINDOWS;
use crate::record::peers;
use crate::record::samples;
use crate::record::stats::{record, record_in};
use loggp_report::{Mode, PeerClass};
use std::os::raw::c_int;

/// The communicator size the calls' cells carry: each meeting is of a pair, the rows of
/// the split that match those cells too.
const PAIR: u32 = 2;

/// MPI_Win_start (`Epoch::Access`: `group`, the targets) or MPI_Win_post
/// (`Epoch::Exposure`: `group`, the origins) on `win`.
#[inline(always)]
pub(crate) fn epoch_opened(
    func: u8,
    mode: Mode,
    group: MPI_Group,
    win: MPI_Win,
    which: Epoch,
    call: impl FnOnce() -> c_int,
) -> c_int {
    on_window(
        func,
        mode,
        win,
        Some(PAIR),
        call,
        |ok, t0, t1, slot, name| {
            let mut ranks = [0i32; PEERS];
            let n = if ok {
                peers::group_to_world(group, &mut ranks).unwrap_or(0)
            } else {
                0
            };
            epochs::opened(slot, which, &ranks[..n]);
            meet(func, name, which, true, &ranks[..n], t0, t1);
        },
    )
}

/// MPI_Win_complete (`Epoch::Access`) or MPI_Win_wait (`Epoch::Exposure`) on `win`: the
/// peers of the epoch its opening call kept.
#[inline(always)]
pub(crate) fn epoch_closed(
    func: u8,
    mode: Mode,
    win: MPI_Win,
    which: Epoch,
    call: impl FnOnce() -> c_int,
) -> c_int {
    on_window(
        func,
        mode,
        win,
        Some(PAIR),
        call,
        |ok, t0, t1, slot, name| {
            if ok {
                let mut ranks = [0i32; PEERS];
                let n = epochs::peers(slot, which, &mut ranks);
                meet(func, name, which, false, &ranks[..n], t0, t1);
            }
        },
    )
}

/// MPI_Win_test on `win`; `flag` reads whether it found the exposure epoch complete.
#[inline(always)]
pub(crate) fn epoch_tested(
    func: u8,
    mode: Mode,
    win: MPI_Win,
    flag: impl FnOnce() -> bool,
    call: impl FnOnce() -> c_int,
) -> c_int {
    on_window(func, mode, win, None, call, |ok, t0, t1, slot, name| {
        let first = epochs::polled(slot, t0);
        if ok && flag() {
            let mut ranks = [0i32; PEERS];
            let n = epochs::peers(slot, Epoch::Exposure, &mut ranks);
            meet(func, name, Epoch::Exposure, false, &ranks[..n], first, t1);
        }
    })
}

/// The call on `win`, timed and recorded (with the communicator size `comm_size`, where
/// it has one); then `then(succeeded, entry, exit, the window's index, its
/// communicator's name)` where the window is known.
#[inline(always)]
fn on_window(
    func: u8,
    mode: Mode,
    win: MPI_Win,
    comm_size: Option<u32>,
    call: impl FnOnce() -> c_int,
    then: impl FnOnce(bool, u64, u64, usize, u64),
) -> c_int {
    let (rc, t0, t1) = timed(func, None, call);
    protect(|| {
        let ticks = t1.wrapping_sub(t0);
        match comm_size {
            Some(n) => record_in(func, mode, PeerClass::Unknown, 0, 0, ticks, n),
            None => record(func, mode, PeerClass::Unknown, 0, 0, ticks),
        }
        if let Some((slot, (name, _))) = WINDOWS.found(win.bits()) {
            then(rc == mpi::success(), t0, t1, slot, name);
        }
    });
    rc
}

/// Numbers and keeps the call on each of its pairs' meetings (`open`, else `close`) of
/// the window whose communicator is named `window`; `peers`: world ranks.
///
/// Each pair's meetings are numbered apart (the k-th epoch of an origin toward a target
/// is the target's k-th toward that origin), but which of them are kept is drawn for the
/// window, not the pair (`samples::kept`): a call meeting several peers keeps all of its
/// meetings or none, so that the split finds the last of them. (Drawn per pair, a call
/// waiting 2 ms for one of two origins was kept with that origin's meeting left out as
/// often as not, and read 1.59 ms.) A call whose pairs are at different numbers (its
/// peers change from epoch to epoch) and drawn apart is kept with none.
fn meet(func: u8, window: u64, which: Epoch, open: bool, peers: &[i32], t0: u64, t1: u64) {
    // Both ends number a meeting under one function, whichever call each makes.
    let numbering = Func::MPI_Win_post.id();
    let Some(me) = peers::world().map(|w| w.rank) else {
        return;
    };
    let draw = samples::coll_channel(window, numbering);
    let mut kept = [(0u64, 0u64, 0u64); PEERS];
    let mut n = 0;
    let mut every = true;
    for &p in peers.iter().filter(|&&p| p >= 0).take(PEERS) {
        let (origin, target) = match which {
            Epoch::Access => (me, p),
            Epoch::Exposure => (p, me),
        };
        let channel =
            samples::coll_channel(epochs::pair_name(window, origin, target, open), numbering);
        match samples::next_seq(channel).and_then(|k| Some((k, samples::kept(draw, k)?))) {
            Some((k, stride)) => {
                kept[n] = (channel, k, stride);
                n += 1;
            }
            None => every = false,
        }
    }
    if every {
        for &k in &kept[..n] {
            samples::keep_coll(k, func, PAIR, (0, 0), [t0, t0, t1, 0]);
        }
    }
}
