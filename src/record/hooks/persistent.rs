//! Persistent requests and a request's bookkeeping (MPI 4.0 §3.9, §3.7.3): start,
//! free, cancel; and MPI_Comm_free, watched for the rank-translation cache.
use super::p2p::started_time;
use crate::base::clock::now;
use crate::base::funcs::REQ_FREED;
use crate::base::mpi::{self, Handle, MPI_Comm};
use crate::base::runtime::protect;
use crate::record::peers::{comm_id, world};
use crate::record::requests::{self, Info, Sample};
use crate::record::samples::{self, SIDE_RECV, SIDE_SEND};
use crate::record::stats::record;
use loggp_report::{Mode, PeerClass};
use std::os::raw::c_int;

/// MPI_Start (MPI 4.0 §3.9): a persistent request becomes active; its bytes count now,
/// under the nonblocking mode it starts.
#[inline(always)]
pub(crate) fn start(func: u8, _mode: Mode, request: u64, call: impl FnOnce() -> c_int) -> c_int {
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        let started = if rc == mpi::success() {
            restart(request, t0)
        } else {
            None
        };
        match started {
            Some(i) => {
                record(func, i.mode, i.class, i.bytes, i.bytes, t1.wrapping_sub(t0));
                started_time(i.mode, i.peer_world, i.bytes, t1.wrapping_sub(t0));
            }
            None => record(
                func,
                Mode::None,
                PeerClass::Unknown,
                0,
                0,
                t1.wrapping_sub(t0),
            ),
        }
    });
    rc
}

/// A persistent request started at `t0`: active, and its message numbered for the
/// waits' sample (issue 25) as a nonblocking call's is at its start. Each start is one
/// message on the channel, in the order of the starts, which MPI's non-overtaking rule
/// makes the order of matching (MPI 4.0 §3.9: a persistent request "behaves as" the
/// nonblocking call it stands for). A receive from MPI_ANY_SOURCE or with MPI_ANY_TAG is
/// numbered at its completion, from its status. (MPI_Startall starts its requests "in
/// some arbitrary order": two of one call on the same channel may be numbered in the
/// other order than they match; such pairs do not fit and are dropped as inconsistent.)
#[inline(always)]
fn restart(bits: u64, t0: u64) -> Option<Info> {
    requests::update(bits, false, |i| {
        i.active = true;
        i.cancel_requested = false;
        i.start_ticks = t0;
        i.sample = started_sample(i);
    })
}

#[inline(always)]
fn started_sample(i: &Info) -> Sample {
    let recv = i.mode == Mode::Irecv;
    let tag = i.sample.tag;
    if i.mode == Mode::Collective {
        return started_collective(i);
    }
    if recv && (i.peer_world < 0 || tag == mpi::any_tag()) {
        // MPI_PROC_NULL as well: its completion has no source to number it by.
        return Sample {
            seq: Sample::AT_COMPLETION,
            tag,
            ..Sample::default()
        };
    }
    if i.peer_world < 0 {
        return Sample {
            tag,
            ..Sample::default()
        };
    }
    let side = if recv { SIDE_RECV } else { SIDE_SEND };
    let comm = comm_id(MPI_Comm::from_bits(i.comm_bits));
    match world().and_then(|w| samples::number(side, w.rank, i.peer_world, comm, tag)) {
        Some((channel, k, stride)) => Sample::kept(channel, k, stride, tag),
        None => Sample {
            tag,
            ..Sample::default()
        },
    }
}

/// A persistent collective's start, numbered among the starts of its function on its
/// communicator: every member starts the persistent collectives of a communicator in
/// the same order (MPI 4.0 §6.13), so the k-th start is the same operation on every
/// rank, as the k-th call of a blocking or nonblocking collective is (a neighbourhood
/// collective's on its topology, `coll::number`).
#[inline(always)]
fn started_collective(i: &Info) -> Sample {
    let tag = i.sample.tag;
    let (func, _) = Sample::coll_of_tag(tag);
    let unnumbered = Sample {
        tag,
        ..Sample::default()
    };
    if i.comm_bits == 0 {
        return unnumbered;
    }
    match super::coll::number(func, MPI_Comm::from_bits(i.comm_bits)) {
        Some((channel, k, stride)) => Sample::kept(channel, k, stride, tag),
        None => unnumbered,
    }
}

/// MPI_Startall: each request restarts; the call is recorded once with all bytes.
pub(crate) fn startall(
    func: u8,
    _mode: Mode,
    count: c_int,
    reqs: impl Fn(usize) -> u64,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        let mut bytes = 0;
        if rc == mpi::success() {
            for i in 0..count.max(0) as usize {
                if let Some(info) = restart(reqs(i), t0) {
                    bytes += info.bytes;
                    // Each send it starts is a message; the call's time is not split.
                    started_time(info.mode, info.peer_world, info.bytes, 0);
                }
            }
        }
        record(
            func,
            Mode::None,
            PeerClass::Unknown,
            0,
            bytes,
            t1.wrapping_sub(t0),
        );
    });
    rc
}

/// MPI_Request_free: an active request freed before completion is counted as such.
pub(crate) fn request_free(
    func: u8,
    _mode: Mode,
    request: u64,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        if rc == mpi::success() {
            if let Some(i) = requests::remove(request, false) {
                if i.active {
                    record(REQ_FREED, i.mode, i.class, i.bytes, i.bytes, 0);
                }
            }
        }
        record(
            func,
            Mode::None,
            PeerClass::Unknown,
            0,
            0,
            t1.wrapping_sub(t0),
        );
    });
    rc
}

/// MPI_Cancel: marks the request, so that its completion is checked for cancellation.
pub(crate) fn cancel(func: u8, _mode: Mode, request: u64, call: impl FnOnce() -> c_int) -> c_int {
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        if rc == mpi::success() {
            requests::update(request, false, |i| i.cancel_requested = true);
        }
        record(
            func,
            Mode::None,
            PeerClass::Unknown,
            0,
            0,
            t1.wrapping_sub(t0),
        );
    });
    rc
}

/// MPI_Comm_free (watched, not counted): a freed handle may return for another
/// communicator, so its cached rank translation must go.
pub(crate) fn comm_free(
    _func: u8,
    _mode: Mode,
    comm: *mut MPI_Comm,
    call: impl FnOnce() -> c_int,
) -> c_int {
    if !comm.is_null() {
        // SAFETY: the caller's communicator handle, read before the call frees it.
        protect(|| crate::record::peers::forget(unsafe { *comm }));
    }
    call()
}
