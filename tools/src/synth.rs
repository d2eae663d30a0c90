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
    // Each rank's rows of the time split and the waits, copied from the rank's own
    // among the report's (its number modulo the report's ranks).
    let had = r.time_split.len().max(1) as u32;
    if !r.time_split.is_empty() {
        let rows = std::mem::take(&mut r.time_split);
        r.time_split = (0..n)
            .filter_map(|i| {
                let mut t = rows.iter().find(|t| t.rank == i % had)?.clone();
                t.rank = i;
                Some(t)
            })
            .collect();
    }
    per_rank(&mut r.waits.collectives, n, had, |c| &mut c.rank);
    per_rank(&mut r.waits.largest, n, had, |w| &mut w.rank);
    r.job.ranks = n;
    r
}

/// Rows of ranks 0..`n`, each copied from those of rank (its number modulo `had`).
fn per_rank<T: Clone>(v: &mut Vec<T>, n: u32, had: u32, rank_of: fn(&mut T) -> &mut u32) {
    let rows = std::mem::take(v);
    *v = (0..n)
        .flat_map(|i| {
            rows.iter().cloned().filter_map(move |mut x| {
                (*rank_of(&mut x) == i % had).then(|| {
                    *rank_of(&mut x) = i;
                    x
                })
            })
        })
        .collect();
}
