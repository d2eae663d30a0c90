//! Rounds where more than two ranks of a host copy at once: priced by the calibration's
//! concurrent exchange (`loggp_report::ConcurrentExchange`), where it ran.
/// The calibration's concurrent exchange at a message's size: `ranks` ranks of one host
/// exchanging at once, each from a buffer larger than a core's cache, and how much longer
/// its exchange took than the pair's exchange probe (`ratio`, at least 1).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Crowd {
    pub ratio: f64,
    pub ranks: f64,
}

/// How much longer a rendezvous copy takes where `copies` ranks of the host copy at once
/// (`sim::copies_at_once`): 1 up to two, which the pair's exchange probe measured; the
/// concurrent exchange's ratio (`Price::crowd`) at as many as it had; in a straight line
/// between. A 16-core VM (Intel Xeon, Open MPI 4.1.6 vader, 2026-11-29,
/// `bench/concurrent_copies.c`), a 256 KiB exchange on the mean rank: one pair 50 µs
/// from buffers in cache, 71 µs from the next block of a 4 MiB buffer; every rank at
/// once from such blocks, 8 ranks 69 µs, 16 ranks 99 µs.
pub fn crowd_factor(crowd: Option<Crowd>, rendezvous: bool, copies: usize) -> f64 {
    match crowd {
        Some(c) if rendezvous && copies > 2 && c.ranks > 2.0 => {
            let share = ((copies as f64 - 2.0) / (c.ranks - 2.0)).min(1.0);
            1.0 + (c.ratio - 1.0).max(0.0) * share
        }
        _ => 1.0,
    }
}
