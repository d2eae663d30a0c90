//! The ranges between switches and each range's LogGP parameters with their intervals.
use super::boot::*;
use super::intervals::*;
use crate::fit::gap_line;
use crate::segment::{bic_penalty, segment, Series};
use crate::stats::median;
use crate::Settings;
use loggp_report::{Point, Range};

/// Where the eager range ends (protocol T against TA/RTA/RAT, altawil-moritz §3.2): the
/// first size from which every send waited for a late receiver. A rendezvous send cannot
/// return before its receiver comes, so a size above the limit never reads "did not
/// wait"; an eager send preempted during the call does read "waited". So a waiting size
/// followed by one that did not wait is noise, not the limit: CI (4 ranks on 2 cores, the
/// ranks off their CPU half the time) read two sizes just above 256 B as waiting (by its
/// bracket [256, 362], the schedule's 304 and 362 B) under vader's 4040 B limit, and the
/// first-two-in-a-row rule put the limit at 303 B.
pub fn eager_split(points: &[Point]) -> Option<usize> {
    first_of_waiting_suffix(
        points
            .iter()
            .map(|p| p.send_waits_for_receiver == Some(true)),
    )
}

/// The rule of `eager_split` over a sequence of "this size's send waited for a late
/// receiver" flags in size order: the index from which every flag is true, `None` when
/// the last is false or there is none. The calibration asks it of its own points (in
/// ticks) before it re-probes the first waiting size, the model of the report's points.
pub fn first_of_waiting_suffix(
    mut waited: impl DoubleEndedIterator<Item = bool> + ExactSizeIterator,
) -> Option<usize> {
    let n = waited.len();
    match waited.rposition(|w| !w) {
        None if n == 0 => None,
        None => Some(0),
        Some(i) if i + 1 < n => Some(i + 1),
        Some(_) => None,
    }
}

/// Each point's σ for quantity q: its bootstrap spread, floored (see `segment`).
pub(super) fn sigmas(boot: &Boot, q: usize, s: &Settings) -> Vec<f64> {
    (0..boot.reps[0].len())
        .map(|i| {
            let y = boot.estimate(i)[q].abs();
            let spread = boot.sd(i, q);
            (spread * spread + (s.rel_floor * y).powi(2) + s.abs_floor_ns.powi(2)).sqrt()
        })
        .collect()
}

/// Protocol ranges of one set's points: split at the eager limit, then each side by the
/// optimal segmentation of G_all(s), o_s(s) and PRTT(1,0,s)/2 together. The round trip
/// is the plainest sign of a protocol change — UCX's am_short to am_bcopy under MPICH
/// doubles it at 92 B while o_s and G_all move within their noise — where G_all and o_s
/// alone found that switch in 4 of 10 calibrations.
pub fn segments(points: &[Point], boot: &Boot, s: &Settings) -> Vec<(usize, usize)> {
    let n = points.len();
    if n == 0 {
        return vec![];
    }
    let sides = match eager_split(points) {
        Some(i) if i > 0 => vec![(0, i - 1), (i, n - 1)],
        _ => vec![(0, n - 1)],
    };
    let x: Vec<f64> = points.iter().map(|p| p.size_bytes as f64).collect();
    let col = |q: usize| -> Vec<f64> { (0..n).map(|i| boot.estimate(i)[q]).collect() };
    let (gall, os, lat) = (col(GALL), col(OS), col(LAT));
    let (sg, so, sl) = (
        sigmas(boot, GALL, s),
        sigmas(boot, OS, s),
        sigmas(boot, LAT, s),
    );
    let mut out = vec![];
    for (a, b) in sides {
        let series = [
            Series {
                y: &gall[a..=b],
                sigma: &sg[a..=b],
            },
            Series {
                y: &os[a..=b],
                sigma: &so[a..=b],
            },
            Series {
                y: &lat[a..=b],
                sigma: &sl[a..=b],
            },
        ];
        let pen = s.penalty_scale * bic_penalty(b - a + 1, series.len());
        for (i, j) in segment(&x[a..=b], &series, s.min_range_points, pen) {
            out.push((a + i, a + j));
        }
    }
    out
}

/// g and G of G_all over points a..=b for replicate r, with each point's σ as weight.
pub fn gap_fit(
    points: &[Point],
    boot: &Boot,
    r: usize,
    sg: &[f64],
    a: usize,
    b: usize,
) -> Option<(f64, f64)> {
    line_fit(points, boot, r, sg, a, b, GALL)
}

/// The line `y = c + (s − 1)·k` (c, k ≥ 0) of quantity q over points a..=b for replicate
/// r, with each point's σ as weight: for G_all its g and G (Eq. 7); for PRTT(1,0,s)/2 and
/// o_s the line a protocol range follows in LogGP.
pub fn line_fit(
    points: &[Point],
    boot: &Boot,
    r: usize,
    sigma: &[f64],
    a: usize,
    b: usize,
    q: usize,
) -> Option<(f64, f64)> {
    let pts: Vec<(f64, f64, f64)> = (a..=b)
        .map(|i| {
            (
                points[i].size_bytes as f64,
                boot.reps[r][i][q],
                1.0 / sigma[i].max(1e-12).powi(2),
            )
        })
        .filter(|p| p.1.is_finite())
        .collect();
    gap_line(&pts)
}

/// G_all's noise per point, as the fits weight it.
pub fn gall_sigmas(boot: &Boot, s: &Settings) -> Vec<f64> {
    sigmas(boot, GALL, s)
}

/// Quantity q's noise per point, as the fits weight it.
pub fn quantity_sigmas(boot: &Boot, q: usize, s: &Settings) -> Vec<f64> {
    sigmas(boot, q, s)
}

/// Replicates of one range's parameters: [o_s, o_r, g, G, L].
pub type RangeParams = [f64; 5];

/// A set's ranges, each with its bootstrap replicates.
#[derive(Clone, Debug, Default)]
pub struct SetFit {
    pub ranges: Vec<Range>,
    /// Index ranges into the points.
    pub index: Vec<(usize, usize)>,
    /// `params[k][r]`: replicate r (0 = estimate) of range k.
    pub params: Vec<Vec<RangeParams>>,
    pub boot: Boot,
}

/// What one calibration set's fit starts from.
#[derive(Clone, Copy, Default)]
pub struct SetInput<'a> {
    pub points: &'a [Point],
    /// The n of PRTT(n, d, s).
    pub n: u64,
    /// The repetitions are in pass order (the set has `passes`).
    pub by_pass: bool,
    /// The switches located to the byte (a range ends at the one between its last size
    /// and the next's first).
    pub switches: &'a [u64],
    pub not_repeated: &'a [[u64; 2]],
    /// Where the ranges end, imposed instead of segmented: a raw transport's set takes the
    /// ranges of the MPI set it is compared with.
    pub bounds: Option<&'a [u64]>,
}

/// Index ranges of `points` ending at the last size ≤ each of `bounds`.
pub(super) fn split_at(points: &[Point], bounds: &[u64]) -> Vec<(usize, usize)> {
    let mut out = vec![];
    let mut a = 0;
    for &b in bounds {
        let end = points[a..].iter().take_while(|p| p.size_bytes <= b).count();
        if end > 0 {
            out.push((a, a + end - 1));
            a += end;
        }
        if a >= points.len() {
            break;
        }
    }
    if a < points.len() {
        out.push((a, points.len() - 1));
    }
    out
}

/// Fits one calibration set: ranges by segmentation (or imposed), bounds from the
/// bisected switches, parameters with intervals; none negative (an estimate that is not
/// above zero is null, and the note says why).
pub fn fit_set(input: &SetInput, s: &Settings) -> SetFit {
    let SetInput {
        points,
        n,
        by_pass,
        switches,
        not_repeated,
        bounds,
    } = *input;
    if points.is_empty() {
        return SetFit::default();
    }
    let boot = bootstrap(points, n, s.bootstrap, s.seed, by_pass);
    let method = format!("{METHOD}; {}", interval_method(by_pass, s));
    let index = match bounds {
        Some(b) => split_at(points, b),
        None => segments(points, &boot, s),
    };
    let switches = bounds.unwrap_or(switches);
    let sg = gall_sigmas(&boot, s);
    let nrep = boot.reps.len();
    let mut ranges = vec![];
    let mut params = vec![];
    for (k, &(a, b)) in index.iter().enumerate() {
        let sizes: Vec<u64> = points[a..=b].iter().map(|p| p.size_bytes).collect();
        let narrow = sizes.len() < 3 || (sizes[sizes.len() - 1] as f64) < 2.0 * sizes[0] as f64;
        let reps: Vec<RangeParams> = (0..nrep)
            .map(|r| {
                let q = &boot.reps[r][a..=b];
                let med = |j: usize| {
                    median(&q.iter().map(|v| v[j]).collect::<Vec<_>>()).unwrap_or(f64::NAN)
                };
                let (g, gg) = if narrow {
                    // Too few sizes for a slope: g is the mean level (G = 0 fit).
                    let pts: Vec<(f64, f64, f64)> = (a..=b)
                        .map(|i| (1.0, boot.reps[r][i][GALL], 1.0 / sg[i].max(1e-12).powi(2)))
                        .collect();
                    gap_line(&pts).unwrap_or((f64::NAN, f64::NAN))
                } else {
                    gap_fit(points, &boot, r, &sg, a, b).unwrap_or((f64::NAN, f64::NAN))
                };
                // L: the smallest sizes' PRTT(1,0,s)/2 (up to three, within twice the
                // smallest): one size's median of a few repetitions is too fragile.
                let lat: Vec<f64> = (a..=b)
                    .take(3)
                    .filter(|&i| points[i].size_bytes <= 2 * points[a].size_bytes.max(1))
                    .map(|i| boot.reps[r][i][LAT])
                    .collect();
                [med(OS), med(OR), g, gg, median(&lat).unwrap_or(f64::NAN)]
            })
            .collect();
        let est = reps[0];
        let boot_of = |j: usize| -> Vec<f64> {
            reps[1..]
                .iter()
                .map(|p| p[j])
                .filter(|v| v.is_finite())
                .collect()
        };
        // o_s, o_r and L are read off the timer (o_s through the edges of the time
        // between sends): their intervals are at least one timer step wide either side
        // (resampled medians of 10-ns steps can all be equal, and a raw transport's
        // overheads are a few steps).
        let step = s.abs_floor_ns / 2.0;
        let mut notes = vec![];
        let value = |j: usize,
                     name: &str,
                     notes: &mut Vec<String>|
         -> (Option<f64>, Option<[f64; 2]>) {
            let floor = if j <= 1 || j == 4 { step } else { 0.0 };
            let e = est[j];
            if !e.is_finite() {
                notes.push(format!("{name}: not measured"));
                return (None, None);
            }
            if e <= 0.0 && j != 2 && j != 3 {
                notes.push(format!(
                    "{name}: not above zero ({e:.1} ns over {} sizes): below what these probes resolve",
                    b - a + 1
                ));
                return (None, None);
            }
            let (ci, bias) = repeat_interval(
                e.max(0.0),
                &boot_of(j),
                s.between_run[j],
                s.repeat_level,
                floor,
            );
            if let Some(b) = bias {
                notes.push(format!("{name}: {b}"));
            }
            // g and G are fitted under the constraint ≥ 0. Where the fit sits on that bound
            // and every resample does too, the data do not determine the value (the other
            // term of the line carries the whole cost): 0 [0, 0] would be a guess with a
            // false certainty (issue 22).
            if e <= 0.0 && ci.is_some_and(|[_, hi]| hi <= 0.0) {
                notes.push(format!(
                    "{name}: at its bound 0 in this run and in every resample over {} sizes: not determined by these probes",
                    b - a + 1
                ));
                return (None, None);
            }
            (Some(e.max(0.0)), ci)
        };
        let (os, os_ci) = value(0, "o_s", &mut notes);
        let (or, or_ci) = value(1, "o_r", &mut notes);
        let (g, g_ci) = value(2, "g", &mut notes);
        let (gg, gg_ci) = if narrow {
            notes.push(format!(
                "G: the range is too narrow to determine a slope ({} sizes, {}–{} B)",
                sizes.len(),
                sizes[0],
                sizes[sizes.len() - 1]
            ));
            (None, None)
        } else {
            value(3, "G", &mut notes)
        };
        let (lat, lat_ci) = value(4, "L", &mut notes);
        // A boundary whose level change did not repeat stays a boundary of the fit (the
        // points either side do differ) but is not a protocol switch.
        let last = sizes[sizes.len() - 1];
        if let Some([_, r]) = not_repeated.iter().find(|[l, _]| *l == last) {
            notes.push(format!(
                "ends at a level change between {last} and {r} B that did not repeat when both sizes were probed again, interleaved: not a protocol switch (the machine changed over time, or the link's state depends on what was sent before)"
            ));
        }
        // Where the ranges are imposed at the switches alone, such a level change lies
        // inside a range, which is fitted as one: a boundary that one run sees and the
        // next does not would give the two runs different ranges to compare (issue 22).
        for [l, r] in not_repeated
            .iter()
            .filter(|[l, r]| *l >= sizes[0] && *l < last && *r <= last)
        {
            notes.push(format!(
                "a level change between {l} and {r} B inside this range did not repeat when both sizes were probed again, interleaved: not a protocol switch, so the range is fitted as one (the machine changed over time, or the link's state depends on what was sent before)"
            ));
        }
        let lo = if k == 0 {
            sizes[0]
        } else {
            ranges_hi(&ranges) + 1
        };
        let hi = if k + 1 == index.len() {
            sizes[sizes.len() - 1]
        } else {
            // The bisected switch between this range's last size and the next's first.
            let (left, right) = (points[b].size_bytes, points[b + 1].size_bytes);
            switches
                .iter()
                .copied()
                .find(|&w| w >= left && w < right)
                .unwrap_or(left)
        };
        let rms = {
            let (g0, gg0) = (est[2], est[3]);
            ((a..=b)
                .map(|i| {
                    (boot.estimate(i)[GALL] - g0 - gg0 * (points[i].size_bytes as f64 - 1.0))
                        .powi(2)
                })
                .sum::<f64>()
                / (b - a + 1) as f64)
                .sqrt()
        };
        let waits = points[a..=b]
            .iter()
            .filter(|p| p.send_waits_for_receiver == Some(true))
            .count();
        ranges.push(Range {
            size_lo_bytes: lo,
            size_hi_bytes: hi,
            send_overhead_ns: os,
            recv_overhead_ns: or,
            gap_ns: g,
            gap_per_byte_ns: gg,
            latency_ns: lat,
            send_overhead_ns_ci: os_ci,
            recv_overhead_ns_ci: or_ci,
            gap_ns_ci: g_ci,
            gap_per_byte_ns_ci: gg_ci,
            latency_ns_ci: lat_ci,
            fit_rms_ns: rms.is_finite().then_some(rms),
            method: Some(method.clone()),
            samples: Some((b - a + 1) as u64),
            note: (!notes.is_empty()).then(|| notes.join("; ")),
            protocol: Some(
                if waits * 2 > b - a + 1 {
                    "rendezvous"
                } else {
                    "eager"
                }
                .into(),
            ),
        });
        params.push(reps);
    }
    SetFit {
        ranges,
        index,
        params,
        boot,
    }
}

pub(super) fn ranges_hi(r: &[Range]) -> u64 {
    r.last().map(|x| x.size_hi_bytes).unwrap_or(0)
}
