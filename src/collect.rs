//! Reduce: this rank's per-thread statistics into one table (ns-domain histograms), the
//! merge of such tables across ranks, and the report sections built from the merged table.
use crate::clock;
use crate::hooks::{REQ_CANCELLED, REQ_COMPLETED, REQ_FREED};
use crate::intercept::FUNC_NAMES;
use crate::stats::{self, split_key, Mode};
use loggp_report::bins::{hist_index, hist_mid, HIST_BUCKETS};
use loggp_report::RankEntry;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering::Relaxed;

/// Key of a merged cell: (func, mode, class, size bin).
pub type CellKey = (u8, u8, u8, u16);

/// One (func, mode, class, size bin) of statistics with its histogram in ns.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Cell {
    pub count: u64,
    pub bytes: u64,
    pub time_ns: f64,
    pub min_ns: f64,
    pub min_size: u64,
    pub max_size: u64,
    /// Sparse (bucket, count), buckets of `loggp_report::bins` over ns.
    pub hist: Vec<(u16, u64)>,
}

impl Cell {
    pub fn merge(&mut self, o: &Cell) {
        if self.count == 0 {
            *self = o.clone();
            return;
        }
        self.count += o.count;
        self.bytes += o.bytes;
        self.time_ns += o.time_ns;
        self.min_ns = self.min_ns.min(o.min_ns);
        self.min_size = self.min_size.min(o.min_size);
        self.max_size = self.max_size.max(o.max_size);
        let mut dense: BTreeMap<u16, u64> = self.hist.iter().copied().collect();
        for &(i, c) in &o.hist {
            *dense.entry(i).or_default() += c;
        }
        self.hist = dense.into_iter().collect();
    }
}

/// What one rank contributes to the merge: its own summary, its cells, and (calibration
/// clients) what its pair measured.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Blob {
    pub ranks: Vec<RankEntry>,
    pub cells: Vec<(CellKey, Cell)>,
    pub warnings: Vec<String>,
    pub calibration: Vec<(loggp_report::CalibrationSet, loggp_report::Threshold)>,
    #[serde(default)]
    pub raw: Vec<loggp_report::RawSet>,
}

/// Per-function totals that missed the cell tables (full table, or no slot).
fn overflow_totals(ns_per_tick: f64) -> Vec<(usize, u64, u64, f64)> {
    let mut out = Vec::new();
    let mut add = |t: &[stats::Totals; stats::MAX_FUNCS]| {
        for (f, tot) in t.iter().enumerate() {
            let c = tot.count.load(Relaxed);
            if c > 0 {
                out.push((
                    f,
                    c,
                    tot.bytes.load(Relaxed),
                    tot.ticks.load(Relaxed) as f64 * ns_per_tick,
                ));
            }
        }
    };
    stats::for_each_slot(|s| add(s.overflow()));
    add(stats::shared_overflow());
    out
}

/// This rank's cells, merged over its threads, histograms converted to ns.
pub fn local_cells(ns_per_tick: f64) -> BTreeMap<CellKey, Cell> {
    let mut cells: BTreeMap<CellKey, Cell> = BTreeMap::new();
    stats::for_each_slot(|slot| {
        for c in slot.cells() {
            let (f, m, cl, bin) = split_key(c.key.load(Relaxed));
            let count = c.count.load(Relaxed);
            if count == 0 {
                continue;
            }
            let mut dense = vec![0u64; HIST_BUCKETS];
            for (i, h) in c.hist.iter().enumerate() {
                let n = h.load(Relaxed) as u64;
                if n > 0 {
                    dense[hist_index((hist_mid(i) * ns_per_tick) as u64)] += n;
                }
            }
            let cell = Cell {
                count,
                bytes: c.bytes.load(Relaxed),
                time_ns: c.ticks.load(Relaxed) as f64 * ns_per_tick,
                min_ns: c.min_ticks_plus1.load(Relaxed).saturating_sub(1) as f64 * ns_per_tick,
                min_size: c.min_size_plus1.load(Relaxed).saturating_sub(1),
                max_size: c.max_size.load(Relaxed),
                hist: dense
                    .iter()
                    .enumerate()
                    .filter(|(_, &n)| n > 0)
                    .map(|(i, &n)| (i as u16, n))
                    .collect(),
            };
            cells
                .entry((f, m as u8, cl as u8, bin))
                .or_default()
                .merge(&cell);
        }
    });
    cells
}

/// Name under which a function id appears in `calls`, if it is an intercepted function.
fn func_name(f: u8) -> Option<&'static str> {
    FUNC_NAMES.get(f as usize).copied()
}

/// This rank's entry of `ranks[]`.
pub fn rank_entry(
    rank: u32,
    host: &str,
    cells: &BTreeMap<CellKey, Cell>,
    ns_per_tick: f64,
) -> RankEntry {
    let mut e = RankEntry {
        rank,
        host: host.to_string(),
        pid: std::process::id(),
        threads: stats::threads_seen() as u32,
        requests_untracked: crate::requests::UNTRACKED.load(Relaxed),
        ..Default::default()
    };
    let mut add_call = |name: &str, count: u64, bytes: u64, time_ns: f64| {
        let c = e.calls.entry(name.to_string()).or_default();
        c.count += count;
        c.bytes += bytes;
        c.time_ns += time_ns;
    };
    for (&(f, m, _, _), c) in cells {
        if let Some(name) = func_name(f) {
            add_call(name, c.count, c.bytes, c.time_ns);
            continue;
        }
        if ![REQ_COMPLETED, REQ_CANCELLED, REQ_FREED].contains(&f) {
            continue; // other pseudo records (burst spacing) belong to the passive bins
        }
        let mode = Mode::from_u8(m).name().to_string();
        let r = e.requests.entry(mode).or_default();
        match f {
            REQ_COMPLETED => {
                r.completed += c.count;
                r.completed_bytes += c.bytes;
                r.lifetime_ns += c.time_ns;
            }
            REQ_CANCELLED => r.cancelled += c.count,
            REQ_FREED => r.freed_active += c.count,
            _ => {}
        }
    }
    let mut dropped = 0;
    for (f, count, bytes, time_ns) in overflow_totals(ns_per_tick) {
        if let Some(name) = func_name(f as u8) {
            add_call(name, count, bytes, time_ns);
        }
        dropped += count;
    }
    e.records_without_histogram = dropped;
    e.time_in_mpi_ns = e.calls.values().map(|c| c.time_ns).sum();
    e
}

/// The intercepted calls in progress in this rank's threads, for interim and partial
/// rank files: what a rank of a hung job waits on, and since when.
pub fn in_progress(ns_per_tick: f64) -> Vec<loggp_report::CallInProgress> {
    let now = clock::now();
    stats::calls_in_progress()
        .into_iter()
        .map(|(f, what, n, t0)| {
            let function = func_name(f).unwrap_or("?").to_string();
            let waits = function.starts_with("MPI_Wait") || function.starts_with("MPI_Test");
            let (peer, bytes) = if what & stats::CURRENT_REQUEST != 0 {
                // A request the shim tracks names its peer and size.
                match crate::requests::get(what & !stats::CURRENT_REQUEST, false) {
                    Some(i) if i.peer_world >= 0 => (Some(i.peer_world as u32), Some(i.bytes)),
                    Some(i) => (None, Some(i.bytes)),
                    None => (None, None),
                }
            } else {
                ((what > 0).then(|| (what - 1) as u32), (!waits).then_some(n))
            };
            loggp_report::CallInProgress {
                function,
                peer,
                bytes,
                requests: waits.then_some(n.max(1)),
                for_ns: now.wrapping_sub(t0) as f64 * ns_per_tick,
            }
        })
        .collect()
}

/// The rank's clock rate, refined over the run.
pub fn ns_per_tick() -> f64 {
    clock::ns_per_tick(clock::hz())
}
