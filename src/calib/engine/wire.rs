//! The two channels of a pair (the transport probed, and the control channel that carries
//! commands and results), the commands, and the busy delay between probes.
use crate::base::clock::now;

/// Moves messages of a given size between the two sides of a pair.
pub trait Transport {
    /// Which of the transport's channels the next commands are for (a pair keeps MPI's
    /// send modes and the raw transports open side by side, and interleaves them: see
    /// `run`). A transport of one channel ignores it.
    fn select(&mut self, _chan: usize) {}
    fn send(&mut self, size: usize) -> bool;
    fn recv(&mut self, size: usize) -> bool;
    /// Lets the transport make progress without receiving (MPI: a probe on another tag),
    /// so that an eager message can be taken in while its receive is not yet posted.
    fn progress(&mut self) {}
    /// Sends the client's stop mark where the server expects a repetition's first
    /// message: the budget is spent. `recv` takes it like a message; `stopped` says so.
    fn send_stop(&mut self) -> bool;
    /// Forgets a stop mark received before (the server calls it before each repetition,
    /// outside any timed code).
    fn clear_stop(&mut self);
    /// Whether the last message received was the stop mark.
    fn stopped(&self) -> bool;
    /// Chooses again, with the peer over the control channel, how messages go where the
    /// transport has several ways (a shared-memory ring or a single copy); `client`: this
    /// side leads. False where the exchange failed.
    fn choose(&mut self, _ctl: &mut dyn Control, _client: bool) -> bool {
        true
    }
    /// Whether this channel has the exchange probe (both sides send and receive s bytes
    /// in one call: MPI_Sendrecv). Both sides of a pair agree, being the same channel.
    fn can_exchange(&self) -> bool {
        false
    }
    /// One exchange of s bytes each way with the peer (see `can_exchange`).
    fn exchange(&mut self, _size: usize) -> bool {
        false
    }
    /// Whether both sides read one counter (`clock::now`): the ranks of one host. The
    /// isolated exchange combines their readings (`isolated_exchange_ticks`).
    fn shares_clock(&self) -> bool {
        false
    }
    /// As `exchange`, each side sending what it received in the exchange before, into
    /// the buffer it sent from then: the lines it writes are the ones the peer has just
    /// read, as in the allgather phase of a reduce-scatter + allgather (Rabenseifner's,
    /// the ring's), where through shared memory the peer's cache must give them back.
    fn exchange_refill(&mut self, _size: usize) -> bool {
        false
    }
    /// As `exchange`, through persistent requests set up, started, completed and freed
    /// each time (`MPI_Recv_init`, `MPI_Send_init`, `MPI_Startall`, `MPI_Waitall`,
    /// `MPI_Request_free`), as Open MPI's linear Alltoall makes its messages: a started
    /// persistent send takes the MPI's full send path where a blocking one of a few bytes
    /// goes inline (vader's `sendi`).
    fn exchange_persistent(&mut self, _size: usize) -> bool {
        false
    }
}

/// Which exchange a train makes (`Transport::exchange`, `exchange_refill`,
/// `exchange_persistent`), as CMD_EXCHANGE's argument carries it. `Isolated`: plain
/// exchanges, each after a 0-byte exchange that brings both sides to it together
/// (`isolated_steps`); `OneWay`: as `Isolated`, but the client sends and the server
/// receives (`isolated_steps`); `Paused`: as `Isolated`, but both sides spin for a
/// pause, away from MPI, between the 0-byte exchange and the exchange timed (the
/// command's last word carries the pause in ticks).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Exchange {
    Plain = 0,
    Refill = 1,
    Persistent = 2,
    Isolated = 3,
    OneWay = 4,
    Paused = 5,
}

impl Exchange {
    pub(super) fn from_wire(arg: u64) -> Option<Exchange> {
        [
            Exchange::Plain,
            Exchange::Refill,
            Exchange::Persistent,
            Exchange::Isolated,
            Exchange::OneWay,
            Exchange::Paused,
        ]
        .into_iter()
        .find(|e| *e as u64 == arg)
    }
}

/// Carries the client's commands and the server's answers.
pub trait Control {
    fn send_words(&mut self, w: &[u64; 4]) -> bool;
    fn recv_words(&mut self) -> Option<[u64; 4]>;
}

pub(super) const CMD_PRTT: u64 = 1;
pub(super) const CMD_ORECV: u64 = 2;
pub(super) const CMD_DONE: u64 = 3;
pub(super) const CMD_LATE: u64 = 4;
/// The command's roles swapped: the server sends and times, the client answers.
pub(super) const REVERSED: u64 = 0x80;
pub(super) const CMD_CHOOSE: u64 = 5;
pub(super) const CMD_EXCHANGE: u64 = 6;

/// Values one message train of the control channel carries at most (receive timings:
/// 15 per pass).
pub const MAX_RECV_SAMPLES: usize = 160;

/// Ticks of 10 µs, set when the clock's rate is known (0: never yield).
pub(super) static YIELD_MARGIN_TICKS: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(0);

/// Lets `busy_wait` yield the CPU while more than 10 µs of a delay remain.
pub fn set_yield_margin() {
    let ticks = 10_000.0 / crate::base::clock::ns_per_tick(crate::base::clock::hz());
    YIELD_MARGIN_TICKS.store(ticks as u64, std::sync::atomic::Ordering::Relaxed);
}

/// Waits `ticks` without sleeping. The delay d of PRTT(n,d,s) must not overshoot (the
/// overshoot would count as send overhead), so the last 10 µs are spun; before that the
/// wait yields the CPU: on a dedicated node that returns at once, on a loaded one it lets
/// the kernel deliver the packets in flight (veth and loopback traffic is processed in
/// softirq, which a spinning process starves until the next timer tick).
#[inline]
pub(super) fn busy_wait(ticks: u64) -> u64 {
    let margin = YIELD_MARGIN_TICKS.load(std::sync::atomic::Ordering::Relaxed);
    let t0 = now();
    loop {
        let el = now().wrapping_sub(t0);
        if el >= ticks {
            return el;
        }
        if margin > 0 && ticks - el > margin {
            std::thread::yield_now();
        }
        // No spin_loop hint: PAUSE takes up to ~140 cycles on recent x86 and would make
        // the wait overshoot by that much; a bare TSC loop overshoots by one read.
    }
}

/// Sends values over the control channel: their count, then four to a message (evenly
/// spaced in rank, when sorted and more than `MAX_RECV_SAMPLES`, which keeps the
/// quantiles).
pub(super) fn send_floats<C: Control>(ctl: &mut C, v: &[f64]) -> bool {
    let k = v.len().min(MAX_RECV_SAMPLES);
    let pick: Vec<u64> = (0..k)
        .map(|i| v[i * v.len() / k.max(1)].to_bits())
        .collect();
    if !ctl.send_words(&[k as u64, 0, 0, 0]) {
        return false;
    }
    pick.chunks(4).all(|c| {
        let mut w = [0u64; 4];
        w[..c.len()].copy_from_slice(c);
        ctl.send_words(&w)
    })
}

pub(super) fn recv_floats<C: Control>(ctl: &mut C) -> Option<Vec<f64>> {
    let k = (ctl.recv_words()?[0] as usize).min(MAX_RECV_SAMPLES);
    let mut v = Vec::with_capacity(k);
    while v.len() < k {
        let w = ctl.recv_words()?;
        v.extend(w.iter().take(k - v.len()).map(|&b| f64::from_bits(b)));
    }
    Some(v)
}
