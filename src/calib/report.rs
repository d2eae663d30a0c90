//! The calibration's results in the report's units and shapes.
use super::run::{ModeResult, Outcome};
use loggp_report::{CalibrationSet, Point, Range, RawSet, Threshold};

/// This client's calibration sets and thresholds, in ns.
pub fn sets(o: &Outcome, me: u32, ns_per_tick: f64) -> Vec<(CalibrationSet, Threshold)> {
    let Some(class) = o.class else { return vec![] };
    let pair = o
        .pairs
        .iter()
        .find(|p| p[0] == me)
        .copied()
        .unwrap_or([me, me]);
    o.modes
        .iter()
        .map(|m| one(m, class.name(), pair, ns_per_tick))
        .collect()
}

/// This client's raw-transport sets (with the status of those that did not run).
pub fn raw_sets(o: &Outcome, me: u32, ns_per_tick: f64) -> Vec<RawSet> {
    let Some(class) = o.class else { return vec![] };
    if !o.pairs.iter().any(|p| p[0] == me) {
        return vec![];
    }
    o.raw
        .iter()
        .map(|r| {
            let (set, _) = one(&r.result, class.name(), [me, me], ns_per_tick);
            RawSet {
                transport: r.transport.clone(),
                peer_class: class.name().into(),
                status: r.status.clone(),
                ranges: set.ranges,
                points: set.points,
            }
        })
        .collect()
}

fn one(m: &ModeResult, class: &str, pair: [u32; 2], k: f64) -> (CalibrationSet, Threshold) {
    let ns = |t: f64| Some(t * k);
    let set = CalibrationSet {
        peer_class: class.into(),
        mode: m.mode.clone(),
        pair,
        n: m.n,
        bisection_probes: m.bisection_probes as u64,
        ranges: m
            .ranges
            .iter()
            .map(|r| Range {
                size_lo_bytes: r.lo as u64,
                size_hi_bytes: r.hi as u64,
                send_overhead_ns: ns(r.send_overhead),
                recv_overhead_ns: ns(r.recv_overhead),
                gap_ns: ns(r.gap),
                gap_per_byte_ns: ns(r.gap_per_byte),
                latency_ns: ns(r.latency),
                fit_rms_ns: ns(r.rms),
                samples: Some(r.samples as u64),
                note: None,
                protocol: Some(if r.rendezvous { "rendezvous" } else { "eager" }.into()),
            })
            .collect(),
        points: m
            .points
            .iter()
            .map(|p| Point {
                size_bytes: p.size as u64,
                prtt_1_0_ns: ns(p.prtt_1_0.median),
                prtt_n_0_ns: ns(p.prtt_n_0.median),
                prtt_n_d_ns: ns(p.prtt_n_d.median),
                recv_overhead_ns: ns(p.recv_overhead.median),
                send_overhead_ns: ns(p.send_overhead(m.n)),
                gap_all_ns: ns(p.gap_all(m.n)),
                prtt_1_0_min_ns: ns(p.prtt_1_0.min),
                prtt_1_0_iqr_ns: ns(p.prtt_1_0.iqr),
                delay_ns: ns(p.delay),
                delay_fallback: p.fell_back,
                repetitions: p.prtt_1_0.n as u64,
                send_waits_for_receiver: p.send_waits,
            })
            .collect(),
    };
    let threshold = Threshold {
        peer_class: class.into(),
        mode: m.mode.clone(),
        active_bytes: m.active_bytes.map(|b| b as u64),
        passive_lo_bytes: None,
        passive_hi_bytes: None,
        mpi_t: None, // filled by rank 0 at MPI_Finalize (see mpit::eager_limit_cvars)
        note: m.threshold_note.clone(),
    };
    (set, threshold)
}
