//! loggp: a PMPI profiling library, preloaded into unmodified MPI applications, that times
//! every point-to-point call with the TSC and writes one JSON report per job.
//!
//! Stages, in the order a call meets them (each imports only those below it):
//! * `entry` — the exported C and Fortran symbols, generated from the function table
//!   (`table`, one row per intercepted function);
//! * `lifecycle` — orchestration: set-up and calibration at MPI_Init, the merge and the
//!   report at MPI_Finalize, rank files on every other way out;
//! * `calib` — the PRTT calibration and its transports (MPI, shm, tcp, UCX);
//! * `output` — the report assembled, files written atomically, exit paths, the writer;
//! * `reduce` — statistics into the contract's cells, fragments merged across ranks;
//! * `record` — the hot path: hooks, per-thread statistics, requests, peers;
//! * `base` — MPI bindings and constants, clock, guard and fault stop, settings, ids.
// The exported MPI_* entry points are `unsafe extern "C"`: their safety contract is the
// MPI standard's for the same function, which the doc comments cite.
#![allow(clippy::missing_safety_doc)]

#[macro_use]
mod table;

pub mod base;
pub mod calib;
pub mod entry;
pub mod lifecycle;
pub mod output;
pub mod record;
pub mod reduce;

/// Runs when the library is loaded (also into `mpirun` itself if LD_PRELOAD reaches it):
/// reads the settings, nothing more. Tables are mapped at MPI_Init.
extern "C" fn on_load() {
    let _ = std::panic::catch_unwind(|| {
        base::settings::load();
        base::runtime::install_panic_hook();
    });
}

#[used]
#[link_section = ".init_array"]
static ON_LOAD: extern "C" fn() = on_load;
