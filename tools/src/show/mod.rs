//! `loggp show`: the report as terminal tables — per peer class and mode the LogGP
//! parameters of each protocol range, active and passive side by side (as hoefler2007
//! Table 2), the thresholds, MPI minus raw (bell2003 Fig. 3 as numbers), the model check,
//! time in MPI per rank, the calls, warnings.
//!
//! `params`: the LogGP tables; `job`: the job's own tables; `matrix`: who talks to whom;
//! `sites`: the call sites, symbolized; `split`: where each rank's MPI time goes.
pub mod coll;
pub mod findings;
pub mod job;
pub mod matrix;
pub mod overview;
pub mod params;
pub mod sites;
pub mod split;

use crate::table::*;
use job::*;
use loggp_report::Report;
use params::*;

/// The job in three lines (a fourth for a world MPI_Comm_spawn started).
pub fn header(r: &Report) -> Vec<String> {
    let j = &r.job;
    let mut lines = vec![
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
            "wall time {}{}, clock {}{}, calibration: {}{}",
            fmt_ns(Some(j.wall_time_ns)),
            job::app_wall_ns(j)
                .map(|a| format!(
                    " (the application's {}, loggp's own {})",
                    fmt_ns(Some(a)),
                    fmt_ns(Some(j.wall_time_ns - a))
                ))
                .unwrap_or_default(),
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
    ];
    if j.spawned {
        lines.push(match &j.spawned_from_report {
            Some(p) => format!(
                "started by MPI_Comm_spawn from the job whose report is {p} (this world's report is named beside it)"
            ),
            None => "started by MPI_Comm_spawn from another job (its report's name is not known here: neither LOGGP_REPORT nor a batch job id was set)".into(),
        });
    }
    lines
}

/// Every table `show` prints, in order.
pub fn tables(r: &Report, with_bins: bool) -> Vec<Table> {
    let mut v: Vec<Table> = findings::table(r).into_iter().collect();
    v.extend(overview::table(r));
    v.extend(parameter_tables(r));
    v.extend(threshold_table(r));
    v.extend(pause_table(r));
    v.extend(concurrent_table(r));
    v.extend(raw_tables(r));
    v.extend(model_check_table(r));
    v.extend(crate::advise::tables(r));
    v.extend(rank_table(r));
    v.extend(split::split_table(r));
    v.extend(split::class_mode_table(r));
    v.extend(split::largest_waits_table(r, 10));
    v.extend(split::collectives_table(r));
    v.extend(coll::model_table(r));
    v.extend(coll::user_op_table(r));
    v.extend(split::latency_table(r));
    v.extend(in_progress_table(r));
    v.extend(calls_table(r));
    v.extend(sites::top_table(r, 10));
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
    o.extend(matrix::coverage_line(r));
    o.extend(clock_line(r));
    for w in &r.warnings {
        o.push(format!("warning: {w}"));
    }
    o
}

/// `show --explain`: the long explanation of each warning's cause, once.
pub fn explained(r: &Report) -> String {
    let e = loggp_model::reconcile::explanations(&r.warnings);
    if e.is_empty() {
        return "\nno warning here has a longer explanation\n".into();
    }
    let mut o = String::from("\nWhy these warnings\n");
    for (name, text) in e {
        o.push_str(&format!("  {name}: {text}\n"));
    }
    o
}

pub fn show(r: &Report, with_bins: bool) -> String {
    show_with(r, with_bins, false)
}

/// `show`, with the communication matrix (`--matrix`) or without.
pub fn show_with(r: &Report, with_bins: bool, with_matrix: bool) -> String {
    let mut o: String = header(r).iter().map(|l| format!("{l}\n")).collect();
    for t in tables(r, with_bins) {
        o += &t.text();
    }
    if with_matrix {
        match matrix::matrix_table(r) {
            Some(t) => o += &t.text(),
            None => o += "\nno communication matrix in this report\n",
        }
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
    // The timeline's calls are `loggp trace`'s, not a script's.
    let mut waits = serde_json::to_value(&r.waits).unwrap_or_default();
    if let Some(o) = waits.as_object_mut() {
        o.remove("trace");
    }
    serde_json::json!({
        "schema": r.schema,
        "findings": findings::findings(r),
        "overview": overview::overview(r),
        "job": {
            "executable": r.job.executable,
            "complete": r.job.complete,
            "interim": r.job.interim,
            "end": r.job.end,
            "ranks": r.job.ranks,
            "hosts": r.job.hosts,
            "mpi_flavor": r.job.mpi_flavor,
            "wall_time_ns": r.job.wall_time_ns,
            "loggp_time_ns": r.job.loggp_time_ns,
        },
        "calibration": {"status": r.calibration.status, "mpi": mpi, "raw": raw},
        "passive": passive,
        "thresholds": r.thresholds,
        "mpi_overhead": r.mpi_overhead,
        "model_check": r.model_check,
        "time_in_mpi_ns": r.ranks.iter().map(|k| serde_json::json!({"rank": k.rank, "host": k.host, "ns": k.time_in_mpi_ns})).collect::<Vec<_>>(),
        "in_progress": r.ranks.iter().flat_map(|k| k.in_progress.iter().map(move |c| serde_json::json!({"rank": k.rank, "call": c}))).collect::<Vec<_>>(),
        "callsites": sites::resolve(r),
        "matrix": r.matrix,
        "coverage": r.coverage,
        "time_split": r.time_split,
        "passive_latency": r.passive_latency,
        "waits": waits,
        "collective_config": r.collective_config,
        "collective_model": r.collective_model,
        "warnings": r.warnings,
    })
}

/// The clocks in one line: how many ranks share rank 0's counter, and the largest offset
/// and drift of the others.
pub fn clock_line(r: &Report) -> Option<String> {
    let c = &r.clocks;
    if c.status.is_empty() {
        return None;
    }
    let shared = c.ranks.iter().filter(|k| k.same_counter_as_rank0).count();
    let others: Vec<_> = c
        .ranks
        .iter()
        .filter(|k| !k.same_counter_as_rank0)
        .collect();
    let mut l = format!(
        "clocks ({}): {shared} of {} other ranks share rank 0's counter",
        c.status,
        c.ranks.len()
    );
    if let Some(k) = others.iter().max_by(|a, b| {
        let off = |k: &&&loggp_report::RankClock| {
            k.at_finalize.as_ref().map_or(0.0, |o| o.offset_ns.abs())
        };
        off(a).total_cmp(&off(b))
    }) {
        if let Some(o) = &k.at_finalize {
            l += &format!(
                "; largest offset: rank {} at {} ± {}",
                k.rank,
                fmt_ns(Some(o.offset_ns)),
                fmt_ns(Some(o.uncertainty_ns))
            );
        }
    }
    Some(l)
}
