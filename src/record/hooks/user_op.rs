//! User-defined reduction operations (MPI_Op_create): each is created with a trampoline
//! of ours in place of the application's function, which it calls with the same
//! arguments and times, so that the collective model prices a reduction by the
//! operation the job runs (issue 26) where it priced every one as MPI_SUM on doubles.
//! A reduction's local arithmetic is most of a large Allreduce's cost when the
//! operation is expensive, and only the application's own function says how much.
//!
//! The trampoline reads the clock twice and adds to fixed cells (per octave of the
//! element count: calls, elements, ticks, and a histogram of the call's ticks per 1024
//! elements, whose median prices the operation where one preempted call would move the
//! mean by a millisecond over the calls); it allocates nothing, takes no lock and calls
//! no MPI function, and it stays the operation's function for its whole life, profiling
//! on or off: MPI may apply an operation after MPI_Op_free, so a slot is never reused.
//! The first `SLOTS` operations get one; later ones run the application's function
//! unwrapped (untimed). MPI_Op_create_c's functions (a count of MPI_Count, MPI-4) get
//! trampolines of their own kind from the same slots, where the MPI has it, and so do
//! the functions of a Fortran binding's MPI_OP_CREATE that does not reach the C symbol
//! (`op_create_f`).
use crate::base::clock::{self, now};
#[cfg(mpi_large_count)]
use crate::base::mpi::{MPI_Count, MPI_User_function_c};
use crate::base::mpi::{MPI_Datatype, MPI_Fint, MPI_User_function};
use loggp_report::bins::{hist_index, HIST_BUCKETS};
use loggp_report::Mode;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{
    AtomicU32, AtomicU64, AtomicUsize, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};

type UserFn = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int, *mut MPI_Datatype);
/// A Fortran binding's user function: four addresses (the buffers, or their c_ptr values
/// under `use mpi_f08`; the count, an INTEGER; the datatype, an INTEGER or a
/// TYPE(MPI_Datatype) holding one), as both MPIs call it.
type UserFnF = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut MPI_Fint, *mut MPI_Fint);
#[cfg(mpi_large_count)]
type UserFnC = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut MPI_Count, *mut MPI_Datatype);

/// Operations that get a trampoline (mpi4py creates one per Python operation), of both
/// kinds together.
const SLOTS: usize = 16;
/// Octaves of the element count (an MPI_Count of MPI_Op_create_c's reaches 2^63).
const OCTAVES: usize = 64;

/// The application's function of each slot, as an address (0: free).
static FUNCTIONS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static NEXT: AtomicUsize = AtomicUsize::new(0);
/// Per octave of the element count: calls, elements, ticks.
static CELLS: [[AtomicU64; 3]; OCTAVES] = [const { [const { AtomicU64::new(0) }; 3] }; OCTAVES];
/// Per octave of the element count: the calls' ticks per 1024 elements, in the
/// durations' buckets (`bins::hist_index`). Zero pages until an octave has calls.
static RATES: [[AtomicU32; HIST_BUCKETS]; OCTAVES] =
    [const { [const { AtomicU32::new(0) }; HIST_BUCKETS] }; OCTAVES];

/// Slot `K`'s function, as the address the slot holds (0: never, the slot is filled
/// before MPI has the trampoline).
#[inline(always)]
fn function_of<const K: usize>() -> usize {
    FUNCTIONS[K].load(Acquire)
}

/// One call of a user function: `n` elements (0 or less: none counted) in `ticks`.
#[inline(always)]
fn record(n: i64, ticks: u64) {
    if n > 0 {
        let octave = (63 - (n as u64).leading_zeros()) as usize;
        if let Some(c) = CELLS.get(octave) {
            c[0].fetch_add(1, Relaxed);
            c[1].fetch_add(n as u64, Relaxed);
            c[2].fetch_add(ticks, Relaxed);
            let per_1024 = ticks.saturating_mul(1024) / n as u64;
            RATES[octave][hist_index(per_1024)].fetch_add(1, Relaxed);
        }
    }
}

/// A trampoline kind: `$name::<K>` calls slot `K`'s function (of type `$f`, whose count
/// is a `$count` and datatype a `$dt`) with the arguments MPI gave, timed. One definition
/// for every kind, so MPI_Op_create's, MPI_Op_create_c's and the Fortran bindings'
/// cannot drift apart.
macro_rules! trampoline_kind {
    ($(#[$m:meta])* $name:ident, $f:ty, $count:ty, $dt:ty) => {
        $(#[$m])*
        unsafe extern "C" fn $name<const K: usize>(
            invec: *mut c_void,
            inoutvec: *mut c_void,
            len: *mut $count,
            datatype: *mut $dt,
        ) {
            let f = function_of::<K>();
            if f == 0 {
                return;
            }
            // SAFETY: the address of the application's non-null function of this kind,
            // stored by `op_create`/`op_create_c`/`op_create_f` before MPI saw this
            // trampoline.
            let f: $f = unsafe { std::mem::transmute::<usize, $f>(f) };
            let t0 = now();
            // SAFETY: the application's own function with MPI's own arguments, unchanged.
            unsafe { f(invec, inoutvec, len, datatype) };
            let t1 = now();
            // SAFETY: MPI passes a valid count (read after the call, which may not
            // change it).
            let n = if len.is_null() { 0 } else { unsafe { *len } };
            record(i64::from(n), t1.wrapping_sub(t0));
        }
    };
}

trampoline_kind!(
    /// MPI_Op_create's functions (a count of int).
    trampoline,
    UserFn,
    c_int,
    MPI_Datatype
);
trampoline_kind!(
    /// A Fortran binding's MPI_OP_CREATE functions (a count of INTEGER).
    trampoline_f,
    UserFnF,
    MPI_Fint,
    MPI_Fint
);
trampoline_kind!(
    /// MPI_Op_create_c's functions, whose count is an MPI_Count.
    #[cfg(mpi_large_count)]
    trampoline_c,
    UserFnC,
    MPI_Count,
    MPI_Datatype
);

/// Every slot's trampoline of one kind.
macro_rules! slots {
    ($t:ident) => {
        [
            $t::<0>, $t::<1>, $t::<2>, $t::<3>, $t::<4>, $t::<5>, $t::<6>, $t::<7>, $t::<8>,
            $t::<9>, $t::<10>, $t::<11>, $t::<12>, $t::<13>, $t::<14>, $t::<15>,
        ]
    };
}

const TRAMPOLINES: [UserFn; SLOTS] = slots!(trampoline);
const TRAMPOLINES_F: [UserFnF; SLOTS] = slots!(trampoline_f);
#[cfg(mpi_large_count)]
const TRAMPOLINES_C: [UserFnC; SLOTS] = slots!(trampoline_c);

/// A free slot holding the application's function `f` (an address), or None where none
/// is left.
fn take_slot(f: usize) -> Option<usize> {
    let k = NEXT.fetch_add(1, Relaxed);
    FUNCTIONS.get(k)?.store(f, Release);
    Some(k)
}

/// MPI_Op_create: the operation is created with a free slot's trampoline in place of
/// the application's function (`call` takes the function to create it with), or with the
/// application's own where none is left or it is null.
#[inline]
pub(crate) fn op_create(
    _func: u8,
    _mode: Mode,
    user_fn: MPI_User_function,
    call: impl FnOnce(MPI_User_function) -> c_int,
) -> c_int {
    match user_fn.and_then(|f| take_slot(f as usize)) {
        Some(k) => call(Some(TRAMPOLINES[k])),
        None => call(user_fn),
    }
}

/// [`op_create`] for MPI_Op_create_c (MPI-4: the function's count is an MPI_Count).
#[cfg(mpi_large_count)]
#[inline]
pub(crate) fn op_create_c(
    _func: u8,
    _mode: Mode,
    user_fn: MPI_User_function_c,
    call: impl FnOnce(MPI_User_function_c) -> c_int,
) -> c_int {
    match user_fn.and_then(|f| take_slot(f as usize)) {
        Some(k) => call(Some(TRAMPOLINES_C[k])),
        None => call(user_fn),
    }
}

/// A Fortran binding's MPI_OP_CREATE (Open MPI's bindings call PMPI_Op_create
/// themselves, MPICH's `use mpi_f08` too): `function` holds the address of the
/// application's procedure, and the MPI's own routine (`call`) reads it from there, so it
/// is set to a free slot's trampoline of the Fortran kind first. None left, or a null
/// procedure: the application's own, untimed.
#[inline]
pub(crate) fn op_create_f(
    _func: u8,
    _mode: Mode,
    function: &std::cell::Cell<*mut c_void>,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let f = function.get();
    if !f.is_null() {
        if let Some(k) = take_slot(f as usize) {
            function.set(TRAMPOLINES_F[k] as *mut c_void);
        }
    }
    call()
}

/// The user-defined operations' calls on this rank (`RankEntry::user_op_calls`):
/// `[calls, elements, ns]` summed per octave of the element count that had calls, in
/// order.
pub fn totals() -> Vec<[f64; 3]> {
    let ns = clock::ns_per_tick(clock::hz());
    CELLS
        .iter()
        .filter_map(|c| {
            let calls = c[0].load(Relaxed);
            (calls > 0).then(|| {
                [
                    calls as f64,
                    c[1].load(Relaxed) as f64,
                    c[2].load(Relaxed) as f64 * ns,
                ]
            })
        })
        .collect()
}

/// The user-defined operations' calls on this rank by their cost per element:
/// `[octave of the element count, tick bucket of the ticks per 1024 elements, calls]`,
/// in order (moved to ns buckets as the cells' histograms are, in `reduce::cells`).
pub fn rates_in_ticks() -> Vec<[u64; 3]> {
    let mut out = Vec::new();
    for (octave, hist) in RATES.iter().enumerate() {
        for (tick_bucket, c) in hist.iter().enumerate() {
            let calls = c.load(Relaxed);
            if calls > 0 {
                out.push([octave as u64, tick_bucket as u64, u64::from(calls)]);
            }
        }
    }
    out
}
