//! `loggp diff`'s last table: where the two jobs' MPI time went.
use super::{ci_of, pct};
use crate::table::*;
use loggp_report::Report;
use serde_json::{json, Value};

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
    let time = |r| {
        let t = crate::show::job::call_totals(r);
        move |f: &str| t.get(f).map_or(0.0, |x| x.2)
    };
    let (fa, fb) = (time(a), time(b));
    // The five functions with the most time in either job, by the larger of the two.
    let all: std::collections::BTreeSet<&str> = (a.ranks.iter().chain(&b.ranks))
        .flat_map(|k| k.calls.keys().map(String::as_str))
        .collect();
    let mut names: Vec<(&str, f64)> = all.into_iter().map(|f| (f, fa(f).max(fb(f)))).collect();
    names.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(y.0)));
    let functions: Vec<Value> = (names.iter().take(5))
        .map(|&(f, _)| {
            let (x, y) = (fa(f), fb(f));
            json!({"function": f, "a_ns": x, "b_ns": y, "change": rel(x, y)})
        })
        .collect();
    json!({"parts": parts, "functions": functions})
}

/// [`time_in_mpi`] as the last table of `diff`.
pub(super) fn time_in_mpi_table(a: &Report, b: &Report) -> Option<Table> {
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
