//! Which collective algorithm to force (issue 26 §4): the job's collectives priced per
//! algorithm by the collective model (`coll::rows`, the report's `collective_model`),
//! summed over the calls of each (function, communicator size).
//!
//! A forced algorithm (`coll_tuned_<coll>_algorithm` under Open MPI's coll tuned, with
//! `coll_tuned_use_dynamic_rules=1`; `MPIR_CVAR_<COLL>_INTRA_ALGORITHM` under MPICH)
//! applies to every call of the collective, whatever its size: a candidate is priced
//! over all of its size bins at once, each bin's prediction times the bin's calls.
//!
//! Advised only where:
//! - no host runs more ranks than it has CPUs (the model gives each rank a core);
//! - no round of the advised algorithm has over two ranks of a host copying rendezvous
//!   data from different buffers at once (its memory system shared: the exchange probe
//!   measures two at once; `coll::concurrent_rendezvous`);
//! - the algorithm in use is known for every bin (forced, or Open MPI's fixed rules;
//!   MPICH's documented default is an assumption, and is not advised against);
//! - the model holds for it: in every bin the measured cost lies within ±30 % of the
//!   prediction or inside its interval (else the alternatives' prices are not trusted),
//!   or, where the saving starts from the measured cost, the model prices it high by up
//!   to 2× (see `holds`);
//! - the saving's interval lies above zero. The interval: the saving with every
//!   parameter at its interval's low bound, and at its high bound (what a repeat
//!   calibration's parameters would predict), with the central one between.
//!
//! The saving is in each member's time: per call of the collective, the mean over the
//! members of the time from a common entry to each one's exit, in use less the
//! candidate's (`predicted_member_mean_ns`), times the calls (the cells' count over the
//! members, divided by the communicator size). What the algorithm in use costs is
//! measured where the job's time split has it for every bin (`waits.collectives[]
//! .cost_ns`, from the last member's entry to each member's exit, the mean over the
//! members). The saving is then, per bin, that measured cost times one less the model's
//! price of the candidate over its price of the algorithm in use: the model says what
//! share of the cost the candidate saves, the job says at what level it ran. The
//! calibration at MPI_Init and the job's loop may run at different levels of the
//! machine (on this VM the cost of a call moves by up to 3× over seconds), which a
//! difference of absolute prices carries whole into the saving. Measured in the same job
//! (tests/coll_advice.rs, Open MPI's 2-rank Allreduce, basic_linear in use, recursive
//! doubling beside it), the saving as measured cost less the candidate's price came to
//! 0.27–1.58× what the job saved in 5 advised jobs, the share to 0.79–1.37×. Its
//! interval: the spread the ratio's bounds (every parameter at its low, and at its high
//! bound) give about the centre, and the measured cost's own interval, in quadrature.
//! Where a bin has no measured cost, both sides are priced by the model, the interval
//! from every parameter at its low and at its high bound.
use super::row_calls::{calls, measured_member_mean};
use loggp_report::{CollectiveModel, Report};
use serde::Serialize;

/// How far the measured cost may lie from the prediction for the algorithm in use, as a
/// share of the prediction, for the model to count as holding (issue 26's tolerance).
const HOLDS_WITHIN: f64 = 0.3;

#[derive(Clone, Debug, Serialize)]
pub struct AlgorithmAdvice {
    pub function: String,
    pub comm_size: u32,
    /// The algorithms in use, per size bin (`lo..hi B: name (how known)`).
    pub in_use: Vec<String>,
    /// Calls of the collective (instances, not member calls) in the priced bins.
    pub calls: u64,
    pub advised: bool,
    /// The advised algorithm, and the settings that force it.
    pub algorithm: Option<String>,
    pub settings: Vec<(String, String)>,
    /// Each member's time in the collective in use (measured where the time split has
    /// every bin, see `in_use_measured`, else predicted) and predicted with the advice,
    /// and the saving with its interval.
    pub predicted_in_use_ns: Option<f64>,
    /// Whether `predicted_in_use_ns` is the measured cost.
    pub in_use_measured: bool,
    pub predicted_advised_ns: Option<f64>,
    pub predicted_saving_ns: Option<f64>,
    pub predicted_saving_ns_ci: Option<[f64; 2]>,
    pub command: Option<String>,
    pub commands: Vec<String>,
    pub notes: Vec<String>,
}

/// Whether the model's prices for `row`'s bin are trusted. `from_measured`: the saving
/// starts from the measured cost there (see the module's comment). Then a model that
/// prices the algorithm in use high, up to twice its measured cost, is trusted too: the
/// same error (a calibration at another level of the machine, or per message, as the
/// calibration prices a message through the MPI interface and a collective's own
/// messages skip it) prices the candidate high as well, and the share saved carries it
/// out. One that prices it low by more than the tolerance is not: a model that misses
/// what the algorithm in use does there prices no share.
pub(super) fn holds(row: &CollectiveModel, from_measured: bool) -> Result<(), String> {
    let (Some(p), Some(m)) = (row.predicted_ns, row.measured_ns) else {
        return Err(format!(
            "{}..{} B: no prediction or no measured cost for the algorithm in use",
            row.size_lo_bytes, row.size_hi_bytes
        ));
    };
    let inside = row
        .predicted_ns_ci
        .is_some_and(|[lo, hi]| lo <= m && m <= hi);
    let priced_high = from_measured && m < p && m >= 0.5 * p;
    if (m - p).abs() <= HOLDS_WITHIN * p || inside || priced_high {
        Ok(())
    } else if let Some(paused) = after_pauses_only(row) {
        Err(format!(
            "{}..{} B: the model cannot be checked there: {paused} of its {} calls came after a pause, too few others to measure without them, and a call after a pause costs more than back to back, where the model is priced (predicted {:.0} ns, measured {:.0} ns a call for {}), so its prices of the others are not trusted",
            row.size_lo_bytes,
            row.size_hi_bytes,
            row.calls_matched,
            p,
            m,
            row.algorithm.as_deref().unwrap_or("?"),
        ))
    } else {
        Err(format!(
            "{}..{} B: the model does not hold for {} here (predicted {:.0} ns, measured {:.0} ns a call), so its prices of the others are not trusted",
            row.size_lo_bytes,
            row.size_hi_bytes,
            row.algorithm.as_deref().unwrap_or("?"),
            p,
            m
        ))
    }
}

/// The calls of a row that came after a pause, where its measured cost is theirs too
/// (fewer than `coll::MIN_BACK_TO_BACK` others: `CollectiveModel::calls_after_pause`).
/// Real programs call their small collectives between phases of work: hpcc's and LAMMPS
/// melt's rows were told "the model misses the algorithm in use" where 5 of 5 calls and
/// 1 of 1 came after a pause.
fn after_pauses_only(row: &CollectiveModel) -> Option<u64> {
    let paused = row.calls_after_pause.filter(|&c| c > 0)?;
    (row.calls_matched.saturating_sub(paused) < crate::coll::MIN_BACK_TO_BACK).then_some(paused)
}

/// The settings in an `AlgorithmCost::force` string (`name=value` words).
fn settings(force: &str) -> Vec<(String, String)> {
    force
        .split_whitespace()
        .filter_map(|w| w.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn commands(s: &[(String, String)]) -> Vec<String> {
    if s.iter().any(|(k, _)| k.starts_with("MPIR_CVAR_")) {
        let genv: Vec<String> = s.iter().map(|(k, v)| format!("-genv {k} {v}")).collect();
        let env: Vec<String> = s.iter().map(|(k, v)| format!("{k}={v}")).collect();
        vec![
            format!("mpiexec {} …", genv.join(" ")),
            format!("{} srun …", env.join(" ")),
            format!("export {}", env.join(" ")),
        ]
    } else {
        let mca: Vec<String> = s.iter().map(|(k, v)| format!("--mca {k} {v}")).collect();
        let env: Vec<String> = s.iter().map(|(k, v)| format!("OMPI_MCA_{k}={v}")).collect();
        vec![
            format!("mpirun {} …", mca.join(" ")),
            format!("{} srun …", env.join(" ")),
            format!("export {}", env.join(" ")),
        ]
    }
}

/// Each member's time in one call of `name` in `row`'s bin, at the low, central and high
/// parameters: the mean member's where the report has it (a linear root that leaves
/// early spends less than the last member), else the last member's.
fn member_price(row: &CollectiveModel, name: &str) -> Option<[f64; 3]> {
    let c = row.alternatives.iter().find(|c| c.algorithm == name)?;
    let (mid, [lo, hi]) = match c.predicted_member_mean_ns {
        Some(m) => (m, c.predicted_member_mean_ns_ci.unwrap_or([m; 2])),
        None => (
            c.predicted_ns,
            c.predicted_ns_ci.unwrap_or([c.predicted_ns; 2]),
        ),
    };
    Some([lo, mid, hi])
}

/// The saving of `candidate` where the time split measured every bin: per bin, the
/// measured cost in use times one less the model's price of the candidate over its price
/// of the algorithm in use, times the calls, summed. Returned at the low, central and high
/// parameters (the ratio's bounds), and at the measured cost's bounds (central ratio).
fn saving_at_measured_level(
    r: &Report,
    rows: &[&CollectiveModel],
    candidate: &str,
) -> Option<([f64; 3], [f64; 2])> {
    let (mut by_params, mut by_measured) = ([0.0; 3], [0.0; 2]);
    for x in rows {
        let (m, [m_lo, m_hi]) = measured_member_mean(r, x)?;
        let p = member_price(x, x.algorithm.as_deref()?)?;
        let q = member_price(x, candidate)?;
        if p.iter().any(|&p| p <= 0.0) {
            return None;
        }
        let k = calls(r, x) as f64;
        for i in 0..3 {
            by_params[i] += k * m * (1.0 - q[i] / p[i]);
        }
        let share = 1.0 - q[1] / p[1];
        by_measured[0] += k * m_lo * share;
        by_measured[1] += k * m_hi * share;
    }
    Some((by_params, by_measured))
}

/// The advice per (collective, communicator size > 1) the model prices (`coll::ONE_RANK`;
/// rows of count 0 left out, `coll::NOTHING_AT_COUNT_0`).
pub fn algorithm_advice(r: &Report) -> Vec<AlgorithmAdvice> {
    let rows = if r.collective_model.is_empty() {
        crate::coll::rows(r)
    } else {
        r.collective_model.clone()
    };
    let mut keys: Vec<(String, u32)> = rows
        .iter()
        .filter(|x| x.comm_size > 1 && !crate::coll::nothing_at_count_0(r, x))
        .map(|x| (x.function.clone(), x.comm_size))
        .collect();
    keys.dedup();
    keys.into_iter()
        .map(|(f, n)| {
            // A row of count 0 costs nothing whatever the algorithm.
            let mine: Vec<&CollectiveModel> = rows
                .iter()
                .filter(|x| x.function == f && x.comm_size == n)
                .filter(|x| !crate::coll::nothing_at_count_0(r, x))
                .collect();
            one(r, f, n, &mine)
        })
        .collect()
}

/// The algorithm in use per size, neighbouring bins of the same algorithm and source as
/// one span (`1..27 B: pipeline (fixed rules)`): LAMMPS melt's Bcasts, 17 bins of 1–79 B,
/// listed bin by bin made one line of 600 characters that said two things.
pub(super) fn in_use(rows: &[&CollectiveModel]) -> Vec<String> {
    let mut sorted: Vec<&CollectiveModel> = rows.to_vec();
    sorted.sort_by_key(|x| (x.size_lo_bytes, x.size_hi_bytes));
    let mut spans: Vec<(u64, u64, &str, &str)> = vec![];
    for x in sorted {
        let alg = x.algorithm.as_deref().unwrap_or("not known");
        let source = x.algorithm_source.as_deref().unwrap_or("-");
        match spans.last_mut() {
            Some(last) if last.2 == alg && last.3 == source => last.1 = last.1.max(x.size_hi_bytes),
            _ => spans.push((x.size_lo_bytes, x.size_hi_bytes, alg, source)),
        }
    }
    spans
        .into_iter()
        .map(|(lo, hi, alg, source)| format!("{lo}..{hi} B: {alg} ({source})"))
        .collect()
}

fn one(r: &Report, function: String, comm_size: u32, rows: &[&CollectiveModel]) -> AlgorithmAdvice {
    let mut a = AlgorithmAdvice {
        function,
        comm_size,
        in_use: in_use(rows),
        calls: rows.iter().map(|x| calls(r, x)).sum(),
        advised: false,
        algorithm: None,
        settings: vec![],
        predicted_in_use_ns: None,
        in_use_measured: false,
        predicted_advised_ns: None,
        predicted_saving_ns: None,
        predicted_saving_ns_ci: None,
        command: None,
        commands: vec![],
        notes: vec![],
    };
    // Bins where the model misses the algorithm in use: its prices there are not
    // trusted, unless the advised algorithm runs the same schedule there (an MPI that
    // falls back to the one in use at that size), where the saving is nothing.
    let mut untrusted: Vec<(&CollectiveModel, String)> = vec![];
    for x in rows {
        match x.algorithm_source.as_deref() {
            Some("forced") | Some("fixed rules") | Some(crate::coll::MPICH_BUILT_IN) => {}
            Some(how) => a.notes.push(format!(
                "{}..{} B: the algorithm in use is {how}, not known: no change is advised against it",
                x.size_lo_bytes, x.size_hi_bytes
            )),
            None => a.notes.push(format!(
                "{}..{} B: the algorithm in use is not known{}",
                x.size_lo_bytes,
                x.size_hi_bytes,
                x.note.as_deref().map(|n| format!(" ({n})")).unwrap_or_default()
            )),
        }
        if let Err(e) = holds(x, measured_member_mean(r, x).is_some()) {
            untrusted.push((x, e));
        }
        if x.alternatives.is_empty() {
            a.notes.push(format!(
                "{}..{} B: not priced{}",
                x.size_lo_bytes,
                x.size_hi_bytes,
                x.note
                    .as_deref()
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default()
            ));
        }
    }
    // The model gives each rank a core of its own: ranks that share cores wait for them.
    let mut per_host: std::collections::BTreeMap<&str, (u32, Option<u32>)> = Default::default();
    for k in &r.ranks {
        let e = per_host.entry(k.host.as_str()).or_insert((0, k.host_cpus));
        e.0 += 1;
    }
    if let Some((host, (n, Some(cpus)))) = per_host
        .iter()
        .find(|(_, (n, c))| c.is_some_and(|c| *n > c))
    {
        a.notes.push(format!(
            "{n} ranks on {cpus} CPUs of {host}: ranks share cores, which the model does not price (it gives each rank a core): no change advised"
        ));
    }
    if !a.notes.is_empty() || a.calls == 0 {
        return a;
    }
    // Each member's time over all bins, per algorithm (the algorithm in use may differ
    // per bin, under the fixed rules), at the low, central and high parameters.
    let over_bins = |name_of: &dyn Fn(&CollectiveModel) -> Option<String>| -> Option<[f64; 3]> {
        let mut t = [0.0; 3];
        for x in rows {
            let p = member_price(x, &name_of(x)?)?;
            let k = calls(r, x) as f64;
            for (t, p) in t.iter_mut().zip(p) {
                *t += k * p;
            }
        }
        Some(t)
    };
    let total = |name: &str| over_bins(&|_| Some(name.to_string()));
    let Some(priced_now) = over_bins(&|x| x.algorithm.clone()) else {
        a.notes.push("the algorithm in use is not priced".into());
        return a;
    };
    // What the job pays now, where the time split measured every bin.
    let measured_now = rows.iter().try_fold([0.0; 3], |mut t, x| {
        let (m, [lo, hi]) = measured_member_mean(r, x)?;
        let k = calls(r, x) as f64;
        t[0] += k * lo;
        t[1] += k * m;
        t[2] += k * hi;
        Some(t)
    });
    let now = measured_now.unwrap_or(priced_now);
    a.predicted_in_use_ns = Some(now[1]);
    a.in_use_measured = measured_now.is_some();
    let mut best: Option<(String, [f64; 3], String)> = None;
    let mut contended = vec![];
    for c in &rows[0].alternatives {
        let Some(t) = total(&c.algorithm) else {
            continue;
        };
        // Not advised where more than two ranks copy rendezvous data from different
        // buffers at once: the model prices them as two, low where memory is the limit,
        // or, where the calibration ran its concurrent exchange, by it, which still
        // priced some such rounds low (a 16-core VM: a linear Alltoall of 256 KiB on 8
        // ranks at 0.62 × its cost).
        let busy = rows
            .iter()
            .filter_map(|x| crate::coll::concurrent_rendezvous(r, x, &c.algorithm))
            .max()
            .unwrap_or(0);
        if busy > 2 {
            if t[1] < now[1] {
                contended.push(c.algorithm.clone());
            }
            continue;
        }
        if best.as_ref().is_none_or(|b| t[1] < b.1[1]) {
            best = Some((c.algorithm.clone(), t, c.force.clone()));
        }
    }
    // Said, but no bar to advising the cheapest of the others, which saves as priced.
    let how = if r.calibration.concurrent_exchanges.is_empty() {
        "the calibration measures two at once, and the model's price for more is low"
    } else {
        "the model prices them by the calibration's concurrent exchange, which has priced such rounds low"
    };
    let contended = (!contended.is_empty()).then(|| format!("not priced for advice: {} (in their rounds more than two ranks of one host copy rendezvous data from different buffers at once, sharing its memory system; {how})", contended.join(", ")));
    let Some((name, t, force)) = best else {
        a.notes.extend(untrusted.into_iter().map(|(_, e)| e));
        a.notes.extend(contended);
        return a;
    };
    let price = |x: &CollectiveModel, alg: Option<&str>| {
        x.alternatives
            .iter()
            .find(|c| Some(c.algorithm.as_str()) == alg)
            .map(|c| c.predicted_ns)
    };
    // Bins the candidate leaves as they are: it is the algorithm in use there, or it runs
    // the same schedule there.
    let (mut same, mut unchanged) = (vec![], vec![]);
    for (x, e) in untrusted {
        let paused = if after_pauses_only(x).is_some() {
            " (its calls came after a pause)"
        } else {
            ""
        };
        let span = format!("{}..{} B{paused}", x.size_lo_bytes, x.size_hi_bytes);
        if x.algorithm.as_deref() == Some(name.as_str()) {
            same.push(span);
            continue;
        }
        match (price(x, x.algorithm.as_deref()), price(x, Some(&name))) {
            (Some(p), Some(q)) if (p - q).abs() <= 1e-9 * p.abs().max(1.0) => unchanged.push(span),
            _ => a.notes.push(e),
        }
    }
    if !a.notes.is_empty() {
        return a;
    }
    a.notes.extend(contended);
    // (An mpi4py job's 2-rank Allreduce under recursive doubling was told "… but
    // recursive_doubling runs the same schedule": the candidate was the one in use.)
    if !same.is_empty() {
        a.notes.push(format!(
            "{}: the model misses the algorithm in use there ({name}, its measured cost off its price by more than 30 %), which is also the cheapest it prices, so no saving is counted there",
            same.join(", ")
        ));
    }
    if !unchanged.is_empty() {
        a.notes.push(format!(
            "{}: the model misses the algorithm in use there, but {name} runs the same schedule at that size (the MPI falls back to it), so no saving is counted there",
            unchanged.join(", ")
        ));
    }
    // Both priced: the saving with the same parameters' bound on both sides (a repeat
    // calibration's parameters move both prices together).
    let spread = |s: [f64; 3]| {
        (
            s.iter().copied().fold(f64::INFINITY, f64::min),
            s.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    };
    let (saving, lo, hi) = match saving_at_measured_level(r, rows, &name) {
        // Measured now: the model's relative price of the candidate, at the level the job
        // ran at. Its interval: the spread of the ratio's bounds about the centre, and
        // the measured cost's own interval, in quadrature.
        Some((s, m)) => {
            let (s_lo, s_hi) = spread(s);
            let (m_lo, m_hi) = (m[0].min(m[1]), m[0].max(m[1]));
            let down = (s[1] - s_lo).hypot(s[1] - m_lo);
            let up = (s_hi - s[1]).hypot(m_hi - s[1]);
            (s[1], s[1] - down, s[1] + up)
        }
        None => {
            let s = [
                priced_now[0] - t[0],
                priced_now[1] - t[1],
                priced_now[2] - t[2],
            ];
            let (s_lo, s_hi) = spread(s);
            (s[1], s_lo, s_hi)
        }
    };
    let same = rows
        .iter()
        .all(|x| x.algorithm.as_deref() == Some(name.as_str()));
    if same || saving <= 0.0 {
        a.notes.push(format!(
            "the algorithm in use is the cheapest of those priced for advice{}",
            if same {
                format!(" ({name})")
            } else {
                String::new()
            }
        ));
        return a;
    }
    a.predicted_advised_ns = Some(now[1] - saving);
    a.predicted_saving_ns = Some(saving);
    a.predicted_saving_ns_ci = Some([lo, hi]);
    if lo <= 0.0 {
        a.notes.push(format!(
            "{name} is predicted cheapest, but its saving's interval reaches zero ({lo:.0} … {hi:.0} ns): no change advised"
        ));
        return a;
    }
    a.advised = true;
    a.settings = settings(&force);
    a.commands = commands(&a.settings);
    a.command = a.commands.first().cloned();
    a.algorithm = Some(name);
    a
}
