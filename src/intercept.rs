//! The intercepted MPI functions, each declared once.
//!
//! One `intercept!` entry per function gives its C signature (as in `mpi.h`; bindgen
//! checks it against the real PMPI_ prototype when the pass-through call compiles), the
//! PMPI_ function behind it and the hook of its family (see `hooks`). From the table the
//! macro generates the exported `MPI_*` symbol, its pass-through path (profiling off,
//! re-entered, or before MPI_Init) and the function's id and name in the report.
//! MPI_Init, MPI_Init_thread, MPI_Finalize and MPI_Abort live in `lifecycle`.
//!
//! An entry marked `cfg(...)` exists only where this MPI's header declares the function
//! (see build.rs): the MPI-4 large-count `_c` forms and MPI_Isendrecv(_replace).
#![allow(non_snake_case)]
use crate::hooks::access::*;
use crate::hooks::*;
use crate::mpi::*;
use crate::runtime::Guard;
use crate::stats::Mode;
use std::os::raw::{c_int, c_void};

macro_rules! intercept {
    (
        lifecycle: $($lc:ident),* ;
        $(
            $(#[$doc:meta])*
            $(cfg($cfg:meta))?
            fn $name:ident($($arg:ident: $ty:ty),* $(,)?) = $pmpi:ident => $hook:ident($($harg:expr),* $(,)?);
        )*
    ) => {
        /// Every function loggp records, in table order: the `func` of a statistics cell.
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        #[repr(u8)]
        pub enum Func { $($lc,)* $($(#[cfg($cfg)])? $name,)* }

        /// Names of [`Func`] by id.
        pub const FUNC_NAMES: &[&str] = &[$(stringify!($lc),)* $($(#[cfg($cfg)])? stringify!($name),)*];

        $(
            $(#[$doc])*
            $(#[cfg($cfg)])?
            #[no_mangle]
            pub unsafe extern "C" fn $name($($arg: $ty),*) -> c_int {
                let Some(_guard) = Guard::enter() else { return $pmpi($($arg),*) };
                $hook(Func::$name as u8, $($harg),*)
            }
        )*
    };
}

intercept! {
    lifecycle: MPI_Init, MPI_Init_thread, MPI_Finalize;

    // Blocking sends, MPI 4.0 §3.2.1 and §3.4 (communication modes).
    fn MPI_Send(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) = PMPI_Send
        => blocking_send(Mode::Send, count, datatype, dest, comm, || PMPI_Send(buf, count, datatype, dest, tag, comm));
    fn MPI_Ssend(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) = PMPI_Ssend
        => blocking_send(Mode::Ssend, count, datatype, dest, comm, || PMPI_Ssend(buf, count, datatype, dest, tag, comm));
    fn MPI_Bsend(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) = PMPI_Bsend
        => blocking_send(Mode::Bsend, count, datatype, dest, comm, || PMPI_Bsend(buf, count, datatype, dest, tag, comm));
    fn MPI_Rsend(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) = PMPI_Rsend
        => blocking_send(Mode::Rsend, count, datatype, dest, comm, || PMPI_Rsend(buf, count, datatype, dest, tag, comm));

    // Nonblocking sends, §3.7.2.
    fn MPI_Isend(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Isend
        => start_send(Mode::Isend, false, count, datatype, dest, comm, c_req_out(request), || PMPI_Isend(buf, count, datatype, dest, tag, comm, request));
    fn MPI_Issend(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Issend
        => start_send(Mode::Issend, false, count, datatype, dest, comm, c_req_out(request), || PMPI_Issend(buf, count, datatype, dest, tag, comm, request));
    fn MPI_Ibsend(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Ibsend
        => start_send(Mode::Ibsend, false, count, datatype, dest, comm, c_req_out(request), || PMPI_Ibsend(buf, count, datatype, dest, tag, comm, request));
    fn MPI_Irsend(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Irsend
        => start_send(Mode::Irsend, false, count, datatype, dest, comm, c_req_out(request), || PMPI_Irsend(buf, count, datatype, dest, tag, comm, request));

    // Receives, §3.2.4 and §3.7.2.
    fn MPI_Recv(buf: *mut c_void, count: c_int, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, status: *mut MPI_Status) = PMPI_Recv
        => blocking_recv(count, datatype, source, comm, status, |st| PMPI_Recv(buf, count, datatype, source, tag, comm, st));
    fn MPI_Irecv(buf: *mut c_void, count: c_int, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Irecv
        => start_recv(false, count, datatype, source, comm, c_req_out(request), || PMPI_Irecv(buf, count, datatype, source, tag, comm, request));

    // Probes and matched receives, §3.8.
    fn MPI_Probe(source: c_int, tag: c_int, comm: MPI_Comm, status: *mut MPI_Status) = PMPI_Probe
        => probe(source, comm, std::ptr::null_mut(), status, |st| PMPI_Probe(source, tag, comm, st));
    fn MPI_Iprobe(source: c_int, tag: c_int, comm: MPI_Comm, flag: *mut c_int, status: *mut MPI_Status) = PMPI_Iprobe
        => probe(source, comm, flag, status, |st| PMPI_Iprobe(source, tag, comm, flag, st));
    fn MPI_Mprobe(source: c_int, tag: c_int, comm: MPI_Comm, message: *mut MPI_Message, status: *mut MPI_Status) = PMPI_Mprobe
        => mprobe(source, comm, std::ptr::null_mut(), c_msg_out(message), status, |st| PMPI_Mprobe(source, tag, comm, message, st));
    fn MPI_Improbe(source: c_int, tag: c_int, comm: MPI_Comm, flag: *mut c_int, message: *mut MPI_Message, status: *mut MPI_Status) = PMPI_Improbe
        => mprobe(source, comm, flag, c_msg_out(message), status, |st| PMPI_Improbe(source, tag, comm, flag, message, st));
    fn MPI_Mrecv(buf: *mut c_void, count: c_int, datatype: MPI_Datatype, message: *mut MPI_Message, status: *mut MPI_Status) = PMPI_Mrecv
        => mrecv(count, datatype, c_msg(message), || None, || PMPI_Mrecv(buf, count, datatype, message, status));
    fn MPI_Imrecv(buf: *mut c_void, count: c_int, datatype: MPI_Datatype, message: *mut MPI_Message, request: *mut MPI_Request) = PMPI_Imrecv
        => mrecv(count, datatype, c_msg(message), c_req_out(request), || PMPI_Imrecv(buf, count, datatype, message, request));

    // Combined send-receive, §3.10.
    fn MPI_Sendrecv(sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, dest: c_int, sendtag: c_int,
                    recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, source: c_int, recvtag: c_int,
                    comm: MPI_Comm, status: *mut MPI_Status) = PMPI_Sendrecv
        => sendrecv(sendcount, sendtype, dest, recvcount, recvtype, source, comm,
                    || PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status));
    fn MPI_Sendrecv_replace(buf: *mut c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, sendtag: c_int,
                            source: c_int, recvtag: c_int, comm: MPI_Comm, status: *mut MPI_Status) = PMPI_Sendrecv_replace
        => sendrecv(count, datatype, dest, count, datatype, source, comm,
                    || PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status));

    // Persistent requests, §3.9.
    fn MPI_Send_init(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Send_init
        => start_send(Mode::Isend, true, count, datatype, dest, comm, c_req_out(request), || PMPI_Send_init(buf, count, datatype, dest, tag, comm, request));
    fn MPI_Ssend_init(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Ssend_init
        => start_send(Mode::Issend, true, count, datatype, dest, comm, c_req_out(request), || PMPI_Ssend_init(buf, count, datatype, dest, tag, comm, request));
    fn MPI_Bsend_init(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Bsend_init
        => start_send(Mode::Ibsend, true, count, datatype, dest, comm, c_req_out(request), || PMPI_Bsend_init(buf, count, datatype, dest, tag, comm, request));
    fn MPI_Rsend_init(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Rsend_init
        => start_send(Mode::Irsend, true, count, datatype, dest, comm, c_req_out(request), || PMPI_Rsend_init(buf, count, datatype, dest, tag, comm, request));
    fn MPI_Recv_init(buf: *mut c_void, count: c_int, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Recv_init
        => start_recv(true, count, datatype, source, comm, c_req_out(request), || PMPI_Recv_init(buf, count, datatype, source, tag, comm, request));
    fn MPI_Start(request: *mut MPI_Request) = PMPI_Start
        => start(c_req(request), || PMPI_Start(request));
    fn MPI_Startall(count: c_int, array_of_requests: *mut MPI_Request) = PMPI_Startall
        => startall(count, c_reqs(array_of_requests), || PMPI_Startall(count, array_of_requests));
    fn MPI_Request_free(request: *mut MPI_Request) = PMPI_Request_free
        => request_free(c_req(request), || PMPI_Request_free(request));
    fn MPI_Cancel(request: *mut MPI_Request) = PMPI_Cancel
        => cancel(c_req(request), || PMPI_Cancel(request));

    // Completion, §3.7.3 and §3.7.5.
    fn MPI_Wait(request: *mut MPI_Request, status: *mut MPI_Status) = PMPI_Wait
        => wait_one(c_req(request), std::ptr::null_mut(), status, |st| PMPI_Wait(request, st));
    fn MPI_Test(request: *mut MPI_Request, flag: *mut c_int, status: *mut MPI_Status) = PMPI_Test
        => wait_one(c_req(request), flag, status, |st| PMPI_Test(request, flag, st));
    fn MPI_Waitall(count: c_int, array_of_requests: *mut MPI_Request, array_of_statuses: *mut MPI_Status) = PMPI_Waitall
        => wait_all(count, c_reqs(array_of_requests), std::ptr::null_mut(), array_of_statuses,
                    || PMPI_Waitall(count, array_of_requests, array_of_statuses));
    fn MPI_Testall(count: c_int, array_of_requests: *mut MPI_Request, flag: *mut c_int, array_of_statuses: *mut MPI_Status) = PMPI_Testall
        => wait_all(count, c_reqs(array_of_requests), flag, array_of_statuses,
                    || PMPI_Testall(count, array_of_requests, flag, array_of_statuses));
    fn MPI_Waitany(count: c_int, array_of_requests: *mut MPI_Request, index: *mut c_int, status: *mut MPI_Status) = PMPI_Waitany
        => wait_any(count, c_reqs(array_of_requests), || deref(index), std::ptr::null_mut(), status,
                    |st| PMPI_Waitany(count, array_of_requests, index, st));
    fn MPI_Testany(count: c_int, array_of_requests: *mut MPI_Request, index: *mut c_int, flag: *mut c_int, status: *mut MPI_Status) = PMPI_Testany
        => wait_any(count, c_reqs(array_of_requests), || deref(index), flag, status,
                    |st| PMPI_Testany(count, array_of_requests, index, flag, st));
    fn MPI_Waitsome(incount: c_int, array_of_requests: *mut MPI_Request, outcount: *mut c_int, array_of_indices: *mut c_int, array_of_statuses: *mut MPI_Status) = PMPI_Waitsome
        => wait_some(incount, c_reqs(array_of_requests), outcount, array_of_indices, 0, array_of_statuses,
                     || PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses));
    fn MPI_Testsome(incount: c_int, array_of_requests: *mut MPI_Request, outcount: *mut c_int, array_of_indices: *mut c_int, array_of_statuses: *mut MPI_Status) = PMPI_Testsome
        => wait_some(incount, c_reqs(array_of_requests), outcount, array_of_indices, 0, array_of_statuses,
                     || PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses));

    // MPI-4 large-count forms (MPI 4.0 §3.2.1, §2.5.8 "Large counts"): the same hooks
    // with an MPI_Count, counted as their int forms are, under their own names.
    cfg(mpi_large_count) fn MPI_Send_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) = PMPI_Send_c
        => blocking_send(Mode::Send, count, datatype, dest, comm, || PMPI_Send_c(buf, count, datatype, dest, tag, comm));
    cfg(mpi_large_count) fn MPI_Ssend_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) = PMPI_Ssend_c
        => blocking_send(Mode::Ssend, count, datatype, dest, comm, || PMPI_Ssend_c(buf, count, datatype, dest, tag, comm));
    cfg(mpi_large_count) fn MPI_Bsend_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) = PMPI_Bsend_c
        => blocking_send(Mode::Bsend, count, datatype, dest, comm, || PMPI_Bsend_c(buf, count, datatype, dest, tag, comm));
    cfg(mpi_large_count) fn MPI_Rsend_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) = PMPI_Rsend_c
        => blocking_send(Mode::Rsend, count, datatype, dest, comm, || PMPI_Rsend_c(buf, count, datatype, dest, tag, comm));
    cfg(mpi_large_count) fn MPI_Isend_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Isend_c
        => start_send(Mode::Isend, false, count, datatype, dest, comm, c_req_out(request), || PMPI_Isend_c(buf, count, datatype, dest, tag, comm, request));
    cfg(mpi_large_count) fn MPI_Issend_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Issend_c
        => start_send(Mode::Issend, false, count, datatype, dest, comm, c_req_out(request), || PMPI_Issend_c(buf, count, datatype, dest, tag, comm, request));
    cfg(mpi_large_count) fn MPI_Ibsend_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Ibsend_c
        => start_send(Mode::Ibsend, false, count, datatype, dest, comm, c_req_out(request), || PMPI_Ibsend_c(buf, count, datatype, dest, tag, comm, request));
    cfg(mpi_large_count) fn MPI_Irsend_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Irsend_c
        => start_send(Mode::Irsend, false, count, datatype, dest, comm, c_req_out(request), || PMPI_Irsend_c(buf, count, datatype, dest, tag, comm, request));
    cfg(mpi_large_count) fn MPI_Recv_c(buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, status: *mut MPI_Status) = PMPI_Recv_c
        => blocking_recv(count, datatype, source, comm, status, |st| PMPI_Recv_c(buf, count, datatype, source, tag, comm, st));
    cfg(mpi_large_count) fn MPI_Irecv_c(buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Irecv_c
        => start_recv(false, count, datatype, source, comm, c_req_out(request), || PMPI_Irecv_c(buf, count, datatype, source, tag, comm, request));
    cfg(mpi_large_count) fn MPI_Mrecv_c(buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, message: *mut MPI_Message, status: *mut MPI_Status) = PMPI_Mrecv_c
        => mrecv(count, datatype, c_msg(message), || None, || PMPI_Mrecv_c(buf, count, datatype, message, status));
    cfg(mpi_large_count) fn MPI_Imrecv_c(buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, message: *mut MPI_Message, request: *mut MPI_Request) = PMPI_Imrecv_c
        => mrecv(count, datatype, c_msg(message), c_req_out(request), || PMPI_Imrecv_c(buf, count, datatype, message, request));
    cfg(mpi_large_count) fn MPI_Sendrecv_c(sendbuf: *const c_void, sendcount: MPI_Count, sendtype: MPI_Datatype, dest: c_int, sendtag: c_int,
                    recvbuf: *mut c_void, recvcount: MPI_Count, recvtype: MPI_Datatype, source: c_int, recvtag: c_int,
                    comm: MPI_Comm, status: *mut MPI_Status) = PMPI_Sendrecv_c
        => sendrecv(sendcount, sendtype, dest, recvcount, recvtype, source, comm,
                    || PMPI_Sendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status));
    cfg(mpi_large_count) fn MPI_Sendrecv_replace_c(buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, sendtag: c_int,
                            source: c_int, recvtag: c_int, comm: MPI_Comm, status: *mut MPI_Status) = PMPI_Sendrecv_replace_c
        => sendrecv(count, datatype, dest, count, datatype, source, comm,
                    || PMPI_Sendrecv_replace_c(buf, count, datatype, dest, sendtag, source, recvtag, comm, status));
    cfg(mpi_large_count) fn MPI_Send_init_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Send_init_c
        => start_send(Mode::Isend, true, count, datatype, dest, comm, c_req_out(request), || PMPI_Send_init_c(buf, count, datatype, dest, tag, comm, request));
    cfg(mpi_large_count) fn MPI_Ssend_init_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Ssend_init_c
        => start_send(Mode::Issend, true, count, datatype, dest, comm, c_req_out(request), || PMPI_Ssend_init_c(buf, count, datatype, dest, tag, comm, request));
    cfg(mpi_large_count) fn MPI_Bsend_init_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Bsend_init_c
        => start_send(Mode::Ibsend, true, count, datatype, dest, comm, c_req_out(request), || PMPI_Bsend_init_c(buf, count, datatype, dest, tag, comm, request));
    cfg(mpi_large_count) fn MPI_Rsend_init_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Rsend_init_c
        => start_send(Mode::Irsend, true, count, datatype, dest, comm, c_req_out(request), || PMPI_Rsend_init_c(buf, count, datatype, dest, tag, comm, request));
    cfg(mpi_large_count) fn MPI_Recv_init_c(buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Recv_init_c
        => start_recv(true, count, datatype, source, comm, c_req_out(request), || PMPI_Recv_init_c(buf, count, datatype, source, tag, comm, request));

    // Nonblocking send-receive, new in MPI 4.0 (§3.10), int and large-count forms.
    cfg(mpi_isendrecv) fn MPI_Isendrecv(sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, dest: c_int, sendtag: c_int,
                    recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, source: c_int, recvtag: c_int,
                    comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Isendrecv
        => isendrecv(sendcount, sendtype, dest, recvcount, recvtype, source, comm, c_req_out(request),
                     || PMPI_Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, request));
    cfg(mpi_isendrecv) fn MPI_Isendrecv_replace(buf: *mut c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, sendtag: c_int,
                            source: c_int, recvtag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Isendrecv_replace
        => isendrecv(count, datatype, dest, count, datatype, source, comm, c_req_out(request),
                     || PMPI_Isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, request));
    cfg(all(mpi_isendrecv, mpi_large_count)) fn MPI_Isendrecv_c(sendbuf: *const c_void, sendcount: MPI_Count, sendtype: MPI_Datatype, dest: c_int, sendtag: c_int,
                    recvbuf: *mut c_void, recvcount: MPI_Count, recvtype: MPI_Datatype, source: c_int, recvtag: c_int,
                    comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Isendrecv_c
        => isendrecv(sendcount, sendtype, dest, recvcount, recvtype, source, comm, c_req_out(request),
                     || PMPI_Isendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, request));
    cfg(all(mpi_isendrecv, mpi_large_count)) fn MPI_Isendrecv_replace_c(buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, sendtag: c_int,
                            source: c_int, recvtag: c_int, comm: MPI_Comm, request: *mut MPI_Request) = PMPI_Isendrecv_replace_c
        => isendrecv(count, datatype, dest, count, datatype, source, comm, c_req_out(request),
                     || PMPI_Isendrecv_replace_c(buf, count, datatype, dest, sendtag, source, recvtag, comm, request));
}

/// The MPI-4 calls that start a message (for `passive::initiates`); empty where the MPI
/// has none.
pub const MPI4_INITIATES: &[Func] = &[
    #[cfg(mpi_large_count)]
    Func::MPI_Send_c,
    #[cfg(mpi_large_count)]
    Func::MPI_Ssend_c,
    #[cfg(mpi_large_count)]
    Func::MPI_Bsend_c,
    #[cfg(mpi_large_count)]
    Func::MPI_Rsend_c,
    #[cfg(mpi_large_count)]
    Func::MPI_Isend_c,
    #[cfg(mpi_large_count)]
    Func::MPI_Issend_c,
    #[cfg(mpi_large_count)]
    Func::MPI_Ibsend_c,
    #[cfg(mpi_large_count)]
    Func::MPI_Irsend_c,
    #[cfg(mpi_large_count)]
    Func::MPI_Recv_c,
    #[cfg(mpi_large_count)]
    Func::MPI_Irecv_c,
    #[cfg(mpi_large_count)]
    Func::MPI_Mrecv_c,
    #[cfg(mpi_large_count)]
    Func::MPI_Imrecv_c,
    #[cfg(mpi_large_count)]
    Func::MPI_Sendrecv_c,
    #[cfg(mpi_large_count)]
    Func::MPI_Sendrecv_replace_c,
    #[cfg(mpi_isendrecv)]
    Func::MPI_Isendrecv,
    #[cfg(mpi_isendrecv)]
    Func::MPI_Isendrecv_replace,
    #[cfg(all(mpi_isendrecv, mpi_large_count))]
    Func::MPI_Isendrecv_c,
    #[cfg(all(mpi_isendrecv, mpi_large_count))]
    Func::MPI_Isendrecv_replace_c,
];

/// Reads an int the call wrote (MPI_UNDEFINED through a null pointer).
#[inline(always)]
fn deref(p: *const c_int) -> c_int {
    // SAFETY: written by the call just made.
    if p.is_null() {
        undefined()
    } else {
        unsafe { *p }
    }
}

/// MPI_Comm_free is watched, not counted: a freed handle may return for another
/// communicator, so its cached rank translation must go.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_free(comm: *mut MPI_Comm) -> c_int {
    if let Some(_g) = Guard::enter() {
        if !comm.is_null() {
            crate::runtime::protect(|| crate::peers::forget(*comm));
        }
    }
    PMPI_Comm_free(comm)
}
