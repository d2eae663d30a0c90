//! Probes and matched receives (MPI 4.0 §3.8): a matched message is remembered with its
//! peer so that MPI_Mrecv/MPI_Imrecv can classify it.
use super::common::{
    before, msg_bytes, peer_what, poll_step, probe_found, status_source, status_tag, timed,
    visible_status,
};
use super::p2p::recv_peer;
use crate::base::clock::now;
use crate::base::mpi::{self, Handle, MPI_Comm, MPI_Datatype, MPI_Status};
use crate::base::runtime::{protect, THREAD};
use crate::record::matrix;
use crate::record::peers::classify;
use crate::record::peers::{comm_id, world};
use crate::record::requests::{self, Info, Sample};
use crate::record::samples::{self, SIDE_RECV};
use crate::record::stats::record;
use loggp_report::{Mode, PeerClass};
use std::os::raw::c_int;

/// Where the wait for a message that an MPI_Iprobe or MPI_Improbe (`found`, entered at
/// `t0`, with `args` = (source, tag) on `comm`) found began: at the entry of the first of
/// the calls with the same arguments that went before it and found nothing (a polling
/// loop, `while (!flag) MPI_Iprobe(...)`, then a receive of what it found), or at its own
/// entry. The waits' split (issue 25) then sees a polled message as waited for from the
/// first poll, as `complete::polled_since` does for MPI_Test* loops. A call that finds
/// nothing starts a poll unless one with the same arguments runs; one that finds a message
/// ends it.
///
/// Also returns, for a call that found, the ticks inside the polling calls (the earlier
/// ones that found nothing, and this one): between the polls the program may compute, so
/// the span from the first poll holds more than the polls' own time, and the split counts
/// the calls' time (`samples::poll_word`), as for MPI_Test* loops.
#[inline(always)]
fn probe_polled_since(
    comm: MPI_Comm,
    (source, tag): (c_int, c_int),
    found: bool,
    (t0, t1): (u64, u64),
) -> (u64, u64) {
    // Any value but 0 names the arguments: a collision between two pollings of one thread
    // at once (rare) only moves where the second's wait starts.
    let key = (comm.bits()
        ^ (source as u32 as u64).rotate_left(20)
        ^ (tag as u32 as u64).rotate_left(44))
        | 1;
    let (since, earlier) =
        THREAD.with(|t| poll_step(&t.probe_polled, &t.probe_polled_ticks, key, found, (t0, t1)));
    // The call that found the message is a probe too.
    let ticks = if found {
        earlier.wrapping_add(t1.wrapping_sub(t0))
    } else {
        0
    };
    (since, ticks)
}

/// MPI_Probe and MPI_Iprobe: no data moves; the class comes from the status.
#[inline(always)]
pub(crate) fn probe(
    func: u8,
    mode: Mode,
    (source, tag): (c_int, c_int),
    comm: MPI_Comm,
    flag: *mut c_int,
    status: *mut MPI_Status,
    call: impl FnOnce(*mut MPI_Status) -> c_int,
) -> c_int {
    let mut local = mpi::empty_status();
    let st = visible_status(status, &mut local);
    let waits_on = if flag.is_null() && source != mpi::any_source() {
        before(0, || peer_what(classify(comm, source).1))
    } else {
        0
    };
    let (rc, t0, t1) = timed(func, Some((waits_on, 0)), || call(st));
    protect(|| {
        // SAFETY: flag, when given, was written by the call.
        let found = flag.is_null() || unsafe { *flag } != 0;
        let (class, peer) = if found {
            recv_peer(comm, source, st, rc)
        } else {
            classify(comm, source)
        };
        record(func, mode, class, 0, 0, t1.wrapping_sub(t0));
        // A probe waits on the receiving side: its time is receiving time.
        matrix::recv_time(peer, t1.wrapping_sub(t0));
        if rc != mpi::success() {
            return;
        }
        // A blocking probe waited from its own entry; a polled one from its first poll.
        let (since, ticks) = if flag.is_null() {
            (t0, t1.wrapping_sub(t0))
        } else {
            probe_polled_since(comm, (source, tag), found, (t0, t1))
        };
        if found && peer >= 0 {
            probe_found(comm, peer, status_tag(st), since, ticks);
        }
    });
    rc
}

/// MPI_Mprobe and MPI_Improbe (MPI 4.0 §3.8.2): the matched message is remembered with
/// its peer so that MPI_Mrecv/MPI_Imrecv can classify it.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn mprobe(
    func: u8,
    mode: Mode,
    (source, tag): (c_int, c_int),
    comm: MPI_Comm,
    flag: *mut c_int,
    message: impl FnOnce() -> Option<u64>,
    status: *mut MPI_Status,
    call: impl FnOnce(*mut MPI_Status) -> c_int,
) -> c_int {
    let mut local = mpi::empty_status();
    let st = visible_status(status, &mut local);
    let waits_on = if flag.is_null() && source != mpi::any_source() {
        before(0, || peer_what(classify(comm, source).1))
    } else {
        0
    };
    let (rc, t0, t1) = timed(func, Some((waits_on, 0)), || call(st));
    protect(|| {
        // SAFETY: flag, when given, was written by the call.
        let found = rc == mpi::success() && (flag.is_null() || unsafe { *flag } != 0);
        let (class, peer) = if found {
            classify(
                comm,
                if source == mpi::any_source() {
                    status_source(st)
                } else {
                    source
                },
            )
        } else {
            classify(comm, source)
        };
        record(func, mode, class, 0, 0, t1.wrapping_sub(t0));
        matrix::recv_time(peer, t1.wrapping_sub(t0));
        // A blocking probe waited from its own entry; a polled one from its first poll.
        let (since, ticks) = if flag.is_null() || rc != mpi::success() {
            (t0, t1.wrapping_sub(t0))
        } else {
            probe_polled_since(comm, (source, tag), found, (t0, t1))
        };
        if found {
            if let Some(m) = message() {
                // The waits' sample (issue 25): a matched probe fixes the message's place
                // on its channel, as a wildcard receive's completion does; a blocking
                // MPI_Mrecv then keeps it, waiting from this probe's entry.
                let tag = status_tag(st);
                let sample = world()
                    .and_then(|w| samples::number(SIDE_RECV, w.rank, peer, comm_id(comm), tag))
                    .map_or(Sample::default(), |(c, k, stride)| {
                        Sample::kept(c, k, stride, tag)
                    });
                requests::insert(
                    m,
                    Info {
                        mode: Mode::Mrecv,
                        class,
                        persistent: false,
                        active: false,
                        cancel_requested: false,
                        message: true,
                        bytes: 0,
                        polled_ticks: ticks,
                        peer_world: peer,
                        start_ticks: since,
                        comm_bits: comm.bits(),
                        sample,
                    },
                );
            }
        }
    });
    rc
}

/// MPI_Mrecv and MPI_Imrecv: `message` is read before the call (which resets it).
#[inline(always)]
pub(crate) fn mrecv(
    func: u8,
    mode: Mode,
    count: impl Into<i64>,
    dt: MPI_Datatype,
    message: (u64, bool),
    request: impl FnOnce() -> Option<u64>,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let count: i64 = count.into();
    let (m, no_proc) = message;
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        let probed = if no_proc {
            None
        } else {
            requests::remove(m, true)
        };
        let (class, peer, comm_bits) = match (&probed, no_proc) {
            (_, true) => (PeerClass::ProcNull, -1, 0),
            (Some(i), _) => (i.class, i.peer_world, i.comm_bits),
            (None, _) => (PeerClass::Unknown, -1, 0),
        };
        let size = if class == PeerClass::ProcNull {
            0
        } else {
            msg_bytes(count, dt)
        };
        record(func, mode, class, size, size, t1.wrapping_sub(t0));
        matrix::recv_time(peer, t1.wrapping_sub(t0));
        if rc == mpi::success() {
            let req = request();
            // A blocking MPI_Mrecv of a kept message: its receive waited from the
            // probe's entry (the post and the wait) to this call's exit. An MPI_Imrecv's
            // is kept when its request completes, waited for from the probe's entry too
            // (its request's life counts from there: the probe started the receive).
            if let (None, Some(i)) = (req, &probed) {
                if let Some(n) = i.sample.get() {
                    samples::keep(
                        n,
                        SIDE_RECV,
                        peer,
                        (func, Mode::Mrecv as u8),
                        class as u8,
                        size,
                        [i.start_ticks, i.start_ticks, t1],
                        // The probe calls' time and this call's.
                        samples::poll_word(i.polled_ticks, t0, t1),
                    );
                }
            }
            if let Some(req) = req {
                requests::insert(
                    req,
                    Info {
                        mode: Mode::Mrecv,
                        class,
                        persistent: false,
                        active: true,
                        cancel_requested: false,
                        message: false,
                        bytes: size,
                        // The probe calls' time and this call's: its completing calls
                        // add theirs (`complete::sample_completed`).
                        polled_ticks: probed
                            .map_or(0, |i| i.polled_ticks.saturating_add(t1.wrapping_sub(t0))),
                        peer_world: peer,
                        start_ticks: probed.map_or(t0, |i| i.start_ticks),
                        comm_bits,
                        sample: probed.map(|i| i.sample).unwrap_or_default(),
                    },
                );
            }
        }
    });
    rc
}
