//! Reduce: one rank's statistics into the contract's cells (`cells`) and call sites
//! (`sites`), and the fragments of all ranks into the job's (`merge`).
pub mod cells;
pub mod merge;
pub mod sites;
pub mod waits;
