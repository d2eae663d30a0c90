//! The exported entry points, generated from the function table (`table/`): the C
//! `MPI_*` symbols and the Fortran symbols of the bindings that do not reach them.
pub mod c;
pub mod fortran;
