//! How much of MPI's round trip the raw transport beneath it would take (bell2003 §5).
use super::pricing::interpolate;
use crate::stats::{median, percentile_ci, Rng};
use crate::Settings;
use loggp_report::{PeerClass, Point, Report};
use serde::Serialize;

/// What the job's messages of one peer class would cost at the raw transport's round
/// trips instead of MPI's: the share of that time MPI adds (issue 14). Priced as the
/// advice is: each message PRTT(1,0,s) of the pair's time, both sides interpolated between
/// the sizes both measured (no extrapolation), over the send modes' passive bins.
#[derive(Clone, Debug, Serialize)]
pub struct RawShare {
    pub peer_class: PeerClass,
    pub transport: String,
    /// Messages priced, and those outside the sizes both calibrations measured.
    pub messages: u64,
    pub messages_not_priced: u64,
    pub observed_ns: f64,
    pub predicted_mpi_ns: f64,
    pub predicted_raw_ns: f64,
    /// 1 − raw / MPI over the priced messages: the part of the time MPI adds. Null where
    /// the raw transport's round trips are the longer (the note says so).
    pub mpi_share: Option<f64>,
    /// 95 % interval: the bootstrap over both calibrations' repetitions per size.
    pub mpi_share_ci: Option<[f64; 2]>,
    pub method: String,
    pub note: Option<String>,
}

/// One raw-share line per (peer class, raw transport with points).
pub fn raw_share(r: &Report, s: &Settings) -> Vec<RawShare> {
    let mut out = vec![];
    let mut rng = Rng::new(s.seed);
    for raw in &r.calibration.raw {
        let Some(mpi) = crate::mpi_send_set_of(r, raw) else {
            continue;
        };
        let pts = |p: &[Point]| -> Vec<(f64, f64)> {
            p.iter()
                .filter_map(|q| Some((q.size_bytes as f64, q.prtt_1_0_ns?)))
                .collect()
        };
        let (mp, rp) = (pts(&mpi.points), pts(&raw.points));
        if mp.len() < 2 || rp.len() < 2 {
            continue;
        }
        let top = |v: &[(f64, f64)]| v.iter().map(|x| x.0).fold(0.0, f64::max);
        let hi = top(&mp).min(top(&rp));
        let mut line = RawShare {
            peer_class: raw.peer_class,
            transport: match &raw.tl {
                Some(tl) => format!("{}:{tl}", raw.transport),
                None => raw.transport.clone(),
            },
            messages: 0,
            messages_not_priced: 0,
            observed_ns: 0.0,
            predicted_mpi_ns: 0.0,
            predicted_raw_ns: 0.0,
            mpi_share: None,
            mpi_share_ci: None,
            method: "PRTT(1,0,s) per message, interpolated in size; bootstrap over the repetitions per size".into(),
            note: None,
        };
        // The priced messages: (size, count).
        let mut priced: Vec<(f64, f64)> = vec![];
        for p in r
            .passive
            .iter()
            .filter(|p| p.peer_class == raw.peer_class && p.mode.is_send())
        {
            for b in p.bins.iter().filter(|b| b.count > 0) {
                let s = (b.smallest_bytes as f64 * b.largest_bytes.max(1) as f64).sqrt();
                match (s <= hi)
                    .then(|| Some((interpolate(&mp, s)?, interpolate(&rp, s)?)))
                    .flatten()
                {
                    Some((m, w)) => {
                        line.messages += b.count;
                        line.predicted_mpi_ns += m * b.count as f64;
                        line.predicted_raw_ns += w * b.count as f64;
                        line.observed_ns += b.mean_ns.unwrap_or(0.0) * b.count as f64;
                        priced.push((s, b.count as f64));
                    }
                    None => line.messages_not_priced += b.count,
                }
            }
        }
        if line.messages == 0 || line.predicted_mpi_ns <= 0.0 {
            continue;
        }
        let share = 1.0 - line.predicted_raw_ns / line.predicted_mpi_ns;
        let reps = |p: &[Point]| p.iter().any(|q| !q.prtt_1_0_reps_ns.is_empty());
        if share >= 0.0 && !(reps(&mpi.points) || reps(&raw.points)) {
            line.mpi_share = Some(share);
            line.method = "PRTT(1,0,s) per message, interpolated in size; no interval: the report holds no repetitions per size (before 0.2)".into();
        } else if share >= 0.0 {
            line.mpi_share = Some(share);
            // Each point's round trip redrawn as the median of its repetitions resampled
            // (a point without repetitions keeps its value).
            let mut draw = |p: &[Point]| -> Vec<(f64, f64)> {
                p.iter()
                    .filter_map(|q| {
                        let v = &q.prtt_1_0_reps_ns;
                        if v.is_empty() {
                            return Some((q.size_bytes as f64, q.prtt_1_0_ns?));
                        }
                        let r: Vec<f64> = (0..v.len()).map(|_| v[rng.below(v.len())]).collect();
                        Some((q.size_bytes as f64, median(&r)?))
                    })
                    .collect()
            };
            let boot: Vec<f64> = (0..s.bootstrap)
                .filter_map(|_| {
                    let (m, w) = (draw(&mpi.points), draw(&raw.points));
                    let (mut tm, mut tw) = (0.0, 0.0);
                    for &(x, n) in &priced {
                        tm += interpolate(&m, x)? * n;
                        tw += interpolate(&w, x)? * n;
                    }
                    (tm > 0.0).then(|| 1.0 - tw / tm)
                })
                .collect();
            line.mpi_share_ci = percentile_ci(&boot);
        } else {
            line.note = Some(format!(
                "the raw transport's round trips are {:.0} % longer than MPI's for these messages: it is no floor at their sizes, so the baseline is at fault and no share is given",
                -100.0 * share
            ));
        }
        out.push(line);
    }
    out
}
