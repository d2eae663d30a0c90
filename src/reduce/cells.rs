//! Reduce, on one rank: the per-thread statistics into the contract's cells
//! (`loggp_report::Cell`, histograms in ns, sparse), this rank's entry of `ranks[]`, and
//! the calls in progress. Nothing is cut down to quantiles here: the cells carry the full
//! histograms, so rank files recombine exactly and `loggp refit` redoes every estimate.
use crate::base::clock;
use crate::base::funcs;
use crate::record::matrix;
use crate::record::{requests, stats};
use loggp_report::bins::{hist_index, hist_mid, HIST_BUCKETS};
use loggp_report::{merge_cells, Cell, RankEntry, Role};
use std::sync::atomic::Ordering::Relaxed;

/// Per-function totals that missed the cell tables (full table, or no slot).
fn overflow_totals(ns_per_tick: f64) -> Vec<(u8, u64, u64, f64)> {
    let mut out = Vec::new();
    let mut add = |t: &[stats::Totals; funcs::MAX_FUNCS]| {
        for (f, tot) in t.iter().enumerate() {
            let c = tot.count.load(Relaxed);
            if c > 0 {
                out.push((
                    f as u8,
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

/// The ns per tick at which a tick bucket is moved to its ns bucket: the counter's rate
/// rounded to 10 kHz. A tick bucket's middle can fall a hair from a ns bucket's edge (at
/// 2.1 GHz, the last of every 16: 66060287.5 ticks are 0.24 ns short of 31457280 ns,
/// 8e-9 of it), and the rate, measured again at each write, then puts it on either side:
/// an interim rank file and the final report of one MPICH job put one MPI_Init in buckets
/// 350 and 349 (rates 2099999848 and 2100000070 Hz). Rounded, every write of a job maps
/// its buckets alike, while a value moves by at most 5 kHz of the rate (5e-6 of it for a
/// 1 GHz counter; a bucket is 6 % wide).
fn bucket_rate(ns_per_tick: f64) -> f64 {
    if !(ns_per_tick > 0.0 && ns_per_tick.is_finite()) {
        return ns_per_tick;
    }
    let hz = (1e9 / ns_per_tick / 1e4).round() * 1e4;
    if hz > 0.0 {
        1e9 / hz
    } else {
        ns_per_tick
    }
}

/// The ns bucket where [`local_cells`] puts a call of `ticks`: its tick bucket's
/// midpoint at the job's rounded rate. A tick bucket is 6 % wide and can straddle a power
/// of two in ns; whoever compares a call with the cells' histograms (the waits' strata)
/// must place it as they do, not by its exact duration.
pub(crate) fn ns_bucket(ticks: u64, ns_per_tick: f64) -> usize {
    ns_bucket_of(hist_index(ticks), bucket_rate(ns_per_tick))
}

fn ns_bucket_of(tick_bucket: usize, bucket_ns_per_tick: f64) -> usize {
    hist_index((hist_mid(tick_bucket) * bucket_ns_per_tick) as u64)
}

/// The user-defined operations' calls by their cost per element
/// (`RankEntry::user_op_ns_per_1024_elements`): the tick buckets of `hooks::user_op`
/// moved to ns buckets as [`local_cells`] moves the cells' (at the rounded rate).
fn user_op_rates(ns_per_tick: f64) -> Vec<[u64; 3]> {
    let bucket_ns_per_tick = bucket_rate(ns_per_tick);
    let mut ns_hist = std::collections::BTreeMap::<(u64, u64), u64>::new();
    for [octave, tick_bucket, calls] in crate::record::hooks::user_op::rates_in_ticks() {
        let b = ns_bucket_of(tick_bucket as usize, bucket_ns_per_tick) as u64;
        *ns_hist.entry((octave, b)).or_default() += calls;
    }
    ns_hist.into_iter().map(|((o, b), c)| [o, b, c]).collect()
}

/// This rank's cells, summed over its threads, histograms converted to ns.
pub fn local_cells(ns_per_tick: f64) -> Vec<Cell> {
    let bucket_ns_per_tick = bucket_rate(ns_per_tick);
    let mut cells = Vec::new();
    // What memo entries hold for a cell: calls, bytes, ticks, smallest duration + 1.
    let held = crate::record::memo::held(stats::threads_seen()).cells;
    stats::for_each_slot(|slot| {
        for c in slot.cells() {
            let (f, mode, class, bin, comm_size) = stats::split_key(c.key.load(Relaxed));
            let h = held.get(&(c as *const stats::StatCell as usize)).copied();
            let [h_calls, h_bytes, h_ticks, h_min] = h.unwrap_or_default();
            let count = c.count.load(Relaxed) + h_calls;
            if count == 0 {
                continue;
            }
            let mut dense = [0u64; HIST_BUCKETS];
            for (i, h) in c.hist.iter().enumerate() {
                let n = h.load(Relaxed) as u64;
                if n > 0 {
                    dense[ns_bucket_of(i, bucket_ns_per_tick)] += n;
                }
            }
            cells.push(Cell {
                function: funcs::name(f).to_string(),
                role: funcs::role(f),
                mode,
                peer_class: class,
                size_bin: bin,
                comm_size: (comm_size > 0).then_some(comm_size),
                count,
                bytes: c.bytes.load(Relaxed) + h_bytes,
                time_ns: (c.ticks.load(Relaxed) + h_ticks) as f64 * ns_per_tick,
                min_ns: crate::record::memo::min_plus1(c.min_ticks_plus1.load(Relaxed), h_min)
                    .saturating_sub(1) as f64
                    * ns_per_tick,
                smallest_bytes: c.min_size_plus1.load(Relaxed).saturating_sub(1),
                largest_bytes: c.max_size.load(Relaxed),
                hist: dense
                    .iter()
                    .enumerate()
                    .filter(|(_, &n)| n > 0)
                    .map(|(i, &n)| [i as u64, n])
                    .collect(),
            });
        }
    });
    merge_cells(&cells)
}

/// This rank's entry of `ranks[]`: calls per function and requests per mode, from its
/// cells and the overflow totals.
pub fn rank_entry(rank: u32, host: &str, cells: &[Cell], ns_per_tick: f64) -> RankEntry {
    let mut e = RankEntry {
        rank,
        host: host.to_string(),
        pid: std::process::id(),
        threads: stats::threads_seen() as u32,
        requests_untracked: requests::UNTRACKED.load(Relaxed),
        paused: match crate::base::runtime::paused_ticks(crate::base::clock::now()) {
            (0, _) => None,
            (times, ticks) => Some(loggp_report::Paused {
                times,
                for_ns: ticks as f64 * ns_per_tick,
            }),
        },
        // SAFETY: sysconf has no memory arguments.
        host_cpus: u32::try_from(unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }).ok(),
        user_op_calls: crate::record::hooks::user_op::totals(),
        user_op_ns_per_1024_elements: user_op_rates(ns_per_tick),
        ..Default::default()
    };
    let mut add_call = |name: &str, count: u64, bytes: u64, time_ns: f64| {
        let c = e.calls.entry(name.to_string()).or_default();
        c.count += count;
        c.bytes += bytes;
        c.time_ns += time_ns;
    };
    for c in cells {
        if c.function.starts_with("MPI_") {
            add_call(&c.function, c.count, c.bytes, c.time_ns);
            continue;
        }
        if c.role == Role::BurstGap {
            continue; // burst spacings belong to the passive bins
        }
        let r = e.requests.entry(c.mode.name().to_string()).or_default();
        match c.function.as_str() {
            "request_completed" => {
                r.completed += c.count;
                r.completed_bytes += c.bytes;
                r.lifetime_ns += c.time_ns;
            }
            "request_cancelled" => r.cancelled += c.count,
            "request_freed" => r.freed_active += c.count,
            _ => {}
        }
    }
    let mut dropped = 0;
    for (f, count, bytes, time_ns) in overflow_totals(ns_per_tick) {
        if funcs::is_function(f) {
            add_call(funcs::name(f), count, bytes, time_ns);
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
    crate::record::progress::calls_in_progress()
        .into_iter()
        .map(|(f, what, n, t0)| {
            let function = funcs::name(f).to_string();
            let waits = function.starts_with("MPI_Wait") || function.starts_with("MPI_Test");
            let (peer, bytes) = if what & crate::record::progress::CURRENT_REQUEST != 0 {
                // A request the shim tracks names its peer and size.
                match requests::get(what & !crate::record::progress::CURRENT_REQUEST, false) {
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

/// This rank's part of the communication matrix: its row (what it sent, the time of its
/// sending calls) and its column (the time of its receiving calls).
pub fn matrix_fragment(rank: u32, ns_per_tick: f64) -> Vec<loggp_report::MatrixEntry> {
    let mut out = Vec::new();
    let held = crate::record::memo::held(stats::threads_seen());
    for t in matrix::totals(&held.rows) {
        if t.messages > 0 || t.send_ticks > 0 {
            out.push(loggp_report::MatrixEntry {
                from: rank,
                to: t.peer,
                messages: t.messages,
                bytes: t.bytes,
                send_time_ns: t.send_ticks as f64 * ns_per_tick,
                recv_time_ns: 0.0,
                persistent_messages: t.persistent_messages,
                persistent_bytes: t.persistent_bytes,
            });
        }
        if t.recv_ticks > 0 {
            out.push(loggp_report::MatrixEntry {
                from: t.peer,
                to: rank,
                recv_time_ns: t.recv_ticks as f64 * ns_per_tick,
                ..Default::default()
            });
        }
    }
    loggp_report::merge_matrix(&out)
}

/// loggp's own messages from this rank (calibration), per peer.
pub fn own_traffic(rank: u32) -> Vec<loggp_report::OwnTraffic> {
    matrix::own_totals()
        .into_iter()
        .map(|(to, [messages, bytes, pm, pb])| loggp_report::OwnTraffic {
            from: rank,
            to,
            messages,
            bytes,
            persistent_messages: pm,
            persistent_bytes: pb,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two writes of one job on a 2.1 GHz counter, its rate measured a little apart: the
    /// tick bucket whose middle lies a hair from a ns bucket's edge goes to one ns bucket
    /// in both (at the rates themselves it goes to 350 and 349).
    #[test]
    fn a_bucket_on_an_edge_maps_alike_at_each_write() {
        let tick_bucket = hist_index(66_060_288);
        // Its middle, 66060287.5 ticks, is 31457279.76 ns at 2.1 GHz: 0.24 ns below the
        // edge of ns bucket 350, 8e-9 of the value.
        assert_eq!(hist_mid(tick_bucket), 66_060_287.5);
        let at = |ns_per_tick: f64| hist_index((hist_mid(tick_bucket) * ns_per_tick) as u64);
        let (a, b) = (1e9 / 2_099_999_848.0, 1e9 / 2_100_000_070.0);
        assert_ne!(at(a), at(b), "the edge case itself");
        assert_eq!(at(bucket_rate(a)), at(bucket_rate(b)));
        assert!((bucket_rate(a) / a - 1.0).abs() < 5e-6);
        assert_eq!(bucket_rate(1.0), 1.0);
        assert_eq!(bucket_rate(0.0), 0.0);
    }
}
