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
use crate::base::funcs::Func;
use crate::base::mpi::{self, MPI_Fint};
use crate::base::runtime::Guard;
use crate::lifecycle::{on_abort, on_finalize, on_init, on_pcontrol};
use crate::record::hooks::access::*;
use crate::record::hooks::*;
use loggp_report::Mode;
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
        if !lifecycle && crate::base::settings::inject("fortran_missing") {
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
        crate::base::runtime::say(&format!(
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
fn f_op(p: P) -> mpi::MPI_Op {
    // SAFETY: read-only conversion of a Fortran handle.
    unsafe { mpi::loggp_op_f2c(int(p)) }
}
#[inline(always)]
fn fp(p: P) -> *const MPI_Fint {
    p as *const MPI_Fint
}
#[inline(always)]
fn ip(p: P) -> *mut c_int {
    p as *mut c_int
}
/// A choice buffer as the C bytes rules read it: MPI_IN_PLACE where the Fortran caller
/// passed its MPI_IN_PLACE, else the buffer (only compared, never read). Open MPI's
/// bindings pass the address of the common block `mpi_fortran_in_place` (by any of its
/// manglings); MPICH's `use mpi_f08` routines take a descriptor whose base address is
/// `MPIR_F08_MPI_IN_PLACE`. The addresses are looked up once.
#[inline(always)]
fn f_buf(p: P) -> *const c_void {
    static SENTINELS: [AtomicPtr<c_void>; 4] = [const { AtomicPtr::new(std::ptr::null_mut()) }; 4];
    static LOOKED_UP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !LOOKED_UP.load(Ordering::Acquire) {
        #[cfg(mpi_openmpi)]
        let names: [&[u8]; 4] = [
            b"mpi_fortran_in_place_\0",
            b"mpi_fortran_in_place\0",
            b"mpi_fortran_in_place__\0",
            b"MPI_FORTRAN_IN_PLACE\0",
        ];
        #[cfg(mpi_mpich)]
        let names: [&[u8]; 1] = [b"MPIR_F08_MPI_IN_PLACE\0"];
        for (slot, n) in SENTINELS.iter().zip(names) {
            // SAFETY: a NUL-terminated name; RTLD_DEFAULT is the program's own lookup.
            let a = unsafe { libc::dlsym(libc::RTLD_DEFAULT, n.as_ptr() as *const _) };
            slot.store(a, Ordering::Relaxed);
        }
        LOOKED_UP.store(true, Ordering::Release);
    }
    #[cfg(mpi_openmpi)]
    let seen = p;
    #[cfg(mpi_mpich)]
    // SAFETY: a descriptor (CFI_cdesc_t) starts with its base address.
    let seen = if p.is_null() {
        p
    } else {
        unsafe { *(p as *const P) }
    };
    let in_place = !seen.is_null()
        && SENTINELS
            .iter()
            .any(|s| std::ptr::eq(s.load(Ordering::Relaxed), seen));
    if in_place {
        mpi::in_place()
    } else {
        p
    }
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

/// An argument as the MPI's routine takes it: its address, held as it came or in a
/// `Cell` where the hook may replace it (`procarg`).
trait Arg {
    fn address(&self) -> P;
}
impl Arg for P {
    #[inline(always)]
    fn address(&self) -> P {
        *self
    }
}
impl Arg for std::cell::Cell<P> {
    #[inline(always)]
    fn address(&self) -> P {
        self.get()
    }
}

macro_rules! ptr_ty {
    ($a:ident) => {
        P
    };
}

/// The Fortran symbols of every table row that has a `fortran:` column (`table/`). A
/// guarded row: the MPI's own routine is called directly when profiling is off or the
/// call is re-entered, else through the row's hook, `call` running the routine and
/// returning IERROR. A lifecycle row: always through its hook. A routine the MPI lacks
/// fails as described at `missing`.
macro_rules! fortran_entries {
    ([$call:ident, $ierr:ident] $( $name:ident { $($row:tt)* } )*) => {
        $( fortran_entries!(@row [$call, $ierr] $name $($row)*); )*
    };
    (@row [$call:ident, $ierr:ident] $name:ident role: $role:ident, mode: $mode:ident, entry: $entry:ident,
        $(cfg: $cfg:meta,)?
        c: $cargs:tt => $chook:ident $chargs:tt,
        $($fortran:tt)*
    ) => {
        fortran_entries!(@fortran [$call, $ierr] [$($cfg)?] $name $mode $entry $($fortran)*);
    };
    (@fortran [$call:ident, $ierr:ident] $cfgs:tt $name:ident $mode:ident $entry:ident
        $(fortran: $short:ident $style:ident ($($farg:ident),* $(,)?) => $fhook:ident($($fharg:expr),* $(,)?),)?
    ) => {
        $(
            fortran_entries!(@$entry [$call, $ierr] $cfgs $name $mode $short $style ($($farg),*) => $fhook($($fharg),*));
        )?
    };
    // `chars`: a `plain` routine with one CHARACTER argument (MPI_FILE_OPEN's FILENAME,
    // MPI_FILE_SET_VIEW's DATAREP, MPI_FILE_DELETE's FILENAME), whose length the Fortran
    // caller passes after IERROR as a hidden argument (gfortran: a size_t; Open MPI's
    // `ompi_x_f`: a C int in the same 8-byte slot). The wrapper takes and forwards it as
    // it came, a pointer-sized word it never reads.
    (@guarded [$call:ident, $ierr:ident] [$($cfg:meta)?] $name:ident $mode:ident $short:ident chars
        ($($arg:ident),*) => $hook:ident($($harg:expr),*)
    ) => {
        fortran_entries!(@guarded_hidden [$call, $ierr] [$($cfg)?] $name $mode $short plain [len]
            ($($arg),*) => $hook($($harg),*));
    };
    // `chars2`: the same with two CHARACTER arguments (MPI_COMM_SPAWN's COMMAND and ARGV,
    // MPI_COMM_SPAWN_MULTIPLE's ARRAY_OF_COMMANDS and ARRAY_OF_ARGV), two hidden lengths
    // in their order.
    (@guarded [$call:ident, $ierr:ident] [$($cfg:meta)?] $name:ident $mode:ident $short:ident chars2
        ($($arg:ident),*) => $hook:ident($($harg:expr),*)
    ) => {
        fortran_entries!(@guarded_hidden [$call, $ierr] [$($cfg)?] $name $mode $short plain [len, len2]
            ($($arg),*) => $hook($($harg),*));
    };
    (@guarded [$call:ident, $ierr:ident] [$($cfg:meta)?] $name:ident $mode:ident $short:ident $style:ident
        ($($arg:ident),*) => $hook:ident($($harg:expr),*)
    ) => {
        fortran_entries!(@guarded_hidden [$call, $ierr] [$($cfg)?] $name $mode $short $style []
            ($($arg),*) => $hook($($harg),*));
    };
    (@guarded_hidden [$call:ident, $ierr:ident] [$($cfg:meta)?] $name:ident $mode:ident $short:ident $style:ident
        [$($hidden:ident),*] ($($arg:ident),*) => $hook:ident($($harg:expr),*)
    ) => {
        paste::paste! {
            $(#[cfg($cfg)])?
            #[allow(unused_variables)]
            #[inline(always)]
            unsafe fn [<fortran_ $short>](real: &Real, $($arg: P,)* $ierr: P $(, $hidden: P)*) -> c_int {
                let f = real.get();
                if f.is_null() {
                    return missing(real, $ierr, true);
                }
                // SAFETY: the MPI's routine of this very signature.
                let callee: unsafe extern "C" fn($(ptr_ty!($arg),)* P $(, ptr_ty!($hidden))*) = std::mem::transmute(f);
                // Inlined into each exported symbol: its return address is the
                // application's line.
                let Some(_guard) = Guard::enter($crate::return_address!()) else {
                    callee($($arg,)* $ierr $(, $hidden)*);
                    return mpi::success();
                };
                fortran_entries!(@hold $style $($arg),*);
                let $call = || { callee($(Arg::address(&$arg),)* $ierr $(, $hidden)*); ierror($ierr) };
                $hook(Func::$name.id(), Mode::$mode, $($harg),*)
            }
        }
        fortran_entries!(@symbols [$($cfg)?] $short $style ($($arg),*) $ierr $($hidden)*);
    };
    // `procarg`: the first argument is a procedure the MPI keeps (MPI_OP_CREATE's
    // FUNCTION), which the hook may replace before the routine reads it: the hook gets
    // it as a `Cell` of the address, under its own name.
    (@hold procarg $first:ident $(, $arg:ident)*) => {
        let $first = std::cell::Cell::new($first);
    };
    (@hold $style:ident $($arg:ident),*) => {};
    (@lifecycle [$call:ident, $ierr:ident] [$($cfg:meta)?] $name:ident $mode:ident $short:ident $style:ident
        ($($arg:ident),*) => $hook:ident($($harg:expr),*)
    ) => {
        paste::paste! {
            $(#[cfg($cfg)])?
            #[allow(unused_variables)]
            unsafe fn [<fortran_ $short>](real: &Real, $($arg: P,)* $ierr: P) -> c_int {
                let f = real.get();
                if f.is_null() {
                    // No error handler to call around MPI_Init and MPI_Finalize.
                    return missing(real, $ierr, false);
                }
                // SAFETY: the MPI's routine of this very signature.
                let callee: unsafe extern "C" fn($(ptr_ty!($arg),)* P) = std::mem::transmute(f);
                let $call = || { callee($($arg,)* $ierr); ierror($ierr) };
                $hook(Func::$name.id(), Mode::$mode, $($harg),*)
            }
        }
        fortran_entries!(@symbols [$($cfg)?] $short $style ($($arg),*) $ierr);
    };
    // MPI_PCONTROL(LEVEL) has no IERROR in mpif.h and `use mpi` (MPI 4.0 §15.2.1): Open
    // MPI's routine takes the level only, so its symbols do too and hand the wrapper a
    // null IERROR (read as success). MPICH's `use mpi_f08` routine takes an optional
    // IERROR, as the `plain` style's.
    (@symbols [$($cfg:meta)?] $short:ident noierr ($($arg:ident),*) $ierr:ident) => {
        paste::paste! {
            #[cfg(all(mpi_openmpi $(, $cfg)?))]
            static [<REAL_ $short:upper>]: Real = Real::new(concat!("pmpi_", stringify!($short), "_\0").as_bytes());
            #[cfg(all(mpi_openmpi $(, $cfg)?))] #[no_mangle]
            pub unsafe extern "C" fn [<mpi_ $short _>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg,)* std::ptr::null_mut()); }
            #[cfg(all(mpi_openmpi $(, $cfg)?))] #[no_mangle]
            pub unsafe extern "C" fn [<mpi_ $short __>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg,)* std::ptr::null_mut()); }
            #[cfg(all(mpi_openmpi $(, $cfg)?))] #[no_mangle]
            pub unsafe extern "C" fn [<mpi_ $short>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg,)* std::ptr::null_mut()); }
            #[cfg(all(mpi_openmpi $(, $cfg)?))] #[no_mangle]
            pub unsafe extern "C" fn [<MPI_ $short:upper>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg,)* std::ptr::null_mut()); }
            #[cfg(all(mpi_openmpi $(, $cfg)?))] #[no_mangle]
            pub unsafe extern "C" fn [<ompi_ $short _f>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg,)* std::ptr::null_mut()); }
        }
        fortran_entries!(@mpich [$($cfg)?] plain $short ($($arg,)* $ierr));
    };
    // `procarg`: `plain`'s symbols, and Open MPI's `use mpi_f08` one, whose routine calls
    // the mpif.h one's `pmpi_x_` alias, past the others (IERROR optional).
    (@symbols [$($cfg:meta)?] $short:ident procarg ($($arg:ident),*) $ierr:ident) => {
        fortran_entries!(@symbols_f08 [$($cfg)?] $short ($($arg),*) $ierr);
    };
    // `f08direct`: the same symbols, for a routine whose Open MPI `use mpi_f08` form calls
    // `pmpi_x_` itself, after it converts a LOGICAL argument or copies an array of
    // handles (MPI_TEST, MPI_TESTSOME, MPI_IPROBE, MPI_CART_CREATE, MPI_WIN_TEST, …; the
    // others call `ompi_x_f`, which the plain symbols wrap): found by disassembling
    // Debian's libmpi_usempif08.so (Open MPI 4.1.4).
    (@symbols [$($cfg:meta)?] $short:ident f08direct ($($arg:ident),*) $ierr:ident) => {
        fortran_entries!(@symbols_f08 [$($cfg)?] $short ($($arg),*) $ierr);
    };
    (@symbols_f08 [$($cfg:meta)?] $short:ident ($($arg:ident),*) $ierr:ident) => {
        fortran_entries!(@symbols_all [$($cfg)?] $short plain ($($arg,)* $ierr));
        paste::paste! {
            #[cfg(all(mpi_openmpi $(, $cfg)?))]
            static [<REAL_F08_ $short:upper>]: Real = Real::new(concat!("mpi_", stringify!($short), "_f08_\0").as_bytes());
            #[cfg(all(mpi_openmpi $(, $cfg)?))] #[no_mangle]
            pub unsafe extern "C" fn [<mpi_ $short _f08_>]($($arg: P,)* $ierr: P) { [<fortran_ $short>](&[<REAL_F08_ $short:upper>], $($arg,)* $ierr); }
        }
    };
    (@symbols [$($cfg:meta)?] $short:ident $style:ident ($($arg:ident),*) $ierr:ident $($hidden:ident)*) => {
        fortran_entries!(@symbols_all [$($cfg)?] $short $style ($($arg,)* $ierr $(, $hidden)*));
    };
    (@symbols_all [$($cfg:meta)?] $short:ident $style:ident ($($arg:ident),*)) => {
        paste::paste! {
            #[cfg(all(mpi_openmpi $(, $cfg)?))]
            static [<REAL_ $short:upper>]: Real = Real::new(concat!("pmpi_", stringify!($short), "_\0").as_bytes());
            #[cfg(all(mpi_openmpi $(, $cfg)?))] #[no_mangle]
            pub unsafe extern "C" fn [<mpi_ $short _>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg),*); }
            #[cfg(all(mpi_openmpi $(, $cfg)?))] #[no_mangle]
            pub unsafe extern "C" fn [<mpi_ $short __>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg),*); }
            #[cfg(all(mpi_openmpi $(, $cfg)?))] #[no_mangle]
            pub unsafe extern "C" fn [<mpi_ $short>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg),*); }
            #[cfg(all(mpi_openmpi $(, $cfg)?))] #[no_mangle]
            pub unsafe extern "C" fn [<MPI_ $short:upper>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg),*); }
            #[cfg(all(mpi_openmpi $(, $cfg)?))] #[no_mangle]
            pub unsafe extern "C" fn [<ompi_ $short _f>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg),*); }
        }
        fortran_entries!(@mpich [$($cfg)?] $style $short ($($arg),*));
    };
    (@mpich [$($cfg:meta)?] ts $short:ident ($($arg:ident),*)) => {
        paste::paste! {
            #[cfg(all(mpi_mpich $(, $cfg)?))]
            static [<REAL_ $short:upper>]: Real = Real::new(concat!("mpi_", stringify!($short), "_f08ts_\0").as_bytes());
            #[cfg(all(mpi_mpich $(, $cfg)?))] #[no_mangle]
            pub unsafe extern "C" fn [<mpi_ $short _f08ts_>]($($arg: P),*) { [<fortran_ $short>](&[<REAL_ $short:upper>], $($arg),*); }
        }
    };
    (@mpich [$($cfg:meta)?] plain $short:ident ($($arg:ident),*)) => {
        paste::paste! {
            #[cfg(all(mpi_mpich $(, $cfg)?))]
            static [<REAL_ $short:upper>]: Real = Real::new(concat!("mpi_", stringify!($short), "_f08_\0").as_bytes());
            #[cfg(all(mpi_mpich $(, $cfg)?))] #[no_mangle]
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

mpi_functions!(fortran_entries);
