//! How many rendezvous copies one round of a collective runs at once on one host, for the
//! advice on algorithms (`advise::algorithm`), which the model prices as two at most.
use super::{choice, prices::Prices, short_name, sim};
use loggp_report::{CollectiveModel, Mode, PeerClass, Report};

/// The largest number of receivers that copy rendezvous-range data (by the intra-node
/// calibration's prices) from different buffers at once in one round of `algorithm`'s
/// schedule, for `row`'s collective and message size, exchanges the exchange probe priced
/// apart; None where it cannot be told. On one host such transfers are copies that share
/// the node's memory system. The model prices two at once by the exchange probe, which
/// measures two (`sim::shared_copy_factor`), and any number reading one sender's buffer
/// by taking turns at it; more than two from different buffers are priced as two, which
/// is low where the memory system is the limit (a 16-core VM, Open MPI vader: a linear
/// Alltoall of 256 KiB on 16 ranks measured 2.1 × its price, on 4 ranks 1.0–1.1 ×).
pub fn concurrent_rendezvous(r: &Report, row: &CollectiveModel, algorithm: &str) -> Option<usize> {
    let coll = short_name(&row.function)?;
    let set = r
        .calibration
        .mpi
        .iter()
        .find(|s| s.peer_class == PeerClass::IntraNode && s.mode == Mode::Send)?;
    let prices = Prices::of(set)?;
    let c = choice(r, coll, row.comm_size, row.message_bytes);
    let a = c.algorithms.iter().find(|a| a.name == algorithm)?;
    let sch = (a.schedule)(row.comm_size, row.message_bytes)?;
    Some(
        sch.iter()
            .map(|round| {
                // An exchange's two copies at once are what the exchange probe measured.
                let measured: Vec<usize> = sim::exchanges(round)
                    .into_iter()
                    .filter(|&(i, _)| prices.at(round.msgs[i].2, 0).exchange_ns.is_some())
                    .flat_map(|(i, j)| [i, j])
                    .collect();
                let copies: Vec<(u32, u32)> = (round.msgs.iter().enumerate())
                    .filter(|(i, m)| {
                        m.0 != m.1 && !measured.contains(i) && prices.at(m.2, 0).rendezvous
                    })
                    .map(|(_, m)| (m.0, m.1))
                    .collect();
                let senders: std::collections::BTreeSet<u32> = copies.iter().map(|c| c.0).collect();
                let receivers: std::collections::BTreeSet<u32> =
                    copies.iter().map(|c| c.1).collect();
                // One sender's buffer read by each receiver: priced (turns at one buffer).
                if senders.len() <= 1 {
                    receivers.len().min(1)
                } else {
                    receivers.len()
                }
            })
            .max()
            .unwrap_or(0),
    )
}
