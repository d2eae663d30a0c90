//! The two log-scale binnings of loggp, shared by the shim (which fills them) and the
//! tools (which read them back from reports).
//!
//! * Message sizes: exact below 16 bytes, then 8 bins per power of two (each 1/8 of an
//!   octave wide), fine enough to place a protocol switch to within 12.5 % before the
//!   per-bin smallest and largest sizes narrow it further.
//! * Durations: exact below 32 units, then 16 buckets per power of two, so a quantile read
//!   at a bucket's midpoint is within ±3.2 % of the true value.

/// Size bins: 16 exact ones, then 8 per octave for octaves 4..=63.
pub const SIZE_BINS: usize = 16 + 60 * 8;

#[inline(always)]
pub fn size_bin(size: u64) -> u16 {
    if size < 16 {
        size as u16
    } else {
        let e = 63 - size.leading_zeros();
        let sub = (size >> (e - 3)) & 7;
        (16 + (e - 4) * 8 + sub as u32) as u16
    }
}

/// Inclusive size range `[lo, hi]` of a size bin.
pub fn size_bin_range(bin: u16) -> (u64, u64) {
    let b = bin as u64;
    if b < 16 {
        return (b, b);
    }
    let e = (b - 16) / 8 + 4;
    let sub = (b - 16) % 8;
    let lo = (8 + sub) << (e - 3);
    let hi = lo.saturating_add((1u64 << (e - 3)) - 1);
    (lo, hi)
}

/// Duration buckets: 32 exact ones, then 16 per octave up to 2^44 units; longer durations
/// land in the last bucket (2^44 TSC ticks is over an hour on any current CPU).
pub const HIST_OCTAVE_MAX: u32 = 43;
pub const HIST_BUCKETS: usize = 32 + (HIST_OCTAVE_MAX as usize - 4) * 16;

///
/// Without branches (it runs on every intercepted call): with e the octave of v | 16, a
/// value's bucket is 16 (e − 4) + (v >> (e − 4)), which is v itself below 32 (e = 4, the
/// shift 0) and 32 + 16 (e − 5) + the 4 bits below the leading one above; the last
/// bucket takes everything from 2^44 up.
#[inline(always)]
pub fn hist_index(v: u64) -> usize {
    let e = 63 - (v | 16).leading_zeros();
    let idx = 16 * (e as u64 - 4) + (v >> (e - 4));
    (idx as usize).min(HIST_BUCKETS - 1)
}

/// Inclusive value range of a duration bucket.
pub fn hist_range(idx: usize) -> (u64, u64) {
    if idx < 32 {
        return (idx as u64, idx as u64);
    }
    let i = (idx - 32) as u64;
    let e = i / 16 + 5;
    let sub = i % 16;
    let lo = (16 + sub) << (e - 4);
    (lo, lo + (1u64 << (e - 4)) - 1)
}

/// The value a bucket stands for: its midpoint.
pub fn hist_mid(idx: usize) -> f64 {
    let (lo, hi) = hist_range(idx);
    (lo as f64 + hi as f64) / 2.0
}

/// The q-quantile (0..=1) of a sparse histogram given as (bucket, count), sorted by bucket.
/// Returns the midpoint of the bucket that holds the rank `ceil(q * n)` sample.
pub fn quantile(hist: &[(u16, u64)], q: f64) -> Option<f64> {
    let n: u64 = hist.iter().map(|&(_, c)| c).sum();
    if n == 0 {
        return None;
    }
    let rank = ((q.clamp(0.0, 1.0) * n as f64).ceil() as u64).max(1);
    let mut seen = 0u64;
    for &(idx, c) in hist {
        seen += c;
        if seen >= rank {
            return Some(hist_mid(idx as usize));
        }
    }
    hist.last().map(|&(i, _)| hist_mid(i as usize))
}

/// Ranks `(l, u)` (1-based order statistics of `n` values) of the distribution-free 95 %
/// interval of the q-quantile: X(l) ≤ ξ_q ≤ X(u) with probability at least 0.95, since the
/// number B of values below ξ_q is Binomial(n, q) and the interval fails only where
/// B < l or B ≥ u, each at most 2.5 % (Conover, "Practical Nonparametric Statistics",
/// 3rd ed. 1999, §3.2; David and Nagaraja, "Order Statistics", 2003, §7.1). `l` is None
/// where no order statistic bounds the quantile below (P(B = 0) = (1−q)ⁿ above 2.5 %: for
/// the 10th percentile, fewer than 36 values: the quantile may lie below every value
/// seen); `u` is None where none bounds it above. Exact binomial tails up to 1000
/// values, the normal approximation of the same ranks beyond (n·q·(1−q) ≥ 90 there for
/// the quantiles used, 0.1 and 0.5).
pub fn quantile_ci_ranks(n: u64, q: f64) -> (Option<u64>, Option<u64>) {
    const TAIL: f64 = 0.025;
    let q = q.clamp(1e-9, 1.0 - 1e-9);
    if n == 0 {
        return (None, None);
    }
    if n > 1000 {
        let nf = n as f64;
        let half = 1.96 * (nf * q * (1.0 - q)).sqrt();
        // With the continuity correction: P(B ≤ l − 1) ≈ Φ((l − ½ − nq)/σ).
        let l = (nf * q - half + 0.5).floor();
        let u = (nf * q + half + 0.5).ceil();
        return (
            (l >= 1.0).then_some(l as u64),
            (u <= nf).then_some(u as u64),
        );
    }
    // cdf[k] = P(B ≤ k), from the pmf's recurrence.
    let mut pmf = (1.0 - q).powi(n as i32);
    let mut cdf = Vec::with_capacity(n as usize + 1);
    let mut acc = 0.0;
    for k in 0..=n {
        acc += pmf;
        cdf.push(acc.min(1.0));
        pmf *= (n - k) as f64 / (k + 1) as f64 * q / (1.0 - q);
    }
    // The largest l with P(B ≤ l − 1) ≤ 2.5 %.
    let l = (1..=n).rev().find(|&l| cdf[(l - 1) as usize] <= TAIL);
    // The smallest u with P(B ≥ u) = 1 − P(B ≤ u − 1) ≤ 2.5 %.
    let u = (1..=n).find(|&u| 1.0 - cdf[(u - 1) as usize] <= TAIL);
    (l, u)
}

/// A 95 % interval of the q-quantile of a sparse histogram: from the lower edge of the
/// bucket holding order statistic X(l) to the upper edge of the one holding X(u)
/// ([`quantile_ci_ranks`]), so the buckets' own width is inside it. Where no order
/// statistic bounds it below, the lower end is 0 (the data cannot place the quantile
/// above anything); where none bounds it above (a single value, for the 10th
/// percentile), the upper end is the top of the highest bucket, and the interval then
/// covers less than 95 %.
pub fn quantile_ci(hist: &[(u16, u64)], q: f64) -> Option<[f64; 2]> {
    let n: u64 = hist.iter().map(|&(_, c)| c).sum();
    if n == 0 {
        return None;
    }
    let (l, u) = quantile_ci_ranks(n, q);
    let at = |rank: u64| {
        let mut seen = 0u64;
        for &(idx, c) in hist {
            seen += c;
            if seen >= rank {
                return hist_range(idx as usize);
            }
        }
        hist.last()
            .map(|&(i, _)| hist_range(i as usize))
            .unwrap_or((0, 0))
    };
    let lo = l.map(|l| at(l).0 as f64).unwrap_or(0.0);
    Some([lo, at(u.unwrap_or(n)).1 as f64])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_bins_cover_every_size_once_and_are_an_eighth_octave_wide() {
        let mut prev_hi = None;
        for bin in 0..SIZE_BINS as u16 {
            let (lo, hi) = size_bin_range(bin);
            if let Some(p) = prev_hi {
                assert_eq!(lo, p + 1, "bin {bin} does not follow on");
            }
            assert_eq!(size_bin(lo), bin);
            assert_eq!(size_bin(hi), bin);
            if lo >= 16 {
                assert!((hi - lo + 1) as f64 <= lo as f64 / 8.0 + 0.5);
            }
            if hi == u64::MAX {
                break;
            }
            prev_hi = Some(hi);
        }
        assert_eq!(size_bin(4096), size_bin(4096 + 511));
        assert_ne!(size_bin(4095), size_bin(4096));
    }

    #[test]
    fn hist_buckets_are_contiguous_and_relative_error_is_small() {
        for idx in 0..HIST_BUCKETS - 1 {
            let (lo, hi) = hist_range(idx);
            assert_eq!(hist_index(lo), idx);
            assert_eq!(hist_index(hi), idx);
            assert_eq!(hist_range(idx + 1).0, hi + 1);
            let mid = hist_mid(idx);
            assert!((mid - lo as f64) / lo.max(1) as f64 <= 0.032);
        }
        assert_eq!(hist_index(u64::MAX), HIST_BUCKETS - 1);
        // The same buckets as the branching form it replaced, at every bucket's edges
        // and around every power of two.
        let branching = |v: u64| -> usize {
            if v < 32 {
                return v as usize;
            }
            let e = 63 - v.leading_zeros();
            if e > HIST_OCTAVE_MAX {
                return HIST_BUCKETS - 1;
            }
            (32 + (e - 5) * 16 + ((v >> (e - 4)) & 15) as u32) as usize
        };
        for k in 0..64 {
            for v in [
                (1u64 << k) - 1,
                1 << k,
                (1 << k) + 1,
                (1 << k) | ((1 << k) - 1),
            ] {
                assert_eq!(hist_index(v), branching(v), "{v}");
            }
        }
        assert_eq!(hist_index(1 << 44), HIST_BUCKETS - 1);
    }

    #[test]
    fn quantiles_of_a_known_distribution() {
        // 1..=1000 once each: the median is 500 within the bucket error.
        let mut h = vec![0u64; HIST_BUCKETS];
        for v in 1..=1000u64 {
            h[hist_index(v)] += 1;
        }
        let sparse: Vec<(u16, u64)> = h
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| (i as u16, c))
            .collect();
        let p50 = quantile(&sparse, 0.5).unwrap();
        assert!((p50 - 500.0).abs() / 500.0 < 0.035, "{p50}");
        let p10 = quantile(&sparse, 0.1).unwrap();
        assert!((p10 - 100.0).abs() / 100.0 < 0.035, "{p10}");
        assert_eq!(quantile(&[], 0.5), None);
    }

    /// The ranks against exact binomial tails (computed independently): 7 calls bound the
    /// 10th percentile above by the 4th but not below; 36 is the first count that does;
    /// beyond 1000 the normal approximation's ranks are the exact ones or one wider.
    #[test]
    fn quantile_interval_ranks_are_the_binomial_ones() {
        assert_eq!(quantile_ci_ranks(1, 0.1), (None, None));
        assert_eq!(quantile_ci_ranks(2, 0.1), (None, Some(2)));
        assert_eq!(quantile_ci_ranks(7, 0.1), (None, Some(4)));
        assert_eq!(quantile_ci_ranks(35, 0.1), (None, Some(8)));
        assert_eq!(quantile_ci_ranks(36, 0.1).0, Some(1));
        assert_eq!(quantile_ci_ranks(100, 0.1), (Some(5), Some(17)));
        assert_eq!(quantile_ci_ranks(1000, 0.1), (Some(82), Some(120)));
        assert_eq!(quantile_ci_ranks(1001, 0.1), (Some(81), Some(120)));
        assert_eq!(quantile_ci_ranks(100, 0.5), (Some(40), Some(61)));
    }
}
