//! Point-to-point hooks: blocking and nonblocking sends and receives, persistent inits
//! (MPI 4.0 §3.2–3.9); the send-receives are in `exchange`.
use super::common::{
    before, msg_bytes, peer_what, probed_from, status_source, status_tag, timed, visible_status,
};
use crate::base::clock::now;
use crate::base::funcs::BURST_GAP;
use crate::base::mpi::{self, Handle, MPI_Comm, MPI_Datatype, MPI_Status};
use crate::base::runtime::protect;
use crate::record::peers::{classify, comm_id, world};
use crate::record::requests::{self, Info, Sample};
use crate::record::samples::{self, SIDE_RECV, SIDE_SEND};
use crate::record::stats::{record, this_slot};
use crate::record::{matrix, memo};
use loggp_report::{Mode, PeerClass};
use std::os::raw::c_int;

/// MPI_Send, MPI_Ssend, MPI_Bsend, MPI_Rsend (MPI 4.0 §3.2.1, §3.4).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn blocking_send(
    func: u8,
    mode: Mode,
    count: impl Into<i64>,
    dt: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let count: i64 = count.into();
    // Peer and size before the call, so that an interim report can say what a rank
    // blocked here waits for.
    let (class, peer, size, memo) = before((PeerClass::Unknown, -1, 0, None), || {
        if dest == mpi::proc_null() {
            return (PeerClass::ProcNull, -1, 0, None);
        }
        match memo::resolve(&memo::Call {
            func,
            mode,
            side: SIDE_SEND,
            comm,
            peer: dest,
            tag,
            count,
            datatype: dt,
        }) {
            Some(r) => (r.class(), r.peer(), r.size(), Some(r)),
            None => {
                let (class, peer) = classify(comm, dest);
                (class, peer, msg_bytes(count, dt), None)
            }
        }
    });
    // Nothing to wait for with MPI_PROC_NULL.
    let (rc, t0, t1) = timed(
        func,
        (class != PeerClass::ProcNull).then_some((peer_what(peer), size)),
        call,
    );
    protect(|| {
        let ticks = t1.wrapping_sub(t0);
        if let Some(r) = &memo {
            r.record(ticks);
            r.sent(ticks);
            if let Some(spacing) = r.burst_spacing(mode, t0, t1) {
                record(BURST_GAP, mode, class, size, 0, spacing);
            }
            if let Some(n) = r.number() {
                let times = [t0, t0, t1];
                samples::keep_blocking(n, SIDE_SEND, peer, (func, class as u8), size, times, 0);
            }
            return;
        }
        record(func, mode, class, size, size, ticks);
        matrix::sent(peer, size, ticks);
        burst(mode, class, peer, size, t0, t1);
        sample(
            SIDE_SEND,
            (func, class),
            comm,
            (peer, tag),
            size,
            ([t0, t0, t1], 0),
            1,
        );
    });
    rc
}

/// One end of a blocking message for the waits' deterministic sample (issue 25):
/// `times` = start (post), wait, end, and the span's calls (`samples::poll_word`; 0:
/// the call alone). `together`: the message ends its call completed
/// (`samples::side_of`).
#[inline(always)]
pub(super) fn sample(
    side: u64,
    (func, class): (u8, PeerClass),
    comm: MPI_Comm,
    (peer, tag): (i32, c_int),
    size: u64,
    times: ([u64; 3], u64),
    together: u64,
) {
    if peer < 0 {
        return;
    }
    if let Some(w) = world() {
        samples::p2p(
            side,
            w.rank,
            peer,
            comm_id(comm),
            tag,
            func,
            class as u8,
            size,
            times,
            together,
        );
    }
}

/// Back-to-back sends to one peer: their start spacing, for the passive g.
#[inline(always)]
fn burst(mode: Mode, class: PeerClass, peer: i32, size: u64, t0: u64, t1: u64) {
    if peer < 0 || mode == Mode::Irecv {
        return;
    }
    if let Some(slot) = this_slot() {
        if let Some(spacing) = slot.burst_spacing(peer, mode, t0, t1) {
            record(BURST_GAP, mode, class, size, 0, spacing);
        }
    }
}

/// MPI_Isend/Issend/Ibsend/Irsend, MPI_Irecv and the persistent inits (MPI 4.0 §3.7,
/// §3.9). For a receive `peer` is the source (a wildcard stays unknown until a visible
/// status names it at completion).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn start_nonblocking(
    func: u8,
    mode: Mode,
    persistent: bool,
    count: impl Into<i64>,
    dt: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
    request: impl FnOnce() -> Option<u64>,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let count: i64 = count.into();
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        let ticks = t1.wrapping_sub(t0);
        let recv = mode == Mode::Irecv;
        // A message with a named peer and tag, started now: through the memo. A wildcard
        // receive is numbered at its completion, a persistent init at each start.
        let named = !persistent
            && dest != mpi::proc_null()
            && !(recv && (dest == mpi::any_source() || tag == mpi::any_tag()));
        let side = if recv { SIDE_RECV } else { SIDE_SEND };
        if let Some(e) = named
            .then(|| {
                memo::resolve(&memo::Call {
                    func,
                    mode,
                    side,
                    comm,
                    peer: dest,
                    tag,
                    count,
                    datatype: dt,
                })
            })
            .flatten()
        {
            let (class, peer, size) = (e.class(), e.peer(), e.size());
            e.record(ticks);
            let sample = e
                .number()
                .map_or_else(Sample::default, |(channel, k, stride)| {
                    Sample::kept(channel, k, stride, tag)
                });
            track(
                rc,
                request,
                (mode, class, peer, size),
                false,
                t0,
                comm,
                sample,
            );
            if !recv {
                e.sent(ticks);
            }
            if let Some(spacing) = e.burst_spacing(mode, t0, t1) {
                record(BURST_GAP, mode, class, size, 0, spacing);
            }
            return;
        }
        let (class, peer) = classify(comm, dest);
        let size = if class == PeerClass::ProcNull {
            0
        } else {
            msg_bytes(count, dt)
        };
        // A persistent init moves nothing: its bytes count when MPI_Start starts it.
        record(
            func,
            mode,
            class,
            size,
            if persistent { 0 } else { size },
            t1.wrapping_sub(t0),
        );
        // A persistent init keeps its tag: each MPI_Start numbers its message (see
        // `persistent::restart`).
        let sample = if persistent {
            Sample {
                tag,
                ..Sample::default()
            }
        } else {
            nb_sample(mode, comm, dest, peer, tag)
        };
        track(
            rc,
            request,
            (mode, class, peer, size),
            persistent,
            t0,
            comm,
            sample,
        );
        call_time(
            mode,
            peer,
            (!persistent).then_some(size),
            t1.wrapping_sub(t0),
        );
        if !persistent {
            burst(mode, class, peer, size, t0, t1);
        }
    });
    rc
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn track(
    rc: c_int,
    request: impl FnOnce() -> Option<u64>,
    (mode, class, peer, size): (Mode, PeerClass, i32, u64),
    persistent: bool,
    t0: u64,
    comm: MPI_Comm,
    sample: Sample,
) {
    if rc != mpi::success() {
        return;
    }
    let Some(req) = request() else { return };
    requests::insert(
        req,
        Info {
            mode,
            class,
            persistent,
            active: !persistent,
            cancel_requested: false,
            message: false,
            bytes: size,
            polled_ticks: 0,
            peer_world: peer,
            start_ticks: t0,
            comm_bits: comm.bits(),
            sample,
        },
    );
}

/// A nonblocking message's place in the waits' sample (issue 25): a send, or a receive
/// with a named source and tag, is numbered now (MPI's non-overtaking order is the order
/// of the calls); a wildcard receive at its completion, from the status.
#[inline(always)]
fn nb_sample(mode: Mode, comm: MPI_Comm, dest: c_int, peer: i32, tag: c_int) -> Sample {
    let recv = mode == Mode::Irecv;
    if recv && (dest == mpi::any_source() || tag == mpi::any_tag()) {
        return Sample {
            seq: Sample::AT_COMPLETION,
            tag,
            ..Default::default()
        };
    }
    let side = if recv { SIDE_RECV } else { SIDE_SEND };
    match world().and_then(|w| samples::number(side, w.rank, peer, comm_id(comm), tag)) {
        Some((channel, k, stride)) => Sample::kept(channel, k, stride, tag),
        None => Sample::default(),
    }
}

/// MPI_Start of a persistent request: a send's message counts, apart as well (see
/// `matrix::sent_persistent`); a receive's time is receiving time.
#[inline(always)]
pub(super) fn started_time(mode: Mode, peer: i32, bytes: u64, ticks: u64) {
    if matches!(mode, Mode::Recv | Mode::Irecv | Mode::Mrecv) {
        matrix::recv_time(peer, ticks);
    } else {
        matrix::sent_persistent(peer, bytes, ticks);
    }
}

/// Class and world rank of the peer of a receive: from its arguments, or from the status
/// for a wildcard.
#[inline(always)]
pub(super) fn recv_peer(
    comm: MPI_Comm,
    source: c_int,
    st: *const MPI_Status,
    rc: c_int,
) -> (PeerClass, i32) {
    if source == mpi::any_source() {
        if rc != mpi::success() {
            return (PeerClass::Unknown, -1);
        }
        classify(comm, status_source(st))
    } else {
        classify(comm, source)
    }
}

/// A point-to-point call's place in the communication matrix: a send that moves a
/// message (`sent`: its bytes) counts it; any call's time goes to its peer's sending or
/// receiving time.
#[inline(always)]
pub(super) fn call_time(mode: Mode, peer: i32, sent: Option<u64>, ticks: u64) {
    if matches!(mode, Mode::Recv | Mode::Irecv | Mode::Mrecv) {
        matrix::recv_time(peer, ticks);
    } else if let Some(bytes) = sent {
        matrix::sent(peer, bytes, ticks);
    } else {
        matrix::send_time(peer, ticks);
    }
}

/// MPI_Recv (MPI 4.0 §3.2.4). Size is what was posted: count × type size.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn blocking_recv(
    func: u8,
    mode: Mode,
    count: impl Into<i64>,
    dt: MPI_Datatype,
    source: c_int,
    tag: c_int,
    comm: MPI_Comm,
    status: *mut MPI_Status,
    call: impl FnOnce(*mut MPI_Status) -> c_int,
) -> c_int {
    let count: i64 = count.into();
    let mut local = mpi::empty_status();
    let any_tag = tag == mpi::any_tag();
    let st = if source == mpi::any_source() || any_tag {
        visible_status(status, &mut local)
    } else {
        status
    };
    let wildcard = source == mpi::any_source();
    let (class, peer, size, memo) = before((PeerClass::Unknown, -1, 0, None), || {
        if source == mpi::proc_null() {
            return (PeerClass::ProcNull, -1, 0, None);
        }
        if wildcard {
            return (PeerClass::Unknown, -1, msg_bytes(count, dt), None);
        }
        // A wildcard tag is numbered from the status: not remembered.
        let memo = if any_tag {
            None
        } else {
            memo::resolve(&memo::Call {
                func,
                mode,
                side: SIDE_RECV,
                comm,
                peer: source,
                tag,
                count,
                datatype: dt,
            })
        };
        match memo {
            Some(r) => (r.class(), r.peer(), r.size(), Some(r)),
            None => {
                let (class, peer) = classify(comm, source);
                (class, peer, msg_bytes(count, dt), None)
            }
        }
    });
    let (rc, t0, t1) = timed(func, Some((peer_what(peer), size)), || call(st));
    protect(|| {
        let ticks = t1.wrapping_sub(t0);
        if let Some(r) = &memo {
            r.record(ticks);
            if rc == mpi::success() {
                let (post, probes) = probed_from(comm, peer, tag, t0);
                if let Some(n) = r.number() {
                    let times = [post, post, t1];
                    let polls = samples::poll_word(probes, t0, t1);
                    samples::keep_blocking(
                        n,
                        SIDE_RECV,
                        peer,
                        (func, class as u8),
                        size,
                        times,
                        polls,
                    );
                }
            }
            return;
        }
        let (class, peer) = if wildcard {
            recv_peer(comm, source, st, rc)
        } else {
            (class, peer)
        };
        record(func, mode, class, size, size, ticks);
        matrix::recv_time(peer, ticks);
        if rc == mpi::success() {
            let tag = if any_tag { status_tag(st) } else { tag };
            // A receive of what a probe found: its sample counts the probe calls' time and
            // its own (`samples::poll_word`).
            let (post, probes) = probed_from(comm, peer, tag, t0);
            let times = [post, post, t1];
            let polls = samples::poll_word(probes, t0, t1);
            sample(
                SIDE_RECV,
                (func, class),
                comm,
                (peer, tag),
                size,
                (times, polls),
                1,
            );
        }
    });
    rc
}
