//! Point-to-point hooks: blocking and nonblocking sends and receives, persistent inits,
//! send-receive (MPI 4.0 §3.2–3.10).
use super::common::{
    before, msg_bytes, peer_what, status_source, status_tag, timed, visible_status,
};
use crate::base::clock::now;
use crate::base::funcs::BURST_GAP;
use crate::base::mpi::{self, Handle, MPI_Comm, MPI_Datatype, MPI_Status};
use crate::base::runtime::protect;
use crate::record::matrix;
use crate::record::peers::{classify, comm_id, world};
use crate::record::requests::{self, Info, Sample};
use crate::record::samples::{self, SIDE_RECV, SIDE_SEND};
use crate::record::stats::{record, this_slot};
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
    let (class, peer, size) = before((PeerClass::Unknown, -1, 0), || {
        let (class, peer) = classify(comm, dest);
        let size = if class == PeerClass::ProcNull {
            0
        } else {
            msg_bytes(count, dt)
        };
        (class, peer, size)
    });
    // Nothing to wait for with MPI_PROC_NULL.
    let (rc, t0, t1) = timed(
        func,
        (class != PeerClass::ProcNull).then_some((peer_what(peer), size)),
        call,
    );
    protect(|| {
        record(func, mode, class, size, size, t1.wrapping_sub(t0));
        matrix::sent(peer, size, t1.wrapping_sub(t0));
        burst(mode, class, peer, size, t0, t1);
        sample(SIDE_SEND, func, class, comm, peer, tag, size, [t0, t0, t1]);
    });
    rc
}

/// One end of a blocking message for the waits' deterministic sample (issue 25):
/// `times` = start (post), wait, end.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn sample(
    side: u64,
    func: u8,
    class: PeerClass,
    comm: MPI_Comm,
    peer: i32,
    tag: c_int,
    size: u64,
    times: [u64; 3],
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
        let sample = if persistent {
            Sample::default()
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
fn track(
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
    let (class, peer, size) = before((PeerClass::Unknown, -1, 0), || {
        let (class, peer) = if wildcard {
            (PeerClass::Unknown, -1)
        } else {
            classify(comm, source)
        };
        let size = if class == PeerClass::ProcNull {
            0
        } else {
            msg_bytes(count, dt)
        };
        (class, peer, size)
    });
    let (rc, t0, t1) = timed(func, Some((peer_what(peer), size)), || call(st));
    protect(|| {
        let (class, peer) = if wildcard {
            recv_peer(comm, source, st, rc)
        } else {
            (class, peer)
        };
        record(func, mode, class, size, size, t1.wrapping_sub(t0));
        matrix::recv_time(peer, t1.wrapping_sub(t0));
        if rc == mpi::success() {
            let tag = if any_tag { status_tag(st) } else { tag };
            sample(SIDE_RECV, func, class, comm, peer, tag, size, [t0, t0, t1]);
        }
    });
    rc
}

/// MPI_Sendrecv and MPI_Sendrecv_replace (MPI 4.0 §3.10): binned by the send size,
/// bytes are both directions.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn sendrecv(
    func: u8,
    mode: Mode,
    send_count: impl Into<i64>,
    send_dt: MPI_Datatype,
    dest: c_int,
    tags: (c_int, c_int),
    recv_count: impl Into<i64>,
    recv_dt: MPI_Datatype,
    source: c_int,
    comm: MPI_Comm,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let (send_count, recv_count): (i64, i64) = (send_count.into(), recv_count.into());
    let waits_on = before(0, || {
        peer_what(classify(comm, if source >= 0 { source } else { dest }).1)
    });
    let (rc, t0, t1) = timed(func, Some((waits_on, 0)), call);
    protect(|| {
        let (class, peer) = classify(comm, dest);
        let (send, recv) =
            sendrecv_bytes(class, (send_count, send_dt), source, (recv_count, recv_dt));
        record(func, mode, class, send, send + recv, t1.wrapping_sub(t0));
        // The call is both a sending and a receiving call: its time counts on both.
        matrix::sent(peer, send, t1.wrapping_sub(t0));
        sample(
            SIDE_SEND,
            func,
            class,
            comm,
            peer,
            tags.0,
            send,
            [t0, t0, t1],
        );
        if source >= 0 {
            let (rclass, rpeer) = classify(comm, source);
            matrix::recv_time(rpeer, t1.wrapping_sub(t0));
            if rc == mpi::success() {
                sample(
                    SIDE_RECV,
                    func,
                    rclass,
                    comm,
                    rpeer,
                    tags.1,
                    recv,
                    [t0, t0, t1],
                );
            }
        }
    });
    rc
}

/// MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0 §3.10, new in MPI 4.0): one request
/// for both directions, recorded like MPI_Sendrecv (binned by the send size, bytes both
/// ways) under its own mode, and tracked to its completion like a nonblocking send.
#[cfg(mpi_isendrecv)]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn isendrecv(
    func: u8,
    mode: Mode,
    send_count: impl Into<i64>,
    send_dt: MPI_Datatype,
    dest: c_int,
    recv_count: impl Into<i64>,
    recv_dt: MPI_Datatype,
    source: c_int,
    comm: MPI_Comm,
    request: impl FnOnce() -> Option<u64>,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let (send_count, recv_count): (i64, i64) = (send_count.into(), recv_count.into());
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        let (class, peer) = classify(comm, dest);
        let (send, recv) =
            sendrecv_bytes(class, (send_count, send_dt), source, (recv_count, recv_dt));
        record(func, mode, class, send, send + recv, t1.wrapping_sub(t0));
        matrix::sent(peer, send, t1.wrapping_sub(t0));
        let sample = Sample::default();
        track(
            rc,
            request,
            (mode, class, peer, send),
            false,
            t0,
            comm,
            sample,
        );
    });
    rc
}

/// Bytes sent and received by a send-receive: none towards or from MPI_PROC_NULL.
#[inline(always)]
fn sendrecv_bytes(
    class: PeerClass,
    send: (i64, MPI_Datatype),
    source: c_int,
    recv: (i64, MPI_Datatype),
) -> (u64, u64) {
    let sent = if class == PeerClass::ProcNull {
        0
    } else {
        msg_bytes(send.0, send.1)
    };
    let received = if source == mpi::proc_null() {
        0
    } else {
        msg_bytes(recv.0, recv.1)
    };
    (sent, received)
}
