//! Reports made from real ones, for benchmarks and edge-case tests.
use loggp_report::{MatrixEntry, RankEntry, Report};

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
    // A halo exchange with both neighbours, as rank 0's own matrix row has it (scaled
    // by rank), where the report has a matrix.
    if let Some(e) = r.matrix.iter().find(|e| e.messages > 0).cloned() {
        r.matrix = (0..n)
            .flat_map(|i| {
                let e = e.clone();
                [(i + 1) % n, (i + n - 1) % n].map(move |to| MatrixEntry {
                    from: i,
                    to,
                    bytes: e.bytes * (1 + (i % 5) as u64),
                    ..e.clone()
                })
            })
            .collect();
        r.matrix = loggp_report::merge_matrix(&r.matrix);
    }
    r.job.ranks = n;
    r
}
