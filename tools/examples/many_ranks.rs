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
    r = loggp_tools::synth::many_ranks(&r, n);
    std::fs::write(&a[3], serde_json::to_vec_pretty(&r).expect("encodes")).expect("writes");
}
