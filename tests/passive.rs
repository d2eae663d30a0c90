//! Passive learning from the application's own traffic, against the active calibration of
//! the same run and the configured eager limit (shared/docs/ground-truth.md §1, §4).
mod common;
use common::*;
use loggp_report::Report;

fn job(mpi: Mpi, src: &str, env: &[(&str, &str)], name: &str) -> Report {
    let dir = scratch(name);
    let prog = compile(mpi, src, &[]);
    let report = dir.join("r.json");
    let mut r = Run::new(2, true).env("LOGGP_REPORT", report.to_str().unwrap());
    for (k, v) in env {
        r = r.env(k, v);
    }
    let o = run(mpi, &r, &prog, &[], &dir);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    read_report(&report)
}

/// A blocking exchange whose receiver computes before receiving (tests/c/exchange.c):
/// the passive bracket of the blocking send contains the eager limit the calibration
/// found, and moves with OMPI_MCA_btl_vader_eager_limit.
#[test]
fn blocking_exchange_brackets_the_eager_limit() {
    for limit in ["4096", "16384"] {
        let r = job(
            Mpi::OpenMpi,
            "exchange.c",
            &[("OMPI_MCA_btl_vader_eager_limit", limit)],
            &format!("passive_exchange_{limit}"),
        );
        let t = r
            .thresholds
            .iter()
            .find(|t| t.peer_class == "intra_node" && t.mode == "send")
            .unwrap();
        let active = t.active_bytes.expect("active limit");
        let (lo, hi) = (
            t.passive_lo_bytes.expect("bracket lo"),
            t.passive_hi_bytes.expect("bracket hi"),
        );
        assert!(
            lo <= active && active < hi,
            "limit {limit}: passive [{lo}, {hi}] vs active {active}"
        );
        assert!(
            hi - lo < active / 8,
            "limit {limit}: a bracket of 8 sizes per octave: [{lo}, {hi}]"
        );
    }
}

/// The halo-style exchange of examples/demo.c (Isend/Irecv/Waitall and Send/Recv, 8 B –
/// 256 KiB): ranges, o_s and the model check are reported; no g (no back-to-back sends to
/// one peer in one mode).
#[test]
fn halo_exchange_reports_ranges_and_model_check() {
    std::fs::copy(
        root().join("examples/demo.c"),
        root().join("tests/c/demo_copy.c"),
    )
    .unwrap();
    let r = job(Mpi::OpenMpi, "demo_copy.c", &[], "passive_halo");
    let send = r
        .passive
        .iter()
        .find(|p| p.peer_class == "intra_node" && p.mode == "send")
        .unwrap();
    assert!(send.ranges.len() >= 2);
    assert!(send
        .ranges
        .iter()
        .all(|x| x.gap_ns.is_none() && x.note.as_deref().unwrap().contains("g: not observed")));
    assert!(send.ranges[0].send_overhead_ns.unwrap() > 0.0);
    assert!(send.ranges.iter().all(|x| x.latency_ns.is_none()));
    let mc = r
        .model_check
        .iter()
        .find(|m| m.mode == "send")
        .expect("model check");
    assert_eq!(mc.calls, 1600);
    assert!(mc.median_relative_error.is_some());
    assert_eq!(r.sections["passive.ranges"], "done");
}

/// A flood of back-to-back Isends: g is reported for isend, from the start spacing.
#[test]
fn flood_reports_g() {
    let r = job(
        Mpi::OpenMpi,
        "flood.c",
        &[("LOGGP_CALIBRATE", "off")],
        "passive_flood",
    );
    let isend = r
        .passive
        .iter()
        .find(|p| p.peer_class == "intra_node" && p.mode == "isend")
        .unwrap();
    let g = isend.ranges[0].gap_ns.expect("g from the bursts");
    assert!(g > 0.0 && g < 100_000.0, "g {g}");
    // The receiver posts Irecvs back to back too, but receives have no g.
    let irecv = r.passive.iter().find(|p| p.mode == "irecv").unwrap();
    assert!(irecv.ranges.iter().all(|x| x.gap_ns.is_none()));
}
