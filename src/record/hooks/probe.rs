//! Probes and matched receives (MPI 4.0 §3.8): a matched message is remembered with its
//! peer so that MPI_Mrecv/MPI_Imrecv can classify it.
use super::common::{before, msg_bytes, peer_what, status_source, timed, visible_status};
use super::p2p::recv_peer;
use crate::base::clock::now;
use crate::base::mpi::{self, Handle, MPI_Comm, MPI_Datatype, MPI_Status};
use crate::base::runtime::protect;
use crate::record::matrix;
use crate::record::peers::classify;
use crate::record::requests::{self, Info};
use crate::record::stats::record;
use loggp_report::{Mode, PeerClass};
use std::os::raw::c_int;

/// MPI_Probe and MPI_Iprobe: no data moves; the class comes from the status.
#[inline(always)]
pub(crate) fn probe(
    func: u8,
    mode: Mode,
    source: c_int,
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
    source: c_int,
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
        if found {
            if let Some(m) = message() {
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
                        peer_world: peer,
                        start_ticks: t0,
                        comm_bits: comm.bits(),
                        sample: Default::default(),
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
        let (class, peer, comm_bits) = if no_proc {
            (PeerClass::ProcNull, -1, 0)
        } else {
            match requests::remove(m, true) {
                Some(i) => (i.class, i.peer_world, i.comm_bits),
                None => (PeerClass::Unknown, -1, 0),
            }
        };
        let size = if class == PeerClass::ProcNull {
            0
        } else {
            msg_bytes(count, dt)
        };
        record(func, mode, class, size, size, t1.wrapping_sub(t0));
        matrix::recv_time(peer, t1.wrapping_sub(t0));
        if rc == mpi::success() {
            if let Some(req) = request() {
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
                        peer_world: peer,
                        start_ticks: t0,
                        comm_bits,
                        sample: Default::default(),
                    },
                );
            }
        }
    });
    rc
}
