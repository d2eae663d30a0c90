//! The interval a repeat run falls in: the bootstrap's percentiles widened by the next
//! run's own error and the machine's level between runs.
use crate::stats::{median, percentile_ci};
use crate::Settings;

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
