//! MPI minus the raw transport beneath it, same pair, same sizes (bell2003 §5, Fig. 3).
//!
//! Over the sizes where both have a range (each side's switches split them further):
//! o_s, o_r and L as the median of the per-size differences (both sides use the same
//! schedule, so a span is compared size for size); g and G as differences of the two
//! ranges' fits. Intervals: the same bootstrap replicates on both sides, differenced
//! (where both sides were measured in the same passes, a replicate draws the same passes
//! on both: the pairs measured moments apart stay paired), widened for a repeat run as the
//! sets' own are (`active::repeat_interval`). A difference that is not above zero is no
//! overhead of MPI's: it is null, and the note says what it means — where the interval
//! lies below zero, the raw transport is not a floor there, and the baseline is at fault.
use crate::active::{repeat_interval, SetFit, LAT, OR, OS};
use crate::stats::{median, percentile_ci};
use crate::Settings;
use loggp_report::{MpiOverhead, PeerClass, Point};

pub fn overhead(
    class: PeerClass,
    transport: &str,
    mpi: (&SetFit, &[Point]),
    raw: (&SetFit, &[Point]),
    s: &Settings,
) -> Vec<MpiOverhead> {
    let mut out = vec![];
    let (mf, mp) = mpi;
    let (rf, rp) = raw;
    for (mk, m) in mf.ranges.iter().enumerate() {
        for (rk, r) in rf.ranges.iter().enumerate() {
            let lo = m.size_lo_bytes.max(r.size_lo_bytes);
            let hi = m.size_hi_bytes.min(r.size_hi_bytes);
            if lo > hi {
                continue;
            }
            // Sizes both measured in the span: (index in MPI's points, index in raw's).
            let pairs: Vec<(usize, usize)> = mp
                .iter()
                .enumerate()
                .filter(|(_, p)| (lo..=hi).contains(&p.size_bytes))
                .filter_map(|(i, p)| {
                    Some((i, rp.iter().position(|q| q.size_bytes == p.size_bytes)?))
                })
                .collect();
            let nrep = mf.boot.reps.len().min(rf.boot.reps.len());
            let per_size = |q: usize, rep: usize| -> Option<f64> {
                let v: Vec<f64> = pairs
                    .iter()
                    .map(|&(i, j)| mf.boot.reps[rep][i][q] - rf.boot.reps[rep][j][q])
                    .filter(|v| v.is_finite())
                    .collect();
                median(&v)
            };
            let fit_diff = |j: usize, rep: usize| -> Option<f64> {
                let a = mf.params.get(mk)?.get(rep)?[j];
                let b = rf.params.get(rk)?.get(rep)?[j];
                let d = a - b;
                d.is_finite().then_some(d)
            };
            let mut notes = vec![];
            let mut param = |name: &str,
                             kind: usize,
                             f: &dyn Fn(usize) -> Option<f64>,
                             present: bool|
             -> (Option<f64>, Option<[f64; 2]>) {
                if !present {
                    return (None, None);
                }
                let Some(est) = f(0) else { return (None, None) };
                let reps: Vec<f64> = (1..nrep).filter_map(f).collect();
                if est <= 0.0 {
                    let boot = percentile_ci(&reps);
                    let range = boot
                        .map(|[a, b]| format!(" (bootstrap interval {a:.3} … {b:.3})"))
                        .unwrap_or_default();
                    let why = if boot.is_some_and(|[_, b]| b < 0.0) {
                        "the raw transport is slower than MPI here, so it is no floor at these sizes: the baseline is at fault, and this says nothing of what MPI adds".to_string()
                    } else {
                        "MPI and the raw transport do not differ measurably here".to_string()
                    };
                    notes.push(format!(
                        "{name}: MPI − {transport} = {est:.3}{range}, not above zero: {why}"
                    ));
                    return (None, None);
                }
                let (ci, bias) =
                    repeat_interval(est, &reps, s.between_run[kind], s.repeat_level, 0.0);
                if let Some(b) = bias {
                    notes.push(format!("{name}: {b}"));
                }
                (Some(est), ci)
            };
            let both = |a: Option<f64>, b: Option<f64>| a.is_some() && b.is_some();
            let (os, os_ci) = param(
                "o_s",
                0,
                &|rep| per_size(OS, rep),
                both(m.send_overhead_ns, r.send_overhead_ns),
            );
            let (or, or_ci) = param(
                "o_r",
                1,
                &|rep| per_size(OR, rep),
                both(m.recv_overhead_ns, r.recv_overhead_ns),
            );
            let (lat, lat_ci) = param("L", 4, &|rep| per_size(LAT, rep), !pairs.is_empty());
            let (g, g_ci) = param("g", 2, &|rep| fit_diff(2, rep), both(m.gap_ns, r.gap_ns));
            let (gg, gg_ci) = param(
                "G",
                3,
                &|rep| fit_diff(3, rep),
                both(m.gap_per_byte_ns, r.gap_per_byte_ns),
            );
            out.push(MpiOverhead {
                peer_class: class,
                transport: transport.into(),
                size_lo_bytes: lo,
                size_hi_bytes: hi,
                send_overhead_ns: os,
                recv_overhead_ns: or,
                latency_ns: lat,
                gap_ns: g,
                gap_per_byte_ns: gg,
                send_overhead_ns_ci: os_ci,
                recv_overhead_ns_ci: or_ci,
                latency_ns_ci: lat_ci,
                gap_ns_ci: g_ci,
                gap_per_byte_ns_ci: gg_ci,
                note: (!notes.is_empty()).then(|| notes.join("; ")),
            });
        }
    }
    out
}
