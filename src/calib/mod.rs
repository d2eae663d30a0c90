//! Calibration at MPI_Init: PRTT(n, d, s) probes between pairs of ranks (hoefler2007 §3),
//! over MPI in each send mode and over the raw transports beneath it, interleaved pass by
//! pass (`passes`, `channels`), with each switch located to the byte (`switches`).
//! `run` orchestrates the pairs and rounds (`pairs`) and returns what this rank measured
//! (`outcome`); `report` turns it into the report's sets.
pub mod channels;
pub mod concurrent;
pub mod congestion;
pub mod disturbance;
pub mod engine;
pub mod knob;
pub mod local;
pub mod mcavar;
pub mod mpit;
pub mod outcome;
pub mod pairs;
pub mod passes;
pub mod report;
pub mod run;
pub mod switches;
pub mod transports;
