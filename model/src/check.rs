//! What every report must satisfy (ground truth §5, rule 4): no negative o_s, o_r, g, G or
//! L anywhere — calibration, raw, passive, MPI − raw — and every parameter that is not
//! null has a 95 % interval that contains it. The test suite scans every report it reads.
use loggp_report::Report;

/// Every negative parameter, or parameter without an interval containing it.
pub fn physically_invalid(r: &Report) -> Vec<String> {
    let mut bad = vec![];
    let mut check = |what: String, v: Option<f64>, ci: Option<[f64; 2]>| {
        if let Some(x) = v {
            if x < 0.0 || !x.is_finite() {
                bad.push(format!("{what} = {x}: negative"));
            }
            match ci {
                Some([lo, hi]) if lo <= x && x <= hi && lo >= 0.0 => {}
                other => bad.push(format!(
                    "{what} = {x}: interval {other:?} does not contain it"
                )),
            }
        }
    };
    let sets = r
        .calibration
        .mpi
        .iter()
        .map(|s| {
            (
                format!("calibration {} {}", s.peer_class, s.mode),
                &s.ranges,
            )
        })
        .chain(
            r.calibration
                .raw
                .iter()
                .map(|s| (format!("raw {} {}", s.transport, s.peer_class), &s.ranges)),
        )
        .chain(
            r.passive
                .iter()
                .map(|s| (format!("passive {} {}", s.peer_class, s.mode), &s.ranges)),
        );
    for (name, ranges) in sets {
        for x in ranges {
            let at = format!("{name} {}..{}", x.size_lo_bytes, x.size_hi_bytes);
            check(
                format!("{at} o_s"),
                x.send_overhead_ns,
                x.send_overhead_ns_ci,
            );
            check(
                format!("{at} o_r"),
                x.recv_overhead_ns,
                x.recv_overhead_ns_ci,
            );
            check(format!("{at} g"), x.gap_ns, x.gap_ns_ci);
            check(format!("{at} G"), x.gap_per_byte_ns, x.gap_per_byte_ns_ci);
            check(format!("{at} L"), x.latency_ns, x.latency_ns_ci);
        }
    }
    for o in &r.mpi_overhead {
        let at = format!(
            "MPI − {} {}..{}",
            o.transport, o.size_lo_bytes, o.size_hi_bytes
        );
        check(
            format!("{at} o_s"),
            o.send_overhead_ns,
            o.send_overhead_ns_ci,
        );
        check(
            format!("{at} o_r"),
            o.recv_overhead_ns,
            o.recv_overhead_ns_ci,
        );
        check(format!("{at} L"), o.latency_ns, o.latency_ns_ci);
        check(format!("{at} g"), o.gap_ns, o.gap_ns_ci);
        check(format!("{at} G"), o.gap_per_byte_ns, o.gap_per_byte_ns_ci);
    }
    bad
}
