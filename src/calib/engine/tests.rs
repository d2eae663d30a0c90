use super::*;
use std::sync::mpsc::{channel, Receiver, Sender};

/// Two threads joined by channels, with a LogGP-like cost: o per call, L per message.
struct Chan {
    tx: Sender<usize>,
    rx: Receiver<usize>,
    stop: bool,
    /// Sends so far, and the one (if any) that sleeps `STALL_MS` first: the machine
    /// pausing with the thread on its CPU, as far as the probes can tell.
    sends: u64,
    stall_at: Option<u64>,
}
const STALL_MS: u64 = 120;
const STOP: usize = usize::MAX;
fn spin_ns(ns: u64) {
    let t0 = std::time::Instant::now();
    while (t0.elapsed().as_nanos() as u64) < ns {}
}
impl Transport for Chan {
    fn send(&mut self, size: usize) -> bool {
        self.sends += 1;
        if self.stall_at == Some(self.sends) {
            std::thread::sleep(std::time::Duration::from_millis(STALL_MS));
        }
        spin_ns(2000 + size as u64); // o_s = 2 µs + 1 ns/B
        self.tx.send(size).is_ok()
    }
    fn recv(&mut self, size: usize) -> bool {
        // Busy-poll like an MPI progress loop (a sleeping receiver adds wake-up time).
        // Yielding between polls was tried: with two CPU hogs beside the test, o_s then
        // read 0.1–1.7 ms in 10 of 10 tries (a yield hands the core to a hog for a time
        // slice), where the spinning poll held in 3 of 3 runs.
        let ok = loop {
            match self.rx.try_recv() {
                Ok(STOP) => {
                    self.stop = true;
                    return true;
                }
                Ok(v) => break v == size,
                Err(std::sync::mpsc::TryRecvError::Empty) => std::hint::spin_loop(),
                Err(_) => break false,
            }
        };
        spin_ns(1000); // o_r = 1 µs
        ok
    }
    fn send_stop(&mut self) -> bool {
        self.tx.send(STOP).is_ok()
    }
    fn clear_stop(&mut self) {
        self.stop = false;
    }
    fn stopped(&self) -> bool {
        self.stop
    }
}
struct Ctl {
    tx: Sender<[u64; 4]>,
    rx: Receiver<[u64; 4]>,
}
impl Control for Ctl {
    fn send_words(&mut self, w: &[u64; 4]) -> bool {
        self.tx.send(*w).is_ok()
    }
    fn recv_words(&mut self) -> Option<[u64; 4]> {
        self.rx.recv().ok()
    }
}

fn one_measurement() -> (f64, f64, bool) {
    let (mut t, mut ctl, server) = pair();
    let mut c = Client::new(&mut t, &mut ctl, u64::MAX);
    // n = 32 sends a train, 9 passes: o_s is a difference of two round trips over
    // n − 1, and each round trip carries one message's latency, which jumps on this VM
    // (the test transport's PRTT(1,0,1000) read 9–18 µs in a first pass and 30–50 µs in
    // later ones, where its own costs add to 8 µs, and o_s 1.0–1.9 µs against its 3
    // µs: 2026-11-29). At n = 8 and 5 passes a 20 µs jump moved o_s by 2.9 µs; at 32,
    // by 0.6 µs, and the median of 9 passes needs five jumps, not three.
    const N: u64 = 32;
    let p = measure_point(&mut c, N, 1000, 9).unwrap();
    c.done();
    server.join().unwrap();
    let ns = crate::base::clock::ns_per_tick(crate::base::clock::hz());
    (
        p.send_overhead(N) * ns,
        p.recv_overhead.median * ns,
        p.prtt_n_0.median > p.prtt_1_0.median,
    )
}

/// A pair of channel transports with a server thread.
fn pair() -> (Chan, Ctl, std::thread::JoinHandle<()>) {
    pair_stalling(None, None)
}

/// `pair`, with the client's or the server's send number k stalling (see `Chan`).
fn pair_stalling(
    client_stall: Option<u64>,
    server_stall: Option<u64>,
) -> (Chan, Ctl, std::thread::JoinHandle<()>) {
    let (a_tx, b_rx) = channel();
    let (b_tx, a_rx) = channel();
    let (ca_tx, cb_rx) = channel();
    let (cb_tx, ca_rx) = channel();
    let server = std::thread::spawn(move || {
        let mut t = Chan {
            tx: b_tx,
            rx: b_rx,
            stop: false,
            sends: 0,
            stall_at: server_stall,
        };
        let mut c = Ctl {
            tx: cb_tx,
            rx: cb_rx,
        };
        serve(&mut t, &mut c);
    });
    let t = Chan {
        tx: a_tx,
        rx: a_rx,
        stop: false,
        sends: 0,
        stall_at: client_stall,
    };
    let ctl = Ctl {
        tx: ca_tx,
        rx: ca_rx,
    };
    (t, ctl, server)
}

/// Issue 13 §7: a deadline reached between repetitions stops every kind of probe in
/// band, and every command issued after the stop, without leaving the server waiting
/// (it took the command and waits for a first message: a stop mark must come).
#[test]
fn a_deadline_stops_probes_in_band_and_the_server_follows() {
    crate::base::clock::setup(20);
    let (mut t, mut ctl, server) = pair();
    let mut c = Client::new(&mut t, &mut ctl, u64::MAX);
    assert!(c.prtt(4, 0, 100, 3).is_some());
    // Spent: the next repetitions are not started.
    c.deadline_ns = crate::base::clock::monotonic_raw_ns();
    assert!(measure_point(&mut c, 4, 100, 3).is_none());
    assert!(c.stopped);
    assert!(c.prtt(4, 0, 100, 3).is_none());
    assert!(c.recv_overhead(4, 10, 100, 3).is_none());
    assert!(c.send_waits(1000, 100, 3).is_none());
    c.done();
    server.join().unwrap();
}

/// A repetition is not started when the last one's duration says it would end past
/// the deadline: a deadline 2.5 repetitions' minimum away lets at most 3 of 10 run
/// (the first has no duration to judge by).
#[test]
fn a_repetition_that_would_end_past_the_deadline_is_not_started() {
    crate::base::clock::setup(20);
    let (mut t, mut ctl, server) = pair();
    let mut c = Client::new(&mut t, &mut ctl, u64::MAX);
    assert!(c.prtt(50, 0, 100, 4).is_some());
    // One repetition of PRTT(50, 0, 100) takes at least its 50 sends of 2.1 µs (the
    // test transport spins that long): a floor, where a measured mean would carry the
    // server thread's start-up and let all 10 repetitions fit (seen once in CI).
    let rep_ns = 50 * 2_100;
    c.deadline_ns = crate::base::clock::monotonic_raw_ns() + rep_ns * 5 / 2;
    assert!(c.prtt(50, 0, 100, 10).is_none());
    assert!(c.stopped);
    // (Slack for a loaded machine: a repetition may take longer than the last.)
    assert!(
        crate::base::clock::monotonic_raw_ns() <= c.deadline_ns + 5 * rep_ns + 5_000_000,
        "stopped about the deadline"
    );
    c.done();
    server.join().unwrap();
}

#[test]
fn client_and_server_agree_and_overheads_come_out() {
    // Two busy threads on a shared 2-core machine: a measurement taken while the machine
    // is busy (a build beside the tests, a process left over) is retried after a pause,
    // up to five times, each with the clock's reference taken afresh. A fresh-clone CI
    // run at 7097108 failed three tries in a row (o_s 582 ns, o_r 1507 ns), the tries
    // then back to back with one reference.
    let mut tries = vec![];
    for k in 0..5u64 {
        if k > 0 {
            std::thread::sleep(std::time::Duration::from_millis(500 * k));
        }
        crate::base::clock::setup(20);
        let (o_s, o_r, order) = one_measurement();
        if o_s > 2000.0 && o_s < 6000.0 && o_r > 900.0 && o_r < 4000.0 && order {
            return;
        }
        tries.push((o_s.round(), o_r.round(), order));
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    panic!(
        "o_s, o_r, PRTT(n) > PRTT(1) per try: {tries:?}; expected o_s 2–6 µs, o_r 0.9–4 µs \
         (load average: {})",
        load.trim()
    );
}

/// A stall of one repetition (120 ms, the thread asleep in a send: what the probes see
/// of a machine or network pausing) is found, in a command the client drives and in one
/// the server drives (reversed), and nothing is found without one. Broken once: with the
/// reversed command's repetitions not passed on, its stall went unseen.
#[test]
fn a_stalled_repetition_is_found_either_way_round() {
    crate::base::clock::setup(20);
    for reverse in [false, true] {
        for stall in [None, Some(7)] {
            let (client_stall, server_stall) = if reverse {
                (None, stall)
            } else {
                (stall, None)
            };
            let (mut t, mut ctl, server) = pair_stalling(client_stall, server_stall);
            let mut c = Client::new(&mut t, &mut ctl, u64::MAX);
            c.reverse = reverse;
            // PRTT(4, 0, 100): 4 sends a repetition from the side that drives; send 7 is
            // in the second of 5 repetitions.
            assert!(c.prtt(4, 0, 100, 5).is_some());
            let found = c.longest_stall_ns;
            c.done();
            server.join().unwrap();
            match stall {
                None => assert_eq!(found, 0, "reverse {reverse}: no stall, found {found} ns"),
                Some(_) => assert!(
                    (STALL_NS..=(STALL_MS + 100) * 1_000_000).contains(&found),
                    "reverse {reverse}: a {STALL_MS} ms stall, found {found} ns"
                ),
            }
        }
    }
}

#[test]
fn the_isolated_exchange_counts_from_the_later_start() {
    use super::probes::isolated_exchange_ticks;
    // Side a starts at 100, b at 160; they end at 1160 and 1260: from 160, 1000 and
    // 1100, the mean 1050. The median of three such exchanges, one preempted.
    let a = [[100, 1160], [2000, 3050], [5000, 9000]];
    let b = [[160, 1260], [2000, 3050], [5010, 6050]];
    assert_eq!(isolated_exchange_ticks(&a, &b), Some(1050.0));
    // Readings that cannot be on one counter: b ends before a began.
    let c = [[100, 1160], [2000, 3050], [7000, 7500]];
    assert_eq!(isolated_exchange_ticks(&c, &b), None);
    assert_eq!(isolated_exchange_ticks(&[], &[]), None);
}

#[test]
fn the_isolated_one_way_counts_from_the_later_start() {
    use super::probes::isolated_one_way_ticks;
    // The sender starts at 100, the receiver at 160, done at 760; the sender at 1210
    // (the FIN): from 160, 600 and 1050. An eager sender done before the receiver began
    // counts 0. Medians of three.
    let sender = [[100, 1210], [2000, 3050], [5000, 5100]];
    let receiver = [[160, 760], [2000, 2600], [5200, 5800]];
    assert_eq!(
        isolated_one_way_ticks(&sender, &receiver),
        Some([600.0, 1050.0])
    );
    // A receive that ended before its send began: not one counter.
    let late = [[100, 1210], [2000, 3050], [6000, 6100]];
    assert_eq!(isolated_one_way_ticks(&late, &receiver), None);
    assert_eq!(isolated_one_way_ticks(&[], &[]), None);
}
