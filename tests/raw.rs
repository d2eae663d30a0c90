//! Raw transports beneath MPI (issue 5): shared memory between the intra-node pair, the
//! MPI-minus-raw overheads, and nothing left in /dev/shm — after a normal job and after one
//! killed during its calibration. TCP between two namespace hosts is in topology.rs.
mod common;
use common::*;
use loggp_report::Report;
use std::process::Command;

fn leftovers() -> Vec<String> {
    std::fs::read_dir("/dev/shm")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("loggp."))
                .collect()
        })
        .unwrap_or_default()
}

fn job(mpi: Mpi, env: &[(&str, &str)], name: &str) -> Report {
    report_of(mpi, 2, "init_only.c", env, name)
}

/// Both MPIs: the shm set is measured, MPI's o_s over shared memory exceeds the raw
/// channel's (in one of five jobs at least), and the per-parameter differences are reported for every common range.
#[test]
fn shm_beneath_mpi_and_the_overhead_it_reveals() {
    // Named: under MPICH (ch4:ucx) auto measures UCT instead (issue 12).
    let shm_only = [("LOGGP_RAW", "shm")];
    for mpi in BOTH {
        let r = job(mpi, &shm_only, &format!("raw_shm_{}", mpi.name()));
        let shm = r
            .calibration
            .raw
            .iter()
            .find(|x| x.transport == "shm")
            .unwrap_or_else(|| panic!("{}: no shm set", mpi.name()));
        assert_eq!(shm.peer_class, "intra_node");
        assert_eq!(shm.status, "done", "{}", mpi.name());
        assert!(!shm.ranges.is_empty() && shm.points.len() >= 20);
        let first = &shm.ranges[0];
        for v in [
            first.send_overhead_ns,
            first.recv_overhead_ns,
            first.latency_ns,
            first.gap_ns,
        ] {
            assert!(v.unwrap() > 0.0, "{}: {first:?}", mpi.name());
        }
        assert_eq!(r.sections["calibration.raw"], "done");
        assert_eq!(r.sections["mpi_overhead"], "done");
        let o: Vec<_> = r
            .mpi_overhead
            .iter()
            .filter(|o| o.transport == "shm" && o.peer_class == "intra_node")
            .collect();
        assert!(!o.is_empty());
        // Contiguous cover of the sizes both measured.
        for w in o.windows(2) {
            assert_eq!(w[0].size_hi_bytes + 1, w[1].size_lo_bytes);
        }
        // MPI's smallest-message send overhead is above the raw channel's — in most jobs,
        // not all, on this VM. Both sides' o_s switch between levels (≈35 and ≈80–130 ns)
        // in phases lasting seconds; in such a phase the raw ring's o_s can sit above
        // MPI's for several jobs in a row (Δ −64…−79 ns in 5 of 5, once; −50, −83 in single
        // jobs). So: five jobs, at least one must show MPI above raw, and all are printed.
        // The note of issue 5 gives the counts seen.
        let mut ds: Vec<f64> = vec![];
        for k in 0..5 {
            let again = match k {
                0 => r.clone(),
                _ => job(mpi, &shm_only, &format!("raw_shm_{}_{k}", mpi.name())),
            };
            let first = again
                .mpi_overhead
                .iter()
                .find(|x| x.transport == "shm" && x.size_lo_bytes == 1)
                .unwrap_or_else(|| panic!("{}: job {k}: no first MPI − shm row", mpi.name()));
            // A difference not above zero is null with a note (issue 11), never a
            // negative overhead: such a job counts as "MPI not above raw".
            match first.send_overhead_ns {
                Some(d) => ds.push(d),
                None => {
                    let note = first.note.as_deref().unwrap_or_default();
                    assert!(
                        note.contains("o_s"),
                        "{}: null Δo_s without a note: {first:?}",
                        mpi.name()
                    );
                    ds.push(f64::NEG_INFINITY);
                }
            }
        }
        ds.sort_by(f64::total_cmp);
        eprintln!(
            "{}: MPI − shm: {:?}; Δo_s over 5 jobs {ds:?}",
            mpi.name(),
            o
        );
        assert_eq!(ds.len(), 5);
        assert!(
            ds[4] > 0.0,
            "{}: MPI o_s − shm o_s over 5 jobs: {ds:?}",
            mpi.name()
        );
        // What one side does not have stays null, never guessed: the first MPI range of a
        // set with a latency has one, so the delta is a number — or, where MPI's is not
        // above the raw channel's, null with a note that gives the value.
        assert!(
            o[0].latency_ns.is_some() || o[0].note.as_deref().unwrap_or_default().contains("L:"),
            "{:?}",
            o[0]
        );
    }
    assert!(
        leftovers().is_empty(),
        "left in /dev/shm: {:?}",
        leftovers()
    );
}

#[test]
fn raw_off_and_unavailable_transports_say_why() {
    let r = job(Mpi::OpenMpi, &[("LOGGP_RAW", "off")], "raw_off");
    assert!(r.calibration.raw.is_empty());
    assert!(r.sections["calibration.raw"].starts_with("none:"));
    assert!(r.mpi_overhead.is_empty());
    // Asked for verbs and shm explicitly: shm runs, verbs says why not.
    let r = job(Mpi::OpenMpi, &[("LOGGP_RAW", "shm,verbs")], "raw_verbs");
    let verbs = r
        .calibration
        .raw
        .iter()
        .find(|x| x.transport == "verbs")
        .expect("verbs is never silently absent");
    // Where an RDMA device exists verbs is measured; where none does, the status says so.
    if rdma_device() {
        assert_eq!(verbs.status, "done", "{verbs:?}");
    } else {
        assert!(
            verbs.status.starts_with("unavailable: ") && verbs.status.contains("no RDMA device"),
            "{}",
            verbs.status
        );
        assert!(verbs.ranges.is_empty());
    }
    // tcp over loopback between the intra-node pair, when asked.
    let r = job(
        Mpi::OpenMpi,
        &[("LOGGP_RAW", "tcp"), ("LOGGP_CALIBRATE_BUDGET_MS", "20000")],
        "raw_tcp_loopback",
    );
    let tcp = &r.calibration.raw[0];
    assert_eq!(
        (tcp.transport.as_str(), tcp.status.as_str()),
        ("tcp", "done")
    );
}

/// A job killed (SIGTERM through the launcher) while it calibrates leaves no segment.
#[test]
fn no_segment_left_after_a_kill_during_calibration() {
    let dir = scratch("raw_killed");
    let prog = compile(Mpi::OpenMpi, "init_only.c", &[]);
    for delay in ["0.6", "1.2", "2.0"] {
        let o = Command::new("timeout")
            .args([
                "-s",
                "TERM",
                "-k",
                "10",
                delay,
                Mpi::OpenMpi.mpirun(),
                "-np",
                "2",
            ])
            .args([
                "-x",
                "LD_PRELOAD",
                "-x",
                "LOGGP_CALIBRATE",
                "-x",
                "LOGGP_RAW",
            ])
            .arg(&prog)
            .env("LD_PRELOAD", Mpi::OpenMpi.shim())
            .env("LOGGP_CALIBRATE", "full")
            .env("LOGGP_RAW", "shm")
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(!o.status.success(), "the job was to be killed at {delay} s");
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(
            leftovers().is_empty(),
            "after a kill at {delay} s: {:?}",
            leftovers()
        );
    }
}

/// Whether MPI's send overhead is not below the raw transport's beyond its interval: a
/// number (above zero by construction), or null with a note whose interval reaches zero.
fn os_not_below_raw(o: &loggp_report::MpiOverhead) -> bool {
    if o.send_overhead_ns.is_some() {
        return true;
    }
    let note = o.note.as_deref().unwrap_or_default();
    let hi = note
        .split("o_s:")
        .nth(1)
        .and_then(|t| t.split("(interval ").nth(1))
        .and_then(|t| t.split(')').next())
        .and_then(|t| t.split(" … ").nth(1))
        .and_then(|t| t.trim().parse::<f64>().ok());
    hi.is_some_and(|h| h >= 0.0)
}

/// The raw UCT set of a report: status done, `tl` and `device` named, LogGP ranges, and
/// MPI − raw rows named with the UCT transport.
fn uct_set<'a>(r: &'a Report, what: &str) -> &'a loggp_report::RawSet {
    let u = r
        .calibration
        .raw
        .iter()
        .find(|x| x.transport == "ucx")
        .unwrap_or_else(|| panic!("{what}: no ucx set: {:?}", r.calibration.raw));
    assert_eq!(u.status, "done", "{what}: {u:?}");
    assert!(u.tl.is_some() && u.device.is_some(), "{what}: {u:?}");
    assert!(u.note.as_deref().unwrap_or_default().contains("am_short"));
    assert!(!u.ranges.is_empty() && u.points.len() >= 20, "{what}");
    let first = &u.ranges[0];
    for v in [first.send_overhead_ns, first.latency_ns] {
        assert!(v.unwrap() > 0.0, "{what}: {first:?}");
    }
    u
}

/// Issue 12: where the MPI runs over UCX (MPICH ch4:ucx; Open MPI pml ucx), `auto`
/// measures UCT beneath it over a shared-memory transport between the intra-node pair,
/// names it, and reports MPI − UCT; MPI's o_s is not below UCT's beyond its interval.
#[test]
fn uct_beneath_mpi_over_ucx() {
    for (mpi, env, what) in [
        (Mpi::Mpich, vec![], "mpich ch4:ucx"),
        (Mpi::OpenMpi, PML_UCX.to_vec(), "openmpi pml ucx"),
    ] {
        let r = job(mpi, &env, &format!("raw_uct_{}", mpi.name()));
        let u = uct_set(&r, what);
        let tl = u.tl.clone().unwrap();
        assert!(["posix", "sysv"].contains(&tl.as_str()), "{what}: {tl}");
        assert_eq!(u.device.as_deref(), Some("memory"));
        let rows: Vec<_> = r
            .mpi_overhead
            .iter()
            .filter(|o| o.transport == format!("ucx:{tl}"))
            .collect();
        assert!(!rows.is_empty(), "{what}: {:?}", r.mpi_overhead);
        eprintln!("{what}: MPI − ucx:{tl} first row {:?}", rows[0]);
        assert!(os_not_below_raw(rows[0]), "{what}: {:?}", rows[0]);
    }
}

/// `LOGGP_RAW=ucx:tcp` under Open MPI's pml ucx restricted to UCX's tcp: raw UCT tcp over
/// loopback, and MPI − ucx:tcp rows. MPI's o_s is not compared here: over loopback both
/// are the socket's ~8 µs, and the two sets, measured seconds apart, have put MPI's o_s
/// 0.24 µs above UCT's and 0.29 and 1.6 µs below it (the shared-memory check is in
/// `uct_beneath_mpi_over_ucx`).
#[test]
fn uct_tcp_when_named() {
    let mut env: Vec<(&str, &str)> = PML_UCX.to_vec();
    env.extend([
        ("UCX_TLS", "tcp,self"),
        ("LOGGP_RAW", "ucx:tcp"),
        ("LOGGP_CALIBRATE_BUDGET_MS", "10000"),
    ]);
    let r = job(Mpi::OpenMpi, &env, "raw_uct_tcp");
    let u = uct_set(&r, "ucx:tcp");
    assert_eq!(u.tl.as_deref(), Some("tcp"));
    let rows: Vec<_> = r
        .mpi_overhead
        .iter()
        .filter(|o| o.transport == "ucx:tcp")
        .collect();
    assert!(!rows.is_empty());
    eprintln!("MPI − ucx:tcp first row {:?}", rows[0]);
}

/// MPICH over UCX restricted to tcp (`UCX_TLS=tcp`), one host: `auto` measures UCT tcp —
/// the layer this MPI runs over — not the shared memory UCT would otherwise offer; and the
/// jobs end. Without the barrier at the end of the report merge, rank 0 entered
/// MPI_Finalize while rank 1 had already closed its UCX endpoints, and MPI_Finalize hung
/// in every such job (UCX 1.13's tcp transport stops progress too early: openucx/ucx#8738).
///
/// MPICH 4.0.2's own Finalize can still hang here, without loggp: its UCX netmod closes
/// every endpoint and waits for the closes before its PMI barrier, so a rank whose closes
/// end first stops progressing while a peer's close still waits for its answer. Measured
/// 2026-11-28 with no shim: 1 of 590 plain init/barrier/finalize jobs of 2 ranks hung;
/// 10 of 300 with a 50 ms pause before the last barrier; 28 of 300 where rank 1 entered
/// MPI_Finalize 2 ms after rank 0; 2 of 3 jobs of 3 ranks. With the shim (its Finalize
/// work is such a pause): 14 of 602. So four jobs run and one may hang, provided its
/// report was written (the hang is then in the MPI's Finalize, after ours); the old bug
/// hung all four.
#[test]
fn mpich_over_ucx_tcp_measures_uct_tcp_and_finalizes() {
    // A budget of 10 s, as `uct_tcp_when_named` has: UCT tcp over loopback is slow here,
    // and in one CI run (1-byte round trip 15.6 µs, one pass to 440 KiB 51 ms) the
    // default budget stopped the raw set after 1 of 6 passes, as designed ("stopped: the
    // calibration budget was reached"); this test is about which layer is measured and
    // the job's end, not the budget.
    let dir = scratch("raw_mpich_ucx_tcp");
    let prog = compile(Mpi::Mpich, "init_only.c", &[]);
    let mut hung = Vec::new();
    let mut reports = Vec::new();
    // The first job calibrates; the hang needed no calibration: three more without it.
    for k in 0..4 {
        let report = dir.join(format!("r{k}.json"));
        let mut run_ = Run::new(2, true)
            .env("UCX_TLS", "tcp")
            .env("LOGGP_REPORT", report.to_str().unwrap());
        if k == 0 {
            run_ = run_.env("LOGGP_CALIBRATE_BUDGET_MS", "10000");
        } else {
            run_ = run_.env("LOGGP_CALIBRATE", "off");
            run_.timeout_s = 30;
        }
        let o = run(Mpi::Mpich, &run_, &prog, &[], &dir);
        let r = read_report(&report);
        assert!(r.job.complete, "job {k}: {}", stderr(&o));
        if !o.status.success() {
            hung.push(k);
        }
        reports.push(r);
    }
    println!("MPICH UCX_TLS=tcp: jobs that did not end (in MPICH's Finalize): {hung:?} of 4");
    assert!(hung.len() <= 1, "jobs {hung:?} of 4 did not end");
    let r = &reports[0];
    let u = uct_set(r, "mpich UCX_TLS=tcp");
    assert_eq!(u.tl.as_deref(), Some("tcp"), "{u:?}");
    assert!(r.mpi_overhead.iter().any(|o| o.transport == "ucx:tcp"));
}

/// The shim where libuct cannot be loaded (hidden in a private mount namespace), Open
/// MPI over ob1: the job runs as without the shim, raw ucx says it is unavailable and
/// why, and the other raw transport is still measured.
#[test]
fn uct_hidden_is_unavailable_and_the_job_runs_unchanged() {
    // libuct made unloadable inside a private mount namespace: /dev/null over the file.
    let lib = std::fs::canonicalize("/usr/lib/x86_64-linux-gnu/libuct.so.0");
    let Ok(lib) = lib else {
        return cannot_run("libuct", "libuct.so.0 is not where Debian puts it");
    };
    let probe = Command::new("unshare")
        .args(["-m", "sh", "-c"])
        .arg(format!("mount --bind /dev/null {}", lib.display()))
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return cannot_run(
            "mount-namespace",
            "no private mount namespace here (needs root and unshare)",
        );
    }
    let dir = scratch("raw_uct_hidden");
    let prog = compile(Mpi::OpenMpi, "p2p_all.c", &[]);
    let report = dir.join("r.json");
    let go = |shim: bool| {
        let mut r = Run::new(2, shim)
            .env("OMPI_MCA_pml", "ob1")
            .env("LOGGP_RAW", "ucx,shm");
        if shim {
            r = r.env("LOGGP_REPORT", report.to_str().unwrap());
        }
        let mut c = command(Mpi::OpenMpi, &r, &prog, &[], &dir);
        let line = std::iter::once(c.get_program().to_string_lossy().into_owned())
            .chain(c.get_args().map(|a| format!("'{}'", a.to_string_lossy())))
            .collect::<Vec<_>>()
            .join(" ");
        let mut u = Command::new("unshare");
        u.args(["-m", "sh", "-c"])
            .arg(format!(
                "mount --bind /dev/null {} && exec {line}",
                lib.display()
            ))
            .current_dir(&dir)
            .envs(c.get_envs().filter_map(|(k, v)| Some((k, v?))));
        c = u;
        c.output().unwrap()
    };
    let (plain, shim) = (go(false), go(true));
    assert_eq!(plain.status.code(), shim.status.code(), "{}", stderr(&shim));
    assert_eq!(
        observations(&stdout(&plain)),
        observations(&stdout(&shim)),
        "output changed under the shim"
    );
    let r = read_report(&report);
    let u = r
        .calibration
        .raw
        .iter()
        .find(|x| x.transport == "ucx")
        .expect("ucx is never silently absent");
    assert!(
        u.status.starts_with("unavailable: ") && u.status.contains("libuct"),
        "{}",
        u.status
    );
    let shm = r.calibration.raw.iter().find(|x| x.transport == "shm");
    assert_eq!(shm.map(|s| s.status.as_str()), Some("done"));
}

/// Whether this machine has an RDMA device (the hardware the verbs tests need).
fn rdma_device() -> bool {
    std::fs::read_dir("/sys/class/infiniband").is_ok_and(|mut d| d.next().is_some())
}

/// Verbs through UCT's verbs transports: measured where an RDMA device exists (and then
/// it must be done); where none exists, the report says so and measures nothing. Either
/// way the test runs and can fail.
#[test]
fn verbs_through_uct_where_a_device_exists() {
    let r = job(Mpi::OpenMpi, &[("LOGGP_RAW", "verbs")], "raw_verbs_uct");
    let v = &r.calibration.raw[0];
    if !rdma_device() {
        assert!(
            v.status.starts_with("unavailable: ") && v.status.contains("no RDMA device"),
            "{v:?}"
        );
        assert!(v.ranges.is_empty() && v.points.is_empty());
        return;
    }
    assert_eq!(v.status, "done", "{v:?}");
    let tl = v.tl.clone().unwrap_or_default();
    assert!(
        ["rc_mlx5", "dc_mlx5", "rc_verbs", "ud_mlx5", "ud_verbs"].contains(&tl.as_str()),
        "{tl}"
    );
}
