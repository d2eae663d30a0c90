//! What an intercepted call does around its PMPI_ call, one function per family of MPI
//! calls. Each hook: read the clock, make the PMPI_ call, read the clock, then record —
//! the recording is wrapped by [`protect`], so a fault stops profiling instead of the job.
//! Return codes and out-arguments are the PMPI_ call's own. Where the shim needs a status
//! the user did not ask for (the source of a wildcard receive, a cancellation), it passes
//! its own in place of MPI_STATUS_IGNORE for single-request calls only: for the array
//! variants that would change what MPI_ERR_IN_STATUS reports.
use crate::clock::now;
use crate::mpi::{self, Handle, MPI_Comm, MPI_Datatype, MPI_Message, MPI_Request, MPI_Status};
use crate::peers::classify;
use crate::requests::{self, Info};
use crate::runtime::protect;
use crate::stats::{record, this_slot, Class, Mode, SCRATCH_HANDLES};
use std::os::raw::c_int;

/// Pseudo records, beside the intercepted functions' own ids.
pub const REQ_COMPLETED: u8 = 60;
pub const REQ_CANCELLED: u8 = 61;
pub const REQ_FREED: u8 = 62;

/// Bytes of `count` elements of `dt` (0 on error or a negative count).
#[inline(always)]
pub(crate) fn msg_bytes(count: c_int, dt: MPI_Datatype) -> u64 {
    if count <= 0 {
        return 0;
    }
    let mut size: c_int = 0;
    // SAFETY: PMPI_Type_size writes one int.
    if unsafe { mpi::PMPI_Type_size(dt, &mut size) } != mpi::success() || size < 0 {
        return 0;
    }
    count as u64 * size as u64
}

/// The user's status pointer, or `local` when the user passed MPI_STATUS_IGNORE.
#[inline(always)]
fn visible_status(status: *mut MPI_Status, local: &mut MPI_Status) -> *mut MPI_Status {
    if status == mpi::status_ignore() || status.is_null() {
        local
    } else {
        status
    }
}

#[inline(always)]
fn status_source(st: *const MPI_Status) -> c_int {
    // SAFETY: st points to a status the PMPI_ call filled.
    unsafe { (*st).MPI_SOURCE }
}

/// MPI_Send, MPI_Ssend, MPI_Bsend, MPI_Rsend (MPI 4.0 §3.2.1, §3.4).
#[inline(always)]
pub(crate) fn blocking_send(
    func: u8,
    mode: Mode,
    count: c_int,
    dt: MPI_Datatype,
    dest: c_int,
    comm: MPI_Comm,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        let (class, _) = classify(comm, dest);
        let size = if class == Class::ProcNull {
            0
        } else {
            msg_bytes(count, dt)
        };
        record(func, mode, class, size, size, t1.wrapping_sub(t0));
    });
    rc
}

/// MPI_Isend/Issend/Ibsend/Irsend and the persistent MPI_*send_init (MPI 4.0 §3.7, §3.9).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn start_send(
    func: u8,
    mode: Mode,
    persistent: bool,
    count: c_int,
    dt: MPI_Datatype,
    dest: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        let (class, peer) = classify(comm, dest);
        let size = if class == Class::ProcNull {
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
        track(rc, request, mode, class, peer, size, persistent, t0, comm);
    });
    rc
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn track(
    rc: c_int,
    request: *mut MPI_Request,
    mode: Mode,
    class: Class,
    peer: i32,
    size: u64,
    persistent: bool,
    t0: u64,
    comm: MPI_Comm,
) {
    if rc != mpi::success() || request.is_null() {
        return;
    }
    // SAFETY: the PMPI_ call succeeded and wrote the request.
    let req = unsafe { *request };
    if req == mpi::request_null() {
        return;
    }
    requests::insert(
        req.bits(),
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
        },
    );
}

/// MPI_Irecv and MPI_Recv_init.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn start_recv(
    func: u8,
    persistent: bool,
    count: c_int,
    dt: MPI_Datatype,
    source: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        let (class, peer) = classify(comm, source);
        let size = if class == Class::ProcNull {
            0
        } else {
            msg_bytes(count, dt)
        };
        record(
            func,
            Mode::Irecv,
            class,
            size,
            if persistent { 0 } else { size },
            t1.wrapping_sub(t0),
        );
        track(
            rc,
            request,
            Mode::Irecv,
            class,
            peer,
            size,
            persistent,
            t0,
            comm,
        );
    });
    rc
}

/// Class of the peer of a receive: from its arguments, or from the status for a wildcard.
#[inline(always)]
fn recv_class(comm: MPI_Comm, source: c_int, st: *const MPI_Status, rc: c_int) -> Class {
    if source == mpi::any_source() {
        if rc != mpi::success() {
            return Class::Unknown;
        }
        classify(comm, status_source(st)).0
    } else {
        classify(comm, source).0
    }
}

/// MPI_Recv (MPI 4.0 §3.2.4). Size is what was posted: count × type size.
#[inline(always)]
pub(crate) fn blocking_recv(
    func: u8,
    count: c_int,
    dt: MPI_Datatype,
    source: c_int,
    comm: MPI_Comm,
    status: *mut MPI_Status,
    call: impl FnOnce(*mut MPI_Status) -> c_int,
) -> c_int {
    let mut local = mpi::empty_status();
    let st = if source == mpi::any_source() {
        visible_status(status, &mut local)
    } else {
        status
    };
    let t0 = now();
    let rc = call(st);
    let t1 = now();
    protect(|| {
        let class = recv_class(comm, source, st, rc);
        let size = if class == Class::ProcNull {
            0
        } else {
            msg_bytes(count, dt)
        };
        record(func, Mode::Recv, class, size, size, t1.wrapping_sub(t0));
    });
    rc
}

/// MPI_Sendrecv and MPI_Sendrecv_replace (MPI 4.0 §3.10): binned by the send size,
/// bytes are both directions.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn sendrecv(
    func: u8,
    send_count: c_int,
    send_dt: MPI_Datatype,
    dest: c_int,
    recv_count: c_int,
    recv_dt: MPI_Datatype,
    source: c_int,
    comm: MPI_Comm,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        let (class, _) = classify(comm, dest);
        let send = if class == Class::ProcNull {
            0
        } else {
            msg_bytes(send_count, send_dt)
        };
        let recv = if source == mpi::proc_null() {
            0
        } else {
            msg_bytes(recv_count, recv_dt)
        };
        record(
            func,
            Mode::Sendrecv,
            class,
            send,
            send + recv,
            t1.wrapping_sub(t0),
        );
    });
    rc
}

/// MPI_Probe and MPI_Iprobe: no data moves; the class comes from the status.
#[inline(always)]
pub(crate) fn probe(
    func: u8,
    source: c_int,
    comm: MPI_Comm,
    flag: *mut c_int,
    status: *mut MPI_Status,
    call: impl FnOnce(*mut MPI_Status) -> c_int,
) -> c_int {
    let mut local = mpi::empty_status();
    let st = visible_status(status, &mut local);
    let t0 = now();
    let rc = call(st);
    let t1 = now();
    protect(|| {
        // SAFETY: flag, when given, was written by the PMPI_ call.
        let found = flag.is_null() || unsafe { *flag } != 0;
        let class = if found {
            recv_class(comm, source, st, rc)
        } else {
            classify(comm, source).0
        };
        record(func, Mode::None, class, 0, 0, t1.wrapping_sub(t0));
    });
    rc
}

/// MPI_Mprobe and MPI_Improbe (MPI 4.0 §3.8.2): the matched message is remembered with
/// its peer so that MPI_Mrecv/MPI_Imrecv can classify it.
#[inline(always)]
pub(crate) fn mprobe(
    func: u8,
    source: c_int,
    comm: MPI_Comm,
    flag: *mut c_int,
    message: *mut MPI_Message,
    status: *mut MPI_Status,
    call: impl FnOnce(*mut MPI_Status) -> c_int,
) -> c_int {
    let mut local = mpi::empty_status();
    let st = visible_status(status, &mut local);
    let t0 = now();
    let rc = call(st);
    let t1 = now();
    protect(|| {
        // SAFETY: flag, when given, was written by the PMPI_ call.
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
        record(func, Mode::None, class, 0, 0, t1.wrapping_sub(t0));
        if found && !message.is_null() {
            // SAFETY: written by the successful PMPI_ call.
            let m = unsafe { *message };
            if m != mpi::message_null() && m != mpi::message_no_proc() {
                requests::insert(
                    m.bits(),
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
                    },
                );
            }
        }
    });
    rc
}

/// MPI_Mrecv and MPI_Imrecv: the message handle is read before the call (which resets it).
#[inline(always)]
pub(crate) fn mrecv(
    func: u8,
    count: c_int,
    dt: MPI_Datatype,
    message: *mut MPI_Message,
    request: *mut MPI_Request,
    call: impl FnOnce() -> c_int,
) -> c_int {
    // SAFETY: the caller passes a valid message handle pointer (MPI requires it).
    let m = if message.is_null() {
        mpi::message_null()
    } else {
        unsafe { *message }
    };
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        let (class, peer, comm_bits) = if m == mpi::message_no_proc() {
            (Class::ProcNull, -1, 0)
        } else {
            match requests::remove(m.bits(), true) {
                Some(i) => (i.class, i.peer_world, i.comm_bits),
                None => (Class::Unknown, -1, 0),
            }
        };
        let size = if class == Class::ProcNull {
            0
        } else {
            msg_bytes(count, dt)
        };
        record(func, Mode::Mrecv, class, size, size, t1.wrapping_sub(t0));
        if !request.is_null() && rc == mpi::success() {
            // SAFETY: written by the successful PMPI_Imrecv.
            let req = unsafe { *request };
            if req != mpi::request_null() {
                requests::insert(
                    req.bits(),
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
                    },
                );
            }
        }
    });
    rc
}

/// MPI_Start (MPI 4.0 §3.9): a persistent request becomes active; its bytes count now,
/// under the nonblocking mode it starts.
#[inline(always)]
pub(crate) fn start(func: u8, request: *mut MPI_Request, call: impl FnOnce() -> c_int) -> c_int {
    // SAFETY: MPI requires a valid request pointer.
    let bits = if request.is_null() {
        0
    } else {
        unsafe { *request }.bits()
    };
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        let started = if rc == mpi::success() {
            restart(bits, t0)
        } else {
            None
        };
        match started {
            Some(i) => record(func, i.mode, i.class, i.bytes, i.bytes, t1.wrapping_sub(t0)),
            None => record(func, Mode::None, Class::Unknown, 0, 0, t1.wrapping_sub(t0)),
        }
    });
    rc
}

#[inline(always)]
fn restart(bits: u64, t0: u64) -> Option<Info> {
    requests::update(bits, false, |i| {
        i.active = true;
        i.cancel_requested = false;
        i.start_ticks = t0;
    })
}

/// MPI_Startall: each request restarts; the call is recorded once with all bytes.
pub(crate) fn startall(
    func: u8,
    count: c_int,
    requests_: *mut MPI_Request,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        let mut bytes = 0;
        if rc == mpi::success() && !requests_.is_null() {
            for i in 0..count.max(0) as usize {
                // SAFETY: the array has `count` requests.
                let bits = unsafe { *requests_.add(i) }.bits();
                if let Some(info) = restart(bits, t0) {
                    bytes += info.bytes;
                }
            }
        }
        record(
            func,
            Mode::None,
            Class::Unknown,
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
    request: *mut MPI_Request,
    call: impl FnOnce() -> c_int,
) -> c_int {
    // SAFETY: MPI requires a valid request pointer.
    let bits = if request.is_null() {
        0
    } else {
        unsafe { *request }.bits()
    };
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        if rc == mpi::success() {
            if let Some(i) = requests::remove(bits, false) {
                if i.active {
                    record(REQ_FREED, i.mode, i.class, i.bytes, i.bytes, 0);
                }
            }
        }
        record(func, Mode::None, Class::Unknown, 0, 0, t1.wrapping_sub(t0));
    });
    rc
}

/// MPI_Cancel: marks the request, so that its completion is checked for cancellation.
pub(crate) fn cancel(func: u8, request: *mut MPI_Request, call: impl FnOnce() -> c_int) -> c_int {
    // SAFETY: MPI requires a valid request pointer.
    let bits = if request.is_null() {
        0
    } else {
        unsafe { *request }.bits()
    };
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        if rc == mpi::success() {
            requests::update(bits, false, |i| i.cancel_requested = true);
        }
        record(func, Mode::None, Class::Unknown, 0, 0, t1.wrapping_sub(t0));
    });
    rc
}

/// One tracked request completed at `t_done`; `st` is its status when visible.
/// Returns what it was, for attributing the completing call.
#[inline(always)]
fn complete(bits: u64, st: *const MPI_Status, t_done: u64) -> Option<Info> {
    let info = requests::get(bits, false)?;
    if !info.active {
        return None; // an inactive persistent request completes at once, with nothing
    }
    if info.persistent {
        requests::update(bits, false, |i| i.active = false);
    } else {
        requests::remove(bits, false);
    }
    let mut class = info.class;
    if class == Class::Unknown && !st.is_null() && info.mode as u8 >= Mode::Recv as u8 {
        class = classify(mpi::MPI_Comm::from_bits(info.comm_bits), status_source(st)).0;
    }
    let mut cancelled = false;
    if info.cancel_requested && !st.is_null() {
        let mut flag: c_int = 0;
        // SAFETY: st points to a filled status.
        unsafe { mpi::PMPI_Test_cancelled(st, &mut flag) };
        cancelled = flag != 0;
    }
    let pseudo = if cancelled {
        REQ_CANCELLED
    } else {
        REQ_COMPLETED
    };
    record(
        pseudo,
        info.mode,
        class,
        info.bytes,
        info.bytes,
        t_done.wrapping_sub(info.start_ticks),
    );
    Some(Info { class, ..info })
}

/// Records a completion call: under the mode, class and size of the request it completed
/// when it completed exactly one, so that completion costs can be learned per mode.
#[inline(always)]
fn record_completion_call(func: u8, only: Option<Info>, n_done: usize, ticks: u64) {
    match only {
        Some(i) if n_done == 1 => record(func, i.mode, i.class, i.bytes, 0, ticks),
        _ => record(func, Mode::None, Class::Unknown, 0, 0, ticks),
    }
}

/// MPI_Wait and MPI_Test (MPI 4.0 §3.7.3). `flag` is null for Wait.
pub(crate) fn wait_one(
    func: u8,
    request: *mut MPI_Request,
    flag: *mut c_int,
    status: *mut MPI_Status,
    call: impl FnOnce(*mut MPI_Status) -> c_int,
) -> c_int {
    // SAFETY: MPI requires a valid request pointer.
    let bits = if request.is_null() {
        0
    } else {
        unsafe { *request }.bits()
    };
    let mut local = mpi::empty_status();
    let st = visible_status(status, &mut local);
    let t0 = now();
    let rc = call(st);
    let t1 = now();
    protect(|| {
        // SAFETY: flag, when given, was written by PMPI_Test.
        let done = flag.is_null() || unsafe { *flag } != 0;
        let info = if done && bits != mpi::request_null().bits() {
            complete(bits, st, t1)
        } else {
            None
        };
        record_completion_call(func, info, info.is_some() as usize, t1.wrapping_sub(t0));
    });
    rc
}

/// Remembers the handles of a request array before a Wait/Test variant nulls them.
/// Returns how many were remembered.
#[inline(always)]
fn remember(count: c_int, reqs: *const MPI_Request) -> usize {
    let Some(slot) = this_slot() else { return 0 };
    let n = (count.max(0) as usize).min(SCRATCH_HANDLES);
    if reqs.is_null() {
        return 0;
    }
    let scratch = slot.scratch();
    for (i, s) in scratch.iter().enumerate().take(n) {
        // SAFETY: the array holds `count` requests.
        s.set(unsafe { *reqs.add(i) }.bits());
    }
    n
}

#[inline(always)]
fn remembered(i: usize, n: usize) -> Option<u64> {
    if i >= n {
        requests::UNTRACKED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        return None;
    }
    this_slot().map(|s| s.scratch()[i].get())
}

#[inline(always)]
fn nth_status(statuses: *mut MPI_Status, j: usize) -> *const MPI_Status {
    if statuses.is_null() || statuses == mpi::statuses_ignore() {
        std::ptr::null()
    } else {
        // SAFETY: the user's array has one status per completed request.
        unsafe { statuses.add(j) }
    }
}

/// MPI_Waitall and MPI_Testall: every request completed when the call succeeds (and, for
/// Testall, sets the flag).
pub(crate) fn wait_all(
    func: u8,
    count: c_int,
    reqs: *mut MPI_Request,
    flag: *mut c_int,
    statuses: *mut MPI_Status,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let n = remember(count, reqs);
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        // SAFETY: flag, when given, was written by PMPI_Testall.
        let done = rc == mpi::success() && (flag.is_null() || unsafe { *flag } != 0);
        let (mut last, mut n_done) = (None, 0);
        if done {
            for i in 0..count.max(0) as usize {
                if let Some(bits) = remembered(i, n) {
                    if let Some(info) = complete(bits, nth_status(statuses, i), t1) {
                        last = Some(info);
                        n_done += 1;
                    }
                }
            }
        }
        record_completion_call(func, last, n_done, t1.wrapping_sub(t0));
    });
    rc
}

/// MPI_Waitany and MPI_Testany: at most one completes, named by `index`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn wait_any(
    func: u8,
    count: c_int,
    reqs: *mut MPI_Request,
    index: *mut c_int,
    flag: *mut c_int,
    status: *mut MPI_Status,
    call: impl FnOnce(*mut MPI_Status) -> c_int,
) -> c_int {
    let n = remember(count, reqs);
    let mut local = mpi::empty_status();
    let st = visible_status(status, &mut local);
    let t0 = now();
    let rc = call(st);
    let t1 = now();
    protect(|| {
        // SAFETY: index and flag were written by the PMPI_ call.
        let done = flag.is_null() || unsafe { *flag } != 0;
        let idx = if index.is_null() {
            mpi::undefined()
        } else {
            unsafe { *index }
        };
        let mut info = None;
        if done && idx != mpi::undefined() && idx >= 0 {
            if let Some(bits) = remembered(idx as usize, n) {
                info = complete(bits, st, t1);
            }
        }
        record_completion_call(func, info, info.is_some() as usize, t1.wrapping_sub(t0));
    });
    rc
}

/// MPI_Waitsome and MPI_Testsome: `outcount` requests complete, named by `indices`.
pub(crate) fn wait_some(
    func: u8,
    count: c_int,
    reqs: *mut MPI_Request,
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut MPI_Status,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let n = remember(count, reqs);
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        // SAFETY: outcount and indices were written by the PMPI_ call.
        let out = if outcount.is_null() {
            mpi::undefined()
        } else {
            unsafe { *outcount }
        };
        let (mut last, mut n_done) = (None, 0);
        if rc == mpi::success() && out != mpi::undefined() && out > 0 && !indices.is_null() {
            for j in 0..out as usize {
                let i = unsafe { *indices.add(j) };
                if let Some(bits) = remembered(i.max(0) as usize, n) {
                    if let Some(info) = complete(bits, nth_status(statuses, j), t1) {
                        last = Some(info);
                        n_done += 1;
                    }
                }
            }
        }
        record_completion_call(func, last, n_done, t1.wrapping_sub(t0));
    });
    rc
}
