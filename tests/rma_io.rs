//! Communicator constructors, one-sided communication and MPI-IO are counted and timed
//! (`src/table/rma.rs`, `io.rs`): the program (tests/c/rma_io.c, 2 ranks) calls each
//! function a known number of times with known data; each rank's counts and bytes in the
//! report must equal what it called, with nothing else counted (an MPI's own calls inside
//! MPI-IO, ROMIO's, would show here), the constructors must be recorded as collectives,
//! the waits' split must match every collective call it kept (constructors, fences and
//! collective I/O calls among them), with a row for each, the family table must show
//! one-sided and I/O time, and the output must equal the run without the shim. On Open MPI ob1, Open MPI pml ucx and MPICH; and the same
//! from Fortran (tests/f/rma_io.F90, a subset) through `use mpi_f08` and `use mpi` on both
//! MPIs, which checks the generated Fortran entry points of these rows.
//!
//! Open MPI runs with `osc = sm,pt2pt` (ob1) or `sm,ucx` (pml ucx): its default one-sided
//! component over vader, osc rdma, segfaulted in MPI_Compare_and_swap here without loggp
//! (Open MPI 4.1.4, `mca_btl_vader_poll_handle_frag` under
//! `ompi_osc_rdma_compare_and_swap`, 2026-11-30).
mod common;
use common::*;
use loggp_report::Mode;
use std::collections::BTreeMap;

/// (function, calls, bytes) at each rank, as the program makes them; MPI_Win_test's count
/// comes from its output.
const CALLS: &[(&str, u64, u64)] = &[
    // Communicator constructors.
    ("MPI_Comm_dup", 2, 0),
    ("MPI_Comm_dup_with_info", 1, 0),
    ("MPI_Comm_idup", 1, 0),
    ("MPI_Comm_split", 1, 0),
    ("MPI_Comm_split_type", 1, 0),
    ("MPI_Comm_create", 1, 0),
    ("MPI_Cart_create", 1, 0),
    ("MPI_Cart_sub", 1, 0),
    ("MPI_Graph_create", 1, 0),
    ("MPI_Dist_graph_create", 1, 0),
    ("MPI_Dist_graph_create_adjacent", 1, 0),
    ("MPI_Comm_create_group", 1, 0),
    ("MPI_Intercomm_create", 1, 0),
    ("MPI_Intercomm_merge", 1, 0),
    // Windows and their communication (doubles: 8 B; the CAS's long: 8 B).
    ("MPI_Win_allocate", 1, 0),
    ("MPI_Win_create", 1, 0),
    ("MPI_Win_create_dynamic", 1, 0),
    ("MPI_Win_allocate_shared", 1, 0),
    ("MPI_Win_free", 4, 0),
    ("MPI_Put", 7, 5 * 16 * 8 + 2 * 4 * 8),
    ("MPI_Get", 5, 5 * 8 * 8),
    ("MPI_Accumulate", 1, 4 * 8),
    ("MPI_Get_accumulate", 1, (2 + 2) * 8),
    ("MPI_Fetch_and_op", 1, 2 * 8),
    ("MPI_Compare_and_swap", 1, 3 * 8),
    ("MPI_Rput", 1, 8 * 8),
    ("MPI_Rget", 1, 4 * 8),
    ("MPI_Raccumulate", 1, 2 * 8),
    ("MPI_Rget_accumulate", 1, (1 + 1) * 8),
    // Synchronization.
    ("MPI_Win_fence", 5 * 3 + 2, 0),
    ("MPI_Win_lock", 1, 0),
    ("MPI_Win_unlock", 1, 0),
    ("MPI_Win_lock_all", 1, 0),
    ("MPI_Win_unlock_all", 1, 0),
    ("MPI_Win_flush", 1, 0),
    ("MPI_Win_flush_all", 1, 0),
    ("MPI_Win_flush_local", 1, 0),
    ("MPI_Win_flush_local_all", 1, 0),
    ("MPI_Win_sync", 1, 0),
    ("MPI_Win_post", 2, 0),
    ("MPI_Win_start", 2, 0),
    ("MPI_Win_complete", 2, 0),
    ("MPI_Win_wait", 1, 0),
    // Files (ints: 4 B).
    ("MPI_File_open", 2, 0),
    ("MPI_File_close", 2, 0),
    ("MPI_File_set_size", 1, 0),
    ("MPI_File_preallocate", 1, 0),
    ("MPI_File_sync", 2, 0),
    ("MPI_File_set_view", 1, 0),
    ("MPI_File_get_position", 1, 0),
    ("MPI_File_get_byte_offset", 1, 0),
    ("MPI_File_get_size", 1, 0),
    ("MPI_File_set_atomicity", 1, 0),
    ("MPI_File_set_info", 1, 0),
    ("MPI_File_seek", 1, 0),
    ("MPI_File_seek_shared", 1, 0),
    ("MPI_File_get_position_shared", 1, 0),
    ("MPI_File_delete", 1, 0),
    ("MPI_File_write_at", 1, 64),
    ("MPI_File_write_at_all", 1, 128),
    ("MPI_File_iwrite_at", 1, 32),
    ("MPI_File_iwrite_at_all", 1, 32),
    ("MPI_File_read_at", 1, 64),
    ("MPI_File_read_at_all", 1, 128),
    ("MPI_File_iread_at", 1, 32),
    ("MPI_File_iread_at_all", 1, 32),
    ("MPI_File_write_at_all_begin", 1, 16),
    ("MPI_File_write_at_all_end", 1, 0),
    ("MPI_File_read_at_all_begin", 1, 16),
    ("MPI_File_read_at_all_end", 1, 0),
    ("MPI_File_write", 1, 64),
    ("MPI_File_write_all", 1, 64),
    ("MPI_File_iwrite", 1, 32),
    ("MPI_File_iwrite_all", 1, 32),
    ("MPI_File_write_all_begin", 1, 16),
    ("MPI_File_write_all_end", 1, 0),
    ("MPI_File_read", 1, 64),
    ("MPI_File_read_all", 1, 64),
    ("MPI_File_iread", 1, 32),
    ("MPI_File_iread_all", 1, 32),
    ("MPI_File_read_all_begin", 1, 16),
    ("MPI_File_read_all_end", 1, 0),
    ("MPI_File_write_ordered", 1, 32),
    ("MPI_File_write_ordered_begin", 1, 16),
    ("MPI_File_write_ordered_end", 1, 0),
    ("MPI_File_write_shared", 1, 8),
    ("MPI_File_iwrite_shared", 1, 8),
    ("MPI_File_read_ordered", 1, 32),
    ("MPI_File_read_ordered_begin", 1, 16),
    ("MPI_File_read_ordered_end", 1, 0),
    ("MPI_File_read_shared", 1, 8),
    ("MPI_File_iread_shared", 1, 8),
    // The rest of the program: the waits of MPI_Comm_idup's, the R* and File_i* requests, its barriers,
    // its checksum (MPI_Reduce's, whose root receives too: below), MPI_Init.
    ("MPI_Wait", 12, 0),
    ("MPI_Waitall", 1, 0),
    ("MPI_Barrier", 3, 0),
    ("MPI_Init", 1, 0),
];

/// (function, calls, bytes) at each rank of the Fortran program (tests/f/rma_io.F90).
const FORTRAN_CALLS: &[(&str, u64, u64)] = &[
    ("MPI_Comm_split", 1, 0),
    ("MPI_Cart_create", 1, 0),
    ("MPI_Win_create", 1, 0),
    ("MPI_Win_fence", 3 * 2 + 1, 0),
    ("MPI_Put", 3, 3 * 16 * 8),
    ("MPI_Get", 3, 3 * 8 * 8),
    ("MPI_Win_lock", 1, 0),
    ("MPI_Accumulate", 1, 4 * 8),
    ("MPI_Win_unlock", 1, 0),
    ("MPI_Barrier", 1, 0),
    ("MPI_Win_post", 1, 0),
    ("MPI_Win_start", 1, 0),
    ("MPI_Win_complete", 1, 0),
    ("MPI_Win_wait", 1, 0),
    ("MPI_Win_free", 1, 0),
    ("MPI_File_open", 1, 0),
    ("MPI_File_set_view", 1, 0),
    ("MPI_File_write_at", 1, 64),
    ("MPI_File_write_at_all", 1, 128),
    ("MPI_File_iwrite_at", 1, 32),
    ("MPI_Wait", 1, 0),
    ("MPI_File_get_size", 1, 0),
    ("MPI_File_set_atomicity", 1, 0),
    ("MPI_File_seek", 1, 0),
    ("MPI_File_get_position", 1, 0),
    ("MPI_File_delete", 1, 0),
    ("MPI_File_sync", 1, 0),
    ("MPI_File_read_at_all", 1, 64),
    ("MPI_File_close", 1, 0),
    ("MPI_Init", 1, 0),
];

/// The communicator constructors: recorded as collectives over the communicator they
/// start from.
fn constructor(f: &str) -> bool {
    ["Comm_", "Cart_", "Graph_", "Dist_graph_", "Intercomm_"]
        .iter()
        .any(|p| f.strip_prefix("MPI_").is_some_and(|g| g.starts_with(p)))
}

/// The C program, or the Fortran one through a binding.
enum Program {
    C,
    Fortran(&'static str),
}

fn check(mpi: Mpi, mca: &[(&str, &str)], what: &str) {
    check_program(mpi, mca, what, Program::C)
}

fn check_program(mpi: Mpi, mca: &[(&str, &str)], what: &str, program: Program) {
    let dir = scratch(&format!("rma_io_{what}"));
    let (prog, calls, c_program) = match program {
        Program::C => (compile(mpi, "rma_io.c", &[]), CALLS, true),
        Program::Fortran(binding) => (
            compile_fortran(mpi, "rma_io.F90", binding),
            FORTRAN_CALLS,
            false,
        ),
    };
    let file = |name: &str| {
        let p = dir.join(name);
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_file(dir.join(format!("{name}.shared")));
        p.display().to_string()
    };
    let with = |r: Run| mca.iter().fold(r, |r, (k, v)| r.env(k, v));
    let plain_file = file("plain.dat");
    let plain = run(mpi, &with(Run::new(2, false)), &prog, &[&plain_file], &dir);
    assert!(plain.status.success(), "{what}: {}", stderr(&plain));
    let report = dir.join("r.json");
    let profiled_file = file("profiled.dat");
    let o = run(
        mpi,
        &with(
            Run::new(2, true)
                .env("LOGGP_REPORT", report.to_str().unwrap())
                .env("LOGGP_CALIBRATE", "off"),
        ),
        &prog,
        &[&profiled_file],
        &dir,
    );
    assert!(o.status.success(), "{what}: {}", stderr(&o));
    // What it fetched and read back; MPI_Win_test's count may differ run to run.
    let results = |o: &std::process::Output| -> Vec<String> {
        stdout(o)
            .lines()
            .filter(|l| !l.contains("win_test"))
            .map(String::from)
            .collect()
    };
    assert_eq!(results(&o), results(&plain), "{what}: the program's output");
    assert_eq!(
        std::fs::read(&profiled_file).unwrap(),
        std::fs::read(&plain_file).unwrap(),
        "{what}: the file written"
    );
    let r = read_report(&report);
    assert_eq!(r.ranks.len(), 2, "{what}");
    let mut problems = vec![];
    for k in &r.ranks {
        let mut want: BTreeMap<&str, (u64, u64)> =
            calls.iter().map(|(f, n, b)| (*f, (*n, *b))).collect();
        // The checksum: two doubles reduced to rank 0, in one call (C) or two (Fortran);
        // the root receives them too.
        let reduces = if c_program { 1 } else { 2 };
        want.insert("MPI_Reduce", (reduces, if k.rank == 0 { 32 } else { 16 }));
        if c_program {
            let tests: u64 = stdout(&o)
                .lines()
                .find_map(|l| l.strip_prefix(&format!("rank {} win_test ", k.rank)))
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or_else(|| panic!("{what}: no win_test line of rank {}", k.rank));
            want.insert("MPI_Win_test", (tests, 0));
        }
        let got: BTreeMap<&str, (u64, u64)> = k
            .calls
            .iter()
            .map(|(f, c)| (f.as_str(), (c.count, c.bytes)))
            .collect();
        for f in want.keys().chain(got.keys()) {
            if want.get(f) != got.get(f) {
                problems.push(format!(
                    "rank {} {f}: (calls, bytes) {:?} in the report, {:?} called",
                    k.rank,
                    got.get(f),
                    want.get(f)
                ));
            }
        }
        for f in want.keys() {
            let time = k.calls.get(*f).map_or(0.0, |c| c.time_ns);
            if *f != "MPI_Init" && time <= 0.0 {
                problems.push(format!("rank {} {f}: no time", k.rank));
            }
        }
    }
    problems.dedup();
    assert!(problems.is_empty(), "{what}:\n{}", problems.join("\n"));
    for c in r.cells.iter().filter(|c| constructor(&c.function)) {
        assert_eq!(c.mode, Mode::Collective, "{what}: {}", c.function);
        // An intercommunicator's are kept on the local group, one of the two halves.
        let n = if c.function.starts_with("MPI_Intercomm_") {
            1
        } else {
            2
        };
        assert_eq!(c.comm_size, Some(n), "{what}: {}", c.function);
    }
    // The waits' split matched every collective call it kept (the constructors, the
    // fences and the collective I/O calls among them: before they were in its lists, it
    // kept them and matched none), and each rank has an arrival-wait row for every
    // constructor and every call `loggp_report::SPLIT_AS_COLLECTIVES` and
    // `SPLIT_AS_NONBLOCKING_COLLECTIVES` name (the nonblocking collective I/O calls, kept
    // at the Wait that completes them).
    for t in &r.time_split {
        assert_eq!(
            t.sampled_collectives, t.matched_collectives,
            "{what}: rank {} collectives matched",
            t.rank
        );
        // The program sends no point-to-point message: its MPI_Wait calls complete
        // MPI_Comm_idup's, one-sided (MPI_Rput, …) and I/O (MPI_File_iwrite_at, …)
        // requests, none of them message time (before: 3.74 ms of "transfer cost of
        // messages" a rank under MPICH).
        assert!(
            t.message_calls_ns < 1e3 && t.cost_ns < 1e3,
            "{what}: rank {}: message calls {} ns, their cost {} ns",
            t.rank,
            t.message_calls_ns,
            t.cost_ns
        );
        for (f, _, _) in calls.iter().filter(|(f, _, _)| {
            constructor(f)
                || loggp_report::SPLIT_AS_COLLECTIVES.contains(f)
                || loggp_report::SPLIT_AS_NONBLOCKING_COLLECTIVES.contains(f)
        }) {
            assert!(
                r.waits
                    .collectives
                    .iter()
                    .any(|c| c.rank == t.rank && c.function == *f),
                "{what}: rank {}: no split row of {f}",
                t.rank
            );
        }
    }
    // The family table: one-sided and I/O columns with time in them on every rank.
    let shown = tool_show(&report);
    let header = shown
        .lines()
        .find(|l| l.contains("point-to-point") && l.contains("collectives"))
        .unwrap_or_else(|| panic!("{what}: no family table in:\n{shown}"));
    for col in ["one-sided", "I/O"] {
        assert!(header.contains(col), "{what}: no {col} column: {header}");
    }
    // And the overview's parts (taken out of the other calls).
    for part in ["in one-sided calls", "in MPI-IO calls"] {
        assert!(
            shown.contains(part),
            "{what}: no part {part:?} in:\n{shown}"
        );
    }
}

#[test]
fn openmpi_ob1_counts_constructors_one_sided_and_io() {
    check(
        Mpi::OpenMpi,
        &[("OMPI_MCA_pml", "ob1"), ("OMPI_MCA_osc", "sm,pt2pt")],
        "openmpi_ob1",
    );
}

#[test]
fn openmpi_ucx_counts_constructors_one_sided_and_io() {
    check(
        Mpi::OpenMpi,
        &[
            ("OMPI_MCA_pml", "ucx"),
            ("OMPI_MCA_pml_ucx_tls", "any"),
            ("OMPI_MCA_pml_ucx_devices", "any"),
            ("OMPI_MCA_osc", "sm,ucx"),
        ],
        "openmpi_ucx",
    );
}

#[test]
fn mpich_counts_constructors_one_sided_and_io() {
    check(Mpi::Mpich, &[], "mpich");
}

#[test]
fn fortran_bindings_count_constructors_one_sided_and_io() {
    for (mpi, mca) in [
        (
            Mpi::OpenMpi,
            &[("OMPI_MCA_pml", "ob1"), ("OMPI_MCA_osc", "sm,pt2pt")][..],
        ),
        (Mpi::Mpich, &[][..]),
    ] {
        for binding in ["F08", "USEMPI"] {
            let what = format!("{}_fortran_{binding}", mpi.name());
            check_program(mpi, mca, &what, Program::Fortran(binding));
        }
    }
}
