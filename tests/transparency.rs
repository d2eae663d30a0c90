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
    // Silent by default (issue 13 §6): the shim adds nothing to what the job prints.
    assert_eq!(
        stderr(&plain),
        stderr(&shim),
        "the shim printed something with default settings"
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
    assert_eq!(run_warnings(&r), Vec::<String>::new());
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

/// The binomial-tree merge with rank counts that are not powers of two: every rank's
/// statistics arrive at rank 0, once.
#[test]
fn merge_tree_with_odd_rank_counts() {
    for (mpi, np) in [
        (Mpi::OpenMpi, 3),
        (Mpi::OpenMpi, 5),
        (Mpi::Mpich, 3),
        (Mpi::Mpich, 5),
    ] {
        let dir = scratch(&format!("merge_{}_{np}", mpi.name()));
        let src = root().join("examples/demo.c");
        let prog = dir.join("demo");
        let c = std::process::Command::new(mpi.mpicc())
            .arg("-O2")
            .arg("-o")
            .arg(&prog)
            .arg(&src)
            .output()
            .unwrap();
        assert!(c.status.success());
        let report = dir.join("r.json");
        let o = run(
            mpi,
            &Run::new(np, true).env("LOGGP_REPORT", report.to_str().unwrap()),
            &prog,
            &[],
            &dir,
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let r = read_report(&report);
        let ranks: Vec<u32> = r.ranks.iter().map(|k| k.rank).collect();
        assert_eq!(ranks, (0..np as u32).collect::<Vec<_>>());
        // demo.c: 16 sizes x 50 iterations of Irecv+Isend+Waitall and Send+Recv per rank.
        for k in &r.ranks {
            for f in [
                "MPI_Irecv",
                "MPI_Isend",
                "MPI_Waitall",
                "MPI_Send",
                "MPI_Recv",
            ] {
                assert_eq!(k.calls[f].count, 800, "rank {} {f}", k.rank);
            }
        }
        let bins: u64 = r
            .passive
            .iter()
            .filter(|p| p.mode == "send")
            .flat_map(|p| &p.bins)
            .map(|b| b.count)
            .sum();
        assert_eq!(bins, 800 * np as u64, "merged histograms hold every call");
    }
}
