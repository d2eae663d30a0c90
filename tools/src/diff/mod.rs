//! `loggp diff`: two reports side by side with the relative change — two MPIs, two runs,
//! before and after tuning — and which changes are real.
//!
//! A calibration set of b is matched to a's by peer class and mode (raw: transport and
//! UCT transport); a range of b to a's by protocol, then by the sizes they share. A
//! parameter changed significantly where both repeat-run intervals exist and do not
//! overlap: each covers what a repeat run of its job measures (see the model's
//! `repeat_interval`), so two runs of the same job on the same machine rarely fall apart.
//! A switch changed where one report has it and the other has none within 2 % (8 B at
//! least) of it: switches are located to the byte, so the same stack finds the same ones.
//! Where either calibration was disturbed (its ranks were off their CPU while probing),
//! nothing is called a change of the MPI: the difference is the competition for the CPU.
//! Beside the intervals, a change confined to one protocol range is found from the
//! points: that range's o_s or round trip moved against the rest of its set, size by
//! size (`range_shifts`), which a move of the whole machine does not do.
//! Where both carry a raw transport, its smallest round trips give the machine's level
//! (`loggp_model::check::machine_level_ns`): where that moved by more than 30 %, the
//! machine moved, and a's intervals are stretched as far as it moved before they are
//! compared (on this VM most costs of a run move together, by up to 2.7 ×, between runs
//! seconds apart).
use crate::table::*;
use loggp_report::{Point, Range, Report};
use serde_json::{json, Value};
use shifts::range_shifts;

mod shifts;
mod time;
pub use time::time_in_mpi;
use time::time_in_mpi_table;

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
pub const PARAMS: [Param; 5] = [
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
    ("G", |r| r.gap_per_byte_ns, |r| r.gap_per_byte_ns_ci, true),
];

/// One calibration set of a report, by what it measured.
pub struct SetView<'a> {
    /// "mpi intra_node send", "raw intra_node ucx:posix".
    pub name: String,
    pub ranges: &'a [Range],
    pub points: &'a [Point],
    pub switches: Vec<u64>,
}

/// Every MPI and raw calibration set of a report.
pub fn sets(r: &Report) -> Vec<SetView<'_>> {
    let mut v: Vec<SetView> = r
        .calibration
        .mpi
        .iter()
        .map(|s| SetView {
            name: format!("mpi {} {}", s.peer_class, s.mode),
            ranges: &s.ranges,
            points: &s.points,
            switches: s.switches_bytes.clone(),
        })
        .collect();
    v.extend(
        r.calibration
            .raw
            .iter()
            .filter(|s| !s.ranges.is_empty())
            .map(|s| {
                let t = match &s.tl {
                    Some(tl) => format!("{}:{tl}", s.transport),
                    None => s.transport.clone(),
                };
                SetView {
                    name: format!("raw {} {t}", s.peer_class),
                    ranges: &s.ranges,
                    points: &s.points,
                    switches: s.switches_bytes.clone(),
                }
            }),
    );
    v
}

/// b's range matching `ra`: the same protocol, sharing the most sizes.
pub fn matching<'a>(ra: &Range, b: &'a [Range]) -> Option<&'a Range> {
    b.iter()
        .filter(|rb| rb.protocol == ra.protocol && overlap(ra, rb) > 0)
        .max_by_key(|rb| overlap(ra, rb))
}

/// Whether two switches are the same one.
pub fn same_switch(a: u64, b: u64) -> bool {
    a.abs_diff(b) <= (a / 50).max(8)
}

/// Why a report's calibration cannot speak for its MPI, if it cannot.
pub fn disturbed(r: &Report) -> Option<String> {
    let c = &r.calibration;
    if c.status.starts_with("disturbed") || c.disturbance.is_some() {
        return Some(c.disturbance.clone().unwrap_or_else(|| c.status.clone()));
    }
    None
}

/// How far the machine's level moved from a to b (b / a), where both show it and it moved
/// by more than 30 %; 1 otherwise.
pub fn machine_factor(a: &Report, b: &Report) -> (f64, Option<f64>) {
    use loggp_model::check::machine_level_ns;
    match (machine_level_ns(a), machine_level_ns(b)) {
        (Some(x), Some(y)) if x > 0.0 => {
            let f = y / x;
            (
                if (1.0 / 1.3..=1.3).contains(&f) {
                    1.0
                } else {
                    f
                },
                Some(f),
            )
        }
        _ => (1.0, None),
    }
}

/// The comparison, as `diff --json` prints it.
pub fn compare(a: &Report, b: &Report, an: &str, bn: &str) -> Value {
    let (da, db) = (disturbed(a), disturbed(b));
    let quiet = da.is_none() && db.is_none();
    let (scale, level) = machine_factor(a, b);
    let mut params = vec![];
    let mut switches = vec![];
    let bsets = sets(b);
    for sa in sets(a) {
        let Some(sb) = bsets.iter().find(|s| s.name == sa.name) else {
            switches.push(json!({"set": sa.name, "a": sa.switches, "b": null,
                "significant": quiet, "why": "the set is not in b"}));
            continue;
        };
        for ra in sa.ranges {
            let rb = matching(ra, sb.ranges);
            for (name, f, ci, _) in PARAMS {
                let (x, y) = (f(ra), rb.and_then(f));
                let (cx, cy) = (ci(ra), rb.and_then(ci));
                let (Some(x), Some(y)) = (x, y) else { continue };
                // Where the machine's level moved, a's interval reaches as far as the
                // machine moved (not every parameter moves with it: o_r hardly did).
                let cx = cx.map(|[lo, hi]| [lo * scale.min(1.0), hi * scale.max(1.0)]);
                let apart = matches!((cx, cy), (Some(p), Some(q)) if p[1] < q[0] || q[1] < p[0]);
                let change = (x.abs() > 0.0).then(|| (y - x) / x.abs());
                params.push(json!({
                    "set": sa.name,
                    "protocol": ra.protocol,
                    "range_a": [ra.size_lo_bytes, ra.size_hi_bytes],
                    "range_b": rb.map(|r| [r.size_lo_bytes, r.size_hi_bytes]),
                    "parameter": name,
                    "a": x, "b": y, "a_ci": cx, "b_ci": cy,
                    "change": change,
                    "significant": apart && quiet,
                    "intervals_apart": apart,
                }));
            }
        }
        // A range's move against the others is no change of the MPI where the machine's
        // level moved by more than 30 %: its phases move the ranges differently (a run at
        // 137 ns against its neighbours at 384–410 ns moved vader's ranges ×0.49–1.74
        // against each other, 2026-11-27, ten identical quick calibrations).
        params.extend(range_shifts(&sa, sb, quiet && scale == 1.0));
        let only = |p: &[u64], q: &[u64]| -> Vec<u64> {
            p.iter()
                .copied()
                .filter(|&s| !q.iter().any(|&t| same_switch(s, t)))
                .collect()
        };
        let (gone, new) = (
            only(&sa.switches, &sb.switches),
            only(&sb.switches, &sa.switches),
        );
        let moved = !gone.is_empty() || !new.is_empty();
        switches.push(json!({
            "set": sa.name, "a": sa.switches, "b": sb.switches,
            "only_a": gone, "only_b": new,
            "significant": moved && quiet,
        }));
    }
    for sb in &bsets {
        if !sets(a).iter().any(|s| s.name == sb.name) {
            switches.push(json!({"set": sb.name, "a": null, "b": sb.switches,
                "significant": quiet, "why": "the set is not in a"}));
        }
    }
    let flagged = params
        .iter()
        .chain(&switches)
        .filter(|v| v["significant"] == true)
        .count();
    let compared = params.len() + switches.len();
    let note = match (&da, &db) {
        (None, None) => None,
        _ => Some("a calibration was disturbed (its ranks were off their CPU while probing): the differences measure the competition for the CPU, not the MPI, and none is called significant".to_string()),
    };
    let note = match (note, scale != 1.0) {
        (None, true) => Some(format!("the machine's level moved by {scale:.2} × between the runs (half the raw transport's smallest round trips): a's intervals are stretched as far before they are compared, so what the machine did is not called a change of the MPI")),
        (n, _) => n,
    };
    json!({
        "a": an, "b": bn,
        "disturbed": {"a": da, "b": db},
        "machine_level_factor": level,
        "machine_level_scaled": scale != 1.0,
        "note": note,
        "parameters": params,
        "switches": switches,
        "summary": {"compared": compared, "significant": flagged},
        "time_in_mpi": time_in_mpi(a, b),
    })
}

pub(crate) fn pct(c: &Value) -> String {
    c.as_f64()
        .map(|c| format!("{:+.1} %", 100.0 * c))
        .unwrap_or_else(|| "—".into())
}

pub(crate) fn ci_of(v: &Value) -> Option<[f64; 2]> {
    let a = v.as_array()?;
    Some([a.first()?.as_f64()?, a.get(1)?.as_f64()?])
}

fn span(v: &Value) -> String {
    match v.as_array() {
        Some(a) if a.len() == 2 => fmt_span(a[0].as_u64().unwrap_or(0), a[1].as_u64().unwrap_or(0)),
        _ => "—".into(),
    }
}

pub fn tables(a: &Report, b: &Report) -> Vec<Table> {
    let c = compare(a, b, "a", "b");
    let mut out = vec![];
    let mut t = Table::new(
        "Calibration: a → b",
        &[
            "set",
            "size a (B)",
            "size b (B)",
            "parameter",
            "a",
            "b",
            "change",
            "verdict",
        ],
    );
    for p in c["parameters"].as_array().into_iter().flatten() {
        let per_byte = p["parameter"] == "G";
        let v = |x: &Value, ci: &Value| {
            if per_byte {
                fmt_per_byte_ci(x.as_f64(), ci_of(ci))
            } else {
                fmt_ns_ci(x.as_f64(), ci_of(ci))
            }
        };
        let verdict = if p["significant"] == true {
            "significant"
        } else if p["intervals_apart"] == true {
            "apart, but disturbed"
        } else {
            "within noise"
        };
        t.row(vec![
            p["set"].as_str().unwrap_or("").into(),
            span(&p["range_a"]),
            span(&p["range_b"]),
            p["parameter"].as_str().unwrap_or("").into(),
            v(&p["a"], &p["a_ci"]),
            v(&p["b"], &p["b_ci"]),
            pct(&p["change"]),
            verdict.into(),
        ]);
    }
    out.push(t);
    let mut t = Table::new("Switches: a → b (bytes)", &["set", "a", "b", "verdict"]);
    let list = |v: &Value| match v.as_array() {
        Some(a) if a.is_empty() => "none".to_string(),
        Some(a) => a
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        None => "—".into(),
    };
    for s in c["switches"].as_array().into_iter().flatten() {
        t.row(vec![
            s["set"].as_str().unwrap_or("").into(),
            list(&s["a"]),
            list(&s["b"]),
            if s["significant"] == true {
                "changed"
            } else {
                "same"
            }
            .into(),
        ]);
    }
    out.push(t);
    let mut t = Table::new(
        "Thresholds: a → b (bytes)",
        &[
            "class mode",
            "active a",
            "active b",
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
        let opt = |x: Option<u64>| x.map(|x| x.to_string()).unwrap_or_else(|| "—".into());
        t.row(vec![
            format!("{} {}", ta.peer_class, ta.mode),
            opt(ta.active_bytes),
            opt(tb.and_then(|t| t.active_bytes)),
            br(Some(ta)),
            br(tb),
        ]);
    }
    out.push(t);
    let total = |r: &Report| r.ranks.iter().map(|k| k.time_in_mpi_ns).sum::<f64>();
    let rel = |x: f64, y: f64| pct(&json!((x.abs() > 0.0).then(|| (y - x) / x.abs())));
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
        rel(a.job.wall_time_ns, b.job.wall_time_ns),
    ]);
    // A job's own time, loggp's calibration and reduction taken out: what a change of
    // the MPI or the application moves (a run calibrated against one that is not differs
    // by the calibration alone in the wall time).
    if let (Some(x), Some(y)) = (
        crate::show::job::app_wall_ns(&a.job),
        crate::show::job::app_wall_ns(&b.job),
    ) {
        t.row(vec![
            "the application's wall time".into(),
            fmt_ns(Some(x)),
            fmt_ns(Some(y)),
            rel(x, y),
        ]);
    }
    t.row(vec![
        "time in MPI (all ranks)".into(),
        fmt_ns(Some(total(a))),
        fmt_ns(Some(total(b))),
        rel(total(a), total(b)),
    ]);
    out.push(t);
    out.extend(time_in_mpi_table(a, b));
    out
}

pub fn diff(a: &Report, b: &Report, an: &str, bn: &str) -> String {
    let c = compare(a, b, an, bn);
    let mut o = format!("a: {an}\nb: {bn}\n");
    for (k, who) in [("a", an), ("b", bn)] {
        if let Some(w) = c["disturbed"][k].as_str() {
            o += &format!("{who}: calibration disturbed: {w}\n");
        }
    }
    if let Some(n) = c["note"].as_str() {
        o += &format!("note: {n}\n");
    }
    o += &format!(
        "{} of {} compared parameters and switch sets changed significantly (repeat-run intervals apart; switches not found in both)\n",
        c["summary"]["significant"], c["summary"]["compared"]
    );
    for t in tables(a, b) {
        o += &t.text();
    }
    o
}
