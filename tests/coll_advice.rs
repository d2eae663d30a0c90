//! Issue 26 §4: advice on collective algorithms, checked by rerunning. A 2-rank job
//! (tests/c/coll_model.c: MPI_Allreduce of 8 B and 2 KiB, `CALLS` calls each, a barrier
//! before each) under a forced algorithm the model finds worse than another: Open MPI's
//! basic_linear (`coll_tuned_allreduce_algorithm=1`), MPICH's reduce_scatter_allgather.
//! `loggp advise` names the algorithm to force, with its settings and the saving in each
//! member's time; the job is rerun with those settings, and the saving measured — the
//! mean over the ranks of the time in MPI_Allreduce's typical calls (`allreduce_ns`),
//! before less after (`advice_holds` says why not brought to a level) — must
//! lie within 0.5–2× the prediction. Every pair is counted and printed (with the raw
//! times of all calls beside); at most one advised rerun may be slower. A pair may go
//! without advice, said before any rerun: the model did not hold for the algorithm in
//! use, or the saving's interval reached zero.
//! Pairs run until enough hit, up to a cap (`advice_holds` says why):
//! - Open MPI: 3 hits within 16 pairs, at most 2 advised pairs missing. A local run (300
//!   calls a size) in a noisy phase advised 5 of 12 pairs (4 hits, one miss at 2.03×); 7
//!   declined: the model pricing basic_linear at 2.1× its cost (2), the saving's
//!   interval reaching zero (3), basic_linear priced cheapest (2).
//! - MPICH: 2 hits within 12 pairs, at most 3 advised pairs missing. Its 2 KiB
//!   reduce_scatter_allgather costs 1.3–1.4× the prediction in about half the runs, and
//!   the advice then declines. At 8 B (one double on 2 ranks) MPICH does not apply
//!   reduce_scatter_allgather (count < 2) and falls back to recursive doubling, which
//!   the model now knows: before it did, it priced a saving there that MPICH could not
//!   deliver, and the CI run of 2026-11-24 measured 0.47–0.49× in 3 of its 4 advised
//!   pairs (the fourth slower).
//!
//! 2 ranks, not 4: this machine has 2 cores, and the model assumes a core per rank.
mod common;
use common::*;
use loggp_model::advise::algorithm_advice;
use loggp_report::{bins::hist_mid, Report};

/// MPI_Allreduce calls per size: the saving is some 10–25 % of the collective's time, and
/// 300 calls (about 0.4 ms) leave it to a few slow calls.
const CALLS: &str = "2000";

/// The job, without `mpi_yield_when_idle` (2 ranks on 2 cores: each rank has its core,
/// as the model assumes).
fn job(mpi: Mpi, extra: &[(&str, &str)], name: &str) -> Report {
    let dir = scratch(name);
    let prog = compile(mpi, "coll_model.c", &[]);
    let report = dir.join("r.json");
    let r = extra.iter().fold(
        Run::new(2, true).env("LOGGP_REPORT", report.to_str().unwrap()),
        |r, (k, v)| r.env(k, v),
    );
    let o = run(mpi, &r, &prog, &["allreduce", "8,2048", CALLS], &dir);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    read_report(&report)
}

/// The time a rank spends in MPI_Allreduce's typical calls (the mean over the ranks):
/// per size bin, the calls' count × the mean of the fastest 90 % (from the duration
/// histograms). The loop's calls take a few ms, so that one rank descheduled
/// once for a time slice (a few ms, other processes on this 2-core machine) would weigh
/// more than the saving; the model prices a call, not the scheduler.
fn allreduce_ns(r: &Report) -> f64 {
    typical_ns(r, "MPI_Allreduce")
}

/// The same for any function: its calls' count × the mean of their fastest 90 %, per
/// size bin, the mean over the ranks.
fn typical_ns(r: &Report, function: &str) -> f64 {
    let total: f64 = r
        .cells
        .iter()
        .filter(|c| c.function == function)
        .map(|c| {
            let keep = (c.count as f64 * 0.9).ceil() as u64;
            let (mut n, mut sum) = (0u64, 0.0);
            for &[bucket, k] in &c.hist {
                let take = k.min(keep - n);
                sum += take as f64 * hist_mid(bucket as usize);
                n += take;
                if n == keep {
                    break;
                }
            }
            c.count as f64 * sum / n.max(1) as f64
        })
        .sum();
    total / r.ranks.len().max(1) as f64
}

/// Each rank's time in all its MPI_Allreduce calls, the mean over the ranks (printed
/// beside the typical calls' time).
fn all_calls_ns(r: &Report) -> f64 {
    let v: Vec<f64> = r
        .ranks
        .iter()
        .map(|k| k.calls.get("MPI_Allreduce").map_or(0.0, |c| c.time_ns))
        .collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Not brought to a level: with 2000 calls a size the loop's time measures the saving
/// better than any level this test could take. The calibrated PRTT at MPI_Init of the
/// two jobs were within 0.85–1.05 of each other in the 13 pairs I recomputed, and scaling
/// by them moved no pair into the band and one out (2.0× to 2.16×); the loop's own MPI_Barrier calls (tried) carry
/// the Allreduce's exit skew (basic_linear's root leaves first) and put two pairs of a
/// CI run at −0.2× where their unscaled savings were 0.27× and 1.77×. A pair run at
/// another level of the machine than its first job counts as the miss it is.
///
/// Pairs until `min_hits` of them land within 0.5–2× of the prediction, at most
/// `max_pairs`; at most `max_misses` advised pairs outside that band, and at most one
/// advised rerun slower. A pair without advice (declined before any rerun: the model did
/// not hold for the algorithm in use in that job, or the saving's interval reached zero)
/// scores neither way, but costs a pair: advice must come, and hold, in `min_hits` of
/// `max_pairs` jobs. Why not a fixed number of pairs: on this VM the cost of a call
/// changes level over seconds, and a job whose calibration at MPI_Init and whose loop ran
/// at different levels is declined (CI at a3dd106 and 8a3a6c5: 3 and 5 of 6 Open MPI
/// pairs, the model pricing basic_linear at 1.46–2.25× or 0.55× its measured cost); the
/// advice given held in every one of those runs (4 of 4 within 0.81–1.23×). The
/// numbers of hits are floors a noisy phase still clears (see the module's comment).
fn advice_holds(
    mpi: Mpi,
    forced: &[(&str, &str)],
    (max_pairs, min_hits, max_misses): (usize, usize, usize),
) {
    let (mut hits, mut misses, mut slower, mut seen) = (0, 0, 0, vec![]);
    for k in 0..max_pairs {
        if hits >= min_hits {
            break;
        }
        let name = format!("coll_advice_{}_{k}", mpi.name());
        let before = job(mpi, forced, &name);
        let all = algorithm_advice(&before);
        let a = all
            .iter()
            .find(|a| a.function == "MPI_Allreduce")
            .unwrap_or_else(|| panic!("{name}: no MPI_Allreduce among {all:#?}"));
        if !a.advised {
            seen.push(format!("pair {k}: no advice: {:?}", a.notes));
            continue;
        }
        let env: Vec<(String, String)> = a
            .settings
            .iter()
            .map(|(key, v)| match mpi {
                Mpi::OpenMpi => (format!("OMPI_MCA_{key}"), v.clone()),
                _ => (key.clone(), v.clone()),
            })
            .collect();
        let env_ref: Vec<(&str, &str)> =
            env.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let after = job(mpi, &env_ref, &format!("{name}_after"));
        // The rerun runs what was advised.
        let used: Vec<String> = after
            .collective_model
            .iter()
            .filter(|x| x.function == "MPI_Allreduce")
            .map(|x| format!("{:?} {:?}", x.algorithm, x.algorithm_source))
            .collect();
        let want = format!("{:?} {:?}", a.algorithm, Some("forced"));
        assert!(
            used.iter().all(|u| *u == want),
            "{name}: advised {want}, ran {used:?}"
        );
        let predicted = a.predicted_saving_ns.unwrap();
        let measured = allreduce_ns(&before) - allreduce_ns(&after);
        let ratio = measured / predicted;
        let hit = (0.5..=2.0).contains(&ratio);
        hits += usize::from(hit);
        misses += usize::from(!hit);
        slower += usize::from(measured <= 0.0);
        seen.push(format!(
            "pair {k}: force {:?}: predicted {:.1} µs {:?}, measured {:.1} µs ({:.1} → {:.1} µs; all calls {:.1} → {:.1} µs): {ratio:.2} ×, {}",
            a.algorithm,
            predicted / 1e3,
            a.predicted_saving_ns_ci.map(|[x, y]| [x / 1e3, y / 1e3]),
            measured / 1e3,
            allreduce_ns(&before) / 1e3,
            allreduce_ns(&after) / 1e3,
            all_calls_ns(&before) / 1e3,
            all_calls_ns(&after) / 1e3,
            if hit { "hit" } else { "miss" }
        ));
    }
    println!("{}: {seen:#?}", mpi.name());
    assert!(
        misses <= max_misses,
        "{}: {misses} advised pairs outside 0.5–2×: {seen:#?}",
        mpi.name()
    );
    assert!(
        slower <= 1,
        "{}: advice that slowed the job: {seen:#?}",
        mpi.name()
    );
    assert!(
        hits >= min_hits,
        "{}: {hits} hits in {} pairs: {seen:#?}",
        mpi.name(),
        seen.len()
    );
}

#[test]
fn open_mpi_algorithm_advice_holds_on_rerun() {
    advice_holds(
        Mpi::OpenMpi,
        &[
            ("OMPI_MCA_coll_tuned_use_dynamic_rules", "1"),
            ("OMPI_MCA_coll_tuned_allreduce_algorithm", "1"),
        ],
        (16, 3, 2),
    );
}

#[test]
fn mpich_algorithm_advice_holds_on_rerun() {
    advice_holds(
        Mpi::Mpich,
        &[(
            "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM",
            "reduce_scatter_allgather",
        )],
        (12, 2, 3),
    );
}
