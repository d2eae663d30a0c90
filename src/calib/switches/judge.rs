//! Probes that judge a boundary between two ranges: a quantity at a size, whether a step
//! repeats, which side a size behaves as, and whether a step shows one byte apart.
use super::super::engine::{Client, Control, Transport};
use loggp_model::active as model;
use loggp_model::stats::summarize;

/// Quantity `q` (`model::GALL`, `OS` or `LAT`) at size `s`, in ns, from `reps`
/// repetitions of the probes it needs: G_all = (PRTT(n,0,s) − PRTT(1,0,s))/(n−1)
/// (hoefler2007 Eq. 7), o_s = (PRTT(n,d,s) − PRTT(1,0,s))/(n−1) − d with d = PRTT(1,0,s)
/// (Eq. 6), L = PRTT(1,0,s)/2. None where a probe failed.
pub(super) fn quantity<T: Transport, C: Control>(
    c: &mut Client<T, C>,
    q: usize,
    s: usize,
    n: u64,
    reps: u64,
    ns_per_tick: f64,
) -> Option<f64> {
    let p1 = summarize(&mut c.prtt(1, 0, s, reps)?).median;
    let k = (n - 1) as f64;
    let ticks = match q {
        model::GALL => (summarize(&mut c.prtt(n, 0, s, reps)?).median - p1) / k,
        model::OS => (summarize(&mut c.prtt(n, p1 as u64, s, reps)?).median - p1) / k - p1,
        _ => p1 / 2.0,
    };
    Some(ticks * ns_per_tick)
}

/// Whether size `mid` behaves as the left range (lines `left`, `right` of quantity q):
/// `lo`, `mid` and `hi` are probed back to back, and mid is judged against what each
/// side's neighbour predicts for it — y(lo)·left(mid)/left(lo) against
/// y(hi)·right(mid)/right(hi), on the log scale. A change of the machine's level since
/// the passes moves all three alike and cancels, where judging against the passes' own
/// lines took a slower phase for the other range. None where a probe failed.
#[allow(clippy::too_many_arguments)]
pub(super) fn behaves_left<T: Transport, C: Control>(
    c: &mut Client<T, C>,
    q: usize,
    (lo, mid, hi): (usize, usize, usize),
    n: u64,
    reps: u64,
    ns_per_tick: f64,
    left: (f64, f64),
    right: (f64, f64),
) -> Option<bool> {
    let y_lo = quantity(c, q, lo, n, reps, ns_per_tick)?;
    let y_mid = quantity(c, q, mid, n, reps, ns_per_tick)?;
    let y_hi = quantity(c, q, hi, n, reps, ns_per_tick)?;
    let ln = |x: f64| x.max(1e-3).ln();
    let as_left = ln(y_lo) + ln(line_at(left, mid)) - ln(line_at(left, lo));
    let as_right = ln(y_hi) + ln(line_at(right, mid)) - ln(line_at(right, hi));
    Some((ln(y_mid) - as_left).abs() <= (ln(y_mid) - as_right).abs())
}

/// Whether the step between the sizes `lo` and `hi` repeats: both probed back to back,
/// their ratio judged against the step the two ranges' lines make there and against no
/// step (the left range going on), on the log scale (a common change of level cancels).
/// Where the layer beneath names a limit between the two sizes (`named`), a step in the
/// lines' direction larger than a quarter, beyond the run-to-run drift of 15 %, repeats
/// too: the lines extrapolate the right range's level to its first size and can put the
/// step far above what the sizes show (MPICH's 91|108 B in o_s: lines 113 → 253 ns,
/// probes 134–139 → 194–204 ns, three times in a run that lost the 92-byte switch).
#[allow(clippy::too_many_arguments)]
pub(super) fn step_repeats<T: Transport, C: Control>(
    c: &mut Client<T, C>,
    q: usize,
    (lo, hi): (usize, usize),
    n: u64,
    reps: u64,
    ns_per_tick: f64,
    left: (f64, f64),
    right: (f64, f64),
    named: bool,
) -> Option<bool> {
    let y_lo = quantity(c, q, lo, n, reps, ns_per_tick)?;
    let y_hi = quantity(c, q, hi, n, reps, ns_per_tick)?;
    let ln = |x: f64| x.max(1e-3).ln();
    let seen = ln(y_hi) - ln(y_lo);
    let step = ln(line_at(right, hi)) - ln(line_at(left, lo));
    let none = ln(line_at(left, hi)) - ln(line_at(left, lo));
    let beyond_drift = named && (seen - none) * (step - none).signum() > 1.25f64.ln();
    Some((seen - step).abs() < (seen - none).abs() || beyond_drift)
}

/// Whether quantity `q` steps between sizes `h` and `h+1`, one byte apart, in direction
/// `up` (the two ranges' lines say which): both probed in `NAMED_ROUNDS` rounds of
/// alternating order, each round's ratio the ratio of the two values. Absent a switch,
/// one byte costs nothing measurable, and a change of the machine's level moves both sizes
/// alike and cancels in each round; a switch's next protocol costs differently. A step:
/// the median ratio beyond `NAMED_STEP` (its inverse going down), and all but two rounds
/// on that side of 1. Used at a limit the layer beneath names (UCX's am_short: the
/// schedule's sizes around it, 76, 91, 108 B, are far enough apart for the level to move
/// between them: Open MPI pml ucx's step of +11–35 % at 91|108 B was lost in 3 of 10 runs
/// of fresh-clone CI at 893af59, the lines' separation under a quarter), and to confirm a
/// bisected switch whose bracket's step did not repeat. None where a probe failed.
#[allow(clippy::too_many_arguments)]
pub(super) fn step_one_byte<T: Transport, C: Control>(
    c: &mut Client<T, C>,
    q: usize,
    h: usize,
    up: bool,
    n: u64,
    reps: u64,
    ns_per_tick: f64,
) -> Option<bool> {
    let mut ratios = Vec::with_capacity(NAMED_ROUNDS);
    for round in 0..NAMED_ROUNDS {
        let order = if round % 2 == 0 {
            [h, h + 1]
        } else {
            [h + 1, h]
        };
        let mut y = [0.0; 2];
        for s in order {
            y[s - h] = quantity(c, q, s, n, reps, ns_per_tick)?.max(1e-3);
        }
        let r = y[1] / y[0];
        ratios.push(if up { r } else { 1.0 / r });
    }
    let beyond = ratios.iter().filter(|&&r| r > 1.0).count();
    let median = summarize(&mut ratios).median;
    Some(median > NAMED_STEP && beyond + 2 >= NAMED_ROUNDS)
}

/// Rounds of [`step_one_byte`]: 9 rounds of two sizes of `reps` repetitions each (quick:
/// 90 round trips of about 1–2 µs for the round trip).
const NAMED_ROUNDS: usize = 9;
/// The least step at one byte taken for a switch. Open MPI pml ucx's round trip at 92|93 B
/// read 1.34–2.05 (median of the rounds, 16 quick runs), MPICH's 1.42–1.75 (6 runs); at
/// 60|61, 150|151 and 1000|1001 B, where nothing switches, 0.91–1.08 (36 probes on both
/// stacks; one MPICH run read 60|61 at 1.08 with 9 of 9 rounds above 1, so the round count
/// alone would not do).
const NAMED_STEP: f64 = 1.15;

/// A range's line at size `s`: c + (s−1)k (for G_all, g + (s−1)G).
pub(super) fn line_at((c, k): (f64, f64), s: usize) -> f64 {
    c + k * (s as f64 - 1.0)
}

/// How far apart two ranges' lines are at sizes `lo` and `hi` (the lesser of the two
/// relative gaps).
pub(super) fn separation(a: (f64, f64), b: (f64, f64), lo: usize, hi: usize) -> f64 {
    [lo, hi]
        .iter()
        .map(|&s| {
            let (ya, yb) = (line_at(a, s), line_at(b, s));
            (ya - yb).abs() / ya.max(yb).max(1e-9)
        })
        .fold(f64::INFINITY, f64::min)
}
