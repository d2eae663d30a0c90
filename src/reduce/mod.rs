//! Reduce: one rank's statistics into the contract's cells (`cells`), and the fragments
//! of all ranks into the job's (`merge`).
pub mod cells;
pub mod merge;
