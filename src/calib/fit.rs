//! Fitting PRTT measurements: least squares lines, the protocol-change detection of
//! Hoefler et al. 2007 §3.5, and the LogGP parameters of each protocol range.
//!
//! The quantity fitted is Eq. (7): `(PRTT(n,0,s) − PRTT(1,0,s)) / (n − 1) = g + (s − 1)·G`,
//! so within one protocol range it is a line in `s` whose value at s = 1 is g and whose
//! slope is G. A protocol switch shows as a point after which the line no longer fits: the
//! mean squared deviation of the extended interval grows by more than `pfact` for each of
//! the next `lookahead` points (a single outlier cannot do that).

/// A fitted line `y = intercept + slope · x`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    pub intercept: f64,
    pub slope: f64,
}

impl Line {
    pub fn at(&self, x: f64) -> f64 {
        self.intercept + self.slope * x
    }
}

/// Ordinary least squares over (x, y). With one point, a flat line through it.
pub fn least_squares(pts: &[(f64, f64)]) -> Option<Line> {
    weighted_line(pts, |_| 1.0)
}

/// Weighted least squares, weight `w(y)` per point.
fn weighted_line(pts: &[(f64, f64)], w: impl Fn(f64) -> f64) -> Option<Line> {
    let (mut sw, mut sx, mut sy) = (0.0, 0.0, 0.0);
    for &(x, y) in pts {
        sw += w(y);
        sx += w(y) * x;
        sy += w(y) * y;
    }
    if sw == 0.0 {
        return None;
    }
    let (mx, my) = (sx / sw, sy / sw);
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for &(x, y) in pts {
        sxx += w(y) * (x - mx) * (x - mx);
        sxy += w(y) * (x - mx) * (y - my);
    }
    if sxx <= 0.0 {
        return Some(Line {
            intercept: my,
            slope: 0.0,
        });
    }
    let slope = sxy / sxx;
    Some(Line {
        intercept: my - slope * mx,
        slope,
    })
}

/// Least squares that ignores single outliers: fit, drop the points whose residual is
/// above 4 × the median absolute residual (and above 1 % of the value), fit again.
pub fn robust_line(pts: &[(f64, f64)]) -> Option<Line> {
    robust(pts, false)
}

/// [`robust_line`] with every point weighted by its relative error (residuals judged
/// relative too). For the calibration's ranges: controlled measurements of one quantity,
/// G_all(s), at sizes spaced geometrically over decades, where unweighted the largest
/// sizes alone decide the intercept and g (the line at 1 byte) can come out negative from
/// one noisy megabyte point. Not for the passive envelopes, whose bins may mix calls of
/// different kinds (an empty reply beside megabyte messages) that relative weights would
/// let dominate.
pub fn robust_relative_line(pts: &[(f64, f64)]) -> Option<Line> {
    robust(pts, true)
}

fn robust(pts: &[(f64, f64)], relative: bool) -> Option<Line> {
    let fit = |p: &[(f64, f64)]| {
        if relative {
            relative_line(p)
        } else {
            least_squares(p)
        }
    };
    let first = fit(pts)?;
    if pts.len() < 5 {
        return Some(first);
    }
    let scale = |y: f64| if relative { y.abs().max(1e-12) } else { 1.0 };
    let res_of = |(x, y): (f64, f64)| (y - first.at(x)).abs() / scale(y);
    let mut res: Vec<f64> = pts.iter().map(|&p| res_of(p)).collect();
    res.sort_by(f64::total_cmp);
    let mad = res[res.len() / 2];
    let kept: Vec<(f64, f64)> = pts
        .iter()
        .copied()
        .filter(|&(x, y)| {
            let r = res_of((x, y));
            r <= 4.0 * mad || r * scale(y) <= 0.01 * y.abs()
        })
        .collect();
    if kept.len() >= 3 && kept.len() < pts.len() {
        fit(&kept)
    } else {
        Some(first)
    }
}

/// Weighted least squares with weights 1/y²: every point counts by its relative error,
/// which suits sizes spaced by powers of two (values span orders of magnitude).
fn relative_line(pts: &[(f64, f64)]) -> Option<Line> {
    weighted_line(pts, |y| 1.0 / (y * y).max(1e-12))
}

/// Squared residual relative to the value, or to `y_floor` where the value is smaller
/// (below it a deviation is judged against the clock's resolution, not the value).
fn rel_residual2(line: &Line, (x, y): (f64, f64), y_floor: f64) -> f64 {
    ((line.at(x) - y) / y.abs().max(y_floor).max(1e-12)).powi(2)
}

/// Settings of the change detection.
#[derive(Clone, Copy, Debug)]
pub struct Detect {
    /// Points looked ahead (Netgauge: 5).
    pub lookahead: usize,
    /// Growth factor of the mean squared deviation that marks a change (Netgauge: 2.0).
    pub pfact: f64,
    /// Relative noise below which deviations do not count (squared into the floor).
    pub rel_noise: f64,
    /// Absolute noise (units of y) below which deviations do not count: the timer's
    /// resolution, which dominates the relative noise for the shortest calls.
    pub abs_noise: f64,
}

impl Default for Detect {
    fn default() -> Self {
        Detect {
            lookahead: 5,
            pfact: 2.0,
            rel_noise: 0.03,
            abs_noise: 0.0,
        }
    }
}

/// Splits points sorted by x into protocol ranges; returns the index ranges (inclusive).
///
/// After §3.5: the mean squared deviation `lsq(lastchange, current)` of the current range
/// from its fit is compared with the deviation once a following point joins it; a change
/// is declared at `current` when each of the next `lookahead` points, joining on its own,
/// raises it by more than `pfact`. Deviations are relative (sizes are spaced
/// geometrically), the fit ignores single outliers, and `rel_noise` is the floor of the
/// deviation (a near-perfect fit must not make measurement noise look like a change).
pub fn detect_changes(pts: &[(f64, f64)], d: &Detect) -> Vec<(usize, usize)> {
    let n = pts.len();
    if n < 3 {
        return if n == 0 { vec![] } else { vec![(0, n - 1)] };
    }
    let floor = d.rel_noise * d.rel_noise;
    let y_floor = if d.rel_noise > 0.0 {
        d.abs_noise / d.rel_noise
    } else {
        0.0
    };
    let mut ranges = vec![];
    let mut last = 0;
    let mut cur = 2;
    while cur + 1 < n {
        let seg = &pts[last..=cur];
        let Some(mut line) = relative_line(seg) else {
            break;
        };
        // Drop single outliers from the base fit (4 × the median relative residual).
        let mut r2: Vec<f64> = seg
            .iter()
            .map(|&p| rel_residual2(&line, p, y_floor))
            .collect();
        let mut sorted = r2.clone();
        sorted.sort_by(f64::total_cmp);
        let cut = (16.0 * sorted[sorted.len() / 2]).max(floor);
        let kept: Vec<(f64, f64)> = seg
            .iter()
            .zip(&r2)
            .filter(|(_, &r)| r <= cut)
            .map(|(p, _)| *p)
            .collect();
        if kept.len() >= 3 && kept.len() < seg.len() {
            if let Some(l) = relative_line(&kept) {
                line = l;
                r2 = kept
                    .iter()
                    .map(|&p| rel_residual2(&line, p, y_floor))
                    .collect();
            }
        }
        let dof = (r2.len() as f64 - 2.0).max(1.0);
        let base = (r2.iter().sum::<f64>() / dof).max(floor);
        // lsq with one more point > pfact × base  <=>  its residual² > base·(pfact(dof+1) − dof)
        let limit = base * (d.pfact * (dof + 1.0) - dof);
        let ahead = d.lookahead.min(n - 1 - cur);
        let changed =
            ahead > 0 && (1..=ahead).all(|j| rel_residual2(&line, pts[cur + j], y_floor) > limit);
        if changed {
            ranges.push((last, cur));
            last = cur + 1;
            cur = last + 2;
        } else {
            cur += 1;
        }
    }
    ranges.push((last, n - 1));
    // A tail of fewer than 3 points cannot be its own range: join it to the previous one.
    if ranges.len() > 1 {
        let (a, b) = ranges[ranges.len() - 1];
        if b - a < 2 {
            ranges.pop();
            let last = ranges.len() - 1;
            ranges[last].1 = b;
        }
    }
    ranges
}

/// The value of a robust summary of repeated samples.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    pub median: f64,
    pub min: f64,
    /// Interquartile range.
    pub iqr: f64,
    pub n: usize,
}

pub fn summarize(samples: &mut [f64]) -> Summary {
    if samples.is_empty() {
        return Summary::default();
    }
    samples.sort_by(f64::total_cmp);
    let q = |p: f64| samples[((samples.len() - 1) as f64 * p).round() as usize];
    Summary {
        median: q(0.5),
        min: samples[0],
        iqr: q(0.75) - q(0.25),
        n: samples.len(),
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A tiny deterministic generator (xorshift) for synthetic noise.
    pub struct Rng(pub u64);
    impl Rng {
        pub fn uniform(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
        /// Uniform in [-1, 1).
        pub fn sym(&mut self) -> f64 {
            2.0 * self.uniform() - 1.0
        }
    }

    /// G_all(s) of a machine with two protocols switching above `switch` bytes.
    fn synthetic(
        sizes: &[f64],
        switch: f64,
        noise: f64,
        outlier_at: Option<usize>,
        seed: u64,
    ) -> Vec<(f64, f64)> {
        let mut rng = Rng(seed);
        sizes
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                // eager: g = 400 ns, G = 0.1 ns/B; rendezvous: g = 3000 ns, G = 0.05 ns/B
                let (g, gb) = if s <= switch {
                    (400.0, 0.1)
                } else {
                    (3000.0, 0.05)
                };
                let mut y = g + (s - 1.0) * gb;
                y *= 1.0 + noise * rng.sym();
                if Some(i) == outlier_at {
                    y *= 3.0;
                }
                (s, y)
            })
            .collect()
    }

    fn sizes() -> Vec<f64> {
        let mut v = vec![1.0];
        let mut s = 2.0f64;
        while s <= 1048576.0 {
            for k in 0..4 {
                v.push((s * 2f64.powf(k as f64 / 4.0)).round());
            }
            s *= 2.0;
        }
        v
    }

    #[test]
    fn recovers_g_and_big_g_and_the_switch_with_noise_and_an_outlier() {
        let sz = sizes();
        for seed in 1..20u64 {
            let pts = synthetic(&sz, 4040.0, 0.01, Some(10 + seed as usize % 30), seed);
            let r = detect_changes(&pts, &Detect::default());
            assert_eq!(r.len(), 2, "seed {seed}: {r:?}");
            let (a, b) = r[0];
            assert!(
                pts[b].0 <= 4040.0 && pts[b + 1].0 > 4040.0,
                "switch at the right size: {}",
                pts[b].0
            );
            let left = robust_line(&pts[a..=b]).unwrap();
            let right = robust_line(&pts[r[1].0..=r[1].1]).unwrap();
            let g = left.at(1.0);
            assert!((g - 400.1).abs() / 400.0 < 0.02, "g {g}");
            assert!((left.slope - 0.1).abs() / 0.1 < 0.02, "G {}", left.slope);
            assert!(
                (right.at(1.0) - 3000.0).abs() / 3000.0 < 0.02,
                "g2 {}",
                right.at(1.0)
            );
            assert!(
                (right.slope - 0.05).abs() / 0.05 < 0.02,
                "G2 {}",
                right.slope
            );
        }
    }

    #[test]
    fn a_single_outlier_is_not_a_protocol_change() {
        let sz = sizes();
        let pts = synthetic(&sz, f64::INFINITY, 0.01, Some(40), 7);
        assert_eq!(detect_changes(&pts, &Detect::default()).len(), 1);
    }

    #[test]
    fn summaries() {
        let mut v = vec![5.0, 1.0, 3.0, 2.0, 4.0];
        let s = summarize(&mut v);
        assert_eq!((s.median, s.min, s.iqr, s.n), (3.0, 1.0, 2.0, 5));
    }
}
