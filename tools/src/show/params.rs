//! The LogGP tables: per class and mode each range's parameters, active beside passive,
//! the thresholds, MPI minus raw, the model check.
use crate::table::*;
use loggp_report::{Mode, Passive, PeerClass, Range, Report};

fn overlap(a: &Range, lo: u64, hi: u64) -> u64 {
    let (l, h) = (a.size_lo_bytes.max(lo), a.size_hi_bytes.min(hi));
    if l > h {
        0
    } else {
        h - l + 1
    }
}

/// The passive range of `p` that overlaps [lo, hi] most.
fn best(p: Option<&Passive>, lo: u64, hi: u64) -> Option<&Range> {
    p?.ranges
        .iter()
        .filter(|x| overlap(x, lo, hi) > 0)
        .max_by_key(|x| overlap(x, lo, hi))
}

/// The receive mode whose calls give o_r beside a send mode.
fn recv_of(mode: Mode) -> Mode {
    if matches!(mode, Mode::Isend | Mode::Issend) {
        Mode::Irecv
    } else {
        Mode::Recv
    }
}

pub fn parameter_tables(r: &Report) -> Vec<Table> {
    let mut out = vec![];
    let passive = |class: PeerClass, mode: Mode| {
        r.passive
            .iter()
            .find(|p| p.peer_class == class && p.mode == mode)
    };
    let header = [
        "size (B)",
        "protocol",
        "L",
        "o_s act",
        "o_s pas",
        "o_r act",
        "o_r pas",
        "g act",
        "g pas",
        "G act",
        "G pas",
        "samples pas",
    ];
    let mut covered = std::collections::BTreeSet::new();
    for set in &r.calibration.mpi {
        let (ps, pr) = (
            passive(set.peer_class, set.mode),
            passive(set.peer_class, recv_of(set.mode)),
        );
        covered.insert((set.peer_class.to_string(), set.mode.to_string()));
        covered.insert((set.peer_class.to_string(), recv_of(set.mode).to_string()));
        let mut t = Table::new(
            format!(
                "LogGP parameters — {} {} (active: pair {:?}, n = {}; passive: the application's calls)",
                set.peer_class, set.mode, set.pair, set.n
            ),
            &header,
        );
        for x in &set.ranges {
            let (s, rr) = (
                best(ps, x.size_lo_bytes, x.size_hi_bytes),
                best(pr, x.size_lo_bytes, x.size_hi_bytes),
            );
            t.row(vec![
                fmt_span(x.size_lo_bytes, x.size_hi_bytes),
                x.protocol.clone().unwrap_or_else(|| "?".into()),
                fmt_ns_ci(x.latency_ns, x.latency_ns_ci),
                fmt_ns_ci(x.send_overhead_ns, x.send_overhead_ns_ci),
                s.map(|s| fmt_ns_ci(s.send_overhead_ns, s.send_overhead_ns_ci))
                    .unwrap_or_else(|| "—".into()),
                fmt_ns_ci(x.recv_overhead_ns, x.recv_overhead_ns_ci),
                rr.map(|s| fmt_ns_ci(s.recv_overhead_ns, s.recv_overhead_ns_ci))
                    .unwrap_or_else(|| "—".into()),
                fmt_ns_ci(x.gap_ns, x.gap_ns_ci),
                s.map(|s| fmt_ns_ci(s.gap_ns, s.gap_ns_ci))
                    .unwrap_or_else(|| "—".into()),
                fmt_per_byte_ci(x.gap_per_byte_ns, x.gap_per_byte_ns_ci),
                s.map(|s| fmt_per_byte_ci(s.gap_per_byte_ns, s.gap_per_byte_ns_ci))
                    .unwrap_or_else(|| "—".into()),
                s.and_then(|s| s.samples)
                    .map(|n| n.to_string())
                    .unwrap_or_else(|| "—".into()),
            ]);
        }
        t.note = Some(
            "G in ns/B; ± or +up −down: the interval (active: where a repeat run falls, see `method`; passive: 95 %); passive columns: the passive range overlapping each active range most; — = not determined (the report's note says why)".into(),
        );
        out.push(t);
    }
    // Passive sets the calibration has no counterpart for.
    for p in &r.passive {
        if covered.contains(&(p.peer_class.to_string(), p.mode.to_string())) || p.ranges.is_empty()
        {
            continue;
        }
        let mut t = Table::new(
            format!("Passive only — {} {}", p.peer_class, p.mode),
            &["size (B)", "o_s", "o_r", "g", "G", "samples"],
        );
        for x in &p.ranges {
            t.row(vec![
                fmt_span(x.size_lo_bytes, x.size_hi_bytes),
                fmt_ns_ci(x.send_overhead_ns, x.send_overhead_ns_ci),
                fmt_ns_ci(x.recv_overhead_ns, x.recv_overhead_ns_ci),
                fmt_ns_ci(x.gap_ns, x.gap_ns_ci),
                fmt_per_byte_ci(x.gap_per_byte_ns, x.gap_per_byte_ns_ci),
                x.samples
                    .map(|n| n.to_string())
                    .unwrap_or_else(|| "—".into()),
            ]);
        }
        out.push(t);
    }
    out
}

/// What an MPI call costs after the application computed: the calibration's isolated
/// exchange back to back and after each pause away from MPI (`Point::exchange_after_pause`),
/// per set that measured it.
pub fn pause_table(r: &Report) -> Option<Table> {
    let mut t = Table::new(
        "An MPI call after a pause away from MPI (the calibration's isolated exchange)",
        &[
            "class",
            "mode",
            "size (B)",
            "back to back",
            "after the pause",
            "pause",
            "exchanges (min … max)",
            "× back to back",
        ],
    );
    for set in &r.calibration.mpi {
        for p in set
            .points
            .iter()
            .filter(|p| !p.exchange_after_pause.is_empty())
        {
            for a in &p.exchange_after_pause {
                let lo = a
                    .exchange_reps_ns
                    .iter()
                    .copied()
                    .fold(f64::INFINITY, f64::min);
                let hi = a.exchange_reps_ns.iter().copied().fold(0.0, f64::max);
                t.row(vec![
                    set.peer_class.to_string(),
                    set.mode.to_string(),
                    p.size_bytes.to_string(),
                    fmt_ns(p.exchange_isolated_ns),
                    fmt_ns(Some(a.exchange_ns)),
                    fmt_ns(Some(a.pause_ns)),
                    format!("{} … {}", fmt_ns(Some(lo)), fmt_ns(Some(hi))),
                    p.exchange_isolated_ns
                        .filter(|&b| b > 0.0)
                        .map(|b| format!("{:.1}", a.exchange_ns / b))
                        .unwrap_or_else(|| "—".into()),
                ]);
            }
        }
    }
    if t.rows.is_empty() {
        return None;
    }
    t.note = Some(
        "both ranks of the pair spin on the clock alone for the pause, then exchange: an MPI call whose code has not run for a while costs more than back to back, where the LogGP parameters are measured; an application that also works through memory in its pause pays more. The time split counts collective calls after such a pause apart (`Collectives`)".into(),
    );
    Some(t)
}

/// Every rank of a host copying at once (`Calibration::concurrent_exchanges`) against the
/// pair's exchange probe, per size: what the collective model prices a crowded round by.
pub fn concurrent_table(r: &Report) -> Option<Table> {
    let c = &r.calibration.concurrent_exchanges;
    let (by_size, ranks) = loggp_model::coll::crowd::by_size(c);
    if by_size.is_empty() {
        return None;
    }
    let pair = (r.calibration.mpi.iter())
        .find(|s| s.peer_class == PeerClass::IntraNode && s.mode == Mode::Send);
    let mut t = Table::new(
        "Every rank of a host copying at once (the calibration's concurrent exchange)",
        &[
            "size (B)",
            "ranks at once",
            "pair's exchange",
            "every rank at once",
            "lowest … highest rank",
            "× the pair's",
        ],
    );
    for (size, [lo, mean, hi]) in by_size {
        let ex = pair
            .and_then(|s| s.points.iter().find(|p| p.size_bytes == size))
            .and_then(|p| p.exchange_ns);
        t.row(vec![
            size.to_string(),
            ranks.to_string(),
            fmt_ns(ex),
            fmt_ns(Some(mean)),
            format!("{} … {}", fmt_ns(Some(lo)), fmt_ns(Some(hi))),
            ex.filter(|&e| e > 0.0)
                .map(|e| format!("{:.2}", mean / e))
                .unwrap_or_else(|| "—".into()),
        ]);
    }
    t.note = Some(format!(
        "each rank of the host sends to the next and receives from the one before, all at once, each repetition from the next block of a {} MiB buffer (beyond a core's cache); the pair's exchange probe measures two copies at once from buffers in cache. The collective model prices a round where more than two ranks of a host copy rendezvous data at once by the ratio (the mean rank's; its interval from the lowest and the highest rank)",
        c.first().map_or(4, |e| e.buffer_bytes >> 20)
    ));
    Some(t)
}

pub fn threshold_table(r: &Report) -> Option<Table> {
    if r.thresholds.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Eager → rendezvous thresholds (largest eager size, bytes)",
        &[
            "class",
            "mode",
            "active",
            "passive bracket",
            "setting in use",
            "note",
        ],
    );
    for x in &r.thresholds {
        t.row(vec![
            x.peer_class.to_string(),
            x.mode.to_string(),
            match (
                x.active_bytes,
                x.active_exact,
                x.active_lo_bytes,
                x.active_hi_bytes,
            ) {
                (Some(b), Some(false), Some(lo), Some(hi)) => format!("~{b} (in [{lo}, {hi}])"),
                (Some(b), Some(false), _, _) => format!("~{b}"),
                (Some(b), _, _, _) => b.to_string(),
                _ => "—".into(),
            },
            match (x.passive_lo_bytes, x.passive_hi_bytes) {
                (Some(lo), Some(hi)) => format!("[{lo}, {hi}]"),
                _ => "—".into(),
            },
            match (&x.setting, &x.mpi_t) {
                (Some(s), _) => format!("{}: {} = {}", s.component, s.name, s.text),
                (None, Some(m)) => format!("{} = {}", m.name, m.value),
                _ => "—".into(),
            },
            [
                x.note.clone(),
                x.passive_note.clone().map(|n| format!("passive: {n}")),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("; "),
        ]);
    }
    Some(t)
}

/// A raw set's name with the UCT transport and device where it ran over UCT
/// (`ucx:posix/memory`).
fn raw_name(s: &loggp_report::RawSet) -> String {
    match (&s.tl, &s.device) {
        (Some(tl), Some(dev)) => format!("{}:{tl}/{dev}", s.transport),
        (Some(tl), None) => format!("{}:{tl}", s.transport),
        _ => s.transport.clone(),
    }
}

pub fn raw_tables(r: &Report) -> Vec<Table> {
    let mut out = vec![];
    if r.calibration.raw.is_empty() {
        return out;
    }
    let mut st = Table::new(
        "Raw transports beneath MPI",
        &["transport", "class", "status"],
    );
    for s in &r.calibration.raw {
        st.row(vec![
            raw_name(s),
            s.peer_class.to_string(),
            s.status.clone(),
        ]);
    }
    // How the UCT sets were carried, under the table rather than in a status column.
    let how: Vec<String> = r
        .calibration
        .raw
        .iter()
        .filter_map(|s| s.note.clone())
        .collect();
    if !how.is_empty() {
        st.note = Some(how.join("; "));
    }
    out.push(st);
    for s in r.calibration.raw.iter().filter(|s| !s.ranges.is_empty()) {
        let mut t = Table::new(
            format!("Raw {} — {}", raw_name(s), s.peer_class),
            &["size (B)", "L", "o_s", "o_r", "g", "G"],
        );
        for x in &s.ranges {
            t.row(vec![
                fmt_span(x.size_lo_bytes, x.size_hi_bytes),
                fmt_ns_ci(x.latency_ns, x.latency_ns_ci),
                fmt_ns_ci(x.send_overhead_ns, x.send_overhead_ns_ci),
                fmt_ns_ci(x.recv_overhead_ns, x.recv_overhead_ns_ci),
                fmt_ns_ci(x.gap_ns, x.gap_ns_ci),
                fmt_per_byte_ci(x.gap_per_byte_ns, x.gap_per_byte_ns_ci),
            ]);
        }
        out.push(t);
    }
    if !r.mpi_overhead.is_empty() {
        let mut t = Table::new(
            "What MPI adds over the raw transport (MPI − raw)",
            &[
                "class",
                "transport",
                "size (B)",
                "Δ o_s",
                "Δ o_r",
                "Δ L",
                "Δ g",
                "Δ G",
            ],
        );
        for o in &r.mpi_overhead {
            t.row(vec![
                o.peer_class.to_string(),
                o.transport.clone(),
                fmt_span(o.size_lo_bytes, o.size_hi_bytes),
                fmt_ns_ci(o.send_overhead_ns, o.send_overhead_ns_ci),
                fmt_ns_ci(o.recv_overhead_ns, o.recv_overhead_ns_ci),
                fmt_ns_ci(o.latency_ns, o.latency_ns_ci),
                fmt_ns_ci(o.gap_ns, o.gap_ns_ci),
                fmt_per_byte_ci(o.gap_per_byte_ns, o.gap_per_byte_ns_ci),
            ]);
        }
        t.note = Some(
            "o_s, o_r, L: median of per-size differences; g, G: difference of the fits; ± or +up −down: where a repeat run falls; — where MPI is not above the raw transport, or the raw transport is no floor there (the report's note says which)".into(),
        );
        out.push(t);
    }
    out
}

pub fn model_check_table(r: &Report) -> Option<Table> {
    if r.model_check.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Model check: fitted passive model against the observed calls",
        &[
            "class",
            "mode",
            "calls",
            "not priced",
            "median rel. error",
            "model's price",
            "cost (time split)",
            "price / cost",
        ],
    );
    for m in &r.model_check {
        let ratio = match (m.priced_ns, m.cost_ns) {
            (Some(p), Some(c)) if c > 0.0 => format!("{:.2}", p / c),
            _ => "—".into(),
        };
        t.row(vec![
            m.peer_class.to_string(),
            m.mode.to_string(),
            m.calls.to_string(),
            m.calls.saturating_sub(m.priced_calls).to_string(),
            m.median_relative_error
                .map(|e| format!("{:.1} %", 100.0 * e))
                .unwrap_or_else(|| "—".into()),
            fmt_ns(m.priced_ns),
            fmt_ns_ci(m.cost_ns, m.cost_ns_ci),
            ratio,
        ]);
    }
    t.note = Some(
        "median rel. error: each size bin's median call against its range's line, the \
         median over the calls; it holds what the calls waited for their partner. The \
         model's price: every call at its range's line, which is a lower envelope; cost: \
         the calls' time less their waits for the partner (`Where each rank's MPI time \
         goes`), summed over ranks. Not priced: calls of nonblocking modes (their line is the \
         overhead of starting and completing a request, their cost holds the transfer \
         their completion waited for) and calls in ranges with no fitted parameter (their \
         calls waited for the partner, or a send-receive's, whose o_s and o_r one call \
         cannot separate); no price unless every call is priced."
            .into(),
    );
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use loggp_report::{CalibrationSet, ConcurrentExchange, ConcurrentPoint, Point};

    /// The concurrent exchange's table: the mean rank over the pair's exchange at each
    /// size, the lowest and the highest rank; none without it.
    #[test]
    fn the_concurrent_exchange_is_shown_against_the_pairs() {
        let mut r = Report::default();
        assert!(concurrent_table(&r).is_none());
        r.calibration.mpi.push(CalibrationSet {
            peer_class: PeerClass::IntraNode,
            mode: Mode::Send,
            points: vec![Point {
                size_bytes: 262144,
                exchange_ns: Some(50_000.0),
                ..Default::default()
            }],
            ..Default::default()
        });
        let rank = |k: u32, ns: f64| ConcurrentExchange {
            rank: k,
            host_ranks: 3,
            buffer_bytes: 4 << 20,
            points: vec![ConcurrentPoint {
                size_bytes: 262144,
                exchange_ns: ns,
                exchange_reps_ns: vec![ns],
            }],
        };
        r.calibration.concurrent_exchanges =
            vec![rank(0, 100_000.0), rank(1, 120_000.0), rank(2, 110_000.0)];
        let t = concurrent_table(&r).expect("a table");
        assert_eq!(t.rows.len(), 1);
        let row = &t.rows[0];
        assert_eq!((row[0].as_str(), row[1].as_str()), ("262144", "3"));
        assert_eq!(row[5], "2.20");
        assert!(row[4].contains('…'), "{row:?}");
    }
}
