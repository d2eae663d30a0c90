//! The MPI this library was built against: bindgen's view of the real `mpi.h` and the
//! link-time constants exported by `src/consts.c`.
//!
//! Handle types differ between implementations (Open MPI: pointers to library objects,
//! MPICH: `int`), so code outside this module only compares handles, never assumes a
//! representation; [`Handle::bits`] turns either kind into a hashable `u64`.

#[allow(
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    dead_code,
    improper_ctypes,
    clippy::all
)]
mod ffi {
    include!(concat!(env!("OUT_DIR"), "/mpi_bindings.rs"));
}
pub use ffi::*;

/// Fortran INTEGER as the MPI sees it (a macro in Open MPI's mpi.h, so not in the
/// bindings). Both MPIs here use a 4-byte INTEGER; `fint_is_int` tells at run time.
#[allow(non_camel_case_types)]
pub type MPI_Fint = std::os::raw::c_int;

/// True when MPI_Fint has the size of C int (the Fortran entry points assume it).
pub fn fint_is_int() -> bool {
    // SAFETY: constant from consts.c.
    unsafe { ffi::loggp_MPI_FINT_SIZE == 4 }
}

/// Which MPI the library was built for (`openmpi` or `mpich`).
pub const FLAVOR: &str = env!("LOGGP_MPI_FLAVOR");

/// A handle of either representation, reduced to bits for hashing and tables.
pub trait Handle: Copy + PartialEq {
    fn bits(self) -> u64;
    fn from_bits(bits: u64) -> Self;
}
impl<T> Handle for *mut T {
    #[inline(always)]
    fn bits(self) -> u64 {
        self as usize as u64
    }
    #[inline(always)]
    fn from_bits(bits: u64) -> Self {
        bits as usize as *mut T
    }
}
impl Handle for std::os::raw::c_int {
    #[inline(always)]
    fn bits(self) -> u64 {
        self as u32 as u64
    }
    #[inline(always)]
    fn from_bits(bits: u64) -> Self {
        bits as u32 as std::os::raw::c_int
    }
}

macro_rules! constants {
    ($($fname:ident: $ty:ty = $sym:ident;)*) => {
        $(
            #[inline(always)]
            #[allow(non_snake_case)]
            pub fn $fname() -> $ty {
                // SAFETY: immutable constants defined in consts.c, initialised at load time.
                #[allow(clippy::unnecessary_cast)]
                unsafe { ffi::$sym as $ty }
            }
        )*
    };
}

constants! {
    comm_world: MPI_Comm = loggp_MPI_COMM_WORLD;
    comm_null: MPI_Comm = loggp_MPI_COMM_NULL;
    comm_self: MPI_Comm = loggp_MPI_COMM_SELF;
    request_null: MPI_Request = loggp_MPI_REQUEST_NULL;
    message_null: MPI_Message = loggp_MPI_MESSAGE_NULL;
    message_no_proc: MPI_Message = loggp_MPI_MESSAGE_NO_PROC;
    dt_byte: MPI_Datatype = loggp_MPI_BYTE;
    dt_char: MPI_Datatype = loggp_MPI_CHAR;
    dt_int: MPI_Datatype = loggp_MPI_INT;
    dt_u64: MPI_Datatype = loggp_MPI_UNSIGNED_LONG_LONG;
    errors_return: MPI_Errhandler = loggp_MPI_ERRORS_RETURN;
    info_null: MPI_Info = loggp_MPI_INFO_NULL;
    op_max: MPI_Op = loggp_MPI_MAX;
    op_sum: MPI_Op = loggp_MPI_SUM;
    status_ignore: *mut MPI_Status = loggp_MPI_STATUS_IGNORE;
    statuses_ignore: *mut MPI_Status = loggp_MPI_STATUSES_IGNORE;
    success: i32 = loggp_MPI_SUCCESS;
    err_other: i32 = loggp_MPI_ERR_OTHER;
    any_source: i32 = loggp_MPI_ANY_SOURCE;
    proc_null: i32 = loggp_MPI_PROC_NULL;
    undefined: i32 = loggp_MPI_UNDEFINED;
    thread_single: i32 = loggp_MPI_THREAD_SINGLE;
    thread_funneled: i32 = loggp_MPI_THREAD_FUNNELED;
    thread_serialized: i32 = loggp_MPI_THREAD_SERIALIZED;
    thread_multiple: i32 = loggp_MPI_THREAD_MULTIPLE;
    comm_type_shared: i32 = loggp_MPI_COMM_TYPE_SHARED;
    max_processor_name: i32 = loggp_MPI_MAX_PROCESSOR_NAME;
    max_library_version_string: i32 = loggp_MPI_MAX_LIBRARY_VERSION_STRING;
}

/// The name of an MPI thread level, as the report spells it.
pub fn thread_level_name(level: i32) -> &'static str {
    if level == thread_single() {
        "MPI_THREAD_SINGLE"
    } else if level == thread_funneled() {
        "MPI_THREAD_FUNNELED"
    } else if level == thread_serialized() {
        "MPI_THREAD_SERIALIZED"
    } else if level == thread_multiple() {
        "MPI_THREAD_MULTIPLE"
    } else {
        "unknown"
    }
}

/// An all-zero status, for the calls where the shim substitutes its own for
/// `MPI_STATUS_IGNORE` to learn the source of a wildcard receive.
#[inline(always)]
pub fn empty_status() -> MPI_Status {
    // SAFETY: MPI_Status is a plain C struct of integers in both implementations.
    let mut st: MPI_Status = unsafe { std::mem::zeroed() };
    // Until a call fills it, its source classifies as unknown, never as rank 0.
    st.MPI_SOURCE = any_source();
    st
}
