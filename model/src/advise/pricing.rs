//! What the advice prices beside the saving: messages of uncalibrated modes, the job
//! against the calibration, the commands that set the value, the memory it costs.
use super::types::Advice;
use loggp_report::{Bin, Mode, PeerClass, Report};

/// Messages of the class's other eager-capable send modes (no calibration of their own)
/// in the sizes the advised value turns eager: the knob may move their switch too (it
/// does for vader's eager limit and for UCX_RNDV_THRESH under MPICH), but nothing prices
/// them, so the saving leaves them out and a note says how many.
pub(super) fn unpriced_modes(r: &Report, a: &mut Advice) {
    let advised = a.setting.as_ref().and_then(|x| x.value);
    let end = a
        .candidates
        .iter()
        .find(|c| a.advised && Some(c.value) == advised)
        .map(|c| c.eager_up_to_bytes);
    let (Some(lo), Some(hi)) = (a.current_switch_bytes, end) else {
        return;
    };
    let calibrated = |mode: Mode| {
        r.calibration
            .mpi
            .iter()
            .any(|c| c.peer_class == a.peer_class && c.mode == mode)
    };
    for p in &r.passive {
        let eager_capable = p.mode.is_send() && !matches!(p.mode, Mode::Ssend | Mode::Issend);
        if p.peer_class != a.peer_class || !eager_capable || calibrated(p.mode) {
            continue;
        }
        let n: u64 = p
            .bins
            .iter()
            .filter(|b| b.count > 0 && b.smallest_bytes > lo && b.largest_bytes <= hi)
            .map(|b| b.count)
            .sum();
        if n > 0 {
            a.notes.push(format!(
                "{n} messages of {}–{hi} B were sent in mode {} (not calibrated; LOGGP_CALIBRATE=full measures isend): the setting may make them eager too, and the saving leaves them out",
                lo + 1,
                p.mode
            ));
        }
    }
}

/// The job against the calibration for the messages the advice prices: their pair time
/// at the rendezvous round trips, and, for MPI_Send where blocking receives of the same
/// sizes were seen, the time the job spent in both calls for them. A ratio far from 1
/// means the job's exchanges do not run as the calibration's ping-pong did (other traffic,
/// a receiver that does not wait, buffers the partner has just read: a ping-pong that
/// sends back the buffer it received into ran its 6000-byte rendezvous round trips at
/// 1.3–2.2 × the calibration's on 2026-11-26, Open MPI vader on an Intel Xeon VM, where
/// the reruns' eager ones ran at 0.96–1.10 ×). The ratio exists only where the saving
/// starts from the job's own time for these messages (`per_message_savings`), so it does
/// not enter the saving: it is said, not warned of.
pub(super) fn model_check(r: &Report, a: &mut Advice, priced: &[&Bin], rdv: &[(f64, f64)]) {
    let size_of = |b: &Bin| (b.smallest_bytes + b.largest_bytes) as f64 / 2.0;
    let predicted: Option<f64> = priced
        .iter()
        .map(|b| Some(b.count as f64 * interpolate(rdv, size_of(b))?))
        .sum();
    a.rendezvous_pair_predicted_ns = predicted;
    let Some(per) = pair_ns_per_message(r, a.peer_class, a.mode, priced) else {
        return;
    };
    let observed: f64 = priced
        .iter()
        .zip(&per)
        .map(|(b, t)| b.count as f64 * t)
        .sum();
    let Some(model) = predicted.filter(|&m| m > 0.0) else {
        return;
    };
    let ratio = observed / model;
    a.rendezvous_pair_observed_ns = Some(observed);
    a.observed_over_model = Some(ratio);
    if !(0.67..=1.5).contains(&ratio) {
        let refill = refill_over_plain(r, a.peer_class, priced)
            .map(|x| format!("; the calibration's exchange that sends back what it has just received took {x:.2} × its plain exchange at these sizes"))
            .unwrap_or_default();
        a.notes.push(format!(
            "check: the job spent {ratio:.2} × the calibration's round trips in MPI_Send + MPI_Recv for these messages; its exchanges do not run as the calibration's ping-pong did (other traffic, a receiver that does not wait, buffers the partner has just read), and the saving starts from the job's own time for them{refill}"
        ));
    }
}

/// The calibration's refill exchange (each sends what it has just received) over its plain
/// one, at the sizes of `priced` (weighted by their messages), where both were measured:
/// what sending back a received buffer costs on this stack, one of the causes the check
/// names. At 64 KiB under Open MPI vader's rendezvous it was 1.8–2.1 × in eight runs, and
/// a ping-pong that sends back the buffer it received into ran at 2.2–3.0 × the round
/// trips (2026-11-27).
pub fn refill_over_plain(r: &Report, class: PeerClass, priced: &[&Bin]) -> Option<f64> {
    let set = r
        .calibration
        .mpi
        .iter()
        .find(|s| s.peer_class == class && s.mode == Mode::Send)?;
    let line = |f: &dyn Fn(&loggp_report::Point) -> Option<f64>| -> Vec<(f64, f64)> {
        set.points
            .iter()
            .filter_map(|p| Some((p.size_bytes as f64, f(p)?)))
            .collect()
    };
    let (refill, plain) = (line(&|p| p.exchange_refill_ns), line(&|p| p.exchange_ns));
    let (mut num, mut den) = (0.0, 0.0);
    for b in priced {
        let x = (b.smallest_bytes + b.largest_bytes) as f64 / 2.0;
        // Within the sizes the refill exchange measured, never beyond.
        if refill.first().is_none_or(|f| x < f.0) || refill.last().is_none_or(|l| x > l.0) {
            continue;
        }
        if let (Some(f), Some(p)) = (interpolate(&refill, x), interpolate(&plain, x)) {
            num += b.count as f64 * f;
            den += b.count as f64 * p;
        }
    }
    (den > 0.0).then(|| num / den)
}

/// The pair's time per message in each bin, as the job spent it: MPI_Send's time for the
/// bin plus MPI_Recv's for the same sizes (both ranks), where every message of the bin was
/// received by a blocking MPI_Recv of the same class; None for other modes or where
/// receives of other kinds took part (their time is not the pair's).
pub fn pair_ns_per_message(
    r: &Report,
    class: PeerClass,
    mode: Mode,
    bins: &[&Bin],
) -> Option<Vec<f64>> {
    if mode != Mode::Send {
        return None;
    }
    let recv = r
        .passive
        .iter()
        .find(|p| p.peer_class == class && p.mode == Mode::Recv)?;
    let time = |b: &Bin| b.count as f64 * b.mean_ns.unwrap_or(0.0);
    bins.iter()
        .map(|b| {
            let same: Vec<&Bin> = recv
                .bins
                .iter()
                .filter(|x| {
                    x.count > 0
                        && x.smallest_bytes >= b.smallest_bytes
                        && x.largest_bytes <= b.largest_bytes
                })
                .collect();
            let n: u64 = same.iter().map(|x| x.count).sum();
            (b.count > 0 && n == b.count)
                .then(|| (time(b) + same.iter().map(|x| time(x)).sum::<f64>()) / b.count as f64)
        })
        .collect()
}

/// Linear interpolation in size between measured points; None outside them.
pub(super) fn interpolate(pts: &[(f64, f64)], x: f64) -> Option<f64> {
    let mut v: Vec<(f64, f64)> = pts.to_vec();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    if x <= v.first()?.0 {
        // Below the first rendezvous point (between the switch and it): its value.
        return Some(v[0].1);
    }
    for w in v.windows(2) {
        if x <= w[1].0 {
            let f = (x - w[0].0) / (w[1].0 - w[0].0);
            return Some(w[0].1 + f * (w[1].1 - w[0].1));
        }
    }
    None
}

pub(super) fn commands(flavor: &str, name: &str, value: i64) -> Vec<String> {
    if name.starts_with("UCX_") {
        match flavor {
            "openmpi" => vec![
                format!("mpirun -x {name}={value} …"),
                format!("export {name}={value}; srun --export=ALL …"),
            ],
            _ => vec![
                format!("mpiexec -genv {name} {value} …"),
                format!("srun --export=ALL,{name}={value} …"),
            ],
        }
    } else {
        vec![
            format!("mpirun --mca {name} {value} …"),
            format!("mpirun -x OMPI_MCA_{name}={value} …"),
            format!("srun --export=ALL,OMPI_MCA_{name}={value} …"),
        ]
    }
}

pub(super) fn memory_note(name: &str) -> String {
    if name.starts_with("UCX_") {
        format!("memory: below {name} UCX copies messages through its bounce buffers, and a receiver keeps unexpected eager messages buffered until their receive is posted; a larger threshold lets more data wait there")
    } else {
        format!("memory: Open MPI keeps eager fragments of {name} bytes in each local peer's free lists, and buffers unexpected eager messages until their receive is posted; a larger limit grows both")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loggp_report::{CalibrationSet, Point};

    fn bin(bytes: u64, count: u64) -> Bin {
        Bin {
            smallest_bytes: bytes,
            largest_bytes: bytes,
            count,
            ..Default::default()
        }
    }

    #[test]
    fn the_refill_factor_is_read_where_the_refill_exchange_was_measured() {
        let mut r = Report::default();
        let point = |size: u64, plain: f64, refill: Option<f64>| Point {
            size_bytes: size,
            exchange_ns: Some(plain),
            exchange_refill_ns: refill,
            ..Default::default()
        };
        r.calibration.mpi.push(CalibrationSet {
            peer_class: PeerClass::IntraNode,
            mode: Mode::Send,
            points: vec![
                point(1024, 500.0, None),
                point(4096, 1000.0, Some(2000.0)),
                point(8192, 2000.0, Some(6000.0)),
            ],
            ..Default::default()
        });
        // 6144 B: refill 4000, plain 1500 (interpolated); 4096 B: 2000 over 1000.
        let (a, b) = (bin(6144, 1), bin(4096, 1));
        let x = refill_over_plain(&r, PeerClass::IntraNode, &[&a, &b]).unwrap();
        assert!((x - 6000.0 / 2500.0).abs() < 1e-9, "{x}");
        // Beyond the sizes it measured, or of another class: nothing.
        let far = bin(100_000, 5);
        assert_eq!(refill_over_plain(&r, PeerClass::IntraNode, &[&far]), None);
        assert_eq!(refill_over_plain(&r, PeerClass::InterNode, &[&a]), None);
    }
}
