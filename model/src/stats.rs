//! Small robust statistics: medians, percentiles, a deterministic generator for the
//! bootstrap, and the repetition summary the calibration keeps per probe.

/// A tiny deterministic generator (xorshift64): the bootstrap of a report must give the
/// same intervals each time it is refitted.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
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
    /// An index below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.uniform() * n as f64) as usize).min(n.saturating_sub(1))
    }
    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let u = self.uniform().max(1e-300);
        let v = self.uniform();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// The q-quantile of already sorted values (nearest rank on the (len − 1) grid).
pub fn quantile_sorted(v: &[f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let i = ((v.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
    Some(v[i])
}

pub fn sorted(v: &[f64]) -> Vec<f64> {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    s.sort_by(f64::total_cmp);
    s
}

pub fn median(v: &[f64]) -> Option<f64> {
    let s = sorted(v);
    if s.is_empty() {
        return None;
    }
    let m = s.len() / 2;
    Some(if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    })
}

/// The lower median: the middle value, or of two middle values the smaller. For the few
/// passes of one direction of a probe (two of five at large sizes) the mean of two let
/// one preempted pass double the figure; timings stray upwards, not down.
pub fn lower_median(v: &[f64]) -> Option<f64> {
    let s = sorted(v);
    s.get(s.len().checked_sub(1)? / 2).copied()
}

/// The 95 % percentile interval of bootstrap replicates.
pub fn percentile_ci(reps: &[f64]) -> Option<[f64; 2]> {
    let s = sorted(reps);
    Some([quantile_sorted(&s, 0.025)?, quantile_sorted(&s, 0.975)?])
}

pub fn sd(v: &[f64]) -> f64 {
    let n = v.len();
    if n < 2 {
        return 0.0;
    }
    let m = v.iter().sum::<f64>() / n as f64;
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
}

/// A robust summary of repeated samples.
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
mod tests {
    use super::*;

    #[test]
    fn summaries_and_medians() {
        let mut v = vec![5.0, 1.0, 3.0, 2.0, 4.0];
        let s = summarize(&mut v);
        assert_eq!((s.median, s.min, s.iqr, s.n), (3.0, 1.0, 2.0, 5));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
