//! The bootstrap over passes (or, for older reports, over each probe's repetitions): one
//! replicate of every quantity at every size per draw.
use crate::stats::{lower_median, median, sd, Rng};
use loggp_report::Point;

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
pub(super) enum Draw<'a> {
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
pub(super) fn by_direction(
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
pub(super) fn probe(
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
