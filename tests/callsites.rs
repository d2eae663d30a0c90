//! Issue 24 §2: call sites. A C program built with -g calls MPI_Send from two lines and
//! MPI_Allreduce from a third (tests/c/callsites.c); `loggp show --json` must name the
//! file and the three lines with the exact counts, on both MPIs. The same through
//! Fortran `use mpi` on one line (tests/f/callsites.f90) where the binding lets the shim
//! see the application's line: Open MPI, whose Fortran routines the shim wraps; under
//! MPICH, whose `use mpi` routines call the C symbols from inside libmpifort, the site is
//! the binding's and `show` must say so.
mod common;
use common::*;
use std::path::Path;
use std::process::Command;

/// The 1-based line of `marker` in `src`.
fn line_of(src: &Path, marker: &str) -> u32 {
    let text = std::fs::read_to_string(src).unwrap();
    1 + text
        .lines()
        .position(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("{marker} not in {}", src.display())) as u32
}

/// `loggp show --json`'s call sites: (function, file name, line, count, ranks, note).
fn sites(report: &Path) -> Vec<(String, String, Option<u64>, u64, u64, String)> {
    let o = Command::new(root().join("target/release/loggp"))
        .args(["show", "--json"])
        .arg(report)
        .output()
        .expect("target/release/loggp: build the workspace");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["callsites"]
        .as_array()
        .expect("show --json has callsites")
        .iter()
        .map(|s| {
            let file = s["file"].as_str().unwrap_or("");
            (
                s["function"].as_str().unwrap_or("").to_string(),
                Path::new(file)
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                s["line"].as_u64(),
                s["count"].as_u64().unwrap_or(0),
                s["ranks"].as_u64().unwrap_or(0),
                s["note"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn c_sites(mpi: Mpi) {
    let what = mpi.name();
    let dir = scratch(&format!("callsites_{what}"));
    let prog = compile(mpi, "callsites.c", &["-g"]);
    let report = dir.join("r.json");
    let r = Run::new(2, true)
        .env("LOGGP_REPORT", report.to_str().unwrap())
        .env("LOGGP_CALIBRATE", "off");
    let o = run(mpi, &r, &prog, &[], &dir);
    assert!(o.status.success(), "{what}: {}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "sum 2");
    let src = root().join("tests/c/callsites.c");
    let got = sites(&report);
    let find = |f: &str, line: u32| {
        got.iter()
            .filter(|s| s.0 == f && s.1 == "callsites.c" && s.2 == Some(line as u64))
            .map(|s| (s.3, s.4))
            .collect::<Vec<_>>()
    };
    let (a, b, c) = (
        line_of(&src, "SITE_A"),
        line_of(&src, "SITE_B"),
        line_of(&src, "SITE_C"),
    );
    assert_eq!(
        find("MPI_Send", a),
        vec![(3, 1)],
        "{what}: line {a}: {got:?}"
    );
    assert_eq!(
        find("MPI_Send", b),
        vec![(5, 1)],
        "{what}: line {b}: {got:?}"
    );
    assert_eq!(
        find("MPI_Allreduce", c),
        vec![(8, 2)],
        "{what}: line {c}: {got:?}"
    );
    // Every MPI_Send of the job is at one of the two lines.
    let sends: u64 = got.iter().filter(|s| s.0 == "MPI_Send").map(|s| s.3).sum();
    assert_eq!(sends, 8, "{what}: {got:?}");
    let rep = read_report(&report);
    assert_eq!(rep.call_sites.status, "done");
    assert_eq!(rep.call_sites.dropped, 0);
    assert!(rep.call_sites.objects.iter().any(|o| o.build_id.is_some()));
}

#[test]
fn c_call_sites_name_file_and_lines_openmpi() {
    c_sites(Mpi::OpenMpi);
}

#[test]
fn c_call_sites_name_file_and_lines_mpich() {
    c_sites(Mpi::Mpich);
}

fn fortran_sites(mpi: Mpi) -> Vec<(String, String, Option<u64>, u64, u64, String)> {
    let what = mpi.name();
    let dir = scratch(&format!("callsites_f_{what}"));
    let fc = match mpi {
        Mpi::OpenMpi => "mpifort.openmpi",
        Mpi::Mpich => "mpif90.mpich",
    };
    let prog = dir.join("callsites_f");
    let o = Command::new(fc)
        .args(["-g", "-O1", "-o"])
        .arg(&prog)
        .arg(root().join("tests/f/callsites.f90"))
        .output()
        .expect("Fortran compiler wrapper");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = dir.join("r.json");
    let r = Run::new(2, true)
        .env("LOGGP_REPORT", report.to_str().unwrap())
        .env("LOGGP_CALIBRATE", "off");
    let o = run(mpi, &r, &prog, &[], &dir);
    assert!(o.status.success(), "{what}: {}", stderr(&o));
    sites(&report)
}

#[test]
fn fortran_use_mpi_call_site_openmpi() {
    let got = fortran_sites(Mpi::OpenMpi);
    let line = line_of(&root().join("tests/f/callsites.f90"), "SITE_F") as u64;
    let send: Vec<_> = got.iter().filter(|s| s.0 == "MPI_Send").collect();
    assert_eq!(send.len(), 1, "{got:?}");
    assert_eq!(
        (send[0].1.as_str(), send[0].2, send[0].3),
        ("callsites.f90", Some(line), 6),
        "{got:?}"
    );
}

#[test]
fn fortran_use_mpi_call_site_mpich_is_named_as_the_binding() {
    let got = fortran_sites(Mpi::Mpich);
    let send: Vec<_> = got.iter().filter(|s| s.0 == "MPI_Send").collect();
    assert_eq!(send.iter().map(|s| s.3).sum::<u64>(), 6, "{got:?}");
    assert!(
        send.iter().all(|s| s.5.contains("Fortran binding")),
        "{got:?}"
    );
}
