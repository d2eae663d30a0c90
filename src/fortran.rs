//! Fortran entry points: every intercepted function, for the bindings that do not reach
//! the C `MPI_*` symbols.
//!
//! Which symbols, decided per MPI from what each binding calls (`nm`/`objdump` of the
//! Debian libraries, and the counts of tests/f/p2p.F90 under each binding):
//! * Open MPI 4.1: `mpif.h` calls `mpi_send_` (an alias of `ompi_send_f`), `use mpi` the
//!   same symbols, `use mpi_f08` calls `ompi_send_f` directly — and `ompi_send_f` calls
//!   `PMPI_Send`. So the shim defines `mpi_x_`, `mpi_x__`, `mpi_x`, `MPI_X` and `ompi_x_f`
//!   and forwards to `pmpi_x_` (another alias of the same code, so no recursion).
//! * MPICH 4.0: `mpif.h` and `use mpi` call the C `MPI_*` symbols (already counted, so the
//!   shim defines nothing for them); `use mpi_f08` (`mpi_x_f08ts_` for functions with a
//!   choice buffer, `mpi_x_f08_` otherwise) calls PMPI_ inside the library, so the shim
//!   defines those and forwards to the library's own, found with dlsym(RTLD_NEXT).
//!
//! A wrapper records around the MPI's own Fortran routine, which keeps handling buffers,
//! sentinels (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE) and statuses, so user data
//! is never touched; the shim only reads communicator, datatype, request and message
//! handles, converted with the MPI's f2c functions. The reentry guard makes a binding that
//! reaches a C `MPI_*` symbol inside count once.
// The signatures are the MPI standard's, argument for argument.
#![allow(non_snake_case, clippy::missing_safety_doc, clippy::too_many_arguments)]
use crate::hooks::access::*;
use crate::hooks::*;
use crate::intercept::Func;
use crate::lifecycle::{abort_with, finalize_with, init_with};
use crate::mpi::{self, MPI_Fint};
use crate::runtime::Guard;
use crate::stats::Mode;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicPtr, Ordering};

type P = *mut c_void;

/// The MPI's own Fortran routine, found once with dlsym(RTLD_NEXT) and cached.
pub struct Real {
    name: &'static [u8],
    ptr: AtomicPtr<c_void>,
}

impl Real {
    pub const fn new(name: &'static [u8]) -> Real {
        Real {
            name,
            ptr: AtomicPtr::new(std::ptr::null_mut()),
        }
    }
    #[inline(always)]
    pub fn get(&self) -> P {
        let p = self.ptr.load(Ordering::Acquire);
        if !p.is_null() {
            return p;
        }
        // The test setting hides the point-to-point routines, never MPI_Init and its kin
        // (the job must start to show what the missing routine does).
        let lifecycle = [&b"init"[..], b"finalize", b"abort"]
            .iter()
            .any(|w| self.name.windows(w.len()).any(|x| x == *w));
        if !lifecycle && crate::settings::inject("fortran_missing") {
            return std::ptr::null_mut();
        }
        // SAFETY: a NUL-terminated symbol name; RTLD_NEXT searches the libraries after
        // this one, where the MPI's Fortran library is.
        let p = unsafe { libc::dlsym(libc::RTLD_NEXT, self.name.as_ptr() as *const _) };
        self.ptr.store(p, Ordering::Release);
        p
    }
}

/// The MPI's own routine could not be found (an MPI built without it, a library loaded
/// in an unusual order): the call fails as a failing MPI call does — MPI_ERR_OTHER in
/// IERROR, through the error handler of MPI_COMM_WORLD (fatal, unless the application set
/// MPI_ERRORS_RETURN) — and loggp says so once. Never a success that did nothing.
#[cold]
fn missing(real: &Real, ierr: P, handler: bool) -> c_int {
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let name = String::from_utf8_lossy(real.name.strip_suffix(b"\0").unwrap_or(real.name));
    if !SAID.swap(true, Ordering::Relaxed) {
        crate::runtime::say(&format!(
            "loggp: the MPI's own Fortran routine {name} was not found; the call fails with MPI_ERR_OTHER"
        ));
    }
    let e = mpi::err_other();
    if !ierr.is_null() {
        // SAFETY: IERROR is the caller's INTEGER.
        unsafe { *(ierr as *mut MPI_Fint) = e as MPI_Fint };
    }
    if handler {
        // SAFETY: the world communicator exists between MPI_Init and MPI_Finalize.
        unsafe { mpi::PMPI_Comm_call_errhandler(mpi::comm_world(), e) };
    }
    e
}

/// A Fortran INTEGER argument's value.
#[inline(always)]
fn int(p: P) -> c_int {
    // SAFETY: Fortran passes by reference; null only for an absent optional argument.
    if p.is_null() {
        0
    } else {
        unsafe { *(p as *const MPI_Fint) }
    }
}
#[inline(always)]
fn comm(p: P) -> mpi::MPI_Comm {
    // SAFETY: read-only conversion of a Fortran handle.
    unsafe { mpi::loggp_comm_f2c(int(p)) }
}
#[inline(always)]
fn dt(p: P) -> mpi::MPI_Datatype {
    // SAFETY: read-only conversion of a Fortran handle.
    unsafe { mpi::loggp_type_f2c(int(p)) }
}
#[inline(always)]
fn fp(p: P) -> *const MPI_Fint {
    p as *const MPI_Fint
}
#[inline(always)]
fn ip(p: P) -> *mut c_int {
    p as *mut c_int
}
/// A 1-based Fortran index as a C one (MPI_UNDEFINED stays).
#[inline(always)]
fn index0(p: P) -> c_int {
    let i = int(p);
    if i == mpi::undefined() {
        i
    } else {
        i - 1
    }
}
/// The return code of a Fortran call: IERROR (absent, as f08 allows: success).
#[inline(always)]
fn ierror(p: P) -> c_int {
    if p.is_null() {
        mpi::success()
    } else {
        int(p)
    }
}

macro_rules! ptr_ty {
    ($a:ident) => {
        P
    };
}

/// One entry per function: its short name, `ts` if it has a choice buffer (MPICH's f08
/// suffix), its Fortran arguments (IERROR last), its id, and the hook with conversions.
/// The invocation names, once, the two bindings its hooks use: the record id and `call`,
/// which runs the MPI's own routine and returns IERROR.
macro_rules! fortran {
    ([$fid:ident, $call:ident, $ierr:ident] $( $short:ident $ts:ident ($($arg:ident),*) $func:ident => $hook:expr ; )*) => {
        paste::paste! {
            $(
                #[allow(unused_variables)]
                #[inline(always)]
                unsafe fn [<fortran_ $short>](real: &Real, $($arg: P,)* $ierr: P) -> c_int {
                    let f = real.get();
                    if f.is_null() {
                        return missing(real, $ierr, true);
                    }
                    // SAFETY: the MPI's routine of this very signature.
                    let callee: unsafe extern "C" fn($(ptr_ty!($arg),)* P) = std::mem::transmute(f);
                    let Some(_guard) = Guard::enter() else {
                        callee($($arg,)* $ierr);
                        return mpi::success();
                    };
                    let $fid = Func::$func as u8;
                    let $call = || { callee($($arg,)* $ierr); ierror($ierr) };
                    $hook
                }
                fortran!(@symbols $short $ts ($($arg,)* $ierr));
            )*
        }
    };
    (@symbols $short:ident $ts:ident ($($arg:ident),*)) => {
        paste::paste! {
            #[cfg(mpi_openmpi)]
            static [<REAL_ $short:upper>]: Real = Real::new(concat!("pmpi_", stringify!($short), "_\0").as_bytes());
            #[cfg(mpi_openmpi)] #[no_mangle]
            pub unsafe extern "C" fn [<mpi_ $short _>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg),*); }
            #[cfg(mpi_openmpi)] #[no_mangle]
            pub unsafe extern "C" fn [<mpi_ $short __>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg),*); }
            #[cfg(mpi_openmpi)] #[no_mangle]
            pub unsafe extern "C" fn [<mpi_ $short>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg),*); }
            #[cfg(mpi_openmpi)] #[no_mangle]
            pub unsafe extern "C" fn [<MPI_ $short:upper>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg),*); }
            #[cfg(mpi_openmpi)] #[no_mangle]
            pub unsafe extern "C" fn [<ompi_ $short _f>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg),*); }
        }
        fortran!(@mpich $ts $short ($($arg),*));
    };
    (@mpich ts $short:ident ($($arg:ident),*)) => {
        paste::paste! {
            #[cfg(mpi_mpich)]
            static [<REAL_ $short:upper>]: Real = Real::new(concat!("mpi_", stringify!($short), "_f08ts_\0").as_bytes());
            #[cfg(mpi_mpich)] #[no_mangle]
            pub unsafe extern "C" fn [<mpi_ $short _f08ts_>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg),*); }
        }
    };
    (@mpich plain $short:ident ($($arg:ident),*)) => {
        paste::paste! {
            #[cfg(mpi_mpich)]
            static [<REAL_ $short:upper>]: Real = Real::new(concat!("mpi_", stringify!($short), "_f08_\0").as_bytes());
            #[cfg(mpi_mpich)] #[no_mangle]
            pub unsafe extern "C" fn [<mpi_ $short _f08_>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg),*); }
        }
    };
}

/// The statuses a Fortran caller passes stay the binding's business: the hooks get
/// MPI_STATUS(ES)_IGNORE, so wildcard peers and cancellations seen only through a Fortran
/// status are recorded as unknown.
fn no_status() -> *mut mpi::MPI_Status {
    mpi::status_ignore()
}
fn no_statuses() -> *mut mpi::MPI_Status {
    mpi::statuses_ignore()
}

fortran! {
    [id, call, ierr]
    send ts (buf, count, datatype, dest, tag, comm_) MPI_Send
        => blocking_send(id, Mode::Send, int(count), dt(datatype), int(dest), comm(comm_), call);
    ssend ts (buf, count, datatype, dest, tag, comm_) MPI_Ssend
        => blocking_send(id, Mode::Ssend, int(count), dt(datatype), int(dest), comm(comm_), call);
    bsend ts (buf, count, datatype, dest, tag, comm_) MPI_Bsend
        => blocking_send(id, Mode::Bsend, int(count), dt(datatype), int(dest), comm(comm_), call);
    rsend ts (buf, count, datatype, dest, tag, comm_) MPI_Rsend
        => blocking_send(id, Mode::Rsend, int(count), dt(datatype), int(dest), comm(comm_), call);
    isend ts (buf, count, datatype, dest, tag, comm_, request) MPI_Isend
        => start_send(id, Mode::Isend, false, int(count), dt(datatype), int(dest), comm(comm_), f_req_out(fp(request)), call);
    issend ts (buf, count, datatype, dest, tag, comm_, request) MPI_Issend
        => start_send(id, Mode::Issend, false, int(count), dt(datatype), int(dest), comm(comm_), f_req_out(fp(request)), call);
    ibsend ts (buf, count, datatype, dest, tag, comm_, request) MPI_Ibsend
        => start_send(id, Mode::Ibsend, false, int(count), dt(datatype), int(dest), comm(comm_), f_req_out(fp(request)), call);
    irsend ts (buf, count, datatype, dest, tag, comm_, request) MPI_Irsend
        => start_send(id, Mode::Irsend, false, int(count), dt(datatype), int(dest), comm(comm_), f_req_out(fp(request)), call);
    recv ts (buf, count, datatype, source, tag, comm_, status) MPI_Recv
        => blocking_recv(id, int(count), dt(datatype), int(source), comm(comm_), no_status(), |_| call());
    irecv ts (buf, count, datatype, source, tag, comm_, request) MPI_Irecv
        => start_recv(id, false, int(count), dt(datatype), int(source), comm(comm_), f_req_out(fp(request)), call);
    probe plain (source, tag, comm_, status) MPI_Probe
        => probe(id, int(source), comm(comm_), std::ptr::null_mut(), no_status(), |_| call());
    iprobe plain (source, tag, comm_, flag, status) MPI_Iprobe
        => probe(id, int(source), comm(comm_), ip(flag), no_status(), |_| call());
    mprobe plain (source, tag, comm_, message, status) MPI_Mprobe
        => mprobe(id, int(source), comm(comm_), std::ptr::null_mut(), f_msg_out(fp(message)), no_status(), |_| call());
    improbe plain (source, tag, comm_, flag, message, status) MPI_Improbe
        => mprobe(id, int(source), comm(comm_), ip(flag), f_msg_out(fp(message)), no_status(), |_| call());
    mrecv ts (buf, count, datatype, message, status) MPI_Mrecv
        => mrecv(id, int(count), dt(datatype), f_msg(fp(message)), || None, call);
    imrecv ts (buf, count, datatype, message, request) MPI_Imrecv
        => mrecv(id, int(count), dt(datatype), f_msg(fp(message)), f_req_out(fp(request)), call);
    sendrecv ts (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm_, status) MPI_Sendrecv
        => sendrecv(id, int(sendcount), dt(sendtype), int(dest), int(recvcount), dt(recvtype), int(source), comm(comm_), call);
    sendrecv_replace ts (buf, count, datatype, dest, sendtag, source, recvtag, comm_, status) MPI_Sendrecv_replace
        => sendrecv(id, int(count), dt(datatype), int(dest), int(count), dt(datatype), int(source), comm(comm_), call);
    send_init ts (buf, count, datatype, dest, tag, comm_, request) MPI_Send_init
        => start_send(id, Mode::Isend, true, int(count), dt(datatype), int(dest), comm(comm_), f_req_out(fp(request)), call);
    ssend_init ts (buf, count, datatype, dest, tag, comm_, request) MPI_Ssend_init
        => start_send(id, Mode::Issend, true, int(count), dt(datatype), int(dest), comm(comm_), f_req_out(fp(request)), call);
    bsend_init ts (buf, count, datatype, dest, tag, comm_, request) MPI_Bsend_init
        => start_send(id, Mode::Ibsend, true, int(count), dt(datatype), int(dest), comm(comm_), f_req_out(fp(request)), call);
    rsend_init ts (buf, count, datatype, dest, tag, comm_, request) MPI_Rsend_init
        => start_send(id, Mode::Irsend, true, int(count), dt(datatype), int(dest), comm(comm_), f_req_out(fp(request)), call);
    recv_init ts (buf, count, datatype, source, tag, comm_, request) MPI_Recv_init
        => start_recv(id, true, int(count), dt(datatype), int(source), comm(comm_), f_req_out(fp(request)), call);
    start plain (request) MPI_Start
        => start(id, f_req(fp(request)), call);
    startall plain (count, requests) MPI_Startall
        => startall(id, int(count), f_reqs(fp(requests)), call);
    request_free plain (request) MPI_Request_free
        => request_free(id, f_req(fp(request)), call);
    cancel plain (request) MPI_Cancel
        => cancel(id, f_req(fp(request)), call);
    wait plain (request, status) MPI_Wait
        => wait_one(id, f_req(fp(request)), std::ptr::null_mut(), no_status(), |_| call());
    test plain (request, flag, status) MPI_Test
        => wait_one(id, f_req(fp(request)), ip(flag), no_status(), |_| call());
    waitall plain (count, requests, statuses) MPI_Waitall
        => wait_all(id, int(count), f_reqs(fp(requests)), std::ptr::null_mut(), no_statuses(), call);
    testall plain (count, requests, flag, statuses) MPI_Testall
        => wait_all(id, int(count), f_reqs(fp(requests)), ip(flag), no_statuses(), call);
    waitany plain (count, requests, index, status) MPI_Waitany
        => wait_any(id, int(count), f_reqs(fp(requests)), || index0(index), std::ptr::null_mut(), no_status(), |_| call());
    testany plain (count, requests, index, flag, status) MPI_Testany
        => wait_any(id, int(count), f_reqs(fp(requests)), || index0(index), ip(flag), no_status(), |_| call());
    waitsome plain (incount, requests, outcount, indices, statuses) MPI_Waitsome
        => wait_some(id, int(incount), f_reqs(fp(requests)), ip(outcount), ip(indices), 1, no_statuses(), call);
    testsome plain (incount, requests, outcount, indices, statuses) MPI_Testsome
        => wait_some(id, int(incount), f_reqs(fp(requests)), ip(outcount), ip(indices), 1, no_statuses(), call);
}

/// The lifecycle calls: same symbols, but they wrap set-up and the report, not a record.
macro_rules! fortran_lifecycle {
    ($( $short:ident ($($arg:ident),*) => |$callee:ident| $body:expr ; )*) => {
        paste::paste! {
            $(
                #[allow(unused_variables)]
                unsafe fn [<fortran_ $short>](real: &Real, $($arg: P),*) {
                    let f = real.get();
                    if f.is_null() {
                        // No error handler to call around MPI_Init and MPI_Finalize.
                        let ierr = [$($arg),*].last().copied().unwrap_or(std::ptr::null_mut());
                        missing(real, ierr, false);
                        return;
                    }
                    // SAFETY: the MPI's routine of this very signature.
                    let $callee: unsafe extern "C" fn($(ptr_ty!($arg)),*) = std::mem::transmute(f);
                    $body;
                }
                fortran!(@symbols $short plain ($($arg),*));
            )*
        }
    };
}

fortran_lifecycle! {
    init (ierr) => |real| init_with(Func::MPI_Init, || { real(ierr); ierror(ierr) }, mpi::thread_single);
    init_thread (required, provided, ierr) => |real| init_with(
        Func::MPI_Init_thread,
        || { real(required, provided, ierr); ierror(ierr) },
        || int(provided),
    );
    finalize (ierr) => |real| finalize_with(|| { real(ierr); ierror(ierr) });
    abort (comm_, errorcode, ierr) => |real| abort_with(|| { real(comm_, errorcode, ierr); ierror(ierr) });
}
