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

#[inline(always)]
pub fn hist_index(v: u64) -> usize {
    if v < 32 {
        v as usize
    } else {
        let e = 63 - v.leading_zeros();
        if e > HIST_OCTAVE_MAX {
            return HIST_BUCKETS - 1;
        }
        let sub = ((v >> (e - 4)) & 15) as u32;
        (32 + (e - 5) * 16 + sub) as usize
    }
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

/// A 95 % interval of the q-quantile of a sparse histogram: the buckets holding the
/// order statistics of ranks `n·q ∓ 1.96·√(n·q·(1−q))` (the distribution-free interval of
/// a quantile), from the low one's lower edge to the high one's upper edge, so the
/// buckets' own width is inside it.
pub fn quantile_ci(hist: &[(u16, u64)], q: f64) -> Option<[f64; 2]> {
    let n: u64 = hist.iter().map(|&(_, c)| c).sum();
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let half = 1.96 * (nf * q * (1.0 - q)).sqrt();
    let lo_rank = ((nf * q - half).floor() as u64).clamp(1, n);
    let hi_rank = ((nf * q + half).ceil() as u64).clamp(1, n);
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
    Some([at(lo_rank).0 as f64, at(hi_rank).1 as f64])
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
}
