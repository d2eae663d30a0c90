//! Issue 13 §4: many ranks on this 2-core machine (Open MPI, oversubscribed, ranks
//! yielding when idle): no hang, a complete report with exact per-rank counts, and a
//! calibration of 32 and 64 pairs that ends within its budget — "done", or "stopped: …"
//! with what was measured — never past it.
mod common;
use common::*;

fn ring(np: usize) {
    let mpi = Mpi::OpenMpi;
    let dir = scratch(&format!("many_ranks_{np}"));
    let prog = compile(mpi, "ring.c", &[]);
    let report = dir.join("r.json");
    let mut r = Run::new(np, true)
        .env("LOGGP_REPORT", report.to_str().unwrap())
        .env("LOGGP_VERBOSE", "1")
        .env("OMPI_MCA_mpi_yield_when_idle", "1");
    r.timeout_s = 300;
    let o = run(mpi, &r, &prog, &["100"], &dir);
    assert!(o.status.success(), "{np} ranks: {}", stderr(&o));
    assert!(stdout(&o).contains(&format!("ring done {np} ranks")));
    // The Finalize cost, for the record (LOGGP_VERBOSE=1 prints it).
    let merged = stderr(&o)
        .lines()
        .find(|l| l.contains("ranks merged and the report written in"))
        .map(str::to_string)
        .expect("the merge line");
    println!("{np} ranks: {merged}");
    let r = read_report(&report);
    assert!(r.job.complete);
    assert_eq!(r.job.ranks as usize, np);
    let ranks: Vec<u32> = r.ranks.iter().map(|k| k.rank).collect();
    assert_eq!(
        ranks,
        (0..np as u32).collect::<Vec<_>>(),
        "every rank, once"
    );
    // ring.c, 100 iterations: per rank exactly 100 Irecv, Isend and Waitall; 10 Send on
    // even ranks, 10 Recv on odd ones.
    for k in &r.ranks {
        let count = |f: &str| k.calls.get(f).map(|c| c.count).unwrap_or(0);
        for f in ["MPI_Irecv", "MPI_Isend", "MPI_Waitall"] {
            assert_eq!(count(f), 100, "rank {} {f}", k.rank);
        }
        let (send, recv) = if k.rank % 2 == 0 { (10, 0) } else { (0, 10) };
        assert_eq!(count("MPI_Send"), send, "rank {} MPI_Send", k.rank);
        assert_eq!(count("MPI_Recv"), recv, "rank {} MPI_Recv", k.rank);
    }
    assert_calibration_within(&r, 2000.0, &format!("{np} ranks"));
    assert_eq!(r.calibration.pairs.len(), np / 2, "every rank in a pair");
}

#[test]
fn sixty_four_ranks() {
    ring(64);
}

#[test]
fn one_hundred_twenty_eight_ranks() {
    ring(128);
}
