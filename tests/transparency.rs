//! Every intercepted function, under both MPIs, 2 and 4 ranks: the report's counts and
//! bytes equal what the program knows it did, and the program's observable behaviour
//! (data, statuses, error classes, exit code) is identical with and without the shim.
mod common;
use common::*;

fn p2p_all(mpi: Mpi, np: usize) {
    let dir = scratch(&format!("p2p_all_{}_{np}", mpi.name()));
    let prog = compile(mpi, "p2p_all.c", &[]);
    let plain = run(mpi, &Run::new(np, false), &prog, &[], &dir);
    assert!(
        plain.status.success(),
        "plain run failed: {}",
        stderr(&plain)
    );
    let report = dir.join("r.json");
    let shim = run(
        mpi,
        &Run::new(np, true).env("LOGGP_REPORT", report.to_str().unwrap()),
        &prog,
        &[],
        &dir,
    );
    assert_eq!(
        plain.status.code(),
        shim.status.code(),
        "exit status changed: {}",
        stderr(&shim)
    );
    assert_eq!(
        observations(&stdout(&plain)),
        observations(&stdout(&shim)),
        "output changed under the shim"
    );
    let r = read_report(&report);
    assert!(r.job.complete);
    assert_eq!(r.job.ranks as usize, np);
    assert_eq!(r.ranks.len(), np);
    assert_eq!(r.job.mpi_flavor, mpi.name());
    let expect = expected(&stdout(&shim));
    assert!(
        expect.len() >= 35,
        "the program must exercise every function"
    );
    assert_counts(&r, &expect, &["MPI_Init"]);
    assert_eq!(call_totals(&r)["MPI_Init"].0, np as u64);
    // Requests followed from start to completion, whichever Wait/Test completed them.
    let mut want = expected_requests(&stdout(&shim));
    want.retain(|_, v| *v != (0, 0, 0));
    assert_eq!(request_totals(&r), want, "request lifecycles");
    assert_eq!(r.warnings, Vec::<String>::new());
}

#[test]
fn p2p_all_openmpi_2() {
    p2p_all(Mpi::OpenMpi, 2);
}
#[test]
fn p2p_all_openmpi_4() {
    p2p_all(Mpi::OpenMpi, 4);
}
#[test]
fn p2p_all_mpich_2() {
    p2p_all(Mpi::Mpich, 2);
}
#[test]
fn p2p_all_mpich_4() {
    p2p_all(Mpi::Mpich, 4);
}

/// LOGGP_DISABLE=1 is a pure pass-through: no report, nothing printed by the shim.
#[test]
fn disable_is_pass_through() {
    for mpi in BOTH {
        let dir = scratch(&format!("disable_{}", mpi.name()));
        let prog = compile(mpi, "p2p_all.c", &[]);
        let report = dir.join("r.json");
        let o = run(
            mpi,
            &Run::new(2, true)
                .env("LOGGP_DISABLE", "1")
                .env("LOGGP_REPORT", report.to_str().unwrap()),
            &prog,
            &[],
            &dir,
        );
        assert!(o.status.success());
        assert!(
            !report.exists(),
            "{}: a disabled shim wrote a report",
            mpi.name()
        );
        assert!(!stderr(&o).contains("loggp:"), "{}", stderr(&o));
    }
}
