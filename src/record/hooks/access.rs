//! Request and message handles as bits: the C entry points read C handles, the Fortran
//! ones convert theirs with the MPI's f2c functions, so both share one request table and
//! one set of hooks.
use crate::base::mpi::{self, Handle, MPI_Fint, MPI_Message, MPI_Request};
/// A C request before the call (a null pointer reads as MPI_REQUEST_NULL).
#[inline(always)]
pub(crate) fn c_req(p: *const MPI_Request) -> u64 {
    // SAFETY: MPI requires a valid pointer; null is tolerated.
    if p.is_null() {
        mpi::request_null().bits()
    } else {
        unsafe { *p }.bits()
    }
}
/// A C request written by the call, if it is a real one.
#[inline(always)]
pub(crate) fn c_req_out(p: *const MPI_Request) -> impl FnOnce() -> Option<u64> {
    move || Some(c_req(p)).filter(|&b| b != mpi::request_null().bits())
}
/// Element i of a C request array.
#[inline(always)]
pub(crate) fn c_reqs(p: *const MPI_Request) -> impl Fn(usize) -> u64 {
    // SAFETY: the caller's array holds `count` requests.
    move |i| c_req(if p.is_null() { p } else { unsafe { p.add(i) } })
}
/// A C message handle: its bits and whether it is MPI_MESSAGE_NO_PROC.
#[inline(always)]
pub(crate) fn c_msg(p: *const MPI_Message) -> (u64, bool) {
    // SAFETY: as above.
    let m = if p.is_null() {
        mpi::message_null()
    } else {
        unsafe { *p }
    };
    (m.bits(), m == mpi::message_no_proc())
}
#[inline(always)]
pub(crate) fn c_msg_out(p: *const MPI_Message) -> impl FnOnce() -> Option<u64> {
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
pub(crate) fn f_req(p: *const MPI_Fint) -> u64 {
    // SAFETY: read-only conversion of a Fortran handle.
    unsafe { mpi::loggp_request_f2c(f(p)) }.bits()
}
#[inline(always)]
pub(crate) fn f_req_out(p: *const MPI_Fint) -> impl FnOnce() -> Option<u64> {
    move || Some(f_req(p)).filter(|&b| b != mpi::request_null().bits())
}
#[inline(always)]
pub(crate) fn f_reqs(p: *const MPI_Fint) -> impl Fn(usize) -> u64 {
    // SAFETY: the Fortran array holds `count` requests.
    move |i| f_req(unsafe { p.add(i) })
}
#[inline(always)]
pub(crate) fn f_msg(p: *const MPI_Fint) -> (u64, bool) {
    // SAFETY: read-only conversion of a Fortran handle.
    let m = unsafe { mpi::loggp_message_f2c(f(p)) };
    (m.bits(), m == mpi::message_no_proc())
}
#[inline(always)]
pub(crate) fn f_msg_out(p: *const MPI_Fint) -> impl FnOnce() -> Option<u64> {
    move || {
        let (b, no_proc) = f_msg(p);
        Some(b).filter(|&b| !no_proc && b != mpi::message_null().bits())
    }
}
/// A C handle behind `p` (`null` for a null pointer): a window's or a file's, before a
/// freeing call frees it, or after a creating call wrote it.
#[inline(always)]
fn c_handle<T: Copy>(p: *const T, null: T) -> T {
    if p.is_null() {
        null
    } else {
        // SAFETY: MPI requires a valid pointer; null is tolerated above.
        unsafe { *p }
    }
}
/// A C communicator handle behind `p` (MPI_COMM_NULL for a null pointer).
#[inline(always)]
pub(crate) fn c_comm(p: *const mpi::MPI_Comm) -> mpi::MPI_Comm {
    c_handle(p, mpi::comm_null())
}
/// A C window handle behind `p` (MPI_WIN_NULL for a null pointer).
#[inline(always)]
pub(crate) fn c_win(p: *const mpi::MPI_Win) -> mpi::MPI_Win {
    c_handle(p, mpi::win_null())
}
/// A Fortran window handle, converted with the MPI's f2c function.
#[inline(always)]
pub(crate) fn f_win(p: *const MPI_Fint) -> mpi::MPI_Win {
    // SAFETY: read-only conversion of a Fortran handle.
    unsafe { mpi::loggp_win_f2c(f(p)) }
}
/// A C file handle behind `p` (MPI_FILE_NULL for a null pointer).
#[inline(always)]
pub(crate) fn c_file(p: *const mpi::MPI_File) -> mpi::MPI_File {
    c_handle(p, mpi::file_null())
}
/// A Fortran file handle, converted with the MPI's f2c function.
#[inline(always)]
pub(crate) fn f_file(p: *const MPI_Fint) -> mpi::MPI_File {
    // SAFETY: read-only conversion of a Fortran handle.
    unsafe { mpi::loggp_file_f2c(f(p)) }
}
/// A Fortran group handle, converted with the MPI's f2c function.
#[inline(always)]
pub(crate) fn f_group(p: *const MPI_Fint) -> mpi::MPI_Group {
    // SAFETY: read-only conversion of a Fortran handle.
    unsafe { mpi::loggp_group_f2c(f(p)) }
}
/// A C flag argument's value after the call (false for a null pointer).
#[inline(always)]
pub(crate) fn c_flag(p: *const std::os::raw::c_int) -> bool {
    // SAFETY: MPI requires a valid pointer; null is tolerated.
    !p.is_null() && unsafe { *p } != 0
}
