//! Rounds where more than two ranks of a host copy at once: priced by the calibration's
//! concurrent exchange (`loggp_report::ConcurrentExchange`), where it ran.
use loggp_report::ConcurrentExchange;
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

/// The concurrent exchange per size over the ranks that took part: the lowest, the mean
/// and the highest of their medians (ns), by size; the ranks of a host that exchanged at
/// once (the most of any host). What the model prices by and `loggp show` lists.
pub fn by_size(c: &[ConcurrentExchange]) -> (Vec<(u64, [f64; 3])>, u32) {
    let mut sizes = std::collections::BTreeMap::<u64, Vec<f64>>::new();
    for p in c.iter().flat_map(|e| &e.points) {
        if p.exchange_ns.is_finite() && p.exchange_ns > 0.0 {
            sizes.entry(p.size_bytes).or_default().push(p.exchange_ns);
        }
    }
    let rows = (sizes.into_iter())
        .map(|(size, v)| {
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(0.0, f64::max);
            (size, [lo, v.iter().sum::<f64>() / v.len() as f64, hi])
        })
        .collect();
    (rows, c.iter().map(|e| e.host_ranks).max().unwrap_or(0))
}
