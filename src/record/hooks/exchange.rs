//! Send-receive hooks (MPI 4.0 §3.10): MPI_Sendrecv, MPI_Sendrecv_replace and their
//! nonblocking forms, each one call with a message each way.
use super::common::{before, msg_bytes, peer_what, timed};
use super::p2p::sample;
#[cfg(mpi_isendrecv)]
use super::p2p::track;
#[cfg(mpi_isendrecv)]
use crate::base::clock::now;
use crate::base::mpi::{self, MPI_Comm, MPI_Datatype};
use crate::base::runtime::protect;
use crate::record::matrix;
use crate::record::peers::classify;
#[cfg(mpi_isendrecv)]
use crate::record::requests::Sample;
use crate::record::samples::{SIDE_RECV, SIDE_SEND};
use crate::record::stats::record;
use loggp_report::{Mode, PeerClass};
use std::os::raw::c_int;

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
        let (rclass, rpeer) = if source >= 0 {
            classify(comm, source)
        } else {
            (PeerClass::Unknown, -1)
        };
        // One call for both message ends, each sampled on its own channel: each kept
        // end stands for half the call where both can be kept (`samples::side_of`).
        let receives = source >= 0 && rc == mpi::success() && rpeer >= 0;
        let together = u64::from(peer >= 0) + u64::from(receives);
        let times = ([t0, t0, t1], 0);
        sample(
            SIDE_SEND,
            (func, class),
            comm,
            (peer, tags.0),
            send,
            times,
            together,
        );
        if source >= 0 {
            matrix::recv_time(rpeer, t1.wrapping_sub(t0));
            if receives {
                let (what, to) = ((func, rclass), (rpeer, tags.1));
                sample(SIDE_RECV, what, comm, to, recv, times, together);
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
