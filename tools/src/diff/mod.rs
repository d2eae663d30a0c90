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

/// Where the two jobs' MPI time went, part by part (`show::overview`, every rank's time
/// split summed) and for the functions with the most time in either: what a change of
/// the application or of its MPI moved, beside the parameters. No verdict: the parts'
/// intervals are the sampling's, not a repeat run's, and the time of a call measured
/// for every call (MPI_Init, a function's total) has none; on this VM a job's costs
/// move together between runs seconds apart.
pub fn time_in_mpi(a: &Report, b: &Report) -> Value {
    use crate::show::overview::overview;
    let (oa, ob) = (overview(a), overview(b));
    let rel = |x: f64, y: f64| (x.abs() > 0.0).then(|| (y - x) / x.abs());
    let parts: Vec<Value> = match (&oa, &ob) {
        (Some(oa), Some(ob)) => (oa.parts.iter())
            .zip(&ob.parts)
            .map(|(x, y)| {
                json!({"part": x.part, "a_ns": x.ns, "a_ns_ci": x.ns_ci, "b_ns": y.ns,
                       "b_ns_ci": y.ns_ci, "change": rel(x.ns, y.ns)})
            })
            .collect(),
        _ => vec![],
    };
    let by_function = |r: &Report| {
        let mut m: std::collections::BTreeMap<String, f64> = Default::default();
        for k in &r.ranks {
            for (f, c) in &k.calls {
                *m.entry(f.clone()).or_default() += c.time_ns;
            }
        }
        m
    };
    let (fa, fb) = (by_function(a), by_function(b));
    // The five functions with the most time in either job, by the larger of the two.
    let mut names: Vec<(&String, f64)> = (fa.keys().chain(fb.keys()))
        .map(|f| {
            let most = fa
                .get(f)
                .copied()
                .unwrap_or(0.0)
                .max(fb.get(f).copied().unwrap_or(0.0));
            (f, most)
        })
        .collect();
    names.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(y.0)));
    names.dedup_by(|x, y| x.0 == y.0);
    let functions: Vec<Value> = (names.iter().take(5))
        .map(|(f, _)| {
            let (x, y) = (
                fa.get(*f).copied().unwrap_or(0.0),
                fb.get(*f).copied().unwrap_or(0.0),
            );
            json!({"function": f, "a_ns": x, "b_ns": y, "change": rel(x, y)})
        })
        .collect();
    json!({"parts": parts, "functions": functions})
}

fn pct(c: &Value) -> String {
    c.as_f64()
        .map(|c| format!("{:+.1} %", 100.0 * c))
        .unwrap_or_else(|| "—".into())
}

fn ci_of(v: &Value) -> Option<[f64; 2]> {
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

/// [`time_in_mpi`] as the last table of `diff`.
fn time_in_mpi_table(a: &Report, b: &Report) -> Option<Table> {
    let v = time_in_mpi(a, b);
    let mut t = Table::new(
        "Where the MPI time went: a → b (all ranks)",
        &["", "a", "b", "change"],
    );
    let ns = |x: &Value, k: &str| x[k].as_f64();
    for p in v["parts"].as_array().into_iter().flatten() {
        t.row(vec![
            p["part"].as_str().unwrap_or("").to_string(),
            fmt_ns_ci(ns(p, "a_ns"), ci_of(&p["a_ns_ci"])),
            fmt_ns_ci(ns(p, "b_ns"), ci_of(&p["b_ns_ci"])),
            pct(&p["change"]),
        ]);
    }
    for f in v["functions"].as_array().into_iter().flatten() {
        t.row(vec![
            format!("in {}", f["function"].as_str().unwrap_or("")),
            fmt_ns(ns(f, "a_ns")),
            fmt_ns(ns(f, "b_ns")),
            pct(&f["change"]),
        ]);
    }
    if t.rows.is_empty() {
        return None;
    }
    t.note = Some("the parts of the time split (`loggp show`'s `Where the job's MPI time goes`), where both reports have it, then the five functions with the most time in either; intervals: the sampling's (95 %), not a repeat run's, so no change here is called significant".into());
    Some(t)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The parts of two jobs' time in MPI side by side: the late-sender wait halved
    /// (800 ms → 400 ms over the ranks) and its intervals carried; MPI_Recv, which held
    /// it, first among the functions.
    #[test]
    fn the_time_in_mpi_moves_part_by_part() {
        use crate::show::overview::tests::two_ranks;
        let (a, b) = (two_ranks([400e6, 400e6]), two_ranks([200e6, 200e6]));
        let v = time_in_mpi(&a, &b);
        let late = (v["parts"].as_array().unwrap().iter())
            .find(|p| p["part"] == "waiting for a late sender")
            .unwrap();
        assert_eq!(
            (late["a_ns"].as_f64(), late["b_ns"].as_f64()),
            (Some(800e6), Some(400e6))
        );
        assert!((late["change"].as_f64().unwrap() + 0.5).abs() < 1e-9);
        assert_eq!(
            ci_of(&late["b_ns_ci"]).map(|[l, h]| (l.round(), h.round())),
            Some((360e6, 440e6))
        );
        assert_eq!(v["functions"][0]["function"], "MPI_Recv");
        let text = time_in_mpi_table(&a, &b).unwrap().text();
        assert!(
            text.contains("waiting for a late sender") && text.contains("-50.0 %"),
            "{text}"
        );
    }
}
