//! `loggp show`: the report as terminal tables — per peer class and mode the LogGP
//! parameters of each protocol range, active and passive side by side (as hoefler2007
//! Table 2), the thresholds, MPI minus raw (bell2003 Fig. 3 as numbers), the model check,
//! time in MPI per rank, the calls, warnings.
use crate::table::*;
use loggp_report::{Passive, Range, Report};
use std::collections::BTreeMap;

/// The job in three lines.
pub fn header(r: &Report) -> Vec<String> {
    let j = &r.job;
    vec![
        format!(
            "loggp report ({}) — {}{}",
            r.schema,
            j.executable,
            match (j.complete, j.interim) {
                (true, _) => "",
                (false, true) => " [INTERIM: the job was still running]",
                (false, false) => " [INCOMPLETE]",
            }
        ),
        format!(
            "{} ranks on {} host(s), {} ({}), {}, ended by {}",
            j.ranks,
            j.hosts.len(),
            j.mpi_flavor,
            j.mpi_library.lines().next().unwrap_or("").trim(),
            j.thread_level,
            j.end
        ),
        format!(
            "wall time {}, clock {}{}, calibration: {}{}",
            fmt_ns(Some(j.wall_time_ns)),
            j.clock.source,
            j.clock
                .tsc_hz
                .map(|h| format!(" at {:.3} GHz", h / 1e9))
                .unwrap_or_default(),
            r.calibration.status,
            r.calibration
                .duration_ns
                .map(|d| format!(" in {}", fmt_ns(Some(d))))
                .unwrap_or_default()
        ),
    ]
}

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
fn recv_of(mode: &str) -> &'static str {
    if mode == "isend" || mode == "issend" {
        "irecv"
    } else {
        "recv"
    }
}

pub fn parameter_tables(r: &Report) -> Vec<Table> {
    let mut out = vec![];
    let passive = |class: &str, mode: &str| {
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
            passive(&set.peer_class, &set.mode),
            passive(&set.peer_class, recv_of(&set.mode)),
        );
        covered.insert((set.peer_class.clone(), set.mode.clone()));
        covered.insert((set.peer_class.clone(), recv_of(&set.mode).to_string()));
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
        if covered.contains(&(p.peer_class.clone(), p.mode.clone())) || p.ranges.is_empty() {
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
            x.peer_class.clone(),
            x.mode.clone(),
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
        st.row(vec![raw_name(s), s.peer_class.clone(), s.status.clone()]);
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
                o.peer_class.clone(),
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
        &["class", "mode", "calls", "median rel. error"],
    );
    for m in &r.model_check {
        t.row(vec![
            m.peer_class.clone(),
            m.mode.clone(),
            m.calls.to_string(),
            m.median_relative_error
                .map(|e| format!("{:.1} %", 100.0 * e))
                .unwrap_or_else(|| "—".into()),
        ]);
    }
    Some(t)
}

/// Time in MPI per rank; above 32 ranks the spread and the 8 ranks with the most.
pub fn rank_table(r: &Report) -> Option<Table> {
    if r.ranks.is_empty() {
        return None;
    }
    let wall = r.job.wall_time_ns;
    let pct = |t: f64| {
        if wall > 0.0 {
            format!("{:.1} %", 100.0 * t / wall)
        } else {
            "—".into()
        }
    };
    let calls = |k: &loggp_report::RankEntry| k.calls.values().map(|c| c.count).sum::<u64>();
    let mut t = Table::new(
        "Time in MPI (intercepted calls) per rank",
        &["rank", "host", "time in MPI", "of wall time", "calls"],
    );
    let mut ranks: Vec<_> = r.ranks.iter().collect();
    if ranks.len() > 32 {
        let mut v: Vec<f64> = ranks.iter().map(|k| k.time_in_mpi_ns).collect();
        v.sort_by(f64::total_cmp);
        for (name, x) in [
            ("min", v[0]),
            ("median", v[v.len() / 2]),
            ("max", v[v.len() - 1]),
        ] {
            t.row(vec![
                name.into(),
                "".into(),
                fmt_ns(Some(x)),
                pct(x),
                "".into(),
            ]);
        }
        ranks.sort_by(|a, b| b.time_in_mpi_ns.total_cmp(&a.time_in_mpi_ns));
        ranks.truncate(8);
        t.note = Some(format!(
            "{} ranks: the spread, then the 8 with the most time in MPI",
            r.ranks.len()
        ));
    }
    for k in ranks {
        t.row(vec![
            k.rank.to_string(),
            k.host.clone(),
            fmt_ns(Some(k.time_in_mpi_ns)),
            pct(k.time_in_mpi_ns),
            calls(k).to_string(),
        ]);
    }
    Some(t)
}

/// The intercepted calls that had not returned when the rank files were written: in a
/// hung job, who waits on whom.
pub fn in_progress_table(r: &Report) -> Option<Table> {
    let rows: Vec<_> = r
        .ranks
        .iter()
        .flat_map(|k| k.in_progress.iter().map(move |c| (k.rank, c)))
        .collect();
    if rows.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "In progress when written (calls that had not returned)",
        &["rank", "call", "peer", "size", "requests", "for"],
    );
    for (rank, c) in rows {
        t.row(vec![
            rank.to_string(),
            c.function.clone(),
            c.peer.map(|p| p.to_string()).unwrap_or_else(|| "—".into()),
            c.bytes.map(fmt_bytes).unwrap_or_else(|| "—".into()),
            c.requests.map(|n| n.to_string()).unwrap_or_default(),
            fmt_ns(Some(c.for_ns)),
        ]);
    }
    Some(t)
}

pub fn calls_table(r: &Report) -> Option<Table> {
    let mut totals: BTreeMap<&str, (u64, u64, f64)> = BTreeMap::new();
    for rank in &r.ranks {
        for (f, c) in &rank.calls {
            let t = totals.entry(f).or_default();
            t.0 += c.count;
            t.1 += c.bytes;
            t.2 += c.time_ns;
        }
    }
    if totals.is_empty() {
        return None;
    }
    let mut rows: Vec<_> = totals.into_iter().collect();
    rows.sort_by(|a, b| b.1 .2.total_cmp(&a.1 .2).then(a.0.cmp(b.0)));
    let mut t = Table::new(
        "Calls (all ranks)",
        &["function", "count", "bytes", "time", "mean"],
    );
    for (f, (c, b, time)) in rows {
        t.row(vec![
            f.into(),
            c.to_string(),
            fmt_bytes(b),
            fmt_ns(Some(time)),
            fmt_ns((c > 0).then(|| time / c as f64)),
        ]);
    }
    Some(t)
}

pub fn bins_tables(r: &Report) -> Vec<Table> {
    r.passive
        .iter()
        .map(|p| {
            let mut t = Table::new(
                format!("Passive bins — {} {}", p.peer_class, p.mode),
                &["size (B)", "count", "min", "p10", "p50", "p90"],
            );
            for b in &p.bins {
                t.row(vec![
                    fmt_span(b.smallest_bytes, b.largest_bytes),
                    b.count.to_string(),
                    fmt_ns(b.min_ns),
                    fmt_ns(b.p10_ns),
                    fmt_ns(b.p50_ns),
                    fmt_ns(b.p90_ns),
                ]);
            }
            t
        })
        .collect()
}

/// Every table `show` prints, in order.
pub fn tables(r: &Report, with_bins: bool) -> Vec<Table> {
    let mut v = parameter_tables(r);
    v.extend(threshold_table(r));
    v.extend(raw_tables(r));
    v.extend(model_check_table(r));
    v.extend(crate::advise::tables(r));
    v.extend(rank_table(r));
    v.extend(in_progress_table(r));
    v.extend(calls_table(r));
    if with_bins {
        v.extend(bins_tables(r));
    }
    v
}

/// Sections the report says it lacks, and its warnings.
pub fn footer(r: &Report) -> Vec<String> {
    let mut o = vec![];
    let pending: Vec<String> = r
        .sections
        .iter()
        .filter(|(_, v)| v.as_str() != "done")
        .map(|(k, v)| format!("{k} ({v})"))
        .collect();
    if !pending.is_empty() {
        o.push(format!("not in this report: {}", pending.join("; ")));
    }
    for w in &r.warnings {
        o.push(format!("warning: {w}"));
    }
    o
}

pub fn show(r: &Report, with_bins: bool) -> String {
    let mut o: String = header(r).iter().map(|l| format!("{l}\n")).collect();
    for t in tables(r, with_bins) {
        o += &t.text();
    }
    let f = footer(r);
    if !f.is_empty() {
        o += "\n";
    }
    for l in f {
        o += &format!("{l}\n");
    }
    o
}

/// The filtered view of `show --json`: what a script wants, without points and bins.
pub fn json_view(r: &Report) -> serde_json::Value {
    let strip = |v: &mut serde_json::Value, key: &str| {
        if let Some(a) = v.as_array_mut() {
            for x in a {
                if let Some(o) = x.as_object_mut() {
                    o.remove(key);
                }
            }
        }
    };
    let mut mpi = serde_json::to_value(&r.calibration.mpi).unwrap_or_default();
    strip(&mut mpi, "points");
    let mut raw = serde_json::to_value(&r.calibration.raw).unwrap_or_default();
    strip(&mut raw, "points");
    let mut passive = serde_json::to_value(&r.passive).unwrap_or_default();
    strip(&mut passive, "bins");
    serde_json::json!({
        "schema": r.schema,
        "job": {
            "executable": r.job.executable,
            "complete": r.job.complete,
            "interim": r.job.interim,
            "end": r.job.end,
            "ranks": r.job.ranks,
            "hosts": r.job.hosts,
            "mpi_flavor": r.job.mpi_flavor,
            "wall_time_ns": r.job.wall_time_ns,
        },
        "calibration": {"status": r.calibration.status, "mpi": mpi, "raw": raw},
        "passive": passive,
        "thresholds": r.thresholds,
        "mpi_overhead": r.mpi_overhead,
        "model_check": r.model_check,
        "time_in_mpi_ns": r.ranks.iter().map(|k| serde_json::json!({"rank": k.rank, "host": k.host, "ns": k.time_in_mpi_ns})).collect::<Vec<_>>(),
        "in_progress": r.ranks.iter().flat_map(|k| k.in_progress.iter().map(move |c| serde_json::json!({"rank": k.rank, "call": c}))).collect::<Vec<_>>(),
        "warnings": r.warnings,
    })
}
