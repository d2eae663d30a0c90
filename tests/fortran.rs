//! Fortran applications through each binding (mpif.h, `use mpi`, `use mpi_f08`) under each
//! MPI reach loggp exactly once: counts and bytes exact, requests followed, output
//! (MPI_STATUS_IGNORE receives, an MPI_IN_PLACE reduction) identical with and without it.
mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn compile_p2p(mpi: Mpi, binding: &str) -> PathBuf {
    compile_fortran(mpi, "p2p.F90", binding)
}

/// Runs `prog` on 2 ranks without the shim and with it (uncalibrated, its report in
/// `dir`): both succeed and print the same. The run with the shim, and its report's path.
fn without_and_with(mpi: Mpi, prog: &Path, dir: &Path, what: &str) -> (Output, PathBuf) {
    let plain = run(mpi, &Run::new(2, false), prog, &[], dir);
    assert!(plain.status.success(), "{what}: {}", stderr(&plain));
    let report = dir.join("r.json");
    let shim = run(
        mpi,
        &Run::new(2, true)
            .env("LOGGP_REPORT", report.to_str().unwrap())
            .env("LOGGP_CALIBRATE", "off"),
        prog,
        &[],
        dir,
    );
    assert!(shim.status.success(), "{what}: {}", stderr(&shim));
    assert_eq!(
        observations(&stdout(&plain)),
        observations(&stdout(&shim)),
        "{what}: output changed"
    );
    (shim, report)
}

#[test]
fn every_binding_reaches_loggp_exactly_once() {
    for mpi in BOTH {
        for binding in ["MPIFH", "USEMPI", "F08"] {
            let what = format!("{} {binding}", mpi.name());
            let dir = scratch(&format!("fortran_{}_{binding}", mpi.name()));
            let prog = compile_p2p(mpi, binding);
            let (shim, report) = without_and_with(mpi, &prog, &dir, &what);
            assert!(
                stdout(&shim).contains("allreduce in_place=3"),
                "{what}: MPI_IN_PLACE result"
            );
            let r = read_report(&report);
            // The program's in-place MPI_Allreduce: the collectives have no Fortran entry
            // points yet (issue 24), so it is seen only where the binding calls the C
            // symbol (MPICH's mpif.h and use mpi), and there with its bytes: 2 ranks × one
            // call × 4 integers received (the send part is in place).
            assert_counts(
                &r,
                &expected(&stdout(&shim)),
                &["MPI_Init", "MPI_Allreduce"],
            );
            let allreduce = call_totals(&r).get("MPI_Allreduce").copied();
            assert!(
                allreduce.is_none() || allreduce == Some((2, 32)),
                "{what}: MPI_Allreduce {allreduce:?}"
            );
            assert_eq!(
                call_totals(&r)["MPI_Init"].0,
                2,
                "{what}: MPI_Init seen once per rank"
            );
            assert_eq!(
                request_totals(&r),
                expected_requests(&stdout(&shim)),
                "{what}: requests"
            );
            assert!(
                r.job.complete,
                "{what}: the Fortran MPI_Finalize produced the report"
            );
        }
    }
}

/// Issue 26: a user-defined operation created through any Fortran binding is timed. Open
/// MPI's mpif.h and `use mpi` routine calls PMPI_Op_create itself, its `use mpi_f08` one
/// the mpif.h one's `pmpi_op_create_`, and MPICH's `use mpi_f08` calls PMPI_Op_create
/// too: each gets the trampoline in FUNCTION's place (`procarg` in the table). Each rank's
/// calls and elements equal the program's own count of its sum's calls, exactly, and the
/// results are the same with and without the shim. Before, the three Open MPI bindings
/// and MPICH's `use mpi_f08` left `user_op_calls` empty.
#[test]
fn a_fortran_user_operation_is_timed_through_every_binding() {
    for mpi in BOTH {
        for binding in ["MPIFH", "USEMPI", "F08"] {
            let what = format!("{} {binding}", mpi.name());
            let dir = scratch(&format!("fortran_userop_{}_{binding}", mpi.name()));
            let prog = compile_fortran(mpi, "userop.F90", binding);
            let (shim, report) = without_and_with(mpi, &prog, &dir, &what);
            let r = read_report(&report);
            user_op_calls_are_the_programs(&what, &r, &shim);
            assert!(
                !r.collective_config.user_op_ns.is_empty(),
                "{what}: the operation is not priced"
            );
        }
    }
}

/// Issue 13 §3: MPICH's `use mpi_f08` with an MPI_COUNT_KIND count calls the C large-count
/// forms, and MPI_Isendrecv exists: both reach loggp under their own names.
#[test]
fn mpich_f08_large_counts_and_isendrecv() {
    let mpi = Mpi::Mpich;
    let dir = scratch("fortran_mpich_mpi4");
    let prog = root().join("target/it-bin/mpich/mpi4_f08");
    let o = Command::new("mpif90.mpich")
        .args(["-O1", "-o"])
        .arg(&prog)
        .arg(root().join("tests/f/mpi4.f90"))
        .output()
        .expect("mpif90.mpich");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (shim, report) = without_and_with(mpi, &prog, &dir, "mpich mpi4");
    let r = read_report(&report);
    assert_counts(&r, &expected(&stdout(&shim)), &["MPI_Init"]);
}

/// Issue 22 (f): where loggp cannot find the MPI's own Fortran routine, the call fails
/// (MPI_ERR_OTHER, through the error handler) and loggp says so once per process — never
/// a silent success. Open MPI's `use mpi` reaches loggp's Fortran entry points.
#[test]
fn a_missing_fortran_routine_is_an_error_said_once() {
    let mpi = Mpi::OpenMpi;
    let dir = scratch("fortran_missing");
    let prog = compile_fortran(mpi, "missing.F90", "USEMPI");
    let go = |fault: bool| {
        let mut r = Run::new(2, true)
            .env("LOGGP_CALIBRATE", "off")
            .env("LOGGP_REPORT", dir.join("r.json").to_str().unwrap());
        if fault {
            r = r.env("LOGGP_INJECT_FAULT", "fortran_missing");
        }
        run(mpi, &r, &prog, &[], &dir)
    };
    let fine = go(false);
    assert!(fine.status.success(), "{}", stderr(&fine));
    assert_eq!(
        stdout(&fine).matches("send ierror 0").count(),
        2,
        "{}",
        stdout(&fine)
    );
    let broken = go(true);
    assert!(broken.status.success(), "{}", stderr(&broken));
    let out = stdout(&broken);
    let codes: Vec<i64> = out
        .lines()
        .filter_map(|l| l.strip_prefix("send ierror ")?.trim().parse().ok())
        .collect();
    assert_eq!(codes.len(), 2, "{out}");
    assert!(
        codes.iter().all(|&c| c != 0),
        "the call reported success: {out}"
    );
    let said = stderr(&broken).matches("was not found").count();
    assert_eq!(said, 2, "once per process: {}", stderr(&broken));
}

/// MPI_PCONTROL (no IERROR in mpif.h and `use mpi`) through every binding pauses the
/// profile as the C call does: of 40 MPI_Send a rank, the 20 inside MPI_PCONTROL(0) …
/// MPI_PCONTROL(1) are not counted, and each rank says it paused once. Open MPI's
/// bindings reach PMPI_Pcontrol directly, so this needs the shim's Fortran symbols;
/// MPICH's mpif.h and `use mpi` reach the C MPI_Pcontrol, its `use mpi_f08` does not.
#[test]
fn pcontrol_pauses_the_profile_through_every_binding() {
    for mpi in BOTH {
        for binding in ["MPIFH", "USEMPI", "F08"] {
            let what = format!("{} {binding}", mpi.name());
            let dir = scratch(&format!("fortran_pcontrol_{}_{binding}", mpi.name()));
            let prog = compile_fortran(mpi, "pcontrol.F90", binding);
            let (plain, shim, r) = plain_and_profiled(mpi, 2, &prog, &dir, &what);
            assert_eq!(
                sorted_lines(&plain),
                sorted_lines(&shim),
                "{what}: output changed"
            );
            for k in &r.ranks {
                let sends = k.calls.get("MPI_Send").map_or(0, |c| c.count);
                assert_eq!(sends, 20, "{what}: rank {} MPI_Send counted", k.rank);
                let times = k.paused.as_ref().map_or(0, |p| p.times);
                assert_eq!(times, 1, "{what}: rank {} pauses", k.rank);
            }
        }
    }
}
