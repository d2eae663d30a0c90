//! The schedule of a pair's probes: every size of every channel measured once per pass,
//! over several passes. The first pass goes up in size and adapts the schedule to the link
//! (it stops growing, or thins, where the budget would not hold the rest); the later
//! passes take the same sizes in a shuffled order, each size's channels back to back.
//!
//! Why passes: a size's repetitions spread over the whole calibration sample how the
//! machine moved while it ran, where repetitions in a row sampled a few microseconds of it
//! (on this VM the cost of the same call changes level over seconds); the bootstrap over
//! passes (`loggp_model::active`) then widens the intervals by what it saw. A shuffled
//! order turns such a change into noise spread over all sizes, where an increasing order
//! made it a step at whatever size was being probed. And the raw transports are measured
//! moments apart from MPI at the same size, so a floor stays a floor. Every second pass
//! runs the other way round (the server sends and times): each process of a pair has its
//! own speed on a shared machine, and an even number of passes weighs both alike.
use super::engine::{measure_pass, Client, Control, SizeProbes, Transport};
use super::switches::{stop_of, Stop};
use loggp_model::stats::Rng;

/// The message sizes of a schedule: 1 byte, then `per_octave` sizes per power of two.
pub fn schedule(max: usize, per_octave: u32) -> Vec<usize> {
    let mut v = vec![1usize];
    let mut k = 1u32;
    while (1usize << k) <= max {
        for j in 0..per_octave {
            let s = (2f64.powf(k as f64 + j as f64 / per_octave as f64)).round() as usize;
            if s <= max && v.last() != Some(&s) {
                v.push(s);
            }
        }
        k += 1;
    }
    v
}

/// Passes the first one leaves room for, whatever the link: one each way.
const MIN_PASSES: usize = 2;

/// What the passes measured: per channel, per size of the schedule kept, its probes.
#[derive(Default)]
pub struct Passes {
    pub probes: Vec<Vec<SizeProbes>>,
    /// Passes completed (a size may have fewer: large ones are measured in at most 5, or
    /// 3 above 1 MiB or where one pass of them is slow).
    pub passes: usize,
    /// Where the schedule stopped growing or thinned, and why.
    pub note: Option<String>,
    pub cut: bool,
    pub stop: Option<Stop>,
}

/// Most passes a size takes part in: large messages vary little and each takes long.
fn passes_for(size: usize, slow: bool, planned: usize) -> usize {
    if size > 1 << 20 || slow {
        planned.min(3)
    } else if size > 64 << 10 {
        planned.min(5)
    } else {
        planned
    }
}

/// Runs the passes on `names.len()` channels until `end_ns` (CLOCK_MONOTONIC_RAW ns).
pub fn run<T: Transport, C: Control>(
    c: &mut Client<T, C>,
    names: &[String],
    sizes: &[usize],
    n: u64,
    planned: usize,
    end_ns: u64,
) -> Passes {
    let chans = names.len();
    let mut out = Passes {
        probes: vec![vec![]; chans],
        ..Default::default()
    };
    if chans == 0 {
        return out;
    }
    // Warm-up, not recorded: first messages pay for connection set-up and page faults
    // (the buffers are written in full beforehand), and every protocol path its first
    // use (UCX's bounce buffers for am_bcopy: the first round trips at 108 B took 5 µs
    // against 0.5 under Open MPI's pml ucx, after a warm-up at 1 B and at the largest
    // size only, and hid its 92-byte switch in the passes' noise). So: a burst at 1 B,
    // then one round trip at every size of the schedule up to 1 MiB (a burst at the
    // largest size cost 21 s at 200 Mbit/s with 16 MiB, the whole budget).
    let max = *sizes.last().unwrap_or(&0);
    for (k, name) in names.iter().enumerate() {
        c.select(k);
        let sweep = sizes.iter().copied().filter(|&s| s <= 1 << 20);
        for (m, s) in std::iter::once((n, 1)).chain(sweep.map(|s| (1, s))) {
            if c.prtt(m, 0, s, 1).is_none() {
                out.stop = Some(stop_of(c, format!("{name}: during the warm-up")));
                return out;
            }
        }
    }
    // The first pass may take half the time up to `end_ns`: at least two passes (one each
    // way) are kept, and on a slow link fewer passes cost less than fewer sizes (a switch
    // between sizes never measured is never found).
    let t0 = crate::base::clock::monotonic_raw_ns();
    let pass_end = t0 + end_ns.saturating_sub(t0) / planned.clamp(1, MIN_PASSES) as u64;
    let mut took: Vec<u64> = vec![];
    let mut cap: Vec<usize> = vec![];
    let mut notes: Vec<String> = vec![];
    // Sizes per octave of the schedule: thinning keeps at least one.
    let per_octave = sizes
        .iter()
        .filter(|&&x| (1 << 10..1 << 11).contains(&x))
        .count()
        .max(1);
    let (mut stride, mut i) = (1, 0);
    let mut last: Option<(usize, u64)> = None;
    while i < sizes.len() {
        let s = sizes[i];
        let now_ns = crate::base::clock::monotonic_raw_ns();
        let left_ns = pass_end.saturating_sub(now_ns);
        // The budget holds the passes: a size whose pass would not fit what is left of
        // this pass's share is not started (its time grows at most in proportion to the
        // size).
        if let Some((prev, took_ns)) = last {
            let predicted_ns = (took_ns as f64 * (s as f64 / prev as f64).max(1.0)) as u64;
            if predicted_ns > left_ns {
                notes.push(format!(
                    "sizes measured up to {prev} bytes, not to {max}: one pass over {prev} bytes took {:.0} ms, so {s} would take about {:.0} ms, more than the {:.0} ms left of the first pass's share of the budget",
                    took_ns as f64 / 1e6,
                    predicted_ns as f64 / 1e6,
                    left_ns as f64 / 1e6
                ));
                out.cut = true;
                break;
            }
        }
        let slow = last.is_some_and(|(_, t)| t > left_ns / 50);
        for k in 0..chans {
            out.probes[k].push(SizeProbes::new(s));
        }
        let j = out.probes[0].len() - 1;
        if let Err(stop) = one_size(c, names, n, &mut out.probes, j, i) {
            out.stop = Some(stop);
            return finish(out, notes);
        }
        let done_ns = crate::base::clock::monotonic_raw_ns();
        let took_ns = done_ns.saturating_sub(now_ns);
        took.push(took_ns);
        cap.push(passes_for(s, slow, planned));
        last = Some((s, took_ns));
        // A slow link: where the rest of the schedule would not fit in what is left of
        // the pass's share even at this size's cost (a lower bound), keep every second
        // size, down to one per octave, and say so. (A slope fitted through two sizes'
        // times was no guide: a millisecond of scheduling noise between small sizes reads
        // as microseconds per byte.)
        let left_ns = pass_end.saturating_sub(done_ns);
        let from = stride;
        while stride < per_octave {
            let rest = sizes[(i + stride).min(sizes.len())..]
                .iter()
                .step_by(stride)
                .count() as u64;
            if rest.saturating_mul(took_ns) <= left_ns {
                break;
            }
            stride *= 2;
        }
        if stride > from {
            notes.push(format!(
                "from {} bytes one size in {stride} of the schedule: one pass over {s} bytes took {:.0} ms, and the rest would not fit in the {:.0} ms left of the first pass's share of the budget",
                sizes.get(i + stride).copied().unwrap_or(max),
                took_ns as f64 / 1e6,
                left_ns as f64 / 1e6
            ));
        }
        i += stride;
    }
    out.passes = 1;
    // The first pass scouts: it fixes the schedule, the delays, and how late the receiver
    // comes, and its values are dropped once a pass is about to replace them. Sizes taken
    // in increasing order, each right after the last, cost 3–5 × their later passes at
    // 4–8 KiB under MPICH (8.4 µs against 2.3 at 8192 B), which no warm-up removed; one
    // such pass of six set the direction's median and the advice's eager line.
    // The recorded passes, each over the sizes that take part in it, in a shuffled order,
    // while the next is expected to end in time.
    let mut rng = Rng::new(0x9a55);
    let mut scouted = true;
    for pass in 1..=planned {
        let mut order: Vec<usize> = (0..took.len()).filter(|&j| cap[j] >= pass).collect();
        if order.is_empty() {
            break;
        }
        let expected: u64 = order.iter().map(|&j| took[j]).sum();
        if crate::base::clock::monotonic_raw_ns().saturating_add(expected) > end_ns {
            notes.push(format!(
                "{} of {planned} passes: the next would have ended past the budget's share for them",
                out.passes
            ));
            break;
        }
        for j in (1..order.len()).rev() {
            order.swap(j, rng.below(j + 1));
        }
        if std::mem::take(&mut scouted) {
            out.probes.iter_mut().flatten().for_each(|p| p.forget());
            out.passes = 0;
        }
        // Every second recorded pass the other way round: the server sends and times.
        c.reverse = pass % 2 == 0;
        // Transports with several ways of moving data choose again for this pass.
        for (k, name) in names.iter().enumerate() {
            c.select(k);
            if !c.choose() {
                out.stop = Some(stop_of(c, format!("{name}: choosing how to send")));
                c.reverse = false;
                return finish(out, notes);
            }
        }
        for j in order {
            if let Err(stop) = one_size(c, names, n, &mut out.probes, j, j + pass) {
                out.stop = Some(stop);
                c.reverse = false;
                return finish(out, notes);
            }
        }
        out.passes += 1;
    }
    c.reverse = false;
    finish(out, notes)
}

fn finish(mut out: Passes, notes: Vec<String>) -> Passes {
    if !notes.is_empty() {
        out.note = Some(notes.join("; "));
    }
    out
}

/// One pass over size `j` of every channel, the channels in an order that turns with
/// `turn` (none is always measured first). A channel whose pass did not complete stops
/// the passes.
fn one_size<T: Transport, C: Control>(
    c: &mut Client<T, C>,
    names: &[String],
    n: u64,
    probes: &mut [Vec<SizeProbes>],
    j: usize,
    turn: usize,
) -> Result<(), Stop> {
    let chans = names.len();
    for k in (0..chans).map(|k| (k + turn) % chans) {
        c.select(k);
        if measure_pass(c, n, &mut probes[k][j]).is_none() {
            let s = probes[k][j].size;
            return Err(stop_of(
                c,
                format!("{}: within the probes of {s} bytes", names[k]),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_has_four_points_per_octave() {
        let s = schedule(1 << 20, 4);
        assert_eq!(s[0], 1);
        assert_eq!(*s.last().unwrap(), 1 << 20);
        let octave: Vec<_> = s.iter().filter(|&&x| (4096..8192).contains(&x)).collect();
        assert_eq!(octave.len(), 4);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
    }
}
