//! Reduce, across ranks: each rank's contribution is a report fragment in the contract's
//! own format (`loggp_report::Report`: its `ranks[]` entry, cells, warnings, calibration
//! sets and thresholds); fragments add up over a binomial tree on the private
//! communicator, and rank 0 holds the job's. The same addition (`add`) recombines rank
//! files in the tool (`loggp show dir/`).
use crate::base::mpi::{self, MPI_Comm};
use crate::base::runtime;
use loggp_report::{
    merge_call_sites, merge_cells, merge_matrix, merge_own, merge_waits, OwnTraffic, Report,
};
use std::os::raw::c_int;

const MERGE_TAG: c_int = 0x10_66;

/// Adds `from` (another rank's or subtree's fragment) to `into`. The calibration's
/// header (status, pairs, disturbance) is every rank's; `into`'s is kept.
pub fn add(into: &mut Report, from: Report) {
    into.ranks.extend(from.ranks);
    into.warnings.extend(from.warnings);
    into.calibration.mpi.extend(from.calibration.mpi);
    into.thresholds.extend(from.thresholds);
    into.calibration.raw.extend(from.calibration.raw);
    (into.calibration.concurrent_exchanges).extend(from.calibration.concurrent_exchanges);
    let mut cells = std::mem::take(&mut into.cells);
    cells.extend(from.cells);
    into.cells = merge_cells(&cells);
    let mut matrix = std::mem::take(&mut into.matrix);
    matrix.extend(from.matrix);
    into.matrix = merge_matrix(&matrix);
    let mut own = std::mem::take(&mut into.coverage.own_traffic);
    own.extend(from.coverage.own_traffic);
    into.coverage.own_traffic = merge_own(own);
    merge_call_sites(&mut into.call_sites, from.call_sites);
    into.time_split.extend(from.time_split);
    into.passive_latency.extend(from.passive_latency);
    merge_waits(&mut into.waits, from.waits);
}

/// Merges every rank's fragment over a binomial tree: receive from children rank+1,
/// rank+2, rank+4, … then send to the parent; log2(P) steps, no rank holds more than its
/// subtree. Returns the job's fragment on rank 0, None elsewhere.
///
/// The merge must never leave a parent waiting: every step that could fail is guarded,
/// and each rank sends its parent exactly one message whatever happened before.
pub(crate) fn over_tree(
    comm: MPI_Comm,
    rank: i32,
    size: i32,
    mut fragment: Report,
) -> Option<Report> {
    let mut mask = 1;
    while mask < size {
        if rank & mask != 0 {
            let bytes = runtime::guarded("encoding statistics", || {
                serde_json::to_vec(&fragment).unwrap_or_default()
            })
            .unwrap_or_default();
            // SAFETY: sending a byte buffer on the private communicator.
            unsafe {
                mpi::PMPI_Send(
                    bytes.as_ptr() as *const _,
                    bytes.len() as c_int,
                    mpi::dt_byte(),
                    rank - mask,
                    MERGE_TAG,
                    comm,
                )
            };
            return None;
        }
        let child = rank + mask;
        if child < size {
            let merged = receive(comm, child).and_then(|(f, n)| {
                // The child's message is loggp's own traffic: counted here, where its
                // size is known (the sender's fragment was sealed before it).
                fragment.coverage.own_traffic.push(OwnTraffic {
                    from: child as u32,
                    to: rank as u32,
                    messages: 1,
                    bytes: n,
                    ..Default::default()
                });
                runtime::guarded("merging statistics", || add(&mut fragment, f))
            });
            if merged.is_none() {
                fragment.warnings.push(format!(
                    "statistics of rank {child}'s subtree could not be read"
                ));
            }
        }
        mask <<= 1;
    }
    fragment.ranks.sort_by_key(|r| r.rank);
    Some(fragment)
}

fn receive(comm: MPI_Comm, src: c_int) -> Option<(Report, u64)> {
    // SAFETY: probe, size and receive a byte message on the private communicator.
    unsafe {
        let mut st = mpi::empty_status();
        mpi::PMPI_Probe(src, MERGE_TAG, comm, &mut st);
        let mut n: c_int = 0;
        mpi::PMPI_Get_count(&st, mpi::dt_byte(), &mut n);
        let mut buf = vec![0u8; n.max(0) as usize];
        mpi::PMPI_Recv(
            buf.as_mut_ptr() as *mut _,
            n,
            mpi::dt_byte(),
            src,
            MERGE_TAG,
            comm,
            mpi::status_ignore(),
        );
        serde_json::from_slice(&buf)
            .ok()
            .map(|r| (r, n.max(0) as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loggp_report::{Cell, Mode, PeerClass, RankEntry, Role};

    fn fragment(rank: u32, count: u64) -> Report {
        Report {
            ranks: vec![RankEntry {
                rank,
                ..Default::default()
            }],
            cells: vec![Cell {
                function: "MPI_Send".into(),
                role: Role::Initiates,
                mode: Mode::Send,
                peer_class: PeerClass::IntraNode,
                size_bin: 10,
                count,
                hist: vec![[40, count]],
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn fragments_add_up_in_any_grouping() {
        let (a, b, c) = (fragment(0, 1), fragment(1, 2), fragment(2, 3));
        let mut left = a.clone();
        add(&mut left, b.clone());
        add(&mut left, c.clone());
        let mut bc = b;
        add(&mut bc, c);
        let mut right = a;
        add(&mut right, bc);
        assert_eq!(left.cells, right.cells);
        assert_eq!(left.cells[0].count, 6);
        assert_eq!(left.cells[0].hist, vec![[40, 6]]);
        assert_eq!(left.ranks.len(), 3);
    }
}
