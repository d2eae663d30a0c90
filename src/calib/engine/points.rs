//! What each size gave, in ticks, and a pass over the schedule.
use super::client::Client;
use super::probes::waits;
use super::wire::{Control, Exchange, Transport};
use loggp_model::stats::{summarize, Summary};
/// What one size gave, in ticks.
#[derive(Clone, Debug, Default)]
pub struct PointTicks {
    pub size: usize,
    pub prtt_1_0: Summary,
    pub prtt_n_0: Summary,
    pub prtt_n_d: Summary,
    pub delay: f64,
    pub recv_overhead: Summary,
    /// The send calls' own durations within PRTT(n,d,s) (the o_s study's "direct" o_s).
    pub send_call: Option<Summary>,
    /// d ≤ G_all with d = PRTT(1,0,s): PRTT(2,0,s) was used instead.
    pub fell_back: bool,
    /// The send waited for a late receiver (synchronous or rendezvous protocol).
    pub send_waits: Option<bool>,
    /// The exchange probe's time per exchange (ticks), where the channel has it.
    pub exchange: Option<Summary>,
    pub exchange_samples: Vec<f64>,
    /// The refill exchange's (`Transport::exchange_refill`), from `REFILL_FROM_BYTES`.
    pub refill: Option<Summary>,
    /// The persistent exchange's (`Transport::exchange_persistent`), up to
    /// `PERSISTENT_TO_BYTES`.
    pub persistent: Option<Summary>,
    /// The isolated exchange's (each after a 0-byte exchange: `exchange_train`).
    pub isolated: Option<Summary>,
    /// The isolated one-way message's, from the later side's start to the receiver's end
    /// and to the sender's (`isolated_one_way_ticks`), where the channel has it.
    pub one_way: Option<[Summary; 2]>,
    /// At `AFTER_PAUSE_AT_BYTES`: the isolated exchange after each pause of
    /// `AFTER_PAUSES_NS` away from MPI, and every exchange's value of each.
    pub after_pause: Option<[Summary; 2]>,
    pub after_pause_samples: [Vec<f64>; 2],
    /// Every repetition (ticks), in the order of the passes that took them: PRTT(1,0,s),
    /// PRTT(n,0,s), PRTT(n,d,s), and each pass's median o_r.
    pub samples: [Vec<f64>; 4],
}

impl PointTicks {
    /// G_all(s) = g + (s−1)G, Eq. (7).
    pub fn gap_all(&self, n: u64) -> f64 {
        (self.prtt_n_0.median - self.prtt_1_0.median) / (n - 1) as f64
    }
    /// o_s from Eq. (6): (PRTT(n,d,s) − PRTT(1,0,s)) / (n−1) − d.
    pub fn send_overhead(&self, n: u64) -> f64 {
        (self.prtt_n_d.median - self.prtt_1_0.median) / (n - 1) as f64 - self.delay
    }
}

/// One size of one channel, measured pass by pass: what its first pass fixed (the delay
/// d, how late the receiver comes in the eager test) and one repetition of every probe
/// per pass, in pass order. Spreading a size's repetitions over the whole calibration,
/// between the other sizes and channels, makes their spread show how the machine moved
/// while it ran (the bootstrap over passes, `loggp_model::active`), where five
/// repetitions in a row showed a few microseconds of it.
#[derive(Clone, Debug, Default)]
pub struct SizeProbes {
    pub size: usize,
    pub delay: f64,
    pub fell_back: bool,
    pub late: u64,
    /// Per pass: PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s), the median o_r of its receives.
    pub samples: [Vec<f64>; 4],
    /// Every send call's duration within PRTT(n,d,s), per direction (even passes: this
    /// side sends; odd passes: the peer).
    pub send_calls: [Vec<f64>; 2],
    /// Per pass: the send call's duration with a late receiver.
    pub send_times: Vec<f64>,
    /// Per pass: the exchange probe's time per exchange, where the channel has it.
    pub exchanges: Vec<f64>,
    /// Per pass: the refill exchange's, from `REFILL_FROM_BYTES`.
    pub refills: Vec<f64>,
    /// Per pass: the persistent exchange's, up to `PERSISTENT_TO_BYTES`.
    pub persistents: Vec<f64>,
    /// Per pass: the isolated exchange's (each after a 0-byte one), where the channel
    /// has the exchange.
    pub isolateds: Vec<f64>,
    /// Per pass: the isolated one-way message's (to the receiver's end, to the sender's),
    /// where the channel has it.
    pub one_ways: Vec<[f64; 2]>,
    /// At `AFTER_PAUSE_AT_BYTES`, `AFTER_PAUSE_REPS` per pass: the isolated exchange
    /// after each pause of `AFTER_PAUSES_NS`, where the channel has it.
    pub after_pauses: Vec<[f64; 2]>,
    /// The delay d and the late receiver's delay are fixed (by the first pass).
    pub fixed: bool,
}

impl SizeProbes {
    pub fn new(size: usize) -> SizeProbes {
        SizeProbes {
            size,
            ..Default::default()
        }
    }

    pub fn passes(&self) -> usize {
        self.samples[0].len()
    }

    /// Forgets what was measured, keeping what the first pass fixed (a scouting pass).
    pub fn forget(&mut self) {
        self.samples = Default::default();
        self.send_calls = Default::default();
        self.send_times.clear();
        self.exchanges.clear();
        self.refills.clear();
        self.persistents.clear();
        self.isolateds.clear();
        self.one_ways.clear();
        self.after_pauses.clear();
    }

    /// The summaries of the passes so far (the samples stay in pass order). The median of
    /// each is the mean of the two directions' lower medians (the passes alternate them), as
    /// the model takes it (`loggp_model::active::bootstrap`): each process of the pair
    /// weighs alike, and the quantities derived from several probes (o_s, G_all) combine
    /// values of the same directions.
    pub fn finish(&self) -> PointTicks {
        let sum = |v: &Vec<f64>| {
            let mut s = summarize(&mut v.clone());
            let sides: Vec<f64> = (0..2)
                .filter_map(|d| {
                    let x: Vec<f64> = v.iter().skip(d).step_by(2).copied().collect();
                    loggp_model::stats::lower_median(&x)
                })
                .collect();
            if !sides.is_empty() {
                s.median = sides.iter().sum::<f64>() / sides.len() as f64;
            }
            s
        };
        let calls = {
            let sides: Vec<f64> = self
                .send_calls
                .iter()
                .filter_map(|v| loggp_model::stats::lower_median(v))
                .collect();
            let mut all: Vec<f64> = self.send_calls.concat();
            (!all.is_empty()).then(|| {
                let mut s = summarize(&mut all);
                s.median = sides.iter().sum::<f64>() / sides.len() as f64;
                s
            })
        };
        PointTicks {
            size: self.size,
            prtt_1_0: sum(&self.samples[0]),
            prtt_n_0: sum(&self.samples[1]),
            prtt_n_d: sum(&self.samples[2]),
            delay: self.delay,
            recv_overhead: sum(&self.samples[3]),
            send_call: calls,
            fell_back: self.fell_back,
            send_waits: waits(&self.send_times, self.late),
            exchange: (!self.exchanges.is_empty()).then(|| sum(&self.exchanges)),
            exchange_samples: self.exchanges.clone(),
            refill: (!self.refills.is_empty()).then(|| sum(&self.refills)),
            persistent: (!self.persistents.is_empty()).then(|| sum(&self.persistents)),
            isolated: (!self.isolateds.is_empty()).then(|| sum(&self.isolateds)),
            one_way: (!self.one_ways.is_empty())
                .then(|| [0, 1].map(|i| sum(&self.one_ways.iter().map(|x| x[i]).collect()))),
            // Each exchange's cost combines both sides: no direction to weigh.
            after_pause: (!self.after_pauses.is_empty()).then(|| {
                [0, 1].map(|i| {
                    summarize(&mut self.after_pauses.iter().map(|x| x[i]).collect::<Vec<f64>>())
                })
            }),
            after_pause_samples: [0, 1].map(|i| self.after_pauses.iter().map(|x| x[i]).collect()),
            samples: self.samples.clone(),
        }
    }
}

/// One pass over a size: PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s) with d = PRTT(1,0,s) (or
/// PRTT(2,0,s) where that is not above G_all; both fixed by the first pass), o_r on the
/// server, and the late-receiver test, once each. Nothing is kept of a pass that did not
/// complete, so every series stays in pass order.
pub fn measure_pass<T: Transport, C: Control>(
    c: &mut Client<T, C>,
    n: u64,
    p: &mut SizeProbes,
) -> Option<()> {
    let s = p.size;
    let first = !p.fixed;
    // A pass comes to each size after other sizes and channels: one round trip, not
    // kept, brings this one's buffers and code back into the caches (taken cold, the
    // round trip of Open MPI's shared memory measured 1.7 × its warm value here).
    c.prtt(1, 0, s, 1)?;
    let v1 = c.prtt(1, 0, s, 1)?[0];
    let vn = c.prtt(n, 0, s, 1)?[0];
    let (mut delay, mut fell_back, mut late) = (p.delay, p.fell_back, p.late);
    if first {
        (delay, fell_back, late) = (v1, false, late_delay(v1));
        if delay <= (vn - v1) / (n - 1) as f64 {
            delay = c.prtt(2, 0, s, 1)?[0];
            fell_back = true;
        }
    }
    let (vnd, calls) = c.prtt_calls(n, delay as u64, s, 1)?;
    let (_, receives) = c.recv_overhead(n, delay as u64, s, 1)?;
    let times = c.send_times(late, s, 1)?;
    let exchange = c.exchange(n, s, Exchange::Plain)?;
    let isolated = c.exchange(n, s, Exchange::Isolated)?;
    let one_way = c.one_way(n, s)?;
    let after_pause = if s == AFTER_PAUSE_AT_BYTES {
        let tick_ns = crate::base::clock::ns_per_tick(crate::base::clock::hz()).max(1e-3);
        let [a, b] = AFTER_PAUSES_NS.map(|p| (p / tick_ns) as u64);
        match (
            c.exchange_after_pause(AFTER_PAUSE_REPS, s, a)?,
            c.exchange_after_pause(AFTER_PAUSE_REPS, s, b)?,
        ) {
            (Some(x), Some(y)) => Some(x.into_iter().zip(y).map(|(x, y)| [x, y])),
            _ => None,
        }
    } else {
        None
    };
    let refill = if s >= REFILL_FROM_BYTES {
        c.exchange(n, s, Exchange::Refill)?
    } else {
        None
    };
    let persistent = if persistent_at(s) {
        c.exchange(n, s, Exchange::Persistent)?
    } else {
        None
    };
    (p.delay, p.fell_back, p.late, p.fixed) = (delay, fell_back, late, true);
    p.samples[0].push(v1);
    p.samples[1].push(vn);
    p.samples[2].extend(vnd);
    p.samples[3].push(summarize(&mut receives.clone()).median);
    p.send_calls[(p.passes() + 1) % 2].extend(calls);
    p.send_times.extend(times);
    p.exchanges.extend(exchange);
    p.refills.extend(refill);
    p.persistents.extend(persistent);
    p.isolateds.extend(isolated);
    p.one_ways.extend(one_way);
    p.after_pauses.extend(after_pause.into_iter().flatten());
    Some(())
}

/// The size of the exchange after a pause (`Client::exchange_after_pause`): a few bytes,
/// where the pause's cost is the whole difference.
pub(crate) const AFTER_PAUSE_AT_BYTES: usize = 8;

/// The pauses away from MPI before the exchange of `AFTER_PAUSE_AT_BYTES`: the shortest
/// after which the time split counts a collective call as one after a pause
/// (`loggp_report::PAUSE_NS`), and ten times it. An MPI call whose code has not run for a
/// while costs more than back to back, where every other probe runs. Between two ranks
/// of this 2-core VM, both spinning on the clock alone for 300 µs and then making an
/// 8-byte ping-pong, from the later side's entry to the last exit: back to back 254 and
/// 627 ns (Open MPI vader, two runs) and 698 ns (MPICH ch4:ucx); after the pause 1059 and
/// 1854 ns, and 1951 ns; where each side also read 4 MiB (its L2 cache) in the pause,
/// 4286 and 5011 ns, and 6204 ns. A 2-rank MPI_Allreduce of four doubles: 442 and 926 ns
/// (Open MPI, MPICH) back to back, 2032 and 2868 ns after the pause (a program without
/// loggp, CLOCK_MONOTONIC, 2026-11-29). `AFTER_PAUSE_REPS` exchanges after each pause
/// per pass: 4.4 ms of each pass.
pub(crate) const AFTER_PAUSES_NS: [f64; 2] =
    [loggp_report::PAUSE_NS, 10.0 * loggp_report::PAUSE_NS];

/// The exchanges after each pause per pass. The cost after a pause is wide: 41
/// exchanges after 1 ms in a row had their quartiles at 0.5-0.85 and 1.2-1.5 × their
/// median (Open MPI vader and MPICH, 2 ranks, programs without loggp, 2026-11-29), and
/// that median moved 1.2-3.9 µs from one 45 ms stretch of an Open MPI job to the next.
/// With one per pass, six in a
/// calibration, the median over them lay at 0.36-1.24 × the same job's program-timed
/// median (fifteen jobs), and a fresh-clone CI run failed the 0.5 × bound
/// (tests/calibration.rs).
pub(crate) const AFTER_PAUSE_REPS: u64 = 4;

/// The refill exchange is measured from this size on: below it the lines a message
/// takes back from the peer cost little beside the exchange (tests/c-style programs,
/// 2 ranks, Open MPI vader: 2 KiB 1.00-1.04 x the plain exchange, 4 KiB 1.17-1.28 x,
/// 8 KiB 1.32-1.40 x on an Intel Xeon VM of 2026-11-26; 4 KiB 1.03-1.16 x, 16 KiB
/// 1.4 x, 64-256 KiB 1.8-2.0 x on an AMD EPYC VM of 2026-11-25), and each probe costs
/// budget. From 4 KiB: at 4 KiB a recursive-doubling Allreduce, whose exchange sends
/// what the call has just copied, took 1.5 µs beyond its parts on the Intel VM.
pub(crate) const REFILL_FROM_BYTES: usize = 4096;

/// The persistent exchange is measured up to this size: a started persistent send of a
/// few bytes misses the inline path a blocking one takes (Open MPI vader's `sendi`, up
/// to 256 B; UCX's am_short, up to 92 B), and beyond it both take the same path (2 ranks,
/// Open MPI vader, 2026-11-26, without loggp: 972–1280 ns against 522–685 ns for
/// MPI_Sendrecv at 8 B, 3386–3632 against 3289–3573 at 4 KiB).
pub(crate) const PERSISTENT_TO_BYTES: usize = 2048;

/// The sizes the persistent exchange is measured at: the powers of 4 up to
/// `PERSISTENT_TO_BYTES` (1, 4, 16, 64, 256, 1024 B), not every size, so that the probe
/// (its requests set up and freed) stands between few of the other probes' passes: the
/// model interpolates between them (`loggp_model::coll` prices). Measured at every size
/// up to 2 KiB, the PRTT formula's o_s of 1–256 B sat 26–38 ns above the send calls'
/// own time in 8 Open MPI jobs (−10–32 ns in 4 without the probe), against a bound of
/// 15 % of the calls (33–42 ns) in `tests/passive.rs`.
pub(crate) fn persistent_at(s: usize) -> bool {
    s <= PERSISTENT_TO_BYTES && s.is_power_of_two() && s.trailing_zeros().is_multiple_of(2)
}

/// How late the receiver comes in the `send_waits` probe: long against a round trip of
/// the size (so that waiting cannot be confused with transfer time), at least ~20 µs.
pub fn late_delay(prtt_1_0: f64) -> u64 {
    let twenty_us = 20_000.0 / crate::base::clock::ns_per_tick(crate::base::clock::hz()).max(1e-3);
    (4.0 * prtt_1_0).max(twenty_us) as u64
}

/// Measures one size in `reps` passes of its own.
pub fn measure_point<T: Transport, C: Control>(
    c: &mut Client<T, C>,
    n: u64,
    s: usize,
    reps: u64,
) -> Option<PointTicks> {
    let mut p = SizeProbes::new(s);
    for _ in 0..reps {
        measure_pass(c, n, &mut p)?;
    }
    Some(p.finish())
}
