//! Issue 24 §3–4: the communication matrix, exact on a program whose messages are known
//! (tests/c/matrix.c: a ring through every way of sending, and 7 extra messages from
//! rank 0 to rank 2), on both MPIs and Open MPI's pml ucx; and its cross-check against
//! Open MPI's monitoring PML, which must report equality on that program and on
//! examples/demo.c, and name the pairs that differ when the shim is made to miss a send
//! (LOGGP_INJECT_FAULT=hide_send).
mod common;
use common::*;
use loggp_report::Report;
use std::collections::BTreeMap;

/// Per ring pair i → i+1: 5 blocking (1000 B), 3 nonblocking (300 B), 2 send-receive
/// (64 B) and 4 persistent (128 B) messages; 0 → 2: 100 B × (1 + … + 7).
fn expected() -> BTreeMap<(u32, u32), (u64, u64, u64)> {
    let mut m = BTreeMap::new();
    for i in 0..4 {
        m.insert((i, (i + 1) % 4), (14, 5000 + 900 + 128 + 512, 4));
    }
    m.insert((0, 2), (7, 2800, 0));
    m
}

fn matrix_of(r: &Report) -> BTreeMap<(u32, u32), (u64, u64, u64)> {
    r.matrix
        .iter()
        .filter(|e| e.messages > 0)
        .map(|e| ((e.from, e.to), (e.messages, e.bytes, e.persistent_messages)))
        .collect()
}

fn ring(mpi: Mpi, env: &[(&str, &str)], name: &str) -> (Report, std::process::Output) {
    let dir = scratch(name);
    let prog = compile(mpi, "matrix.c", &[]);
    let mut plain = Run::new(4, false);
    let report = dir.join("r.json");
    let mut r = Run::new(4, true)
        .env("LOGGP_REPORT", report.to_str().unwrap())
        .env("LOGGP_CALIBRATE", "off");
    for (k, v) in env {
        r = r.env(k, v);
        plain = plain.env(k, v);
    }
    let p = run(mpi, &plain, &prog, &[], &dir);
    assert!(p.status.success(), "{name}: {}", stderr(&p));
    let o = run(mpi, &r, &prog, &[], &dir);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    assert_eq!(stdout(&o), stdout(&p), "{name}: the program's output");
    (read_report(&report), o)
}

fn exact(mpi: Mpi, env: &[(&str, &str)], name: &str) {
    let (r, _) = ring(mpi, env, name);
    assert_eq!(matrix_of(&r), expected(), "{name}: the matrix");
    for e in &r.matrix {
        if e.messages > 0 {
            assert!(
                e.send_time_ns > 0.0,
                "{name}: {}→{} send time",
                e.from,
                e.to
            );
        }
        // Every pair that sent something was received from, and only those.
        assert!(
            e.recv_time_ns > 0.0 && e.messages > 0,
            "{name}: {}→{}: {e:?}",
            e.from,
            e.to
        );
    }
    assert_eq!(r.sections["matrix"], "done");
    let s = &r.sections["matrix.collectives"];
    assert!(s.contains("beneath PMPI"), "{s}");
}

#[test]
fn ring_matrix_is_exact_openmpi() {
    exact(Mpi::OpenMpi, &[], "matrix_openmpi");
}

#[test]
fn ring_matrix_is_exact_openmpi_pml_ucx() {
    exact(Mpi::OpenMpi, &PML_UCX, "matrix_openmpi_pml_ucx");
}

#[test]
fn ring_matrix_is_exact_mpich() {
    exact(Mpi::Mpich, &[], "matrix_mpich");
    let (r, _) = ring(Mpi::Mpich, &[], "matrix_mpich_coverage");
    assert_eq!(r.coverage.equal, None);
    assert!(r.coverage.status.contains("MPICH"), "{}", r.coverage.status);
}

/// Open MPI's monitoring PML with its files, for the cross-check.
fn monitoring(dir: &std::path::Path) -> Vec<(String, String)> {
    vec![
        ("OMPI_MCA_pml_monitoring_enable".into(), "2".into()),
        ("OMPI_MCA_pml_monitoring_enable_output".into(), "3".into()),
        (
            "OMPI_MCA_pml_monitoring_filename".into(),
            dir.join("mon").display().to_string(),
        ),
    ]
}

fn with_monitoring(src: &str, np: usize, extra: &[(&str, &str)], name: &str) -> Report {
    let dir = scratch(name);
    let prog = compile(Mpi::OpenMpi, src, &[]);
    let report = dir.join("r.json");
    let mut r = Run::new(np, true).env("LOGGP_REPORT", report.to_str().unwrap());
    for (k, v) in monitoring(&dir)
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
    {
        r = r.env(k, v);
    }
    for (k, v) in extra {
        r = r.env(k, v);
    }
    let o = run(Mpi::OpenMpi, &r, &prog, &[], &dir);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    read_report(&report)
}

/// The calibration runs (its own messages are beneath PMPI too and must be taken away).
#[test]
fn coverage_equals_open_mpi_monitoring() {
    for (src, np, name) in [
        ("matrix.c", 4, "coverage_ring"),
        ("../../examples/demo.c", 2, "coverage_demo"),
    ] {
        let r = with_monitoring(src, np, &[], name);
        let c = &r.coverage;
        assert_eq!(
            c.equal,
            Some(true),
            "{name}: {} {:?}",
            c.status,
            c.differences
        );
        assert!(!r.matrix.is_empty(), "{name}");
        assert!(
            !c.own_traffic.is_empty(),
            "{name}: the calibration's and the merge's own messages are counted"
        );
    }
}

#[test]
fn coverage_names_a_send_the_shim_missed() {
    let r = with_monitoring(
        "matrix.c",
        4,
        &[
            ("LOGGP_INJECT_FAULT", "hide_send"),
            ("LOGGP_CALIBRATE", "off"),
        ],
        "coverage_hidden",
    );
    let c = &r.coverage;
    assert_eq!(c.equal, Some(false), "{}", c.status);
    // Each rank's first send (1000 B to the next rank) is hidden from the matrix.
    let d: Vec<_> = c
        .differences
        .iter()
        .map(|d| {
            (
                d.from,
                d.to,
                d.counter_messages - d.matrix_messages,
                d.counter_bytes - d.matrix_bytes,
            )
        })
        .collect();
    assert_eq!(
        d,
        (0..4)
            .map(|i| (i, (i + 1) % 4, 1, 1000))
            .collect::<Vec<_>>()
    );
    let named = r
        .warnings
        .iter()
        .filter(|w| w.starts_with("coverage:"))
        .count();
    assert_eq!(named, 4, "{:?}", r.warnings);
}
