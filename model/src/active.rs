//! LogGP ranges from the calibration's PRTT points (hoefler2007 §3).
//!
//! Per size s: `G_all(s) = (PRTT(n,0,s) − PRTT(1,0,s)) / (n − 1)` (Eq. 7),
//! `o_s(s) = (PRTT(n,d,s) − PRTT(1,0,s)) / (n − 1) − d` (Eq. 6), o_r(s) timed on the
//! server, and `L = PRTT(1,0,s)/2` at a range's smallest size (the EEL of bell2003).
//!
//! Intervals. The calibration measures every size once per pass, over several passes
//! spread across its whole run (see the shim's `calib::passes`). The bootstrap resamples
//! whole passes — the same draw of passes for every size and probe — so a replicate keeps
//! what one moment of the machine did to all sizes at once, and a range's parameters
//! (fits and medians over many sizes) vary as much as the machine did while the
//! calibration ran; resampling each size's repetitions on its own averaged that away. The
//! 2.5th and 97.5th percentiles of the replicates are then widened into the interval a
//! *repeat run* falls in (`repeat_interval`): the next run's estimate has its own error,
//! and moves with the machine's level between runs (`Settings::between_run_rel`, measured
//! here). An estimate outside its own bootstrap interval is bias: it is said in the
//! range's note and the interval is not stretched to hide it. Reports written before the
//! passes get the bootstrap over each probe's repetitions; before the repetitions were
//! kept, a parametric stand-in (the median plus normal noise of the size its IQR implies).
use crate::fit::gap_line;
use crate::segment::{bic_penalty, segment, Series};
use crate::stats::{lower_median, median, percentile_ci, sd, Rng};
use crate::Settings;
use loggp_report::{Point, Range};

/// Per-size quantities in ns: G_all, o_s, o_r, L.
pub const GALL: usize = 0;
pub const OS: usize = 1;
pub const OR: usize = 2;
pub const LAT: usize = 3;
pub type Quantities = [f64; 4];

/// The estimate (replicate 0) and `B` bootstrap replicates of every point's quantities.
#[derive(Clone, Debug, Default)]
pub struct Boot {
    /// `reps[r][i]`: replicate r of point i; r = 0 is the estimate itself.
    pub reps: Vec<Vec<Quantities>>,
}

impl Boot {
    pub fn estimate(&self, i: usize) -> Quantities {
        self.reps[0][i]
    }
    /// The bootstrap standard deviation of quantity q at point i.
    pub fn sd(&self, i: usize, q: usize) -> f64 {
        let v: Vec<f64> = self.reps[1..].iter().map(|r| r[i][q]).collect();
        sd(&v)
    }
}

/// How a replicate takes a probe's repetitions.
enum Draw<'a> {
    /// The estimate itself: every repetition as it is.
    Estimate,
    /// Repetitions in pass order: the replicate's draw per slot, uniform in [0, 1), the
    /// same for every size and probe (a slow moment drawn is drawn for all), each slot
    /// taking one of the passes of its own direction (the passes alternate directions).
    Passes(&'a [f64]),
    /// Each probe's repetitions resampled on their own (reports before the passes).
    Independent,
}

/// The lower median (`stats::lower_median`) of the values `take` picks per slot of each
/// direction (even and odd passes), averaged over the directions present: each process of the pair sends in one
/// of them (see the shim's `engine::Client::reverse`), and the pair's figure weighs both
/// alike, where the median of all passes took whichever process had more of them.
fn by_direction(
    len: usize,
    slots: usize,
    take: impl Fn(usize) -> Option<usize>,
    reps: &[f64],
) -> f64 {
    let mut sides = [vec![], vec![]];
    for k in 0..slots.max(len) {
        if let Some(i) = take(k) {
            sides[k % 2].push(reps[i]);
        }
    }
    let m: Vec<f64> = sides.iter().filter_map(|v| lower_median(v)).collect();
    if m.is_empty() {
        f64::NAN
    } else {
        m.iter().sum::<f64>() / m.len() as f64
    }
}

/// One probe's value for a replicate: from its repetitions, or the parametric stand-in.
fn probe(
    reps: &[f64],
    stored: Option<f64>,
    rel_sd: f64,
    n: u64,
    draw: &Draw,
    by_pass: bool,
    rng: &mut Rng,
) -> f64 {
    if !reps.is_empty() {
        let len = reps.len();
        return match draw {
            Draw::Estimate if by_pass => by_direction(len, len, |k| (k < len).then_some(k), reps),
            Draw::Estimate => median(reps).unwrap_or(f64::NAN),
            Draw::Passes(u) => {
                // Each of this size's own slots (a large size has fewer passes than the
                // set) draws uniformly among its own passes of the slot's direction.
                let pick = |k: usize| {
                    let own = (len - k % 2).div_ceil(2);
                    let j = ((u.get(k)? * own as f64) as usize).min(own - 1);
                    Some(k % 2 + 2 * j)
                };
                by_direction(len, len, |k| (k < len).then(|| pick(k)).flatten(), reps)
            }
            Draw::Independent => {
                let v: Vec<f64> = (0..len).map(|_| reps[rng.below(len)]).collect();
                median(&v).unwrap_or(f64::NAN)
            }
        };
    }
    let m = stored.unwrap_or(f64::NAN);
    if matches!(draw, Draw::Estimate) {
        m
    } else {
        // Standard error of a median: 1.2533 σ/√n, σ from the IQR (IQR/1.349).
        m * (1.0 + rel_sd * 1.2533 / (n.max(1) as f64).sqrt() * rng.normal())
    }
}

/// Bootstrap replicates of every point (deterministic for a given seed). `by_pass`: the
/// repetitions are in pass order, the passes alternating directions (the set has
/// `passes`): a replicate draws whole passes, the same for every size and probe, each
/// slot from the passes of its own direction (a stratified bootstrap), and every value
/// weighs both directions alike; otherwise each probe's repetitions are resampled on
/// their own.
pub fn bootstrap(points: &[Point], n: u64, b: usize, seed: u64, by_pass: bool) -> Boot {
    let mut rng = Rng::new(seed);
    let k = (n.max(2) - 1) as f64;
    let passes = points
        .iter()
        .map(|p| p.prtt_1_0_reps_ns.len())
        .max()
        .unwrap_or(0);
    let reps = (0..=b)
        .map(|r| {
            let slots: Vec<f64> = if r > 0 && by_pass {
                (0..passes).map(|_| rng.uniform()).collect()
            } else {
                vec![]
            };
            let draw = match (r, by_pass) {
                (0, _) => Draw::Estimate,
                (_, true) => Draw::Passes(&slots),
                (_, false) => Draw::Independent,
            };
            points
                .iter()
                .map(|p| {
                    let p1_stored = p.prtt_1_0_ns;
                    let rel = match (p.prtt_1_0_iqr_ns, p1_stored) {
                        (Some(iqr), Some(m)) if m > 0.0 => iqr / 1.349 / m,
                        _ => 0.05,
                    };
                    let reps_n = p.repetitions.max(1);
                    let mut one = |v: &[f64], stored: Option<f64>, n_of: u64| {
                        probe(v, stored, rel, n_of, &draw, by_pass, &mut rng)
                    };
                    let p1 = one(&p.prtt_1_0_reps_ns, p1_stored, reps_n);
                    let pn = one(&p.prtt_n_0_reps_ns, p.prtt_n_0_ns, reps_n);
                    let pnd = one(&p.prtt_n_d_reps_ns, p.prtt_n_d_ns, reps_n);
                    let or_n = if by_pass {
                        reps_n
                    } else {
                        reps_n * (n.max(2) - 1)
                    };
                    let or = one(&p.recv_overhead_reps_ns, p.recv_overhead_ns, or_n);
                    let delay = p.delay_ns.unwrap_or(0.0);
                    [(pn - p1) / k, (pnd - p1) / k - delay, or, p1 / 2.0]
                })
                .collect()
        })
        .collect();
    Boot { reps }
}

/// The first size whose send waited for a late receiver, confirmed by the next: where the
/// eager range ends (protocol T against TA/RTA/RAT, altawil-moritz §3.2).
pub fn eager_split(points: &[Point]) -> Option<usize> {
    let w: Vec<bool> = points
        .iter()
        .map(|p| p.send_waits_for_receiver == Some(true))
        .collect();
    (0..w.len()).find(|&i| w[i] && w.get(i + 1).copied().unwrap_or(true))
}

/// Each point's σ for quantity q: its bootstrap spread, floored (see `segment`).
fn sigmas(boot: &Boot, q: usize, s: &Settings) -> Vec<f64> {
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

pub const METHOD: &str = "g, G: least squares of G_all(s) = g + (s−1)G (hoefler2007 Eq. 7) constrained to g, G ≥ 0, weights 1/σ²; o_s (Eq. 6), o_r: medians over the range's sizes; L: PRTT(1,0,s)/2 at its smallest sizes (median of up to 3 within twice the smallest)";

/// What a set's intervals cover, for its ranges' `method`.
pub fn interval_method(by_pass: bool, s: &Settings) -> String {
    let boot = if by_pass {
        "the bootstrap over the calibration's passes (whole passes resampled, every size alike)"
    } else {
        "the bootstrap over each probe's repetitions (a report before the passes)"
    };
    let b = &s.between_run;
    format!(
        "{:.0} % intervals for the estimate of a repeat run of this job on this machine: {boot}, widened for the repeat run's own error and for how far the machine's level moves between runs (1σ on the log scale: o_s {:.2}, o_r {:.2}, g {:.2}, G {:.2}, L {:.2}; measured on the 2-core VM loggp is tested on, `loggp repeat` measures them on yours, `loggp refit --between-run` sets them)",
        s.repeat_level * 100.0,
        b[0],
        b[1],
        b[2],
        b[3],
        b[4]
    )
}

/// The two-sided normal quantile of a central probability (the few levels loggp uses).
pub fn z_of(level: f64) -> f64 {
    // Acklam's rational approximation of the inverse normal CDF is overkill here:
    // interpolate in a small table of exact values.
    const T: [(f64, f64); 7] = [
        (0.50, 0.674_49),
        (0.68, 0.994_46),
        (0.80, 1.281_55),
        (0.90, 1.644_85),
        (0.95, 1.959_96),
        (0.99, 2.575_83),
        (0.999, 3.290_53),
    ];
    let l = level.clamp(T[0].0, T[6].0);
    let i = T.iter().position(|t| t.0 >= l).unwrap_or(6).max(1);
    let ((a, za), (b, zb)) = (T[i - 1], T[i]);
    za + (zb - za) * (l - a) / (b - a)
}

/// The interval (at `level`) in which the estimate of a repeat run falls, from the
/// bootstrap replicates `reps` of this run's estimate `est`, and a note where the
/// estimate lies outside its own bootstrap interval (bias: said, and not hidden by
/// stretching the interval to it).
///
/// The next run's estimate differs from this one by both runs' errors (each as wide as
/// the bootstrap shows: √2) and by how far the machine's level moved between the runs
/// beyond what one run's passes saw (`between_log_sd` per run, on the log scale: the same
/// call costs a multiple, not a sum, more in a slower phase; √2 again). The interval is
/// built around the bootstrap's median, on the log scale, so a biased estimate can fall
/// outside it and fail the report scan (`check`); `floor` (a timer step, for values read
/// off the timer directly) widens it at least that much either side. Where the bootstrap
/// reaches zero (a gap at its constraint), the lower end is 0.
pub fn repeat_interval(
    est: f64,
    reps: &[f64],
    between_log_sd: f64,
    level: f64,
    floor: f64,
) -> (Option<[f64; 2]>, Option<String>) {
    let Some([q_lo, q_hi]) = percentile_ci(reps) else {
        return (None, None);
    };
    let m = median(reps).unwrap_or(est);
    let z = z_of(level);
    // The bootstrap's percentile interval is at 95 %: its half-widths at `level`.
    let k = z / z_of(0.95);
    let drift = z * std::f64::consts::SQRT_2 * between_log_sd;
    let spread = |h: f64| (2.0 * (k * h).powi(2) + drift * drift).sqrt();
    let (mut lo, mut hi) = if m > 0.0 && q_hi > 0.0 {
        let hi = m * spread((q_hi / m).ln()).exp();
        let lo = if q_lo > 0.0 {
            m * (-spread((m / q_lo).ln())).exp()
        } else {
            0.0
        };
        (lo, hi)
    } else {
        (0.0, m.max(0.0) + 2.0f64.sqrt() * k * (q_hi - m).max(0.0))
    };
    lo = lo.min(m - floor).max(0.0);
    hi = hi.max(m + floor);
    let tol = 1e-9 * est.abs().max(1.0);
    let bias = (est < q_lo - tol || est > q_hi + tol).then(|| {
        format!(
            "the estimate {est:.4} lies outside its own bootstrap interval [{q_lo:.4}, {q_hi:.4}]: the estimator is biased here"
        )
    });
    (Some([lo, hi]), bias)
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
fn split_at(points: &[Point], bounds: &[u64]) -> Vec<(usize, usize)> {
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

fn ranges_hi(r: &[Range]) -> u64 {
    r.last().map(|x| x.size_hi_bytes).unwrap_or(0)
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A calibration set of a LogGP machine (ground truth §3): per range (last size, g,
    /// G, o_s), PRTT repetitions with ±4 % jitter and timer steps of 10 ns.
    pub fn machine_points(
        ranges: &[(u64, f64, f64, f64)],
        eager_limit: Option<u64>,
        reps: usize,
        seed: u64,
    ) -> Vec<Point> {
        let n = 16u64;
        let mut rng = Rng::new(seed);
        let mut sizes = vec![1u64];
        let mut k = 1.0f64;
        while 2f64.powf(k) <= (1u64 << 20) as f64 {
            for j in 0..4 {
                let s = 2f64.powf(k + j as f64 / 4.0).round() as u64;
                if *sizes.last().unwrap() != s {
                    sizes.push(s);
                }
            }
            k += 1.0;
        }
        let l = 300.0;
        sizes
            .iter()
            .map(|&s| {
                let (_, g, gg, os) = *ranges
                    .iter()
                    .find(|r| s <= r.0)
                    .unwrap_or(ranges.last().unwrap());
                let rdv = eager_limit.is_some_and(|e| s > e);
                let gall = g + (s as f64 - 1.0) * gg;
                let p1 = 2.0 * (l + os + (s as f64) * gg);
                let d = p1;
                let mut draw = |v: f64| -> Vec<f64> {
                    (0..reps)
                        .map(|_| ((v * (1.0 + 0.04 * rng.normal())) / 10.0).round() * 10.0)
                        .collect()
                };
                let r1 = draw(p1);
                let rn = draw(p1 + (n - 1) as f64 * gall);
                let rnd = draw(p1 + (n - 1) as f64 * (os + d));
                let ror = draw(os * 0.8);
                Point {
                    size_bytes: s,
                    prtt_1_0_ns: median(&r1),
                    prtt_n_0_ns: median(&rn),
                    prtt_n_d_ns: median(&rnd),
                    recv_overhead_ns: median(&ror),
                    delay_ns: Some(d),
                    repetitions: reps as u64,
                    prtt_1_0_reps_ns: r1,
                    prtt_n_0_reps_ns: rn,
                    prtt_n_d_reps_ns: rnd,
                    recv_overhead_reps_ns: ror,
                    send_waits_for_receiver: Some(rdv),
                    ..Default::default()
                }
            })
            .collect()
    }

    const THREE: [(u64, f64, f64, f64); 3] = [
        (256, 80.0, 0.12, 60.0),
        (4040, 300.0, 0.09, 340.0),
        (u64::MAX, 2200.0, 0.075, 2300.0),
    ];

    /// A level change over time (the VM slower by 1.8 × from 92682 B on, as the
    /// calibration probes sizes in increasing order) splits the rendezvous range; once the
    /// calibration has seen that it does not repeat, the split stays in the fit but is no
    /// switch: the range ends at the last size before it, and its note says why.
    #[test]
    fn a_level_change_that_did_not_repeat_is_not_a_switch() {
        let s = Settings::default();
        let mut pts = machine_points(&THREE, Some(4040), 5, 7);
        for p in pts.iter_mut().filter(|p| p.size_bytes >= 92682) {
            for v in [
                &mut p.prtt_1_0_reps_ns,
                &mut p.prtt_n_0_reps_ns,
                &mut p.prtt_n_d_reps_ns,
            ] {
                v.iter_mut().for_each(|x| *x *= 1.8);
            }
            for v in [&mut p.prtt_1_0_ns, &mut p.prtt_n_0_ns, &mut p.prtt_n_d_ns] {
                *v = v.map(|x| x * 1.8);
            }
        }
        let input = |switches: &'static [u64], not: &'static [[u64; 2]]| SetInput {
            points: &pts,
            n: 16,
            switches,
            not_repeated: not,
            ..Default::default()
        };
        let split = fit_set(&input(&[256, 4040, 85000], &[]), &s);
        assert_eq!(split.ranges.len(), 4, "{:#?}", split.ranges);
        assert_eq!(split.ranges[2].size_hi_bytes, 85000);
        assert!(split.ranges[2].note.is_none());
        let f = fit_set(&input(&[256, 4040], &[[77936, 92682]]), &s);
        let hi: Vec<u64> = f.ranges.iter().map(|r| r.size_hi_bytes).collect();
        assert_eq!(hi, [256, 4040, 77936, pts.last().unwrap().size_bytes]);
        let note = f.ranges[2].note.clone().unwrap_or_default();
        assert!(note.contains("did not repeat"), "{note}");
    }

    #[test]
    fn three_ranges_non_negative_with_intervals_that_cover_the_truth() {
        let s = Settings::default();
        let (mut exact, mut covered, mut total) = (0, 0, 0);
        for seed in 1..=40u64 {
            let pts = machine_points(&THREE, Some(4040), 5, seed);
            let f = fit_set(
                &SetInput {
                    points: &pts,
                    n: 16,
                    switches: &[256, 4040],
                    ..Default::default()
                },
                &s,
            );
            if f.ranges.len() == 3 {
                exact += 1;
                for (r, &(_, g, gg, os)) in f.ranges.iter().zip(&THREE) {
                    for (v, ci, truth) in [
                        (r.gap_ns, r.gap_ns_ci, g),
                        (r.gap_per_byte_ns, r.gap_per_byte_ns_ci, gg),
                        (r.send_overhead_ns, r.send_overhead_ns_ci, os),
                    ] {
                        let (v, [lo, hi]) = (v.unwrap(), ci.unwrap());
                        assert!(v >= 0.0 && lo <= v && v <= hi);
                        total += 1;
                        if lo <= truth && truth <= hi {
                            covered += 1;
                        }
                    }
                }
                assert_eq!(f.ranges[0].size_hi_bytes, 256);
                assert_eq!(f.ranges[1].size_hi_bytes, 4040);
            }
        }
        assert!(exact >= 38, "three ranges in {exact} of 40");
        assert!(
            covered * 10 >= total * 9,
            "intervals cover the truth in {covered} of {total}"
        );
    }
}
