//! The statistics the runtime produces, as the contract carries them: one cell per
//! (function, mode, peer class, size bin) with its call count, bytes, time, extremes and
//! sparse duration histogram (`bins`). Rank files carry their rank's cells; the report,
//! the sum over all ranks. Every passive estimate is computed from them, the same way
//! in the shim at MPI_Finalize and in the tool (`loggp_model::passive::bins`), so rank
//! files of an interim or killed job recombine exactly.
use crate::{Mode, PeerClass};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a function's calls are to the passive estimates.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// It starts (or is) a message: its duration is a sample of its mode's cost.
    Initiates,
    /// It completes requests (Wait/Test): added to the cost of a nonblocking mode.
    Completes,
    /// It probes for a message.
    Probes,
    /// MPI_Init, MPI_Finalize, a request's bookkeeping.
    #[default]
    Other,
    /// A pseudo record: the spacing of back-to-back sends to one peer (`burst_gap`).
    BurstGap,
}

/// One statistics cell.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Cell {
    /// The MPI function ("MPI_Send"), or a pseudo record ("burst_gap",
    /// "request_completed", "request_cancelled", "request_freed").
    pub function: String,
    pub role: Role,
    pub mode: Mode,
    pub peer_class: PeerClass,
    /// The size bin (`bins::size_bin`).
    pub size_bin: u16,
    /// A collective's communicator size (its local group); none for other calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comm_size: Option<u32>,
    pub count: u64,
    pub bytes: u64,
    pub time_ns: f64,
    pub min_ns: f64,
    pub smallest_bytes: u64,
    pub largest_bytes: u64,
    /// Sparse duration histogram, `[bucket, count]` in bucket order (`bins::hist_index`
    /// over ns).
    pub hist: Vec<[u64; 2]>,
}

/// What identifies a cell: function, mode, peer class, size bin, communicator size.
pub type CellKey = (String, Mode, PeerClass, u16, Option<u32>);

impl Cell {
    /// What identifies a cell: summed with others of the same key.
    pub fn key(&self) -> CellKey {
        (
            self.function.clone(),
            self.mode,
            self.peer_class,
            self.size_bin,
            self.comm_size,
        )
    }

    /// The histogram as the quantile functions of `bins` take it.
    pub fn histogram(&self) -> Vec<(u16, u64)> {
        self.hist.iter().map(|&[b, c]| (b as u16, c)).collect()
    }

    /// Adds another cell of the same key.
    pub fn merge(&mut self, o: &Cell) {
        if self.count == 0 {
            *self = o.clone();
            return;
        }
        self.count += o.count;
        self.bytes += o.bytes;
        self.time_ns += o.time_ns;
        self.min_ns = self.min_ns.min(o.min_ns);
        self.smallest_bytes = self.smallest_bytes.min(o.smallest_bytes);
        self.largest_bytes = self.largest_bytes.max(o.largest_bytes);
        let mut dense: BTreeMap<u64, u64> = self.hist.iter().map(|&[b, c]| (b, c)).collect();
        for &[b, c] in &o.hist {
            *dense.entry(b).or_default() += c;
        }
        self.hist = dense.into_iter().map(|(b, c)| [b, c]).collect();
    }
}

/// The sum of cells by key, in key order: the same cells, whatever the order and grouping
/// of the parts (so rank files merged in any order give the final report's).
pub fn merge_cells<'a>(parts: impl IntoIterator<Item = &'a Cell>) -> Vec<Cell> {
    let mut m: BTreeMap<CellKey, Cell> = BTreeMap::new();
    for c in parts {
        m.entry(c.key()).or_default().merge(c);
    }
    m.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(f: &str, bin: u16, count: u64, hist: &[[u64; 2]]) -> Cell {
        Cell {
            function: f.into(),
            role: Role::Initiates,
            mode: Mode::Send,
            peer_class: PeerClass::IntraNode,
            size_bin: bin,
            comm_size: None,
            count,
            bytes: count * 8,
            time_ns: count as f64 * 100.0,
            min_ns: 50.0,
            smallest_bytes: 8,
            largest_bytes: 8,
            hist: hist.to_vec(),
        }
    }

    #[test]
    fn merging_is_a_sum_in_any_order() {
        let a = cell("MPI_Send", 8, 2, &[[40, 1], [41, 1]]);
        let b = cell("MPI_Send", 8, 3, &[[41, 2], [45, 1]]);
        let c = cell("MPI_Recv", 8, 1, &[[40, 1]]);
        let one = merge_cells([&a, &b, &c]);
        let other = merge_cells([&c, &b, &a]);
        assert_eq!(one, other);
        assert_eq!(one.len(), 2);
        let s = one.iter().find(|x| x.function == "MPI_Send").unwrap();
        assert_eq!(s.count, 5);
        assert_eq!(s.hist, vec![[40, 1], [41, 3], [45, 1]]);
    }
}
