//! `loggp diff`: two reports side by side with the relative change — two MPIs, two runs,
//! before and after tuning. Ranges are matched by the sizes they cover (the one of b
//! that overlaps a range of a most).
use crate::table::*;
use loggp_report::{Range, Report};

fn change(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if a.abs() > 0.0 && a.is_finite() && b.is_finite() => {
            format!("{:+.1} %", 100.0 * (b - a) / a.abs())
        }
        _ => "—".into(),
    }
}

fn overlap(x: &Range, y: &Range) -> u64 {
    let (l, h) = (
        x.size_lo_bytes.max(y.size_lo_bytes),
        x.size_hi_bytes.min(y.size_hi_bytes),
    );
    if l > h {
        0
    } else {
        h - l + 1
    }
}

/// A parameter, its interval, and whether it is per byte.
type Param = (
    &'static str,
    fn(&Range) -> Option<f64>,
    fn(&Range) -> Option<[f64; 2]>,
    bool,
);
const PARAMS: [Param; 5] = [
    ("L", |r| r.latency_ns, |r| r.latency_ns_ci, false),
    (
        "o_s",
        |r| r.send_overhead_ns,
        |r| r.send_overhead_ns_ci,
        false,
    ),
    (
        "o_r",
        |r| r.recv_overhead_ns,
        |r| r.recv_overhead_ns_ci,
        false,
    ),
    ("g", |r| r.gap_ns, |r| r.gap_ns_ci, false),
    (
        "G (ns/B)",
        |r| r.gap_per_byte_ns,
        |r| r.gap_per_byte_ns_ci,
        true,
    ),
];

/// A change is significant only when both 95 % intervals exist and do not overlap.
fn significance(a: Option<[f64; 2]>, b: Option<[f64; 2]>) -> &'static str {
    match (a, b) {
        (Some(x), Some(y)) if x[1] < y[0] || y[1] < x[0] => "significant",
        (Some(_), Some(_)) => "within noise",
        _ => "no interval",
    }
}

pub fn tables(a: &Report, b: &Report) -> Vec<Table> {
    let mut out = vec![];
    let v = |x: Option<f64>, ci: Option<[f64; 2]>, per_byte: bool| {
        if per_byte {
            fmt_per_byte_ci(x, ci)
        } else {
            fmt_ns_ci(x, ci)
        }
    };
    let mut t = Table::new(
        "Active calibration: a → b",
        &[
            "class mode",
            "size a (B)",
            "size b (B)",
            "parameter",
            "a",
            "b",
            "change",
            "intervals",
        ],
    );
    for sa in &a.calibration.mpi {
        let Some(sb) = b
            .calibration
            .mpi
            .iter()
            .find(|s| s.peer_class == sa.peer_class && s.mode == sa.mode)
        else {
            t.row(vec![
                format!("{} {}", sa.peer_class, sa.mode),
                "".into(),
                "not in b".into(),
                "".into(),
                "".into(),
                "".into(),
                "".into(),
                "".into(),
            ]);
            continue;
        };
        for ra in &sa.ranges {
            let rb = sb
                .ranges
                .iter()
                .filter(|rb| overlap(ra, rb) > 0)
                .max_by_key(|rb| overlap(ra, rb));
            for (name, f, ci, pb) in PARAMS {
                let (x, y) = (f(ra), rb.and_then(f));
                let (cx, cy) = (ci(ra), rb.and_then(ci));
                t.row(vec![
                    format!("{} {}", sa.peer_class, sa.mode),
                    fmt_span(ra.size_lo_bytes, ra.size_hi_bytes),
                    rb.map(|r| fmt_span(r.size_lo_bytes, r.size_hi_bytes))
                        .unwrap_or_else(|| "—".into()),
                    name.into(),
                    v(x, cx, pb),
                    v(y, cy, pb),
                    change(x, y),
                    significance(cx, cy).into(),
                ]);
            }
        }
    }
    out.push(t);
    let mut t = Table::new(
        "Thresholds: a → b (bytes)",
        &[
            "class mode",
            "active a",
            "active b",
            "change",
            "passive a",
            "passive b",
        ],
    );
    for ta in &a.thresholds {
        let tb = b
            .thresholds
            .iter()
            .find(|t| t.peer_class == ta.peer_class && t.mode == ta.mode);
        let br = |t: Option<&loggp_report::Threshold>| match t
            .map(|t| (t.passive_lo_bytes, t.passive_hi_bytes))
        {
            Some((Some(l), Some(h))) => format!("[{l}, {h}]"),
            _ => "—".into(),
        };
        let ab = tb.and_then(|t| t.active_bytes);
        t.row(vec![
            format!("{} {}", ta.peer_class, ta.mode),
            ta.active_bytes
                .map(|x| x.to_string())
                .unwrap_or_else(|| "—".into()),
            ab.map(|x| x.to_string()).unwrap_or_else(|| "—".into()),
            change(ta.active_bytes.map(|x| x as f64), ab.map(|x| x as f64)),
            br(Some(ta)),
            br(tb),
        ]);
    }
    out.push(t);
    let total = |r: &Report| r.ranks.iter().map(|k| k.time_in_mpi_ns).sum::<f64>();
    let mut t = Table::new("Job: a → b", &["", "a", "b", "change"]);
    t.row(vec![
        "MPI".into(),
        a.job.mpi_flavor.clone(),
        b.job.mpi_flavor.clone(),
        "".into(),
    ]);
    t.row(vec![
        "ranks".into(),
        a.job.ranks.to_string(),
        b.job.ranks.to_string(),
        "".into(),
    ]);
    t.row(vec![
        "wall time".into(),
        fmt_ns(Some(a.job.wall_time_ns)),
        fmt_ns(Some(b.job.wall_time_ns)),
        change(Some(a.job.wall_time_ns), Some(b.job.wall_time_ns)),
    ]);
    t.row(vec![
        "time in MPI (all ranks)".into(),
        fmt_ns(Some(total(a))),
        fmt_ns(Some(total(b))),
        change(Some(total(a)), Some(total(b))),
    ]);
    out.push(t);
    out
}

pub fn diff(a: &Report, b: &Report, an: &str, bn: &str) -> String {
    let mut o = format!("a: {an}\nb: {bn}\n");
    for t in tables(a, b) {
        o += &t.text();
    }
    o
}
