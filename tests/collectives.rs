//! Issue 24 §1: every blocking and nonblocking collective of MPI 4.0 §6.3–6.12 is
//! intercepted, with this rank's send and receive data as the standard defines them
//! (v-variants summed, MPI_IN_PLACE's send part left out), on both MPIs. The program
//! (tests/c/collectives.c, 4 ranks) calls each function a known number of times with
//! counts that differ per rank; the report's per-rank counts and bytes must equal what it
//! called, its output must equal the run without the shim, and its nonblocking
//! collectives must be followed to the MPI_Wait that completes them. Persistent
//! collectives (MPI-4, MPICH here) count their bytes at each MPI_Start.
mod common;
use common::*;
use loggp_report::{Mode, Role};

const ITER: u64 = 3;

/// Bytes per call of each collective at rank r of 4 (MPI_INT, 4 B), from the program's
/// arguments: (name without the MPI_ / MPI_I prefix, bytes).
fn expected(r: u64) -> Vec<(&'static str, u64)> {
    let at = |root: u64, yes: u64, no: u64| if r == root { yes } else { no };
    vec![
        ("barrier", 0),
        ("bcast", 40),
        ("gather", at(1, 20 + 4 * 20, 20)),
        ("gatherv", at(0, 4 + 40, 4 * (r + 1))),
        ("scatter", at(2, 4 * 20 + 20, 20)),
        ("scatterv", at(3, 40 + 16, 4 * (r + 1))),
        ("allgather", 20 + 80),
        ("allgatherv", 4 * (r + 1) + 40),
        ("alltoall", 32 + 32),
        ("alltoallv", 16 + 16),
        ("alltoallw", 16 + 16),
        ("reduce", at(0, 48, 24)),
        ("allreduce", 48),
        ("reduce_scatter", 40 + 4 * (r + 1)),
        ("reduce_scatter_block", 32 + 8),
        ("scan", 24),
        ("exscan", 24),
    ]
}

fn name(short: &str, nonblocking: bool) -> String {
    let mut c = short.chars();
    let first = c.next().unwrap();
    if nonblocking {
        format!("MPI_I{first}{}", c.as_str())
    } else {
        format!("MPI_{}{}", first.to_ascii_uppercase(), c.as_str())
    }
}

fn check(mpi: Mpi) {
    check_program(mpi, None);
}

/// `fortran`: the binding of the Fortran program, or None for the C one.
fn check_program(mpi: Mpi, fortran: Option<&str>) {
    let what = format!(
        "{}{}",
        mpi.name(),
        fortran.map(|b| format!("_fortran_{b}")).unwrap_or_default()
    );
    let what = what.as_str();
    let dir = scratch(&format!("collectives_{what}"));
    let prog = match fortran {
        None => compile(mpi, "collectives.c", &[]),
        Some(b) => compile_fortran(mpi, "collectives.F90", b),
    };
    let (plain, o, rep) = plain_and_profiled(mpi, 4, &prog, &dir, what);
    assert_eq!(stdout(&o), stdout(&plain), "{what}: the program's output");
    assert_eq!(rep.ranks.len(), 4);
    let mut problems = vec![];
    for k in &rep.ranks {
        let r = k.rank as u64;
        let got = |f: &str| k.calls.get(f).map_or((0, 0), |c| (c.count, c.bytes));
        for (short, bytes) in expected(r) {
            for nb in [false, true] {
                let f = name(short, nb);
                // The checksum's MPI_Reduce (one MPI_LONG) and the in-place MPI_Allreduce
                // (6 MPI_INT received only) come once more, blocking.
                let (extra_n, extra_b) = match (short, nb) {
                    ("reduce", false) => (1, if r == 0 { 16 } else { 8 }),
                    ("allreduce", false) => (1, 24),
                    _ => (0, 0),
                };
                let want = (ITER + extra_n, ITER * bytes + extra_b);
                if got(&f) != want {
                    problems.push(format!(
                        "rank {r} {f}: (count, bytes) {:?}, called {want:?}",
                        got(&f)
                    ));
                }
            }
        }
        // One MPI_Wait per nonblocking collective, and per start of a persistent one
        // (MPI_Allreduce_init and MPI_Barrier_init, each started ITER times, where the
        // MPI has them: MPICH 4.0, not Open MPI 4.1).
        let persistent = stdout(&o).contains("persistent collectives: yes");
        assert_eq!(
            persistent,
            mpi == Mpi::Mpich && fortran.is_none(),
            "{what}: persistent collectives"
        );
        let waits = 17 * ITER + if persistent { 2 * ITER } else { 0 };
        if got("MPI_Wait").0 != waits {
            problems.push(format!(
                "rank {r} MPI_Wait: {:?}, {waits} called",
                got("MPI_Wait")
            ));
        }
        if persistent {
            // The inits move nothing; each MPI_Start counts its collective's bytes.
            for (f, want) in [
                ("MPI_Allreduce_init", (1, 0)),
                ("MPI_Barrier_init", (1, 0)),
                ("MPI_Start", (2 * ITER, ITER * 48)),
                ("MPI_Request_free", (2, 0)),
            ] {
                if got(f) != want {
                    problems.push(format!("rank {r} {f}: {:?}, called {want:?}", got(f)));
                }
            }
        }
        // Time in MPI is every intercepted call, collectives included.
        let sum: f64 = k.calls.values().map(|c| c.time_ns).sum();
        assert!(
            (sum - k.time_in_mpi_ns).abs() <= 1e-6 * sum,
            "{what}: rank {r}"
        );
        let coll: f64 = k
            .calls
            .iter()
            .filter(|(f, _)| {
                expected(0)
                    .iter()
                    .any(|(s, _)| **f == name(s, false) || **f == name(s, true))
            })
            .map(|(_, c)| c.time_ns)
            .sum();
        assert!(coll > 0.0, "{what}: rank {r}: no time in collectives");
    }
    assert!(problems.is_empty(), "{what}:\n{}", problems.join("\n"));
    // Every nonblocking collective completed, under mode `collective`; none of it in the
    // point-to-point model.
    let completed: u64 = rep
        .cells
        .iter()
        .filter(|c| c.function == "request_completed" && c.mode == Mode::Collective)
        .map(|c| c.count)
        .sum();
    let starts = if mpi == Mpi::Mpich && fortran.is_none() {
        2 * ITER
    } else {
        0
    };
    assert_eq!(
        completed,
        4 * (17 * ITER + starts),
        "{what}: completed nonblocking and persistent collectives"
    );
    assert!(rep
        .cells
        .iter()
        .filter(|c| c.function.starts_with("MPI_I") && c.mode == Mode::Collective)
        .all(|c| c.role == Role::Initiates));
    assert!(rep.passive.iter().all(|p| p.mode != Mode::Collective));
    // `show` splits each rank's time by family.
    let show = std::process::Command::new(root().join("target/release/loggp"))
        .arg("show")
        .arg(dir.join("r.json"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&show.stdout).to_string();
    assert!(
        text.contains("collectives") && text.contains("point-to-point"),
        "{text}"
    );
}

#[test]
fn openmpi_collectives_are_counted_with_their_bytes() {
    check(Mpi::OpenMpi);
}

#[test]
fn mpich_collectives_are_counted_with_their_bytes() {
    check(Mpi::Mpich);
}

/// Issue 24 §1: the same collectives through `use mpi_f08`, and `use mpi`: Open MPI's
/// Fortran routines call PMPI_ directly, MPICH's f08 routines call PMPI_ inside the
/// library, so the shim wraps them (the function table's Fortran column); MPICH's
/// `use mpi` reaches the C symbols.
#[test]
fn fortran_collectives_are_counted_with_their_bytes() {
    for mpi in BOTH {
        for binding in ["F08", "USEMPI"] {
            check_program(mpi, Some(binding));
        }
    }
}

/// Issue 24 §1: a collective's cell carries its communicator's size (tests/c/comm_sizes.c,
/// 4 ranks): MPI_Allreduce on the world and on halves of it, MPI_Barrier on
/// MPI_COMM_SELF, counted apart; a point-to-point cell carries none.
#[test]
fn collective_cells_carry_the_communicator_size() {
    for mpi in BOTH {
        let r = report_of(
            mpi,
            4,
            "comm_sizes.c",
            &[("LOGGP_CALIBRATE", "off")],
            &format!("comm_sizes_{}", mpi.name()),
        );
        let count = |f: &str, n: Option<u32>| -> u64 {
            r.cells
                .iter()
                .filter(|c| c.function == f && c.comm_size == n)
                .map(|c| c.count)
                .sum()
        };
        let what = mpi.name();
        assert_eq!(count("MPI_Allreduce", Some(4)), 12, "{what}");
        assert_eq!(count("MPI_Allreduce", Some(2)), 20, "{what}");
        assert_eq!(count("MPI_Barrier", Some(1)), 8, "{what}");
        assert!(r
            .cells
            .iter()
            .filter(|c| c.mode != Mode::Collective)
            .all(|c| c.comm_size.is_none()));
    }
}
