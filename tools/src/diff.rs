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

/// A change of one protocol range against the rest of its set, from the points: at
/// every size both calibrations measured, ln(b/a) of one measure of the point; the
/// machine's move is the median over the set's ranges of their medians (the VM's level
/// moves every cost of a run together, by up to 2.7 ×, which the repeat intervals must
/// cover and so hide a real change of one range); a range changed where its median, less
/// that move, lies beyond × the measure's factor either way, with at least
/// `SHIFT_SAME_SIGN` of its sizes on that side. Two measures, each its own row
/// ([`SHIFT_MEASURES`]): the send's o_s, and the round trip PRTT(1,0,s), which holds the
/// transfer itself (L, G) where o_s holds only the sender's part.
fn range_shifts(sa: &SetView, sb: &SetView, quiet: bool) -> Vec<Value> {
    SHIFT_MEASURES
        .iter()
        .flat_map(|m| range_shifts_of(sa, sb, quiet, m))
        .collect()
}

/// One measure of [`range_shifts`]: what the row says it read, how it reads a point,
/// and the factor beyond which a range moved.
struct ShiftMeasure {
    parameter: &'static str,
    of: fn(&Point) -> Option<f64>,
    factor: f64,
}

/// The measures and their factors. Open MPI vader, 2 ranks, quick calibrations: 81
/// ranges of 27 pairs of identical runs (vader, pml ucx, MPICH; 2026-11-26) moved
/// ×0.78–1.29 in o_s against their sets, and 810 ranges of the 270 ordered pairs of a
/// full run's ten identical runs per stack (2026-11-27) ×0.77–1.31 in o_s, ×0.85–1.18 in
/// PRTT(1,0,s). Vader's single copy turned off moved the rendezvous range ×1.92–2.01 in
/// o_s in 3 of 3 trials (where its o_s interval [3024, 13077] ns held b's 9044), then
/// ×1.71–1.93 in 3 more, but once only ×1.34 (a CI-like full run, 2026-11-27), which
/// o_s alone missed; in PRTT(1,0,s) it moved ×1.47–1.68, every size the same way. pml
/// ucx against ob1 moved 257–4040 B ×0.38–0.51 in o_s.
const SHIFT_MEASURES: [ShiftMeasure; 2] = [
    ShiftMeasure {
        parameter: "o_s of its sizes, against the set's other ranges",
        of: |p| p.send_overhead_ns,
        factor: 1.5,
    },
    ShiftMeasure {
        parameter: "PRTT(1,0,s) of its sizes, against the set's other ranges",
        of: |p| p.prtt_1_0_ns,
        factor: 1.3,
    },
];

fn range_shifts_of(sa: &SetView, sb: &SetView, quiet: bool, m: &ShiftMeasure) -> Vec<Value> {
    use loggp_model::stats::median;
    let per: Vec<(&Range, Vec<SizeRatio>)> = sa
        .ranges
        .iter()
        .map(|r| {
            let v = (sa.points.iter())
                .filter(|p| (r.size_lo_bytes..=r.size_hi_bytes).contains(&p.size_bytes))
                .filter_map(|p| {
                    let q = sb.points.iter().find(|q| q.size_bytes == p.size_bytes)?;
                    let (x, y) = ((m.of)(p)?, (m.of)(q)?);
                    (x > 0.0 && y > 0.0).then(|| (x, y, (y / x).ln()))
                })
                .collect();
            (r, v)
        })
        .collect();
    let of = |v: &[SizeRatio], f: fn(&SizeRatio) -> f64| -> Vec<f64> { v.iter().map(f).collect() };
    let medians: Vec<f64> = (per.iter())
        .filter(|(_, v)| v.len() >= 3)
        .filter_map(|(_, v)| median(&of(v, |x| x.2)))
        .collect();
    let Some(level) = (medians.len() >= 2).then(|| median(&medians)).flatten() else {
        return vec![];
    };
    per.iter()
        .filter(|(_, v)| v.len() >= SHIFT_MIN_SIZES)
        .filter_map(|(r, v)| {
            let d: Vec<f64> = v.iter().map(|x| x.2 - level).collect();
            let mid = median(&d)?;
            let same = d.iter().filter(|x| **x * mid > 0.0).count() as f64 / d.len() as f64;
            let apart = mid.abs() > m.factor.ln() && same >= SHIFT_SAME_SIGN;
            Some(json!({
                "set": sa.name,
                "protocol": r.protocol,
                "range_a": [r.size_lo_bytes, r.size_hi_bytes],
                "range_b": [r.size_lo_bytes, r.size_hi_bytes],
                "parameter": m.parameter,
                "a": median(&of(v, |x| x.0)), "b": median(&of(v, |x| x.1)), "a_ci": null, "b_ci": null,
                "change": mid.exp() - 1.0,
                "sizes": v.len(),
                "same_side": same,
                "significant": apart && quiet,
                "intervals_apart": apart,
            }))
        })
        .collect()
}

/// One size both measured: a's value, b's, ln(b/a).
type SizeRatio = (f64, f64, f64);

/// See [`range_shifts`].
const SHIFT_SAME_SIGN: f64 = 0.9;
const SHIFT_MIN_SIZES: usize = 5;

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
        params.extend(range_shifts(&sa, sb, quiet));
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
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Three ranges of 8 sizes each (eager ×2, rendezvous), a's points at o_s 100 ns and
    /// round trip 1 µs, b's moved by the machine (×1.2 everywhere) and each range by
    /// `os[i]`, `rtt[i]`, with a ±3 % zigzag over the sizes.
    fn sets_moved(os: [f64; 3], rtt: [f64; 3]) -> (Vec<Range>, Vec<Point>, Vec<Point>) {
        let bounds = [(1, 256), (257, 4040), (4041, 524288)];
        let ranges: Vec<Range> = bounds
            .iter()
            .map(|&(lo, hi)| Range {
                size_lo_bytes: lo,
                size_hi_bytes: hi,
                protocol: Some(if hi > 4040 { "rendezvous" } else { "eager" }.into()),
                ..Default::default()
            })
            .collect();
        let (mut a, mut b) = (vec![], vec![]);
        for (i, &(lo, hi)) in bounds.iter().enumerate() {
            for k in 0..8u64 {
                let size = lo + k * (hi - lo) / 8;
                let zig = if k % 2 == 0 { 1.03 } else { 0.97 };
                let point = |o: f64, r: f64| Point {
                    size_bytes: size,
                    send_overhead_ns: Some(o),
                    prtt_1_0_ns: Some(r),
                    ..Default::default()
                };
                a.push(point(100.0, 1000.0));
                b.push(point(120.0 * os[i] * zig, 1200.0 * rtt[i] * zig));
            }
        }
        (ranges, a, b)
    }

    fn flagged(os: [f64; 3], rtt: [f64; 3]) -> Vec<String> {
        let (ranges, pa, pb) = sets_moved(os, rtt);
        let view = |points| SetView {
            name: "mpi intra_node send".into(),
            ranges: &ranges,
            points,
            switches: vec![],
        };
        range_shifts(&view(&pa), &view(&pb), true)
            .into_iter()
            .filter(|v| v["significant"] == true)
            .map(|v| format!("{} {}", v["protocol"], v["parameter"]))
            .collect()
    }

    /// The single copy turned off as once seen: o_s of the rendezvous range ×1.34 against
    /// the rest (below o_s's ×1.5), its round trip ×1.5: found by the round trip alone.
    /// Identical runs' moves (×1.25 o_s, ×1.15 round trip) are not; neither is the
    /// machine's own move, which every range shares.
    #[test]
    fn a_range_moved_in_its_round_trip_alone_is_found() {
        let got = flagged([1.0, 1.0, 1.34], [1.0, 1.0, 1.5]);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(
            got[0].contains("rendezvous") && got[0].contains("PRTT"),
            "{got:?}"
        );
        assert!(flagged([1.0, 1.0, 2.0], [1.0, 1.0, 1.0])[0].contains("o_s"));
        assert!(flagged([1.0, 1.25, 1.0], [1.15, 1.0, 1.0]).is_empty());
        assert!(flagged([1.0, 1.0, 1.0], [1.0, 1.0, 1.0]).is_empty());
    }
}
