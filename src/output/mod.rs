//! Output: the report assembled from a fragment (`report`), files written atomically
//! (`files`), the cross-check of its matrix (`coverage`), the exit paths and their
//! signal handlers (`exits`), and the writer thread that does every write a signal or
//! timer asks for (`writer`).
pub mod counters;
pub mod coverage;
pub mod exits;
pub mod files;
pub mod report;
pub mod writer;
