//! Issue 26 §4: advice on collective algorithms, checked by rerunning. A 2-rank job
//! (tests/c/coll_model.c: MPI_Allreduce of 8 B and 2 KiB, 300 calls each, a barrier
//! before each) under a forced algorithm the model finds worse than another: Open MPI's
//! basic_linear (`coll_tuned_allreduce_algorithm=1`), MPICH's reduce_scatter_allgather.
//! `loggp advise` names the algorithm to force, with its settings and the saving in each
//! member's time; the job is rerun with those settings, and the saving measured — the
//! mean over the ranks of the time in MPI_Allreduce, before less after — must lie within
//! 0.5–2× the prediction. Every pair is counted and printed; at most one advised rerun
//! may be slower (the VM's level moves between jobs). A pair may go without advice,
//! said before any rerun: the model did not hold for the algorithm in use, or the
//! saving's interval reached zero.
//! - Open MPI: 6 pairs, 4 must hit, at most 2 without advice.
//! - MPICH: 10 pairs, 2 must hit, at most 8 without advice. Its 2 KiB
//!   reduce_scatter_allgather cost 1.3–2.3× the prediction in 5 of 10 pairs of one run
//!   (3 of 6 in a CI run), and the advice then declines; its recursive doubling
//!   measured 1.3–1.4× its prediction at 8 B, so that its savings fall short (0.37–0.84×
//!   in one run, 0.69–0.76× in another).
//!
//! 2 ranks, not 4: this machine has 2 cores, and the model assumes a core per rank.
mod common;
use common::*;
use loggp_model::advise::algorithm_advice;
use loggp_report::Report;

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
    let o = run(mpi, &r, &prog, &["allreduce", "8,2048"], &dir);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    read_report(&report)
}

/// Each rank's time in MPI_Allreduce, the mean over the ranks.
fn allreduce_ns(r: &Report) -> f64 {
    let v: Vec<f64> = r
        .ranks
        .iter()
        .map(|k| k.calls.get("MPI_Allreduce").map_or(0.0, |c| c.time_ns))
        .collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// `pairs` pairs; `min_hits` of them within 0.5–2× of the prediction; at most
/// `max_unadvised` without advice. Every advised pair must lower the
/// collective's time.
fn advice_holds(
    mpi: Mpi,
    forced: &[(&str, &str)],
    (pairs, min_hits, max_unadvised): (usize, usize, usize),
) {
    let (mut hits, mut unadvised, mut slower, mut seen) = (0, 0, 0, vec![]);
    for k in 0..pairs {
        let name = format!("coll_advice_{}_{k}", mpi.name());
        let before = job(mpi, forced, &name);
        let all = algorithm_advice(&before);
        let a = all
            .iter()
            .find(|a| a.function == "MPI_Allreduce")
            .unwrap_or_else(|| panic!("{name}: no MPI_Allreduce among {all:#?}"));
        if !a.advised {
            unadvised += 1;
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
        slower += usize::from(measured <= 0.0);
        seen.push(format!(
            "pair {k}: force {:?}: predicted {:.1} µs {:?}, measured {:.1} µs ({:.1} → {:.1} µs): {ratio:.2} ×, {}",
            a.algorithm,
            predicted / 1e3,
            a.predicted_saving_ns_ci.map(|[x, y]| [x / 1e3, y / 1e3]),
            measured / 1e3,
            allreduce_ns(&before) / 1e3,
            allreduce_ns(&after) / 1e3,
            if hit { "hit" } else { "miss" }
        ));
    }
    println!("{}: {seen:#?}", mpi.name());
    assert!(unadvised <= max_unadvised, "{}: {seen:#?}", mpi.name());
    assert!(
        slower <= 1,
        "{}: advice that slowed the job: {seen:#?}",
        mpi.name()
    );
    assert!(
        hits >= min_hits,
        "{}: {hits} of {pairs} within 0.5–2×: {seen:#?}",
        mpi.name()
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
        (6, 4, 2),
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
        (10, 2, 8),
    );
}
