//! How a completion call (MPI_Wait, MPI_Test and their kin, `complete`) is recorded: under
//! what it completed, and, for the waits' split, the ticks that are not message time.
use super::p2p::call_time;
use crate::record::requests::Info;
use crate::record::stats::record;
use loggp_report::{Mode, PeerClass};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The ticks of the Test calls that polled a nonblocking collective, completed nothing,
/// and were followed by a call that completed only collectives: the collectives' time in the
/// waits' split (issue 25), counted apart from the cells, where those calls have no
/// request to be recorded under.
pub static COLLECTIVE_POLL_TICKS: AtomicU64 = AtomicU64::new(0);

/// The ticks of the Wait and Test calls that completed only requests of calls that move
/// no message (nonblocking I/O, request-based one-sided communication:
/// `counted::counted_request`), with the Test calls that polled them before: neither
/// message time nor a collective's, so the waits' split counts them in `other_ns`. (A
/// job that sent no message read 3.74 ms of "transfer cost of messages" a rank, its
/// MPI_Wait calls on MPI_File_iwrite_at and MPI_Rput requests.)
pub static OTHER_COMPLETION_TICKS: AtomicU64 = AtomicU64::new(0);

/// Records a completion call: under the mode, class and size of the request it completed
/// when it completed exactly one, so that completion costs can be learned per mode; under
/// the mode of collectives when every request it completed was a nonblocking collective
/// (its time is the collectives', as the split reads the cells). `poll_ticks`: the earlier
/// polls of what it completed (see `complete::polled_since`). `n_coll`: how many of the `n_done`
/// were collectives; `n_other`: how many moved no message (`OTHER_COMPLETION_TICKS`).
#[inline(always)]
pub(super) fn record_completion_call(
    func: u8,
    only: Option<Info>,
    (n_done, n_coll, n_other): (usize, usize, usize),
    ticks: u64,
    poll_ticks: u64,
) {
    if n_done > 0 && n_other == n_done {
        OTHER_COMPLETION_TICKS.fetch_add(ticks + poll_ticks, Relaxed);
    }
    match only {
        Some(i) if n_done == 1 => {
            if i.mode == Mode::Collective && poll_ticks != 0 {
                COLLECTIVE_POLL_TICKS.fetch_add(poll_ticks, Relaxed);
            }
            record(func, i.mode, i.class, i.bytes, 0, ticks);
            // The completion of one request: its time is its peer's (sent earlier); one
            // that moved no message has none.
            if i.mode != Mode::None {
                call_time(i.mode, i.peer_world, None, ticks);
            }
        }
        _ if n_done > 1 && n_coll == n_done => {
            if poll_ticks != 0 {
                COLLECTIVE_POLL_TICKS.fetch_add(poll_ticks, Relaxed);
            }
            record(func, Mode::Collective, PeerClass::Unknown, 0, 0, ticks);
        }
        _ => record(func, Mode::None, PeerClass::Unknown, 0, 0, ticks),
    }
}

/// [`record_completion_call`] of a call that completes at most one request (`info`).
#[inline(always)]
pub(super) fn record_one_completion(
    func: u8,
    info: Option<Info>,
    (t0, t1): (u64, u64),
    polls: u64,
) {
    let n = info.is_some() as usize;
    let n_coll = info.is_some_and(|i| i.mode == Mode::Collective) as usize;
    let n_other = info.is_some_and(|i| i.mode == Mode::None) as usize;
    record_completion_call(func, info, (n, n_coll, n_other), t1.wrapping_sub(t0), polls);
}
