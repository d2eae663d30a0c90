//! `loggp repeat`: how well reports of repeated runs of the same job agree — the check of
//! ground truth §6, as a command. For every ordered pair of runs (i, j) and every
//! parameter of every range of i (the range of j matched by protocol and overlap, as
//! `diff` matches them): does j's estimate lie in i's interval? Then the half-widths
//! (are the intervals still useful?), `diff`'s verdict on consecutive pairs (noise called
//! a change?), the switches each set found, and where a raw transport was slower than MPI
//! at the same size (a floor that is not one). It also prints how far each parameter
//! moved between the runs on the log scale: the between-run term the intervals carry
//! (`loggp refit --between-run`) can be set from it.
use crate::diff::{matching, same_switch, sets, PARAMS};
use loggp_model::check::{floor_violations, FLOOR_FACTOR, FLOOR_SLACK_NS};
use loggp_report::Report;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The analysis of `runs` (at least two reports of the same job).
pub fn analyse(runs: &[Report]) -> Value {
    // (set, protocol, ordinal of the range among its protocol's, parameter) → [in, of].
    let mut cov: BTreeMap<String, [u64; 2]> = BTreeMap::new();
    // The same, over the pairs of runs made at the same level of the machine (see
    // `diff::machine_factor`).
    let mut cov_same: BTreeMap<String, [u64; 2]> = BTreeMap::new();
    let mut half = vec![];
    let mut logs: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (i, a) in runs.iter().enumerate() {
        for sa in sets(a) {
            let mut ordinal: BTreeMap<Option<String>, usize> = BTreeMap::new();
            for ra in sa.ranges {
                let k = ordinal.entry(ra.protocol.clone()).or_insert(0);
                let key = format!(
                    "{} {} #{}",
                    sa.name,
                    ra.protocol.as_deref().unwrap_or("?"),
                    *k
                );
                *k += 1;
                for (name, f, ci, _) in PARAMS {
                    let (Some(x), Some(c)) = (f(ra), ci(ra)) else {
                        continue;
                    };
                    if x > 0.0 {
                        half.push((c[1] - c[0]) / 2.0 / x);
                        logs.entry(format!("{key} {name}"))
                            .or_default()
                            .push(x.ln());
                    }
                    for (j, b) in runs.iter().enumerate() {
                        if i == j {
                            continue;
                        }
                        let same_level = crate::diff::machine_factor(a, b).0 == 1.0;
                        let Some(sb) = sets(b).into_iter().find(|s| s.name == sa.name) else {
                            continue;
                        };
                        let Some(y) = matching(ra, sb.ranges).and_then(f) else {
                            continue;
                        };
                        let inside = c[0] <= y && y <= c[1];
                        let e = cov.entry(format!("{key} {name}")).or_default();
                        e[1] += 1;
                        e[0] += inside as u64;
                        if same_level {
                            let e = cov_same.entry(format!("{key} {name}")).or_default();
                            e[1] += 1;
                            e[0] += inside as u64;
                        }
                    }
                }
            }
        }
    }
    let summary = |cov: &BTreeMap<String, [u64; 2]>| {
        let (inside, of) = cov.values().fold((0, 0), |(a, b), c| (a + c[0], b + c[1]));
        let worst = cov
            .iter()
            .filter(|(_, c)| c[1] >= 9)
            .map(|(k, c)| (k.clone(), c[0] as f64 / c[1] as f64))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        json!({
            "inside": inside, "pairs": of,
            "pooled": (of > 0).then(|| inside as f64 / of as f64),
            "worst": worst.map(|(k, c)| json!({"parameter": k, "coverage": c})),
            "per_parameter": cov.iter().map(|(k, c)| json!({"parameter": k, "inside": c[0], "pairs": c[1]})).collect::<Vec<_>>(),
        })
    };
    let levels: Vec<Option<f64>> = runs
        .iter()
        .map(loggp_model::check::machine_level_ns)
        .collect();
    // How far each parameter moved between the runs (robust σ of its log), by parameter.
    let mut by_param: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for (k, v) in &logs {
        if v.len() < 3 {
            continue;
        }
        let w = v.clone();
        let m = loggp_model::stats::median(&w).unwrap_or(0.0);
        let dev: Vec<f64> = v.iter().map(|x| (x - m).abs()).collect();
        let mad = loggp_model::stats::median(&dev).unwrap_or(0.0) * 1.4826;
        let p = k.rsplit(' ').next().unwrap_or("");
        by_param.entry(p).or_default().push(mad);
    }
    let spread: BTreeMap<&str, f64> = by_param
        .into_iter()
        .map(|(p, v)| (p, loggp_model::stats::median(&v).unwrap_or(0.0)))
        .collect();
    // diff's verdict on consecutive pairs.
    let mut flagged = (0, 0);
    for w in runs.chunks(2) {
        if let [a, b] = w {
            let c = crate::diff::compare(a, b, "a", "b");
            flagged.0 += c["summary"]["significant"].as_u64().unwrap_or(0);
            flagged.1 += c["summary"]["compared"].as_u64().unwrap_or(0);
        }
    }
    // The switches each set found, run by run, grouped.
    let mut found: BTreeMap<String, Vec<Vec<u64>>> = BTreeMap::new();
    for r in runs {
        for s in sets(r) {
            found.entry(s.name).or_default().push(s.switches);
        }
    }
    let switch_sets: Vec<Value> = found
        .iter()
        .map(|(name, lists)| {
            // Runs whose switches match the most common list, switch by switch.
            let same = |a: &Vec<u64>, b: &Vec<u64>| {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_switch(*x, *y))
            };
            let (mode, count) = lists
                .iter()
                .map(|l| (l, lists.iter().filter(|m| same(l, m)).count()))
                .max_by_key(|x| x.1)
                .unwrap_or((&lists[0], 0));
            json!({"set": name, "runs": lists.len(), "most_common": mode, "runs_with_it": count, "every_run": lists})
        })
        .collect();
    let floors: Vec<Value> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let v = floor_violations(r);
            json!({"run": i, "sizes_above_floor": v.iter().map(|x| json!({"transport": x.0, "size_bytes": x.1, "raw_over_mpi": x.2})).collect::<Vec<_>>()})
        })
        .collect();
    let h = half.clone();
    json!({
        "runs": runs.len(),
        "coverage": summary(&cov),
        "coverage_same_level": summary(&cov_same),
        "machine_level_ns": levels,
        "median_relative_half_width": loggp_model::stats::median(&h),
        "between_run_log_sd": spread,
        "diff_consecutive_pairs": {"significant": flagged.0, "compared": flagged.1},
        "switches": switch_sets,
        "raw_floor": floors,
    })
}

pub fn text(v: &Value) -> String {
    let mut o = String::new();
    let c = &v["coverage"];
    o += &format!(
        "{} runs: another run's estimate inside this run's interval in {} of {} ordered pairs ({:.1} %)\n",
        v["runs"],
        c["inside"],
        c["pairs"],
        100.0 * c["pooled"].as_f64().unwrap_or(0.0)
    );
    if let Some(w) = c["worst"].as_object() {
        o += &format!(
            "least covered: {} ({:.1} %)\n",
            w["parameter"].as_str().unwrap_or(""),
            100.0 * w["coverage"].as_f64().unwrap_or(0.0)
        );
    }
    let s = &v["coverage_same_level"];
    o += &format!(
        "pairs of runs at the same level of the machine: {} of {} ({:.1} %){}\n",
        s["inside"],
        s["pairs"],
        100.0 * s["pooled"].as_f64().unwrap_or(0.0),
        s["worst"]
            .as_object()
            .map(|w| format!(
                "; least covered {} ({:.1} %)",
                w["parameter"].as_str().unwrap_or(""),
                100.0 * w["coverage"].as_f64().unwrap_or(0.0)
            ))
            .unwrap_or_default()
    );
    o += &format!(
        "the machine's level per run (half the raw transport's smallest round trips, ns): {}\n",
        v["machine_level_ns"]
            .as_array()
            .map(|a| a
                .iter()
                .map(|x| x.as_f64().map_or("—".into(), |x| format!("{x:.0}")))
                .collect::<Vec<_>>()
                .join(" "))
            .unwrap_or_default()
    );
    o += &format!(
        "median half-width: {:.1} % of the estimate\n",
        100.0 * v["median_relative_half_width"].as_f64().unwrap_or(0.0)
    );
    o += &format!(
        "diff of consecutive pairs: {} of {} called significant\n",
        v["diff_consecutive_pairs"]["significant"], v["diff_consecutive_pairs"]["compared"]
    );
    o += "between runs, 1σ of the log of each parameter (median over ranges): ";
    o += &v["between_run_log_sd"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, x)| format!("{k} {:.3}", x.as_f64().unwrap_or(0.0)))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    o += "\nswitches:\n";
    for s in v["switches"].as_array().into_iter().flatten() {
        o += &format!(
            "  {}: {} in {} of {} runs\n",
            s["set"].as_str().unwrap_or(""),
            s["most_common"],
            s["runs_with_it"],
            s["runs"]
        );
    }
    let bad: Vec<String> = v["raw_floor"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| {
            r["sizes_above_floor"]
                .as_array()
                .is_some_and(|a| !a.is_empty())
        })
        .map(|r| format!("run {}: {}", r["run"], r["sizes_above_floor"]))
        .collect();
    if bad.is_empty() {
        o += "raw transports: a floor at every size in every run\n";
    } else {
        o += &format!(
            "raw transports above MPI (×{FLOOR_FACTOR} + {FLOOR_SLACK_NS} ns):\n  {}\n",
            bad.join("\n  ")
        );
    }
    o
}
