//! Reports made from real ones, for benchmarks and edge-case tests.
use loggp_report::{RankEntry, Report};

/// `r` with `n` ranks: every rank a copy of rank 0 with its own number, a host per 64
/// ranks, and time in MPI spread over 1–2.6× rank 0's.
pub fn many_ranks(r: &Report, n: u32) -> Report {
    let mut r = r.clone();
    let Some(base) = r.ranks.first().cloned() else {
        return r;
    };
    r.ranks = (0..n)
        .map(|i| RankEntry {
            rank: i,
            host: format!("node{:04}", i / 64),
            time_in_mpi_ns: base.time_in_mpi_ns * (1.0 + (i % 17) as f64 / 10.0),
            ..base.clone()
        })
        .collect();
    r.job.ranks = n;
    r
}
