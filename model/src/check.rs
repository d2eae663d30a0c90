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

/// A raw transport's round trip above this multiple of MPI's, plus `FLOOR_SLACK_NS`, at
/// the same size is no floor there (issue 22: the timer's step and a few percent of
/// noise between two probes a moment apart).
pub const FLOOR_FACTOR: f64 = 1.10;
pub const FLOOR_SLACK_NS: f64 = 50.0;
/// A raw round trip this many times MPI's at one size is no floor there whatever its
/// neighbours say: no noise of a median over passes reaches it (see `floor_violations`).
pub const FLOOR_GROSS_FACTOR: f64 = 1.5;
/// A size is above the floor only where raw was above (`FLOOR_FACTOR` × MPI's +
/// `FLOOR_SLACK_NS`) in at least this share of the passes that measured both: where some
/// passes find raw below MPI, the data do not establish that it is not a floor. Quick
/// calibrations measure the largest sizes in 3–5 passes, and one slow pass of either moves
/// their median: in a full run at ad972df (Open MPI vader) raw shm at 128 KiB read
/// 3.66, 0.88 and 1.70 × MPI pass by pass (19.4 µs against 22.0 in the middle pass), and
/// at 431–512 KiB 0.43–2.63 × over five passes, in two of ten runs. A transport that is
/// no floor is so in nearly every pass (issue 22's 2–8 KB region: 3.9–8.1 × in every run).
pub const FLOOR_PASS_SHARE: f64 = 0.75;

/// Sizes where a raw set's PRTT(1,0,s) exceeds `FLOOR_FACTOR` × that of MPI's blocking
/// send of the same peer class + `FLOOR_SLACK_NS`, there and in the median over the size
/// and its neighbours on either side (the sizes both measured), or by more than
/// `FLOOR_GROSS_FACTOR` at that size alone, and above in at least `FLOOR_PASS_SHARE` of
/// the size's passes: (raw set's name, size, raw / MPI there). Each size compares the two
/// pass by pass (`paired_round_trips`).
///
/// Why the neighbours: each size's PRTT is a median over a few passes, and where the
/// machine runs slow it moves by ±10 % from one size to the next (ten quick calibrations
/// of Open MPI vader, 64–512 KiB: raw / MPI 0.71–1.12 in the slow runs, one size at a time
/// above 1.10 between neighbours at 0.93). A transport that is no floor is so over a
/// regime, many sizes wide (issue 22: 3.9–8.1 × MPI's from 2 to 3.5 KB, seven sizes), and
/// stays caught.
pub fn floor_violations(r: &Report) -> Vec<(String, u64, f64)> {
    let mut out = vec![];
    for raw in &r.calibration.raw {
        let Some(m) = crate::mpi_send_set_of(r, raw) else {
            continue;
        };
        let name = match &raw.tl {
            Some(tl) => format!("{}:{tl}", raw.transport),
            None => raw.transport.clone(),
        };
        // (size, raw, MPI, share of passes above) at every size both measured, by size.
        let mut both: Vec<(u64, f64, f64, f64)> = raw
            .points
            .iter()
            .filter_map(|p| {
                let q = m.points.iter().find(|q| q.size_bytes == p.size_bytes)?;
                let (x, y, share) = paired_round_trips(p, q)?;
                Some((p.size_bytes, x, y, share))
            })
            .collect();
        both.sort_by_key(|x| x.0);
        let excess = |&(_, x, y, _): &(u64, f64, f64, f64)| x - (FLOOR_FACTOR * y + FLOOR_SLACK_NS);
        for i in 0..both.len() {
            let lo = i.saturating_sub(1);
            let hi = (i + 2).min(both.len());
            let around: Vec<f64> = both[lo..hi].iter().map(excess).collect();
            let (size, x, y, share) = both[i];
            let regime = crate::stats::median(&around).is_some_and(|e| e > 0.0);
            if excess(&both[i]) > 0.0
                && (regime || x > FLOOR_GROSS_FACTOR * y + FLOOR_SLACK_NS)
                && share >= FLOOR_PASS_SHARE
            {
                out.push((name.clone(), size, x / y));
            }
        }
    }
    out
}

/// A raw point's PRTT(1,0,s) and MPI's at the same size, as compared for a floor.
///
/// Where both sets kept one repetition per pass (the same number, in pass order), the
/// pair is the median over passes of MPI's round trip and the raw one scaled by their
/// ratio in that pass: each pass measures the two moments apart, so a change of the
/// machine's level between passes (this VM's cost of one call moves by up to 3 × within
/// seconds) cancels in the ratio, where the two medians taken apart could each come from
/// another phase (CI at 8a3a6c5: raw shm 1.6 × MPI at one size in the run where the
/// level went from 143 to 352 ns). Otherwise the two medians. Third: the share of the
/// passes in which raw was above the floor's bound (`FLOOR_FACTOR` × MPI's +
/// `FLOOR_SLACK_NS`); unpaired, 1 or 0 by the medians.
fn paired_round_trips(
    raw: &loggp_report::Point,
    mpi: &loggp_report::Point,
) -> Option<(f64, f64, f64)> {
    let (x, y) = (raw.prtt_1_0_ns?, mpi.prtt_1_0_ns?);
    let above = |r: f64, m: f64| r > FLOOR_FACTOR * m + FLOOR_SLACK_NS;
    let unpaired = Some((x, y, f64::from(u8::from(above(x, y)))));
    let (a, b) = (&raw.prtt_1_0_reps_ns, &mpi.prtt_1_0_reps_ns);
    if a.len() < 2 || a.len() != b.len() {
        return unpaired;
    }
    let pairs: Vec<(f64, f64)> = a
        .iter()
        .zip(b)
        .filter(|(_, &m)| m > 0.0)
        .map(|(&r, &m)| (r, m))
        .collect();
    let ratios: Vec<f64> = pairs.iter().map(|(r, m)| r / m).collect();
    let share =
        pairs.iter().filter(|(r, m)| above(*r, *m)).count() as f64 / pairs.len().max(1) as f64;
    match crate::stats::median(&ratios) {
        Some(k) => Some((k * y, y, share)),
        None => unpaired,
    }
}

/// The machine's level in a report: half the raw transport's round trip for the smallest
/// messages (the median over sizes up to 64 B of PRTT(1,0,s)/2 of the first raw set
/// measured), ns. The raw layer has no protocol of MPI's to change, so where two reports
/// of the same job differ in it, the machine itself moved (on this VM every cost of a run
/// moves together, by up to 2.3 × between runs seconds apart); `diff` and `repeat` use it
/// to tell that from a change of the MPI.
pub fn machine_level_ns(r: &Report) -> Option<f64> {
    let set = r
        .calibration
        .raw
        .iter()
        .find(|s| s.points.iter().any(|p| p.prtt_1_0_ns.is_some()))?;
    let v: Vec<f64> = set
        .points
        .iter()
        .filter(|p| p.size_bytes <= 64)
        .filter_map(|p| p.prtt_1_0_ns.map(|x| x / 2.0))
        .collect();
    crate::stats::median(&v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::active::repeat_interval;
    use crate::stats::Rng;
    use loggp_report::{CalibrationSet, Range};

    fn report_with(est: f64, ci: Option<[f64; 2]>) -> Report {
        let mut r = Report::default();
        r.calibration.mpi.push(CalibrationSet {
            peer_class: loggp_report::PeerClass::IntraNode,
            mode: loggp_report::Mode::Send,
            ranges: vec![Range {
                size_lo_bytes: 1,
                size_hi_bytes: 256,
                send_overhead_ns: Some(est),
                send_overhead_ns_ci: ci,
                ..Default::default()
            }],
            ..Default::default()
        });
        r
    }

    /// Issue 22 (b): the intervals are built around the bootstrap, not stretched to the
    /// estimate, so the scan every test runs on every report fails on a biased estimator.
    /// Replicates of an unbiased o_s spread around 100 ns; the biased estimator reports
    /// 1.6 × its own bootstrap's centre.
    #[test]
    fn the_report_scan_fails_on_a_biased_estimator() {
        let mut rng = Rng::new(9);
        let reps: Vec<f64> = (0..200).map(|_| 100.0 + 5.0 * rng.normal()).collect();
        let (ci, note) = repeat_interval(100.0, &reps, 0.09, 0.8, 10.0);
        assert!(note.is_none());
        assert!(physically_invalid(&report_with(100.0, ci)).is_empty());
        let (ci, note) = repeat_interval(160.0, &reps, 0.09, 0.8, 10.0);
        assert!(note.is_some_and(|n| n.contains("biased")));
        let bad = physically_invalid(&report_with(160.0, ci));
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert!(bad[0].contains("does not contain it"));
    }

    /// A raw set at 0.8 × MPI's round trip but for `bumps` (index, factor): which sizes
    /// `floor_violations` names.
    fn floor_of(bumps: &[(usize, f64)]) -> Vec<u64> {
        let sizes: Vec<u64> = (0..12).map(|k| 1000 + 1500 * k).collect();
        let mpi = |s: u64| 1000.0 + 0.1 * s as f64;
        let point = |s: u64, y: f64| loggp_report::Point {
            size_bytes: s,
            prtt_1_0_ns: Some(y),
            ..Default::default()
        };
        let raw = sizes.iter().enumerate().map(|(k, &s)| {
            let f = bumps.iter().find(|b| b.0 == k).map_or(0.8, |b| b.1);
            point(s, f * mpi(s))
        });
        named_above(
            sizes.iter().map(|&s| point(s, mpi(s))).collect(),
            raw.collect(),
        )
    }

    /// The sizes `floor_violations` names for a raw shm set beside MPI's blocking send.
    fn named_above(mpi: Vec<loggp_report::Point>, raw: Vec<loggp_report::Point>) -> Vec<u64> {
        let mut r = Report::default();
        r.calibration.mpi.push(CalibrationSet {
            peer_class: loggp_report::PeerClass::IntraNode,
            mode: loggp_report::Mode::Send,
            points: mpi,
            ..Default::default()
        });
        r.calibration.raw.push(loggp_report::RawSet {
            transport: "shm".into(),
            peer_class: loggp_report::PeerClass::IntraNode,
            points: raw,
            ..Default::default()
        });
        floor_violations(&r).iter().map(|v| v.1).collect()
    }

    /// Issue 22: a raw transport above MPI over a regime is no floor there, and so is one
    /// far above at a single size; one size a little above between neighbours below is
    /// the noise of a median over a few passes.
    #[test]
    fn a_regime_or_a_gross_size_is_no_floor_and_one_noisy_size_is() {
        assert!(floor_of(&[]).is_empty());
        assert!(floor_of(&[(5, 1.25)]).is_empty(), "one size at 1.25 ×");
        assert_eq!(
            floor_of(&[(4, 1.3), (5, 1.3), (6, 1.3)]),
            vec![7000, 8500, 10000]
        );
        assert_eq!(floor_of(&[(5, 2.0)]), vec![8500]);
        assert_eq!(floor_of(&[(0, 1.3), (1, 1.3)]), vec![1000, 2500]);
    }

    /// A raw set measured pass by pass beside MPI: where the machine's level moves between
    /// passes, the medians taken apart can put raw above MPI; the paired ratio does not.
    /// Where raw is above MPI in every pass, it is no floor either way.
    #[test]
    fn the_floor_compares_raw_and_mpi_pass_by_pass() {
        let point = |reps: &[f64]| loggp_report::Point {
            size_bytes: 4096,
            prtt_1_0_ns: crate::stats::median(reps),
            prtt_1_0_reps_ns: reps.to_vec(),
            ..Default::default()
        };
        // MPI slow in passes 0-1 and fast after, raw the reverse: raw is 0.8 × MPI in
        // every pass, yet the medians apart say 1000 / 500 = 2 ×.
        let mpi = point(&[3000.0, 3000.0, 1000.0, 1000.0, 1000.0, 1000.0]);
        let raw = point(&[2400.0, 2400.0, 2400.0, 2400.0, 800.0, 800.0]);
        assert!(raw.prtt_1_0_ns.unwrap() > 2.0 * mpi.prtt_1_0_ns.unwrap());
        let (x, y, share) = paired_round_trips(&raw, &mpi).unwrap();
        assert!((x / y - 0.8).abs() < 1e-9, "{x} / {y}");
        assert!((share - 2.0 / 6.0).abs() < 1e-9, "{share}");
        let above = point(&[3600.0, 3600.0, 1200.0, 1200.0, 1200.0, 1200.0]);
        let (x, y, share) = paired_round_trips(&above, &mpi).unwrap();
        assert!((x / y - 1.2).abs() < 1e-9, "{x} / {y}");
        assert_eq!(share, 1.0);
    }

    /// A size is above the floor only where most of its passes say so: raw at 3.66, 0.88
    /// and 1.70 × MPI in its three passes (a full run's vader at 128 KiB) reads 1.70 ×
    /// by the median, more than `FLOOR_GROSS_FACTOR`, but one pass found it below, and it
    /// is not named; at 1.6, 1.7 and 1.8 × it is.
    #[test]
    fn a_size_is_above_the_floor_only_in_most_of_its_passes() {
        let sizes: Vec<u64> = (0..9).map(|k| 1000 + 1500 * k).collect();
        let mpi_reps = [22000.0, 22000.0, 22000.0];
        let report = |at_4: [f64; 3]| {
            let point = |s: u64, reps: &[f64]| loggp_report::Point {
                size_bytes: s,
                prtt_1_0_ns: crate::stats::median(reps),
                prtt_1_0_reps_ns: reps.to_vec(),
                ..Default::default()
            };
            let raw = sizes.iter().enumerate().map(|(k, &s)| {
                let f = if k == 4 { at_4 } else { [0.8; 3] };
                point(s, &f.map(|x| x * 22000.0))
            });
            named_above(
                sizes.iter().map(|&s| point(s, &mpi_reps)).collect(),
                raw.collect(),
            )
        };
        assert!(report([3.66, 0.88, 1.70]).is_empty());
        assert_eq!(report([1.6, 1.7, 1.8]), vec![7000]);
    }
}
