//! What an intercepted call does around its PMPI_ call, one function per family of MPI
//! calls. Each hook: read the clock, make the call, read the clock, then record — the
//! recording is wrapped by [`protect`], so a fault stops profiling instead of the job.
//! Return codes and out-arguments are the call's own. Where the shim needs a status the
//! user did not ask for (the source of a wildcard receive, a cancellation), it passes its
//! own in place of MPI_STATUS_IGNORE for single-request calls only: for the array
//! variants that would change what MPI_ERR_IN_STATUS reports.
//!
//! Request and message handles reach the hooks as bits, read through the accessors of
//! [`access`]: the C entry points read C handles, the Fortran ones convert theirs with
//! the MPI's f2c functions, so both share one request table and one set of hooks.
use crate::clock::now;
use crate::mpi::{self, Handle, MPI_Comm, MPI_Datatype, MPI_Status};
use crate::peers::classify;
use crate::requests::{self, Info};
use crate::runtime::protect;
use crate::stats::{record, this_slot, Class, InProgress, Mode, CURRENT_REQUEST, SCRATCH_HANDLES};
use std::os::raw::c_int;

/// Pseudo records, beside the intercepted functions' own ids (at the top of the id space,
/// under `passive::BURST_GAP`).
pub const REQ_COMPLETED: u8 = (crate::stats::MAX_FUNCS - 4) as u8;
pub const REQ_CANCELLED: u8 = (crate::stats::MAX_FUNCS - 3) as u8;
pub const REQ_FREED: u8 = (crate::stats::MAX_FUNCS - 2) as u8;
const _: () = assert!(crate::intercept::FUNC_NAMES.len() < REQ_COMPLETED as usize);

pub(crate) mod access {
    use crate::mpi::{self, Handle, MPI_Fint, MPI_Message, MPI_Request};

    /// A C request before the call (a null pointer reads as MPI_REQUEST_NULL).
    #[inline(always)]
    pub fn c_req(p: *const MPI_Request) -> u64 {
        // SAFETY: MPI requires a valid pointer; null is tolerated.
        if p.is_null() {
            mpi::request_null().bits()
        } else {
            unsafe { *p }.bits()
        }
    }
    /// A C request written by the call, if it is a real one.
    #[inline(always)]
    pub fn c_req_out(p: *const MPI_Request) -> impl FnOnce() -> Option<u64> {
        move || Some(c_req(p)).filter(|&b| b != mpi::request_null().bits())
    }
    /// Element i of a C request array.
    #[inline(always)]
    pub fn c_reqs(p: *const MPI_Request) -> impl Fn(usize) -> u64 {
        // SAFETY: the caller's array holds `count` requests.
        move |i| c_req(if p.is_null() { p } else { unsafe { p.add(i) } })
    }
    /// A C message handle: its bits and whether it is MPI_MESSAGE_NO_PROC.
    #[inline(always)]
    pub fn c_msg(p: *const MPI_Message) -> (u64, bool) {
        // SAFETY: as above.
        let m = if p.is_null() {
            mpi::message_null()
        } else {
            unsafe { *p }
        };
        (m.bits(), m == mpi::message_no_proc())
    }
    #[inline(always)]
    pub fn c_msg_out(p: *const MPI_Message) -> impl FnOnce() -> Option<u64> {
        move || {
            let (b, no_proc) = c_msg(p);
            Some(b).filter(|&b| !no_proc && b != mpi::message_null().bits())
        }
    }
    #[inline(always)]
    fn f(p: *const MPI_Fint) -> MPI_Fint {
        // SAFETY: Fortran passes every argument by reference.
        if p.is_null() {
            0
        } else {
            unsafe { *p }
        }
    }
    /// A Fortran request, as the bits of its C handle.
    #[inline(always)]
    pub fn f_req(p: *const MPI_Fint) -> u64 {
        // SAFETY: read-only conversion of a Fortran handle.
        unsafe { mpi::loggp_request_f2c(f(p)) }.bits()
    }
    #[inline(always)]
    pub fn f_req_out(p: *const MPI_Fint) -> impl FnOnce() -> Option<u64> {
        move || Some(f_req(p)).filter(|&b| b != mpi::request_null().bits())
    }
    #[inline(always)]
    pub fn f_reqs(p: *const MPI_Fint) -> impl Fn(usize) -> u64 {
        // SAFETY: the Fortran array holds `count` requests.
        move |i| f_req(unsafe { p.add(i) })
    }
    #[inline(always)]
    pub fn f_msg(p: *const MPI_Fint) -> (u64, bool) {
        // SAFETY: read-only conversion of a Fortran handle.
        let m = unsafe { mpi::loggp_message_f2c(f(p)) };
        (m.bits(), m == mpi::message_no_proc())
    }
    #[inline(always)]
    pub fn f_msg_out(p: *const MPI_Fint) -> impl FnOnce() -> Option<u64> {
        move || {
            let (b, no_proc) = f_msg(p);
            Some(b).filter(|&b| !no_proc && b != mpi::message_null().bits())
        }
    }
}

/// Bytes of `count` elements of `dt` (0 on error or a negative count).
#[inline(always)]
pub(crate) fn msg_bytes(count: i64, dt: MPI_Datatype) -> u64 {
    if count <= 0 {
        return 0;
    }
    let mut size: c_int = 0;
    // SAFETY: PMPI_Type_size writes one int.
    if unsafe { mpi::PMPI_Type_size(dt, &mut size) } != mpi::success() || size < 0 {
        return 0;
    }
    (count as u64).saturating_mul(size as u64)
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
    // SAFETY: st points to a status the call filled (or the shim's own, whose source is
    // MPI_ANY_SOURCE until filled: see `mpi::empty_status`).
    unsafe { (*st).MPI_SOURCE }
}

/// The in-progress record's peer: world rank + 1, 0 when not known.
#[inline(always)]
fn peer_what(peer: i32) -> u64 {
    if peer < 0 {
        0
    } else {
        peer as u64 + 1
    }
}

/// Times `call` between two clock reads; meanwhile the thread's in-progress record says
/// what it waits on (`waits_on`: what and bytes, see [`InProgress`]), for interim reports.
#[inline(always)]
fn timed<R>(func: u8, waits_on: Option<(u64, u64)>, call: impl FnOnce() -> R) -> (R, u64, u64) {
    let cur = waits_on.and_then(|(what, bytes)| InProgress::begin(what, bytes));
    let t0 = now();
    if let Some(c) = &cur {
        c.started(func, t0);
    }
    let rc = call();
    let t1 = now();
    drop(cur);
    (rc, t0, t1)
}

/// Runs shim code before the PMPI_ call; a panic stops profiling and gives `default`.
#[inline(always)]
fn before<T>(default: T, f: impl FnOnce() -> T) -> T {
    let mut out = default;
    protect(|| out = f());
    out
}

/// MPI_Send, MPI_Ssend, MPI_Bsend, MPI_Rsend (MPI 4.0 §3.2.1, §3.4).
#[inline(always)]
pub(crate) fn blocking_send(
    func: u8,
    mode: Mode,
    count: impl Into<i64>,
    dt: MPI_Datatype,
    dest: c_int,
    comm: MPI_Comm,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let count: i64 = count.into();
    // Peer and size before the call, so that an interim report can say what a rank
    // blocked here waits for.
    let (class, peer, size) = before((Class::Unknown, -1, 0), || {
        let (class, peer) = classify(comm, dest);
        let size = if class == Class::ProcNull {
            0
        } else {
            msg_bytes(count, dt)
        };
        (class, peer, size)
    });
    // Nothing to wait for with MPI_PROC_NULL.
    let (rc, t0, t1) = timed(
        func,
        (class != Class::ProcNull).then_some((peer_what(peer), size)),
        call,
    );
    protect(|| {
        record(func, mode, class, size, size, t1.wrapping_sub(t0));
        burst(mode, class, peer, size, t0, t1);
    });
    rc
}

/// Back-to-back sends to one peer: their start spacing, for the passive g.
#[inline(always)]
fn burst(mode: Mode, class: Class, peer: i32, size: u64, t0: u64, t1: u64) {
    if peer < 0 || mode == Mode::Irecv {
        return;
    }
    if let Some(slot) = this_slot() {
        if let Some(spacing) = slot.burst_spacing(peer, mode, t0, t1) {
            record(crate::passive::BURST_GAP, mode, class, size, 0, spacing);
        }
    }
}

/// MPI_Isend/Issend/Ibsend/Irsend and the persistent MPI_*send_init (MPI 4.0 §3.7, §3.9).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn start_send(
    func: u8,
    mode: Mode,
    persistent: bool,
    count: impl Into<i64>,
    dt: MPI_Datatype,
    dest: c_int,
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
    mode: Mode,
    class: Class,
    peer: i32,
    size: u64,
    persistent: bool,
    t0: u64,
    comm: MPI_Comm,
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
        },
    );
}

/// MPI_Irecv and MPI_Recv_init: the same record and tracking as a send's, with the source
/// as the peer (a wildcard source stays unknown until a visible status names it).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn start_recv(
    func: u8,
    persistent: bool,
    count: impl Into<i64>,
    dt: MPI_Datatype,
    source: c_int,
    comm: MPI_Comm,
    request: impl FnOnce() -> Option<u64>,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let count: i64 = count.into();
    start_send(
        func,
        Mode::Irecv,
        persistent,
        count,
        dt,
        source,
        comm,
        request,
        call,
    )
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
    count: impl Into<i64>,
    dt: MPI_Datatype,
    source: c_int,
    comm: MPI_Comm,
    status: *mut MPI_Status,
    call: impl FnOnce(*mut MPI_Status) -> c_int,
) -> c_int {
    let count: i64 = count.into();
    let mut local = mpi::empty_status();
    let st = if source == mpi::any_source() {
        visible_status(status, &mut local)
    } else {
        status
    };
    let wildcard = source == mpi::any_source();
    let (class, peer, size) = before((Class::Unknown, -1, 0), || {
        let (class, peer) = if wildcard {
            (Class::Unknown, -1)
        } else {
            classify(comm, source)
        };
        let size = if class == Class::ProcNull {
            0
        } else {
            msg_bytes(count, dt)
        };
        (class, peer, size)
    });
    let (rc, t0, t1) = timed(func, Some((peer_what(peer), size)), || call(st));
    protect(|| {
        let class = if wildcard {
            recv_class(comm, source, st, rc)
        } else {
            class
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
    send_count: impl Into<i64>,
    send_dt: MPI_Datatype,
    dest: c_int,
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
        let (class, _) = classify(comm, dest);
        let (send, recv) =
            sendrecv_bytes(class, (send_count, send_dt), source, (recv_count, recv_dt));
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

/// MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0 §3.10, new in MPI 4.0): one request
/// for both directions, recorded like MPI_Sendrecv (binned by the send size, bytes both
/// ways) under its own mode, and tracked to its completion like a nonblocking send.
#[cfg(mpi_isendrecv)]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn isendrecv(
    func: u8,
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
        let mode = Mode::Isendrecv;
        record(func, mode, class, send, send + recv, t1.wrapping_sub(t0));
        track(rc, request, mode, class, peer, send, false, t0, comm);
    });
    rc
}

/// Bytes sent and received by a send-receive: none towards or from MPI_PROC_NULL.
#[inline(always)]
fn sendrecv_bytes(
    class: Class,
    send: (i64, MPI_Datatype),
    source: c_int,
    recv: (i64, MPI_Datatype),
) -> (u64, u64) {
    let sent = if class == Class::ProcNull {
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
    let waits_on = if flag.is_null() && source != mpi::any_source() {
        before(0, || peer_what(classify(comm, source).1))
    } else {
        0
    };
    let (rc, t0, t1) = timed(func, Some((waits_on, 0)), || call(st));
    protect(|| {
        // SAFETY: flag, when given, was written by the call.
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
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn mprobe(
    func: u8,
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
        record(func, Mode::None, class, 0, 0, t1.wrapping_sub(t0));
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
            (Class::ProcNull, -1, 0)
        } else {
            match requests::remove(m, true) {
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
pub(crate) fn start(func: u8, request: u64, call: impl FnOnce() -> c_int) -> c_int {
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
pub(crate) fn request_free(func: u8, request: u64, call: impl FnOnce() -> c_int) -> c_int {
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
        record(func, Mode::None, Class::Unknown, 0, 0, t1.wrapping_sub(t0));
    });
    rc
}

/// MPI_Cancel: marks the request, so that its completion is checked for cancellation.
pub(crate) fn cancel(func: u8, request: u64, call: impl FnOnce() -> c_int) -> c_int {
    let t0 = now();
    let rc = call();
    let t1 = now();
    protect(|| {
        if rc == mpi::success() {
            requests::update(request, false, |i| i.cancel_requested = true);
        }
        record(func, Mode::None, Class::Unknown, 0, 0, t1.wrapping_sub(t0));
    });
    rc
}

/// One tracked request completed at `t_done`; `st` is its status when visible (else
/// null). Returns what it was, for attributing the completing call.
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

/// MPI_Wait and MPI_Test (MPI 4.0 §3.7.3). `flag` is null for Wait. A status the caller
/// cannot see (Fortran) is passed as MPI_STATUS_IGNORE and stays unfilled.
pub(crate) fn wait_one(
    func: u8,
    request: u64,
    flag: *mut c_int,
    status: *mut MPI_Status,
    call: impl FnOnce(*mut MPI_Status) -> c_int,
) -> c_int {
    let mut local = mpi::empty_status();
    let st = visible_status(status, &mut local);
    let (rc, t0, t1) = timed(func, Some((CURRENT_REQUEST | request, 0)), || call(st));
    protect(|| {
        // SAFETY: flag, when given, was written by the call.
        let done = flag.is_null() || unsafe { *flag } != 0;
        let info = if done && request != mpi::request_null().bits() {
            complete(request, st, t1)
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
fn remember(count: c_int, reqs: &impl Fn(usize) -> u64) -> usize {
    let Some(slot) = this_slot() else { return 0 };
    let n = (count.max(0) as usize).min(SCRATCH_HANDLES);
    let scratch = slot.scratch();
    for (i, s) in scratch.iter().enumerate().take(n) {
        s.set(reqs(i));
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

/// The in-progress record of an array Wait/Test variant: its first request.
#[inline(always)]
fn first_request(count: c_int, reqs: &impl Fn(usize) -> u64) -> u64 {
    if count > 0 {
        CURRENT_REQUEST | reqs(0)
    } else {
        0
    }
}

/// MPI_Waitall and MPI_Testall: every request completed when the call succeeds (and, for
/// Testall, sets the flag).
pub(crate) fn wait_all(
    func: u8,
    count: c_int,
    reqs: impl Fn(usize) -> u64,
    flag: *mut c_int,
    statuses: *mut MPI_Status,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let n = remember(count, &reqs);
    let (rc, t0, t1) = timed(
        func,
        Some((first_request(count, &reqs), count.max(0) as u64)),
        call,
    );
    protect(|| {
        // SAFETY: flag, when given, was written by the call.
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

/// MPI_Waitany and MPI_Testany: at most one completes, named by `index` (a C index; the
/// Fortran entry points pass the 1-based one converted).
#[allow(clippy::too_many_arguments)]
pub(crate) fn wait_any(
    func: u8,
    count: c_int,
    reqs: impl Fn(usize) -> u64,
    index: impl FnOnce() -> c_int,
    flag: *mut c_int,
    status: *mut MPI_Status,
    call: impl FnOnce(*mut MPI_Status) -> c_int,
) -> c_int {
    let n = remember(count, &reqs);
    let mut local = mpi::empty_status();
    let st = visible_status(status, &mut local);
    let (rc, t0, t1) = timed(
        func,
        Some((first_request(count, &reqs), count.max(0) as u64)),
        || call(st),
    );
    protect(|| {
        // SAFETY: flag was written by the call.
        let done = flag.is_null() || unsafe { *flag } != 0;
        let idx = index();
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

/// MPI_Waitsome and MPI_Testsome: `outcount` requests complete, named by `indices` (C
/// indices; `index_base` is 1 for Fortran).
#[allow(clippy::too_many_arguments)]
pub(crate) fn wait_some(
    func: u8,
    count: c_int,
    reqs: impl Fn(usize) -> u64,
    outcount: *mut c_int,
    indices: *mut c_int,
    index_base: c_int,
    statuses: *mut MPI_Status,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let n = remember(count, &reqs);
    let (rc, t0, t1) = timed(
        func,
        Some((first_request(count, &reqs), count.max(0) as u64)),
        call,
    );
    protect(|| {
        // SAFETY: outcount and indices were written by the call.
        let out = if outcount.is_null() {
            mpi::undefined()
        } else {
            unsafe { *outcount }
        };
        let (mut last, mut n_done) = (None, 0);
        if rc == mpi::success() && out != mpi::undefined() && out > 0 && !indices.is_null() {
            for j in 0..out as usize {
                let i = unsafe { *indices.add(j) } - index_base;
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
