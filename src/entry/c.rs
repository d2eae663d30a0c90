//! The exported C `MPI_*` symbols, one per row of the function table (`table/`).
//!
//! A guarded entry passes straight to its `PMPI_*` function when profiling is off, the
//! call is re-entered (an MPI that calls MPI_* inside MPI_*), or MPI is not initialised;
//! otherwise it calls its hook with its id and mode. A lifecycle entry always calls its
//! hook, which decides. The C signature is the row's, and the pass-through `PMPI_*` call
//! checks it against the real prototype (bindgen's view of `mpi.h`).
#![allow(non_snake_case)]
use crate::base::funcs::Func;
use crate::base::mpi::{self, *};
use crate::base::runtime::Guard;
use crate::lifecycle::{on_abort, on_finalize, on_init, on_mpit_init, on_pcontrol};
use crate::record::hooks::access::*;
use crate::record::hooks::*;
use loggp_report::Mode;
use std::os::raw::{c_char, c_int, c_void};

macro_rules! c_entries {
    ([$call:ident, $ierr:ident] $( $name:ident { $($row:tt)* } )*) => {
        $( c_entries!(@row $name $($row)*); )*
    };
    (@row $name:ident role: $role:ident, mode: $mode:ident, entry: guarded, $(cfg: $cfg:meta,)?
        c: ($($arg:ident: $ty:ty),* $(,)?) => $hook:ident($($harg:expr),* $(,)?),
        $($fortran:tt)*
    ) => {
        /// Intercepted (see the function table, `table/`).
        $(#[cfg($cfg)])?
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> c_int {
            let Some(_guard) = Guard::enter($crate::return_address!()) else {
                return paste::paste! { [<P $name>]($($arg),*) };
            };
            $hook(Func::$name.id(), Mode::$mode, $($harg),*)
        }
    };
    (@row $name:ident role: $role:ident, mode: $mode:ident, entry: lifecycle, $(cfg: $cfg:meta,)?
        c: ($($arg:ident: $ty:ty),* $(,)?) => $hook:ident($($harg:expr),* $(,)?),
        $($fortran:tt)*
    ) => {
        /// Set-up, report or partial report around the MPI's own (see `lifecycle`).
        $(#[cfg($cfg)])?
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> c_int {
            $hook(Func::$name.id(), Mode::$mode, $($harg),*)
        }
    };
}

mpi_functions!(c_entries);

/// Reads an int the call wrote (MPI_UNDEFINED through a null pointer).
#[inline(always)]
fn deref(p: *const c_int) -> c_int {
    if p.is_null() {
        mpi::undefined()
    } else {
        // SAFETY: written by the call just made.
        unsafe { *p }
    }
}
