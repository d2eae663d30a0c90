//! What every stage stands on: the MPI bindings and constants, the clock, the guard and
//! fault stop, the LOGGP_* settings, and the function ids generated from the table.
pub mod alloc;
pub mod clock;
pub mod funcs;
pub mod mpi;
pub mod runtime;
pub mod settings;
