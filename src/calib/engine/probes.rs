//! The probes themselves, both sides: PRTT(n, d, s) (hoefler2007 §3, Listing 1), the
//! receive-overhead burst and the late-receiver probe.
use super::wire::*;
use crate::base::clock::now;
/// Whether sends timed by `send_times` waited for their late receiver. The second fastest
/// repetition decides. A send that must wait for the late receiver returns before it only
/// where the sender itself started late (held up between the reply and its next send by
/// more than half the delay), and an eager one returns at once unless the sender was
/// preempted during the call: one repetition of either kind must not decide. (The median
/// let a loaded machine turn eager sizes into "waits"; the fastest alone put Open MPI's
/// eager switch at 4055 instead of 4040 in one of five quiet runs.)
pub fn waits(times: &[f64], late: u64) -> Option<bool> {
    let mut t = times.to_vec();
    t.sort_by(f64::total_cmp);
    let decisive = t.get(1).or(t.first()).copied()?;
    Some(decisive > late as f64 / 2.0)
}

/// How the answering side of a repetition ended.
pub(super) enum Answer {
    Done,
    /// The first message was the client's stop mark.
    Stopped,
    Failed,
}

/// The sending side of one PRTT(n, d, s): n sends d apart, then the reply. Returns the
/// round trip in ticks, with the time beyond d between sends taken out, and pushes each
/// send's own duration after the first (where d > 0) to `calls`.
pub(super) fn drive_prtt<T: Transport + ?Sized>(
    t: &mut T,
    n: u64,
    d: u64,
    s: usize,
    calls: &mut Vec<f64>,
) -> Option<f64> {
    let t0 = now();
    if !t.send(s) {
        return None;
    }
    // The time between two sends is read at its edges (right after one send returns,
    // right before the next starts) and what it exceeds d by is taken out, so the
    // formula's d is the time actually spent outside the sends. Taking out only the delay
    // loop's own overshoot would leave its boundary timer reads (10–20 ns each on a VM) in
    // o_s: the o_s study (tests/c/os_study.c) measured o_s 18–30 ns above MPI_Send's own
    // duration that way, and equal to it within the timer's step with the edges read.
    let mut overshoot = 0u64;
    let mut after_send = if d > 0 { now() } else { 0 };
    for _ in 1..n {
        let mut before_send = 0;
        if d > 0 {
            busy_wait(d);
            before_send = now();
            overshoot += before_send.wrapping_sub(after_send).saturating_sub(d);
        }
        if !t.send(s) {
            return None;
        }
        if d > 0 {
            after_send = now();
            calls.push(after_send.wrapping_sub(before_send) as f64);
        }
    }
    if !t.recv(s) {
        return None;
    }
    Some(now().wrapping_sub(t0).wrapping_sub(overshoot) as f64)
}

/// The answering side of one PRTT: n receives, one reply.
pub(super) fn answer_prtt<T: Transport + ?Sized>(t: &mut T, n: u64, s: usize) -> Answer {
    t.clear_stop();
    for i in 0..n {
        if !t.recv(s) {
            return Answer::Failed;
        }
        if i == 0 && t.stopped() {
            return Answer::Stopped;
        }
    }
    if t.send(s) {
        Answer::Done
    } else {
        Answer::Failed
    }
}

/// The sending side of the receive-overhead probe: n messages, then the reply.
pub(super) fn feed_receives<T: Transport + ?Sized>(t: &mut T, n: u64, s: usize) -> bool {
    (0..n).all(|_| t.send(s)) && t.recv(s)
}

/// The receiving side: after the first message it waits d (so the next has surely
/// arrived) and times each of the other n − 1 receives, then replies.
pub(super) fn time_receives<T: Transport + ?Sized>(
    t: &mut T,
    n: u64,
    d: u64,
    s: usize,
    samples: &mut Vec<f64>,
) -> Answer {
    t.clear_stop();
    if !t.recv(s) {
        return Answer::Failed;
    }
    if t.stopped() {
        return Answer::Stopped;
    }
    for _ in 1..n {
        busy_wait(d);
        let t0 = now();
        if !t.recv(s) {
            return Answer::Failed;
        }
        samples.push(now().wrapping_sub(t0) as f64);
    }
    if t.send(s) {
        Answer::Done
    } else {
        Answer::Failed
    }
}

/// Both sides of the exchange probe: k exchanges of s bytes each way, back to back.
/// Returns the time per exchange from the end of the first (which absorbs how much later
/// one side took up the command) to the end of the last, in ticks. Each exchange needs
/// the peer's message of the one before, so neither side runs more than one exchange
/// ahead (though the two run out of phase: `isolated_exchange_ticks`): this is the
/// two-way step of recursive doubling, pairwise and two-process algorithms, where both
/// copies run at once (on shared memory they contend for the memory system, which
/// LogGP's independent per-direction G does not see). `how`: the plain exchange, the
/// refill (each exchange sends what the one before received, into the buffer it sent
/// from: `Transport::exchange_refill`), or through persistent requests
/// (`Transport::exchange_persistent`). `Exchange::Isolated` is not a train
/// (`isolated_steps`).
pub(super) fn exchange_train<T: Transport + ?Sized>(
    t: &mut T,
    k: u64,
    s: usize,
    how: Exchange,
) -> Option<f64> {
    let one = |t: &mut T| match how {
        Exchange::Plain | Exchange::Isolated | Exchange::OneWay | Exchange::Paused => t.exchange(s),
        Exchange::Refill => t.exchange_refill(s),
        Exchange::Persistent => t.exchange_persistent(s),
    };
    if !one(t) {
        return None;
    }
    let t0 = now();
    for _ in 1..k.max(2) {
        if !one(t) {
            return None;
        }
    }
    Some(now().wrapping_sub(t0) as f64 / (k.max(2) - 1) as f64)
}

/// Both sides of an isolated probe: k steps of s bytes, each right after a 0-byte
/// exchange that brings both sides to it; each one's start and end on this side's
/// counter. A step is one plain exchange (`Exchange::Isolated`, combined by
/// `isolated_exchange_ticks`) or one message from the client (`sends`) to the server
/// (`Exchange::OneWay`, combined by `isolated_one_way_ticks`). `pause` (ticks, with
/// `Exchange::Paused`): both sides spin that long after the 0-byte exchange, touching
/// nothing but the counter, as an application computes between its MPI calls; the step
/// is then an exchange as `Isolated`'s.
pub(super) fn isolated_steps<T: Transport + ?Sized>(
    t: &mut T,
    k: u64,
    s: usize,
    how: Exchange,
    sends: bool,
    pause: u64,
) -> Option<Vec<[u64; 2]>> {
    let mut v = Vec::with_capacity(k as usize);
    for _ in 0..k.max(1) {
        if !t.exchange(0) {
            return None;
        }
        if how == Exchange::Paused {
            // A bare spin: `busy_wait` yields the CPU, a system call each time, which
            // runs kernel code through the caches where an application's computing does not.
            let p0 = now();
            while now().wrapping_sub(p0) < pause {}
        }
        let t0 = now();
        let done = match how {
            Exchange::OneWay if sends => t.send(s),
            Exchange::OneWay => t.recv(s),
            _ => t.exchange(s),
        };
        if !done {
            return None;
        }
        v.push([t0, now()]);
    }
    Some(v)
}

/// The isolated one-way message's cost (ticks), from the later side's start: to the
/// receiver's end and to the sender's end (0 where the sender was done before the
/// receiver began: an eager send), the medians over the messages. A collective's step
/// from one member to another costs this, not half a ping-pong's round trip: after a
/// 0-byte exchange, a rendezvous message of 4–16 KiB under Open MPI vader reached its
/// receiver in 560–870 ns and its sender was done (the receiver's FIN) by about 1050–
/// 1370, where half a round trip took 1360–1660 (in a ping-pong each side's send waits
/// for that FIN before it can take the other's message, which has to wait unexpected);
/// a 2-rank Bcast of 4 KiB, the basic linear one, took 1045–1069 ns (2 ranks, programs
/// without loggp, 2026-11-29).
///
/// `sender` and `receiver` must be read on one counter (the ranks of one host). None where
/// they cannot be (a receive that ended before its send began) or no messages.
pub fn isolated_one_way_ticks(sender: &[[u64; 2]], receiver: &[[u64; 2]]) -> Option<[f64; 2]> {
    let (mut to_receiver, mut to_sender) = (vec![], vec![]);
    for (a, b) in sender.iter().zip(receiver) {
        if b[1] <= a[0] {
            return None;
        }
        let later = a[0].max(b[0]);
        to_receiver.push((b[1] - later) as f64);
        to_sender.push(a[1].saturating_sub(later) as f64);
    }
    Some([
        loggp_model::stats::median(&to_receiver)?,
        loggp_model::stats::median(&to_sender)?,
    ])
}

/// The isolated exchange's cost (ticks): per exchange, from the later side's start to
/// each side's end, the two sides' mean; the median over the exchanges (a preempted one
/// moves a mean). This is what a collective's cost is measured as (from its last member's
/// entry to each member's exit), and it is not what a train of exchanges shows: back to
/// back, the two sides of a train run out of step, and its time per exchange held one
/// more message's latency. A train's exchange took 1.08–1.38 × the isolated one, timed
/// on one side after a 0-byte exchange, from 3 KB to 256 KiB on Open MPI vader (four
/// runs), and 1.1–1.2 × from 16 KiB on MPICH ch4:ucx, while a 2-rank Allgather or Alltoall of 4 KiB
/// after a barrier ran at the isolated exchange's cost (1.78–1.95 µs against the train's
/// 2.15–2.61; 2 ranks, programs without loggp, MPI_Wtime, 2026-11-29).
///
/// `own` and `peer` must be read on one counter (the ranks of one host). None where
/// they cannot be: an end before the other side's start (each side receives the other's
/// message, so neither can finish before the other began), or no exchanges.
pub fn isolated_exchange_ticks(own: &[[u64; 2]], peer: &[[u64; 2]]) -> Option<f64> {
    loggp_model::stats::median(&isolated_exchange_costs(own, peer)?)
}

/// Each isolated exchange's cost (ticks) as `isolated_exchange_ticks` takes it, in order.
/// None where the readings cannot be combined (see there).
pub fn isolated_exchange_costs(own: &[[u64; 2]], peer: &[[u64; 2]]) -> Option<Vec<f64>> {
    let mut cost = vec![];
    for (a, b) in own.iter().zip(peer) {
        if a[1] <= b[0] || b[1] <= a[0] {
            return None;
        }
        let later = a[0].max(b[0]);
        cost.push((a[1] - later + b[1] - later) as f64 / 2.0);
    }
    Some(cost)
}

/// The sending side of the late-receiver probe: one timed send, then the reply.
pub(super) fn send_late<T: Transport + ?Sized>(t: &mut T, s: usize) -> Option<f64> {
    let t0 = now();
    if !t.send(s) {
        return None;
    }
    let took = now().wrapping_sub(t0) as f64;
    t.recv(s).then_some(took)
}

/// The late receiver: progressing, it posts its receive `late` ticks after the command
/// (some transports complete an eager send only once the receiver has polled: Open MPI's
/// shared memory does), then replies.
pub(super) fn answer_late<T: Transport + ?Sized>(t: &mut T, late: u64, s: usize) -> Answer {
    t.clear_stop();
    let t0 = now();
    while now().wrapping_sub(t0) < late {
        t.progress();
        std::thread::yield_now();
    }
    if !t.recv(s) {
        return Answer::Failed;
    }
    if t.stopped() {
        return Answer::Stopped;
    }
    if t.send(s) {
        Answer::Done
    } else {
        Answer::Failed
    }
}
