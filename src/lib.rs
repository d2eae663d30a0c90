//! loggp: a PMPI profiling library, preloaded into unmodified MPI applications, that times
//! every point-to-point call with the TSC and writes one JSON report per job.
//!
//! Layout, in the order a call meets it:
//! * `intercept` — the table of intercepted functions (one declaration each);
//! * `hooks` — what each family of calls records around its PMPI_ call;
//! * `stats`, `requests`, `peers` — the fixed-size state the hot path writes;
//! * `collect`, `lifecycle` — reduce, merge across ranks, write the report;
//! * `writer` — the thread that writes what signals and timers ask for;
//! * `runtime`, `settings`, `clock`, `mpi` — the guard and fault stop, LOGGP_* settings,
//!   the timestamp source, the MPI bindings.
// The exported MPI_* entry points are `unsafe extern "C"`: their safety contract is the
// MPI standard's for the same function, which the doc comments cite.
#![allow(clippy::missing_safety_doc)]

pub mod calib;
pub mod clock;
pub mod collect;
pub mod fortran;
pub mod hooks;
pub mod intercept;
pub mod lifecycle;
pub mod mpi;
pub mod passive;
pub mod peers;
pub mod raw;
pub mod requests;
pub mod runtime;
pub mod settings;
pub mod stats;
pub mod writer;

/// Runs when the library is loaded (also into `mpirun` itself if LD_PRELOAD reaches it):
/// reads the settings, nothing more. Tables are mapped at MPI_Init.
extern "C" fn on_load() {
    let _ = std::panic::catch_unwind(|| {
        settings::load();
        runtime::install_panic_hook();
    });
}

#[used]
#[link_section = ".init_array"]
static ON_LOAD: extern "C" fn() = on_load;
