//! `loggp`: reads loggp reports; needs no MPI. This version has `show`; `run`, `plot`,
//! `diff` and `html` come with their own issue.
use loggp_report::{read, Report};
use std::collections::BTreeMap;
use std::process::ExitCode;

const USAGE: &str = "usage: loggp show <report.json> [--json]";

fn fmt_ns(v: Option<f64>) -> String {
    match v {
        None => "—".into(),
        Some(ns) if ns.abs() >= 1e9 => format!("{:.2} s", ns / 1e9),
        Some(ns) if ns.abs() >= 1e6 => format!("{:.2} ms", ns / 1e6),
        Some(ns) if ns.abs() >= 1e3 => format!("{:.2} µs", ns / 1e3),
        Some(ns) => format!("{ns:.0} ns"),
    }
}

fn fmt_bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

/// The terminal summary of a report.
pub fn show(r: &Report) -> String {
    let mut o = String::new();
    let j = &r.job;
    o += &format!(
        "loggp report ({}) — {} {}\n",
        r.schema,
        j.executable,
        if j.complete { "" } else { "[INCOMPLETE]" }
    );
    o += &format!(
        "  {} ranks on {} host(s), {} ({}), {}, ended by {}\n",
        j.ranks,
        j.hosts.len(),
        j.mpi_flavor,
        j.mpi_library.lines().next().unwrap_or(""),
        j.thread_level,
        j.end
    );
    o += &format!(
        "  wall time {}, clock {} at {}\n\n",
        fmt_ns(Some(j.wall_time_ns)),
        j.clock.source,
        j.clock
            .tsc_hz
            .map(|h| format!("{:.3} GHz", h / 1e9))
            .unwrap_or_else(|| "1 GHz (ns)".into())
    );
    let mut totals: BTreeMap<&str, (u64, u64, f64)> = BTreeMap::new();
    for rank in &r.ranks {
        for (f, c) in &rank.calls {
            let t = totals.entry(f).or_default();
            t.0 += c.count;
            t.1 += c.bytes;
            t.2 += c.time_ns;
        }
    }
    let mut rows: Vec<_> = totals.into_iter().collect();
    rows.sort_by(|a, b| b.1 .2.total_cmp(&a.1 .2));
    o += &format!(
        "  {:<22} {:>12} {:>12} {:>12} {:>12}\n",
        "calls (all ranks)", "count", "bytes", "time", "mean"
    );
    for (f, (c, b, t)) in rows {
        o += &format!(
            "  {:<22} {:>12} {:>12} {:>12} {:>12}\n",
            f,
            c,
            fmt_bytes(b),
            fmt_ns(Some(t)),
            fmt_ns((c > 0).then(|| t / c as f64))
        );
    }
    o += "\n  time in MPI per rank:";
    for rank in &r.ranks {
        o += &format!(" r{}={}", rank.rank, fmt_ns(Some(rank.time_in_mpi_ns)));
    }
    o += "\n";
    for p in &r.passive {
        o += &format!("\n  passive bins: {} {}\n", p.peer_class, p.mode);
        o += &format!(
            "  {:>21} {:>9} {:>10} {:>10} {:>10} {:>10}\n",
            "size", "count", "min", "p10", "p50", "p90"
        );
        for b in &p.bins {
            let size = if b.smallest_bytes == b.largest_bytes {
                b.smallest_bytes.to_string()
            } else {
                format!("{}..{}", b.smallest_bytes, b.largest_bytes)
            };
            o += &format!(
                "  {:>21} {:>9} {:>10} {:>10} {:>10} {:>10}\n",
                size,
                b.count,
                fmt_ns(b.min_ns),
                fmt_ns(b.p10_ns),
                fmt_ns(b.p50_ns),
                fmt_ns(b.p90_ns)
            );
        }
    }
    o += &calibration(r);
    let pending: Vec<_> = r
        .sections
        .iter()
        .filter(|(_, v)| v.as_str() != "done")
        .map(|(k, _)| k.as_str())
        .collect();
    if !pending.is_empty() {
        o += &format!("  not in this report: {}\n", pending.join(", "));
    }
    for w in &r.warnings {
        o += &format!("  warning: {w}\n");
    }
    o
}

/// The active calibration as in hoefler2007 Table 2: per peer class, mode and protocol
/// range, L, o_s, o_r, g and G; then the thresholds.
fn calibration(r: &Report) -> String {
    let c = &r.calibration;
    let mut o = format!(
        "\n  calibration: {}{}\n",
        c.status,
        c.duration_ns
            .map(|d| format!(" in {}", fmt_ns(Some(d))))
            .unwrap_or_default()
    );
    for set in &c.mpi {
        o += &format!(
            "  {} {} (pair {:?}, n = {})\n",
            set.peer_class, set.mode, set.pair, set.n
        );
        o += &format!(
            "  {:>21} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12} {:>10}\n",
            "size", "protocol", "L", "o_s", "o_r", "g", "G (ns/B)", "fit rms"
        );
        for x in &set.ranges {
            o += &format!(
                "  {:>21} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12} {:>10}\n",
                format!("{}..{}", x.size_lo_bytes, x.size_hi_bytes),
                x.protocol.as_deref().unwrap_or("?"),
                fmt_ns(x.latency_ns),
                fmt_ns(x.send_overhead_ns),
                fmt_ns(x.recv_overhead_ns),
                fmt_ns(x.gap_ns),
                x.gap_per_byte_ns
                    .map(|g| format!("{g:.4}"))
                    .unwrap_or_else(|| "—".into()),
                fmt_ns(x.fit_rms_ns)
            );
        }
    }
    for t in &r.thresholds {
        o += &format!(
            "  eager limit {} {}: {}{}{}\n",
            t.peer_class,
            t.mode,
            t.active_bytes
                .map(|b| format!("{b} bytes (active)"))
                .unwrap_or_else(|| "—".into()),
            t.mpi_t
                .as_ref()
                .map(|m| format!(", MPI_T {} = {}", m.name, m.value))
                .unwrap_or_default(),
            t.note
                .as_ref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default()
        );
    }
    o
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("show") if args.len() >= 2 => match read(&args[1]) {
            Ok(r) => {
                if args.iter().any(|a| a == "--json") {
                    match serde_json::to_string_pretty(&r) {
                        Ok(t) => println!("{t}"),
                        Err(e) => {
                            eprintln!("loggp: {e}");
                            return ExitCode::FAILURE;
                        }
                    }
                } else {
                    print!("{}", show(&r));
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("loggp: {e}");
                ExitCode::FAILURE
            }
        },
        Some("-h") | Some("--help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loggp_report::{parse, CalibrationSet, Range, Threshold};

    #[test]
    fn show_prints_the_calibration_table_and_thresholds() {
        let mut r = Report {
            schema: loggp_report::SCHEMA.into(),
            ..Default::default()
        };
        r.calibration.status = "done".into();
        r.calibration.mpi.push(CalibrationSet {
            peer_class: "intra_node".into(),
            mode: "send".into(),
            ranges: vec![Range {
                size_lo_bytes: 1,
                size_hi_bytes: 4040,
                gap_per_byte_ns: Some(0.0812),
                protocol: Some("eager".into()),
                ..Default::default()
            }],
            ..Default::default()
        });
        r.thresholds.push(Threshold {
            peer_class: "intra_node".into(),
            mode: "send".into(),
            active_bytes: Some(4040),
            ..Default::default()
        });
        let text = show(&r);
        assert!(
            text.contains("1..4040") && text.contains("0.0812") && text.contains("—"),
            "{text}"
        );
        assert!(text.contains("eager limit intra_node send: 4040 bytes (active)"));
    }

    #[test]
    fn the_reader_never_panics_on_arbitrary_bytes() {
        let mut x: u64 = 0x9E37_79B9;
        for len in 0..2000usize {
            let bytes: Vec<u8> = (0..len % 97)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let alphabet = b"{}[]\":,0123456789aeflnrstu schemaloggp/1";
                    alphabet[(x % alphabet.len() as u64) as usize]
                })
                .collect();
            let _ = parse("fuzz", &bytes);
        }
    }
}
