//! The one table of intercepted MPI functions: one row per function, in four files by
//! family (`p2p.rs`: lifecycle and point-to-point; `coll.rs`: collectives; `rma.rs`:
//! communicator constructors and one-sided communication; `io.rs`: I/O). Everything else
//! about a function is generated from its row (see the consumers named below), so adding
//! an intercepted function is adding a row here and, if its family is new, a hook.
//!
//! A row:
//! ```text
//! MPI_Name {
//!     role: Initiates | Completes | Probes | Other,  // what its durations are to the reduce step
//!     mode: Send | … | None,                          // the mode its messages count under
//!                                                     // (None: the request's, or no message)
//!     entry: guarded | lifecycle,                     // guarded: pass-through when profiling
//!                                                     // is off or re-entered; lifecycle: its
//!                                                     // hook decides (MPI_Init, Finalize, Abort)
//!     cfg: <cfg>,                                     // optional: only where mpi.h declares it
//!     c: (<C arguments, as in mpi.h>) => hook(<arguments>, <the PMPI_ call>),
//!     fortran: <short name> <style> (<Fortran arguments, IERROR left out>)
//!         => hook(<arguments converted>, call),       // optional: no Fortran binding
//! }
//! ```
//! Every hook is called as `hook(id, Mode::<mode>, <the row's arguments>)`; `call` runs the
//! MPI's own Fortran routine and returns IERROR. The style: `ts` marks a function with a
//! choice buffer (MPICH's `use mpi_f08` suffix `_f08ts_`; `plain`: `_f08_`); `f08direct`, a
//! `plain` one whose Open MPI `use mpi_f08` routine calls `pmpi_x_` itself (a LOGICAL
//! argument converted, an array of handles copied), so that routine is wrapped too;
//! `chars`, a `plain` one with one CHARACTER argument, whose hidden length follows IERROR;
//! `procarg` and `noierr` as `entry::fortran` says.
//!
//! Consumers: `base::funcs` (the ids, names, roles and modes), `entry::c` (the exported
//! `MPI_*` symbols), `entry::fortran` (the Fortran symbols of all three bindings), and
//! the test `tests/function_table.rs`, which reads these files and checks the built
//! libraries' symbols row by row. C signatures are checked by the compiler against the
//! real `PMPI_*` prototypes from bindgen (`base::mpi`).
//!
//! Names in the hook expressions resolve where the consumer expands the table: the hooks
//! and accessors (`record::hooks`), the lifecycle hooks (`lifecycle`), the Fortran
//! conversions (`int`, `dt`, `comm`, `fp`, `ip`, `index0`, `no_status`, `no_statuses`).

#[macro_use]
mod p2p;
#[macro_use]
mod coll;
#[macro_use]
mod rma;
#[macro_use]
mod io;

/// Expands `$consumer! { [call, ierr] rows… }` with every row of both files, in order
/// (the ids follow it).
macro_rules! mpi_functions {
    ($consumer:ident) => {
        p2p_rows! { coll_rows, $consumer }
    };
}
