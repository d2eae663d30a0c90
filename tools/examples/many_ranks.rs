//! Writes an N-rank report built from a real one (every rank a copy of rank 0 with its own
//! number, host and time in MPI), for the `loggp show` benchmark in scripts/bench.sh.
//! usage: many_ranks <in.json> <ranks> <out.json>
fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 4 {
        eprintln!("usage: many_ranks <in.json> <ranks> <out.json>");
        std::process::exit(2);
    }
    let mut r = loggp_report::read(&a[1]).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let n: u32 = a[2].parse().expect("a rank count");
    let base = r.ranks[0].clone();
    r.ranks = (0..n)
        .map(|i| loggp_report::RankEntry {
            rank: i,
            host: format!("node{:04}", i / 64),
            time_in_mpi_ns: base.time_in_mpi_ns * (1.0 + (i % 17) as f64 / 10.0),
            ..base.clone()
        })
        .collect();
    r.job.ranks = n;
    std::fs::write(&a[3], serde_json::to_vec_pretty(&r).expect("encodes")).expect("writes");
}
