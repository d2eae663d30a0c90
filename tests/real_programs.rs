//! Unmodified programs from Debian packages under the shim: results unchanged, report
//! written, counts right where the program's traffic is known.
mod common;
use common::*;

/// NetPIPE in integrity-check mode (deterministic output) under both MPIs.
#[test]
fn netpipe_unchanged_under_both_mpis() {
    for (mpi, np) in [(Mpi::OpenMpi, "NPopenmpi"), (Mpi::Mpich, "NPmpich2")] {
        let args = ["-i", "-u", "65536", "-n", "10", "-o", "np.out"];
        let prog = std::path::PathBuf::from(format!("/usr/bin/{np}"));
        let plain_dir = scratch(&format!("netpipe_plain_{}", mpi.name()));
        let shim_dir = scratch(&format!("netpipe_shim_{}", mpi.name()));
        let plain = run(mpi, &Run::new(2, false), &prog, &args, &plain_dir);
        let report = shim_dir.join("r.json");
        let shim = run(
            mpi,
            &Run::new(2, true).env("LOGGP_REPORT", report.to_str().unwrap()),
            &prog,
            &args,
            &shim_dir,
        );
        assert!(
            plain.status.success() && shim.status.success(),
            "{}",
            stderr(&shim)
        );
        // Two ranks write to one stream, and the launcher may interleave them inside a line
        // (with or without the shim): compare what was written, not where lines broke.
        let chars = |o: &std::process::Output| {
            let mut v: Vec<char> = stdout(o).chars().filter(|c| !c.is_whitespace()).collect();
            v.sort_unstable();
            v
        };
        assert_eq!(chars(&plain), chars(&shim), "NetPIPE's output changed");
        let a = std::fs::read_to_string(plain_dir.join("np.out")).unwrap();
        let b = std::fs::read_to_string(shim_dir.join("np.out")).unwrap();
        assert_eq!(a, b, "NetPIPE's integrity results changed");
        let said = format!("{}{}", stdout(&shim), stderr(&shim));
        assert!(said.contains("Integrity check passed"), "{said}");
        assert!(!said.contains("Integrity check failed"));
        let r = read_report(&report);
        let t = call_totals(&r);
        // Every message one rank sends, the other receives: the ping-pong is symmetric.
        assert!(t["MPI_Send"].0 > 100);
        assert_eq!(t["MPI_Send"], t["MPI_Recv"], "{}: {t:?}", mpi.name());
        assert!(r
            .passive
            .iter()
            .any(|p| p.mode == "send" && p.peer_class == "intra_node"));
    }
}

/// mpi4py (Debian's, built on Open MPI): the pickled object API (MPI_Mprobe/MPI_Mrecv on
/// receive) and the buffer API, counted exactly with the right sizes.
#[test]
fn mpi4py_object_and_buffer_apis() {
    let dir = scratch("mpi4py");
    let report = dir.join("r.json");
    let script = root().join("tests/py/mpi4py_counts.py");
    let o = run(
        Mpi::OpenMpi,
        &Run::new(2, true).env("LOGGP_REPORT", report.to_str().unwrap()),
        std::path::Path::new("/usr/bin/python3"),
        &[script.to_str().unwrap()],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_report(&report);
    assert_counts(&r, &expected(&stdout(&o)), &["MPI_Init_thread", "MPI_Init"]);
    let mrecv = r
        .passive
        .iter()
        .find(|p| p.mode == "mrecv")
        .expect("mrecv bins");
    assert_eq!(
        mrecv.peer_class, "intra_node",
        "Mrecv classified through its Mprobe"
    );
}

/// MPI_THREAD_MULTIPLE: 4 threads x 10^5 messages per rank pair, exact counts; requests
/// start and complete concurrently in the shared request table.
#[test]
fn thread_multiple_counts_are_exact() {
    for mpi in BOTH {
        let dir = scratch(&format!("threads_{}", mpi.name()));
        let prog = compile(mpi, "threads.c", &["-lpthread"]);
        let report = dir.join("r.json");
        let o = run(
            mpi,
            &Run::new(2, true).env("LOGGP_REPORT", report.to_str().unwrap()),
            &prog,
            &["100000", "4"],
            &dir,
        );
        assert!(o.status.success(), "{}: {}", mpi.name(), stderr(&o));
        let r = read_report(&report);
        assert_eq!(r.job.thread_level, "MPI_THREAD_MULTIPLE");
        assert_counts(&r, &expected(&stdout(&o)), &["MPI_Init_thread"]);
        let completed: u64 = r
            .ranks
            .iter()
            .filter_map(|k| k.requests.get("irecv"))
            .map(|q| q.completed)
            .sum();
        assert_eq!(completed, 400_000, "{}", mpi.name());
        assert!(r.ranks.iter().all(|k| k.threads >= 4));
        assert!(run_warnings(&r).is_empty(), "{:?}", r.warnings);
    }
}
