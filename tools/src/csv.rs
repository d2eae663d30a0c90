//! `loggp show --csv`: the report's numbers as CSV tables for spreadsheets and pandas —
//! plain numbers in the unit the column names (ns, bytes), empty where the report has
//! null, one row per item; intervals as `<name>_lo` / `<name>_hi` columns. RFC 4180
//! quoting.
use loggp_report::{Range, Report};

/// The tables `--table` accepts, in the order `-o <dir>` writes them.
pub const TABLES: [&str; 7] = [
    "ranges",
    "points",
    "thresholds",
    "mpi_overhead",
    "bins",
    "ranks",
    "calls",
];

fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn num(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite())
        .map(|x| format!("{x}"))
        .unwrap_or_default()
}

fn int(v: Option<u64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

fn lo_hi(ci: Option<[f64; 2]>) -> [String; 2] {
    [num(ci.map(|c| c[0])), num(ci.map(|c| c[1]))]
}

struct Csv {
    text: String,
}

impl Csv {
    fn new(header: &[&str]) -> Csv {
        Csv {
            text: header.join(",") + "\n",
        }
    }
    fn row(&mut self, cells: Vec<String>) {
        let cells: Vec<String> = cells.iter().map(|c| quote(c)).collect();
        self.text += &cells.join(",");
        self.text += "\n";
    }
}

const PARAMS: [&str; 5] = [
    "latency_ns",
    "send_overhead_ns",
    "recv_overhead_ns",
    "gap_ns",
    "gap_per_byte_ns",
];

/// The five parameters of [`PARAMS`], each with its interval's ends.
fn push_params(v: &mut Vec<String>, params: [(Option<f64>, Option<[f64; 2]>); 5]) {
    for (x, ci) in params {
        v.push(num(x));
        v.extend(lo_hi(ci));
    }
}

fn range_cells(r: &Range) -> Vec<String> {
    let mut v = vec![r.size_lo_bytes.to_string(), r.size_hi_bytes.to_string()];
    v.push(r.protocol.clone().unwrap_or_default());
    push_params(
        &mut v,
        [
            (r.latency_ns, r.latency_ns_ci),
            (r.send_overhead_ns, r.send_overhead_ns_ci),
            (r.recv_overhead_ns, r.recv_overhead_ns_ci),
            (r.gap_ns, r.gap_ns_ci),
            (r.gap_per_byte_ns, r.gap_per_byte_ns_ci),
        ],
    );
    v.push(int(r.samples));
    v.push(r.method.clone().unwrap_or_default());
    v.push(r.note.clone().unwrap_or_default());
    v
}

fn range_header(first: &[&str]) -> Vec<String> {
    let mut h: Vec<String> = first.iter().map(|s| s.to_string()).collect();
    h.extend(["size_lo_bytes", "size_hi_bytes", "protocol"].map(String::from));
    for p in PARAMS {
        h.extend([p.to_string(), format!("{p}_lo"), format!("{p}_hi")]);
    }
    h.extend(["samples", "method", "note"].map(String::from));
    h
}

/// One table by name; None for a name not in [`TABLES`].
pub fn table(r: &Report, name: &str) -> Option<String> {
    let refs = |h: &[String]| h.iter().map(String::as_str).collect::<Vec<_>>().join(",");
    let out = match name {
        "ranges" => {
            let h = range_header(&["source", "peer_class", "mode"]);
            let mut t = Csv {
                text: refs(&h) + "\n",
            };
            for s in &r.calibration.mpi {
                for g in &s.ranges {
                    let mut v = vec![
                        "active".into(),
                        s.peer_class.to_string(),
                        s.mode.to_string(),
                    ];
                    v.extend(range_cells(g));
                    t.row(v);
                }
            }
            for p in &r.passive {
                for g in &p.ranges {
                    let mut v = vec![
                        "passive".into(),
                        p.peer_class.to_string(),
                        p.mode.to_string(),
                    ];
                    v.extend(range_cells(g));
                    t.row(v);
                }
            }
            for s in &r.calibration.raw {
                for g in &s.ranges {
                    let mut v = vec![
                        format!("raw {}", s.transport),
                        s.peer_class.to_string(),
                        String::new(),
                    ];
                    v.extend(range_cells(g));
                    t.row(v);
                }
            }
            t.text
        }
        "points" => {
            let mut t = Csv::new(&[
                "source",
                "peer_class",
                "mode",
                "size_bytes",
                "prtt_1_0_ns",
                "prtt_n_0_ns",
                "prtt_n_d_ns",
                "send_overhead_ns",
                "send_call_ns",
                "recv_overhead_ns",
                "gap_all_ns",
                "delay_ns",
                "repetitions",
                "send_waits_for_receiver",
            ]);
            let sets = r
                .calibration
                .mpi
                .iter()
                .map(|s| {
                    (
                        "active".to_string(),
                        &s.peer_class,
                        s.mode.to_string(),
                        &s.points,
                    )
                })
                .chain(r.calibration.raw.iter().map(|s| {
                    (
                        format!("raw {}", s.transport),
                        &s.peer_class,
                        String::new(),
                        &s.points,
                    )
                }));
            for (source, class, mode, points) in sets {
                for p in points {
                    t.row(vec![
                        source.clone(),
                        class.to_string(),
                        mode.to_string(),
                        p.size_bytes.to_string(),
                        num(p.prtt_1_0_ns),
                        num(p.prtt_n_0_ns),
                        num(p.prtt_n_d_ns),
                        num(p.send_overhead_ns),
                        num(p.send_call_ns),
                        num(p.recv_overhead_ns),
                        num(p.gap_all_ns),
                        num(p.delay_ns),
                        p.repetitions.to_string(),
                        p.send_waits_for_receiver
                            .map(|b| b.to_string())
                            .unwrap_or_default(),
                    ]);
                }
            }
            t.text
        }
        "thresholds" => {
            let mut t = Csv::new(&[
                "peer_class",
                "mode",
                "active_bytes",
                "active_exact",
                "active_lo_bytes",
                "active_hi_bytes",
                "passive_lo_bytes",
                "passive_hi_bytes",
                "setting",
                "setting_value",
                "note",
            ]);
            for h in &r.thresholds {
                t.row(vec![
                    h.peer_class.to_string(),
                    h.mode.to_string(),
                    int(h.active_bytes),
                    h.active_exact.map(|b| b.to_string()).unwrap_or_default(),
                    int(h.active_lo_bytes),
                    int(h.active_hi_bytes),
                    int(h.passive_lo_bytes),
                    int(h.passive_hi_bytes),
                    h.setting
                        .as_ref()
                        .map(|s| s.name.clone())
                        .unwrap_or_default(),
                    h.setting
                        .as_ref()
                        .and_then(|s| s.value)
                        .map(|v| v.to_string())
                        .unwrap_or_default(),
                    h.note.clone().unwrap_or_default(),
                ]);
            }
            t.text
        }
        "mpi_overhead" => {
            let mut h: Vec<String> = ["peer_class", "transport", "size_lo_bytes", "size_hi_bytes"]
                .map(String::from)
                .to_vec();
            for p in PARAMS {
                h.extend([p.to_string(), format!("{p}_lo"), format!("{p}_hi")]);
            }
            h.push("note".into());
            let mut t = Csv {
                text: refs(&h) + "\n",
            };
            for m in &r.mpi_overhead {
                let mut v = vec![
                    m.peer_class.to_string(),
                    m.transport.clone(),
                    m.size_lo_bytes.to_string(),
                    m.size_hi_bytes.to_string(),
                ];
                push_params(
                    &mut v,
                    [
                        (m.latency_ns, m.latency_ns_ci),
                        (m.send_overhead_ns, m.send_overhead_ns_ci),
                        (m.recv_overhead_ns, m.recv_overhead_ns_ci),
                        (m.gap_ns, m.gap_ns_ci),
                        (m.gap_per_byte_ns, m.gap_per_byte_ns_ci),
                    ],
                );
                v.push(m.note.clone().unwrap_or_default());
                t.row(v);
            }
            t.text
        }
        "bins" => {
            let mut t = Csv::new(&[
                "peer_class",
                "mode",
                "size_lo_bytes",
                "size_hi_bytes",
                "smallest_bytes",
                "largest_bytes",
                "count",
                "min_ns",
                "p10_ns",
                "p50_ns",
                "p90_ns",
                "mean_ns",
            ]);
            for p in &r.passive {
                for b in &p.bins {
                    t.row(vec![
                        p.peer_class.to_string(),
                        p.mode.to_string(),
                        b.size_lo_bytes.to_string(),
                        b.size_hi_bytes.to_string(),
                        b.smallest_bytes.to_string(),
                        b.largest_bytes.to_string(),
                        b.count.to_string(),
                        num(b.min_ns),
                        num(b.p10_ns),
                        num(b.p50_ns),
                        num(b.p90_ns),
                        num(b.mean_ns),
                    ]);
                }
            }
            t.text
        }
        "ranks" => {
            let mut t = Csv::new(&["rank", "host", "pid", "time_in_mpi_ns", "calls", "threads"]);
            for k in &r.ranks {
                t.row(vec![
                    k.rank.to_string(),
                    k.host.clone(),
                    k.pid.to_string(),
                    num(Some(k.time_in_mpi_ns)),
                    k.calls.values().map(|c| c.count).sum::<u64>().to_string(),
                    k.threads.to_string(),
                ]);
            }
            t.text
        }
        "calls" => {
            let mut t = Csv::new(&["rank", "function", "count", "bytes", "time_ns"]);
            for k in &r.ranks {
                for (f, c) in &k.calls {
                    t.row(vec![
                        k.rank.to_string(),
                        f.clone(),
                        c.count.to_string(),
                        c.bytes.to_string(),
                        num(Some(c.time_ns)),
                    ]);
                }
            }
            t.text
        }
        _ => return None,
    };
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_has_the_header_s_columns_and_quotes_are_doubled() {
        let r: Report = serde_json::from_str(include_str!("../tests/fixtures/openmpi_demo.json"))
            .expect("fixture");
        for name in TABLES {
            let t = table(&r, name).unwrap();
            let mut lines = t.lines();
            let n = lines.next().unwrap().split(',').count();
            for l in lines {
                // No field of these fixtures holds a quote; commas only inside quotes.
                let mut cols = 1;
                let mut inside = false;
                for ch in l.chars() {
                    match ch {
                        '"' => inside = !inside,
                        ',' if !inside => cols += 1,
                        _ => {}
                    }
                }
                assert_eq!(cols, n, "{name}: {l}");
            }
        }
        assert_eq!(quote("a,\"b\""), "\"a,\"\"b\"\"\"");
        assert!(table(&r, "nonsense").is_none());
    }
}
