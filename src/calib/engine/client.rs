//! The client's side of a pair: it drives, one command per block of probes.
use super::probes::*;
use super::wire::*;
use loggp_model::stats::{summarize, Summary};

/// One side's (start, end) of each step of an isolated probe, in ticks.
type Readings = Vec<[u64; 2]>;

/// A repetition this much slower than the fastest of its command is a stall (see
/// `Client::note_stall`), where it is also `STALL_FACTOR` times slower: 50 ms, a
/// twentieth of the quick budget, far above this VM's scheduling noise (a rank preempted
/// for a slice: 1.5–4 ms) and below a TCP retransmission's 200 ms.
pub const STALL_NS: u64 = 50_000_000;
const STALL_FACTOR: u64 = 10;
/// The client's side of a pair.
pub struct Client<'a, T: Transport, C: Control> {
    pub t: &'a mut T,
    pub ctl: &'a mut C,
    /// CLOCK_MONOTONIC_RAW ns by which the probes must end (u64::MAX: none).
    pub deadline_ns: u64,
    /// Set once a repetition was not started because it would end past the deadline.
    pub stopped: bool,
    /// Start of the last repetition and how long the one before it took (ns).
    rep_started_ns: u64,
    last_rep_ns: u64,
    /// The channel the commands are for (see `Transport::select`).
    chan: u64,
    /// The fastest and the slowest repetition of the command under way (ns), the
    /// slowest from its second on, and how many it has had.
    cmd_fastest_ns: u64,
    cmd_slowest_ns: u64,
    cmd_reps: u64,
    /// The longest stall seen (ns): a repetition that took `STALL_NS` or more beyond the
    /// fastest of its command, and more than `STALL_FACTOR` times it (see `note_stall`).
    pub longest_stall_ns: u64,
    /// Swap the roles of the probes: the server sends and times, this side answers. The
    /// passes alternate, so every size is measured in both directions: each process of a
    /// pair has its own speed on a shared machine, and which of the two is slower changes
    /// from run to run (MPI_Send of 1 B took 171 ticks on one rank and 343 on the other,
    /// either way round, under MPICH here), so one direction alone measures one
    /// process's luck.
    pub reverse: bool,
}

impl<'a, T: Transport, C: Control> Client<'a, T, C> {
    pub fn new(t: &'a mut T, ctl: &'a mut C, deadline_ns: u64) -> Self {
        Client {
            t,
            ctl,
            deadline_ns,
            stopped: false,
            rep_started_ns: 0,
            last_rep_ns: 0,
            chan: 0,
            cmd_fastest_ns: u64::MAX,
            cmd_slowest_ns: 0,
            cmd_reps: 0,
            longest_stall_ns: 0,
            reverse: false,
        }
    }

    /// A repetition's duration, for the command's fastest and slowest. The first of a
    /// command is not a candidate for the slowest: a channel's first message may set up
    /// its connection (TCP, UCX's wire-up), which is not a stall.
    fn note_rep(&mut self, ns: u64) {
        self.cmd_fastest_ns = self.cmd_fastest_ns.min(ns);
        if self.cmd_reps > 0 {
            self.cmd_slowest_ns = self.cmd_slowest_ns.max(ns);
        }
        self.cmd_reps += 1;
    }

    /// At a command's end: a stall is its slowest repetition where that took `STALL_NS`
    /// or more beyond its fastest, and over `STALL_FACTOR` times it. The repetitions of
    /// one command repeat one probe, so their durations differ by the machine's noise,
    /// not by milliseconds; a stall with the thread on its CPU (which the off-CPU share
    /// does not see) is the machine or the network pausing, and the budget it took was
    /// not spent measuring (a quick calibration here once took 826 ms for one pass over
    /// 1 B, and located no switch, unmarked).
    fn note_stall(&mut self) {
        let (fast, slow) = (self.cmd_fastest_ns, self.cmd_slowest_ns);
        if fast != u64::MAX
            && slow >= fast.saturating_add(STALL_NS)
            && slow > STALL_FACTOR.saturating_mul(fast)
        {
            self.longest_stall_ns = self.longest_stall_ns.max(slow - fast);
        }
        (self.cmd_fastest_ns, self.cmd_slowest_ns, self.cmd_reps) = (u64::MAX, 0, 0);
    }

    /// Before a pass: the channel's transport may choose again how it moves data (see
    /// `Transport::choose`), on both sides.
    pub fn choose(&mut self) -> bool {
        if !self.ctl.send_words(&[self.word(CMD_CHOOSE, 0), 0, 0, 0]) {
            return false;
        }
        self.t.choose(self.ctl, true)
    }

    /// Directs the next commands, on both sides, to channel `chan`.
    pub fn select(&mut self, chan: usize) {
        self.chan = chan as u64;
        self.t.select(chan);
    }

    /// A command's first word: the command, the channel, an argument.
    fn word(&self, cmd: u64, arg: u64) -> u64 {
        cmd | self.chan << 8 | arg << 16
    }

    /// Called before each repetition: a budget is a promise, so a repetition that would
    /// end past the deadline (judged by the last one's duration) is not started; the
    /// server, waiting for its first message, gets the stop mark instead and goes back
    /// to waiting for a command. This bounds an overrun by the misjudgement of one
    /// repetition, where a check between sizes let one size's probes run on for seconds
    /// on an oversubscribed node (4 ranks on 2 cores: 3.3–3.5 s for a 2 s budget).
    /// Once stopped, every later command is answered at once the same way: the server
    /// has taken the command and waits for a first message.
    fn next_rep(&mut self) -> bool {
        let now_ns = crate::base::clock::monotonic_raw_ns();
        if self.rep_started_ns != 0 {
            self.last_rep_ns = now_ns.saturating_sub(self.rep_started_ns);
            self.note_rep(self.last_rep_ns);
        }
        if self.stopped || now_ns.saturating_add(self.last_rep_ns) > self.deadline_ns {
            self.t.send_stop();
            self.stopped = true;
            return false;
        }
        self.rep_started_ns = now_ns;
        true
    }

    /// A command's repetitions are over: the time until the next one is not a repetition.
    fn end_reps(&mut self) {
        if self.rep_started_ns != 0 {
            self.last_rep_ns =
                crate::base::clock::monotonic_raw_ns().saturating_sub(self.rep_started_ns);
            self.note_rep(self.last_rep_ns);
            self.rep_started_ns = 0;
        }
        self.note_stall();
    }

    /// Whether a reversed command of `reps` repetitions fits before the deadline: the
    /// server drives it, so it cannot be stopped in band; it is not started instead.
    fn fits_reversed(&mut self, reps: u64) -> bool {
        let now_ns = crate::base::clock::monotonic_raw_ns();
        if self.stopped || now_ns.saturating_add(self.last_rep_ns * reps) > self.deadline_ns {
            self.stopped = true;
            return false;
        }
        self.rep_started_ns = now_ns;
        true
    }

    /// The duration of a reversed command, as one repetition's, for the next judgement.
    /// The server drives it and times each repetition: `reps_ticks` (each repetition's
    /// time as the server measured it, in ticks) give its fastest and slowest for the
    /// stall (`note_stall`); none for the exchange, a train timed as a whole.
    fn end_reversed(&mut self, reps: u64, reps_ticks: &[f64]) {
        let took = crate::base::clock::monotonic_raw_ns().saturating_sub(self.rep_started_ns);
        self.last_rep_ns = took / reps.max(1);
        self.rep_started_ns = 0;
        let ns_per_tick = crate::base::clock::ns_per_tick(crate::base::clock::hz());
        for &t in reps_ticks {
            self.note_rep((t * ns_per_tick) as u64);
        }
        self.note_stall();
    }

    /// `reps` samples of PRTT(n, d, s), in ticks.
    pub fn prtt(&mut self, n: u64, d: u64, s: usize, reps: u64) -> Option<Vec<f64>> {
        self.prtt_calls(n, d, s, reps).map(|x| x.0)
    }

    /// PRTT(n, d, s) as `prtt`, and, where d > 0, the duration of each send call after
    /// the first (ticks): the edge reads that measure the time between sends bracket
    /// the calls too, so the calls' own durations cost no extra timer read. Reversed
    /// (see `reverse`), the server sends and times, and returns what it measured.
    pub fn prtt_calls(
        &mut self,
        n: u64,
        d: u64,
        s: usize,
        reps: u64,
    ) -> Option<(Vec<f64>, Vec<f64>)> {
        if self.reverse {
            if !self.fits_reversed(reps) {
                return None;
            }
            let w = [self.word(CMD_PRTT | REVERSED, d), n, s as u64, reps];
            if !self.ctl.send_words(&w) {
                return None;
            }
            for _ in 0..reps {
                if !matches!(answer_prtt(self.t, n, s), Answer::Done) {
                    return None;
                }
            }
            let out = recv_floats(self.ctl)?;
            let calls = recv_floats(self.ctl)?;
            self.end_reversed(reps, &out);
            return Some((out, calls));
        }
        if !self
            .ctl
            .send_words(&[self.word(CMD_PRTT, d), n, s as u64, reps])
        {
            return None;
        }
        let mut out = Vec::with_capacity(reps as usize);
        let mut calls = vec![];
        for _ in 0..reps {
            if !self.next_rep() {
                return None;
            }
            out.push(drive_prtt(self.t, n, d, s, &mut calls)?);
        }
        self.end_reps();
        Some((out, calls))
    }

    /// The receiving side's receive overhead for size s: its timed receives (ticks,
    /// sorted; at most `MAX_RECV_SAMPLES`) and their summary. The server receives; reversed,
    /// this side does.
    pub fn recv_overhead(
        &mut self,
        n: u64,
        d: u64,
        s: usize,
        reps: u64,
    ) -> Option<(Summary, Vec<f64>)> {
        if self.reverse {
            if !self.fits_reversed(reps) {
                return None;
            }
            if !self
                .ctl
                .send_words(&[self.word(CMD_ORECV | REVERSED, d), n, s as u64, reps])
            {
                return None;
            }
            let mut samples = vec![];
            for _ in 0..reps {
                if !matches!(time_receives(self.t, n, d, s, &mut samples), Answer::Done) {
                    return None;
                }
            }
            self.end_reversed(reps, &[]);
            let sm = summarize(&mut samples);
            return Some((sm, samples));
        }
        if !self
            .ctl
            .send_words(&[self.word(CMD_ORECV, d), n, s as u64, reps])
        {
            return None;
        }
        for _ in 0..reps {
            if !self.next_rep() {
                return None;
            }
            if !feed_receives(self.t, n, s) {
                return None;
            }
        }
        self.end_reps();
        let w = self.ctl.recv_words()?;
        let sm = Summary {
            median: f64::from_bits(w[0]),
            min: f64::from_bits(w[1]),
            iqr: f64::from_bits(w[2]),
            n: w[3] as usize,
        };
        let samples = recv_floats(self.ctl)?;
        Some((sm, samples))
    }

    /// How long a send of s bytes takes when its receiver comes `late` ticks after the
    /// command, polling the transport meanwhile (ticks, one per repetition). An eager
    /// send (protocol T of altawil-moritz §3.2) is taken in as unexpected and returns; a
    /// synchronous one (TA) or a rendezvous (RTA, RAT) cannot finish before the receive is
    /// posted. See `waits` for the decision. Reversed, the server sends and times.
    pub fn send_times(&mut self, late: u64, s: usize, reps: u64) -> Option<Vec<f64>> {
        if self.reverse {
            if !self.fits_reversed(reps) {
                return None;
            }
            if !self
                .ctl
                .send_words(&[self.word(CMD_LATE | REVERSED, late), 0, s as u64, reps])
            {
                return None;
            }
            for _ in 0..reps {
                if !matches!(answer_late(self.t, late, s), Answer::Done) {
                    return None;
                }
            }
            let times = recv_floats(self.ctl)?;
            self.end_reversed(reps, &times);
            return Some(times);
        }
        if !self
            .ctl
            .send_words(&[self.word(CMD_LATE, late), 0, s as u64, reps])
        {
            return None;
        }
        let mut times = Vec::with_capacity(reps as usize);
        for _ in 0..reps {
            if !self.next_rep() {
                return None;
            }
            times.push(send_late(self.t, s)?);
        }
        self.end_reps();
        Some(times)
    }

    /// The exchange probe (`exchange_train`, k exchanges) where the channel has it: the
    /// time per exchange in ticks, `Some(None)` where the channel has no exchange. The
    /// isolated exchange (`isolated_steps`) is `Some(None)` too where the two sides
    /// do not share a counter, or their readings show they do not. Both
    /// sides send at once, so the server cannot take a stop mark in band: a train that
    /// would end past the deadline is not started.
    /// `how`: which exchange (`Exchange`).
    pub fn exchange(&mut self, k: u64, s: usize, how: Exchange) -> Option<Option<f64>> {
        if how == Exchange::Isolated {
            let readings = self.isolated(k, s, how, 0)?;
            return Some(readings.and_then(|[own, peer]| isolated_exchange_ticks(&own, &peer)));
        }
        if !self.start_exchange(k, s, how, 1)? {
            return Some(None);
        }
        let v = exchange_train(self.t, k, s, how)?;
        self.end_reversed(1, &[]);
        Some(Some(v))
    }

    /// The isolated one-way message (`isolated_steps`, k messages of s bytes from
    /// this side): the ticks from the later side's start to the receiver's end and to
    /// the sender's (`isolated_one_way_ticks`); `Some(None)` where it is not run (see
    /// `isolated`).
    pub fn one_way(&mut self, k: u64, s: usize) -> Option<Option<[f64; 2]>> {
        let readings = self.isolated(k, s, Exchange::OneWay, 0)?;
        Some(readings.and_then(|[own, peer]| isolated_one_way_ticks(&own, &peer)))
    }

    /// The isolated exchanges after a pause (`isolated_steps` with `Exchange::Paused`: k
    /// exchanges of s bytes, before each both sides away from MPI for `pause` ticks),
    /// each as `isolated_exchange_costs` combines it; `Some(None)` where it is not run
    /// (see `isolated`).
    pub fn exchange_after_pause(
        &mut self,
        k: u64,
        s: usize,
        pause: u64,
    ) -> Option<Option<Vec<f64>>> {
        let readings = self.isolated(k, s, Exchange::Paused, pause)?;
        Some(readings.and_then(|[own, peer]| isolated_exchange_costs(&own, &peer)))
    }

    /// Starts the server's side of an exchange command: `Some(false)` where the channel
    /// has no exchange (nothing is started), None where the deadline or the control
    /// channel stops it.
    /// `last`: the command's last word (the pause of `Exchange::Paused`, in ticks).
    fn start_exchange(&mut self, k: u64, s: usize, how: Exchange, last: u64) -> Option<bool> {
        if !self.t.can_exchange() {
            return Some(false);
        }
        if !self.fits_reversed(1) {
            return None;
        }
        self.ctl
            .send_words(&[self.word(CMD_EXCHANGE, how as u64), k, s as u64, last])
            .then_some(true)
    }

    /// An isolated probe (`isolated_steps`): this side's readings and the server's (two
    /// to a control message). `Some(None)` where it is not run: the channel has no
    /// exchange (the 0-byte one that brings both sides together), or the two sides do not
    /// share a counter, on which alone their readings combine.
    fn isolated(
        &mut self,
        k: u64,
        s: usize,
        how: Exchange,
        pause: u64,
    ) -> Option<Option<[Readings; 2]>> {
        if !self.t.shares_clock() || !self.start_exchange(k, s, how, pause)? {
            return Some(None);
        }
        let own = isolated_steps(self.t, k, s, how, true, pause)?;
        let mut peer = Vec::with_capacity(own.len());
        while peer.len() < own.len() {
            let w = self.ctl.recv_words()?;
            peer.extend([[w[0], w[1]], [w[2], w[3]]]);
        }
        self.end_reversed(1, &[]);
        Some(Some([own, peer]))
    }

    /// Does a send of s bytes wait for a receiver that comes `late` ticks after it?
    pub fn send_waits(&mut self, late: u64, s: usize, reps: u64) -> Option<bool> {
        waits(&self.send_times(late, s, reps)?, late)
    }

    pub fn done(&mut self) {
        self.ctl.send_words(&[CMD_DONE, 0, 0, 0]);
    }
}
