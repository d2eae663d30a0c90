//! The calibration's measurements in the report's units and shapes. The ranges are left
//! to the model (`loggp_model::estimate`), which fits them at report time.
use super::engine::points::AFTER_PAUSES_NS;
use super::engine::PointTicks;
use super::outcome::{ModeResult, Outcome};
use loggp_report::{
    Calibration, CalibrationSet, ExchangeAfterPause, PeerClass, Point, RawSet, Threshold,
};

/// This rank's part of the report's calibration section: the status all ranks agreed
/// on, the pairs, and the sets and thresholds (parallel, one each per mode) and raw sets
/// of the pairs this rank drove.
pub fn fragment(o: &Outcome, me: u32, ns_per_tick: f64) -> (Calibration, Vec<Threshold>) {
    let (mpi, thresholds) = sets(o, me, ns_per_tick).into_iter().unzip();
    let calibration = Calibration {
        status: o.status.clone(),
        duration_ns: (o.duration_ns > 0.0).then_some(o.duration_ns),
        pairs: o.pairs.clone(),
        disturbance: o.disturbance.clone(),
        off_cpu_share: o.off_cpu_share,
        steal_share: o.steal_share,
        mpi,
        raw: raw_sets(o, me, ns_per_tick),
        concurrent_exchanges: (o.concurrent.iter())
            .map(|m| super::concurrent::report(m, me))
            .collect(),
    };
    (calibration, thresholds)
}

/// Each threshold gets the setting of the component that carries its traffic (read at
/// MPI_Finalize: MPI_T, or UCX's configuration).
pub fn annotate_settings(thresholds: &mut [Threshold]) {
    if thresholds.is_empty() {
        return;
    }
    let keys: Vec<(PeerClass, loggp_report::Mode)> =
        thresholds.iter().map(|t| (t.peer_class, t.mode)).collect();
    for (t, v) in thresholds
        .iter_mut()
        .zip(super::knob::settings_in_use(&keys))
    {
        match v {
            Ok(s) => {
                if s.source == "MPI_T" {
                    t.mpi_t = s.value.map(|value| loggp_report::MpiT {
                        name: s.name.clone(),
                        value,
                    });
                }
                t.setting = Some(s);
            }
            Err(why) => {
                let n = format!("setting: {why}");
                t.note = Some(match t.note.take() {
                    Some(x) => format!("{x}; {n}"),
                    None => n,
                });
            }
        }
    }
}

/// This client's calibration sets and thresholds, in ns (one per mode of each pair it
/// drove).
pub fn sets(o: &Outcome, me: u32, ns_per_tick: f64) -> Vec<(CalibrationSet, Threshold)> {
    o.results
        .iter()
        .filter(|r| r.pair[0] == me)
        .flat_map(|r| {
            r.modes
                .iter()
                .map(move |m| one(m, r.class, r.pair, ns_per_tick, o.disturbance.is_some()))
        })
        .collect()
}

/// This client's raw-transport sets (with the status of those that did not run).
pub fn raw_sets(o: &Outcome, me: u32, ns_per_tick: f64) -> Vec<RawSet> {
    o.results
        .iter()
        .filter(|r| r.pair[0] == me)
        .flat_map(|pr| {
            pr.raw.iter().map(move |r| {
                let (set, _) = one(&r.result, pr.class, [me, me], ns_per_tick, false);
                RawSet {
                    transport: r.transport.clone(),
                    peer_class: pr.class,
                    status: r.status.clone(),
                    tl: r.tl.clone(),
                    device: r.device.clone(),
                    note: r.note.clone(),
                    n: set.n,
                    switches_bytes: set.switches_bytes,
                    not_repeated_bytes: set.not_repeated_bytes,
                    passes: set.passes,
                    ranges: vec![],
                    points: set.points,
                }
            })
        })
        .collect()
}

/// One measured size in ns, with every repetition.
pub fn point(p: &PointTicks, n: u64, k: f64) -> Point {
    let ns = |t: f64| Some(t * k);
    let all = |v: &Vec<f64>| v.iter().map(|t| t * k).collect::<Vec<f64>>();
    Point {
        size_bytes: p.size as u64,
        prtt_1_0_ns: ns(p.prtt_1_0.median),
        prtt_n_0_ns: ns(p.prtt_n_0.median),
        prtt_n_d_ns: ns(p.prtt_n_d.median),
        recv_overhead_ns: ns(p.recv_overhead.median),
        send_overhead_ns: ns(p.send_overhead(n)),
        send_call_ns: p.send_call.map(|c| c.median * k),
        gap_all_ns: ns(p.gap_all(n)),
        prtt_1_0_min_ns: ns(p.prtt_1_0.min),
        prtt_1_0_iqr_ns: ns(p.prtt_1_0.iqr),
        delay_ns: ns(p.delay),
        delay_fallback: p.fell_back,
        repetitions: p.prtt_1_0.n as u64,
        prtt_1_0_reps_ns: all(&p.samples[0]),
        prtt_n_0_reps_ns: all(&p.samples[1]),
        prtt_n_d_reps_ns: all(&p.samples[2]),
        recv_overhead_reps_ns: all(&p.samples[3]),
        send_waits_for_receiver: p.send_waits,
        exchange_ns: p.exchange.map(|x| x.median * k),
        exchange_reps_ns: all(&p.exchange_samples),
        exchange_refill_ns: p.refill.map(|x| x.median * k),
        exchange_persistent_ns: p.persistent.map(|x| x.median * k),
        exchange_isolated_ns: p.isolated.map(|x| x.median * k),
        one_way_isolated_recv_ns: p.one_way.map(|x| x[0].median * k),
        one_way_isolated_send_ns: p.one_way.map(|x| x[1].median * k),
        exchange_after_pause: p
            .after_pause
            .map(|a| {
                (0..2)
                    .map(|i| ExchangeAfterPause {
                        pause_ns: AFTER_PAUSES_NS[i],
                        exchange_ns: a[i].median * k,
                        exchange_reps_ns: all(&p.after_pause_samples[i]),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

fn one(
    m: &ModeResult,
    class: PeerClass,
    pair: [u32; 2],
    k: f64,
    disturbed: bool,
) -> (CalibrationSet, Threshold) {
    let set = CalibrationSet {
        peer_class: class,
        mode: m.mode.parse().unwrap_or_default(),
        pair,
        n: m.n,
        bisection_probes: m.bisection_probes as u64,
        switches_bytes: m.switches.iter().map(|&s| s as u64).collect(),
        not_repeated_bytes: m
            .not_repeated
            .iter()
            .map(|&[l, r]| [l as u64, r as u64])
            .collect(),
        passes: (m.passes > 0).then_some(m.passes as u64),
        ranges: vec![],
        points: m.points.iter().map(|p| point(p, m.n, k)).collect(),
    };
    let exact = m.exact && !disturbed;
    // Not exact: the switch lies between the schedule's sizes around it.
    let around = m.active_bytes.filter(|_| !exact).map(|b| {
        let lo = m
            .points
            .iter()
            .rev()
            .map(|p| p.size)
            .find(|&s| s < b)
            .unwrap_or(b);
        let hi = m
            .points
            .iter()
            .map(|p| p.size)
            .find(|&s| s > b + 1)
            .unwrap_or(b + 1);
        (lo as u64, hi as u64)
    });
    let threshold = Threshold {
        peer_class: class,
        mode: m.mode.parse().unwrap_or_default(),
        active_bytes: m.active_bytes.map(|b| b as u64),
        active_exact: m.active_bytes.map(|_| exact),
        active_lo_bytes: around.map(|a| a.0),
        active_hi_bytes: around.map(|a| a.1),
        note: match (&m.threshold_note, m.active_bytes.is_some() && !exact) {
            (Some(n), _) => Some(n.clone()),
            (None, true) if disturbed => Some(
                "the probes were disturbed (see calibration.disturbance): the switch is not exact"
                    .into(),
            ),
            (None, true) => Some(
                "the repeated probes around the switch disagreed: the switch is not exact".into(),
            ),
            _ => None,
        },
        ..Default::default()
    };
    (set, threshold)
}
