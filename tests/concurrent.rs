//! Issue 26: the calibration's concurrent exchange (every rank of a host exchanging at
//! once, each repetition from the next block of a 4 MiB buffer: `calib::concurrent`),
//! against the same exchange timed by the program itself in the same job
//! (`tests/c/cold_exchange.c`), and the collective model pricing a round where more than
//! two ranks of a host copy at once by it. The exchange runs by itself only where a host
//! holds three ranks or more, each on a core of its own, which this 2-core machine has
//! not: `LOGGP_INJECT_FAULT=cores_per_rank` takes every rank to have one (and a host of
//! two ranks to take part), so that it can be compared on 2 ranks, a core each.
mod common;
use common::*;
use loggp_report::Report;
use std::collections::BTreeMap;

const FORCE: (&str, &str) = ("LOGGP_INJECT_FAULT", "cores_per_rank");

/// The program's medians ("COLD <rank> <bytes> <ns>"), by (rank, bytes).
fn program_cold(out: &str) -> BTreeMap<(u32, u64), f64> {
    out.lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w[..] {
                ["COLD", k, m, ns] => Some(((k.parse().ok()?, m.parse().ok()?), ns.parse().ok()?)),
                _ => None,
            }
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Every entry as the shim writes it: the host's ranks, the buffer, the sizes up to the
/// quick calibration's 512 KiB, eight repetitions each, the median of them.
fn well_formed(name: &str, r: &Report, ranks: u32) {
    let c = &r.calibration.concurrent_exchanges;
    let mut seen: Vec<u32> = c.iter().map(|e| e.rank).collect();
    seen.sort();
    assert_eq!(
        seen,
        (0..ranks).collect::<Vec<_>>(),
        "{name}: every rank once"
    );
    for e in c {
        assert_eq!(
            (e.host_ranks, e.buffer_bytes),
            (ranks, 4 << 20),
            "{name}: {e:?}"
        );
        let sizes: Vec<u64> = e.points.iter().map(|p| p.size_bytes).collect();
        assert_eq!(sizes, [16384, 65536, 262144], "{name}: rank {}", e.rank);
        for p in &e.points {
            assert_eq!(p.exchange_reps_ns.len(), 8, "{name}: {p:?}");
            assert!(p.exchange_reps_ns.iter().all(|&x| x > 0.0), "{name}: {p:?}");
            let m = loggp_model::stats::median(&p.exchange_reps_ns);
            assert_eq!(Some(p.exchange_ns), m, "{name}: {p:?}");
        }
    }
}

/// On 2 ranks (a core each), three jobs per MPI: the calibration's exchange at each size
/// on each rank over the program's, the median of each job's within 0.5–2 × in at least
/// two of three jobs (this VM's cost of a call moves by up to 3 × over seconds). Seen
/// here (2026-11-29): per (rank, size) 0.54–1.94 (Open MPI vader) and 0.73–2.44 (MPICH),
/// each job's median 0.65–1.12 and 0.90–1.31 over two runs of three jobs; against the
/// pairs' exchange probe, whose buffers stay in cache, the cold exchange took 5–7 × as
/// long at 256 KiB. Without the blocks (every repetition from the buffer's start, tried
/// once), the calibration's took 0.13–0.43 × the program's (medians 0.15–0.29) and this
/// failed.
#[test]
fn the_concurrent_exchange_is_what_the_program_measures() {
    for mpi in [Mpi::OpenMpi, Mpi::Mpich] {
        let mut medians = vec![];
        for k in 0..3 {
            let name = format!("concurrent_{}_{k}", mpi.name());
            let (r, o) = shim_job(mpi, 2, "cold_exchange.c", &[], &[FORCE], &name);
            well_formed(&name, &r, 2);
            let prog = program_cold(&stdout(&o));
            let ratios: Vec<(u32, u64, f64)> = (r.calibration.concurrent_exchanges.iter())
                .flat_map(|e| e.points.iter().map(move |p| (e.rank, p)))
                .map(|(k, p)| {
                    let q = prog
                        .get(&(k, p.size_bytes))
                        .unwrap_or_else(|| panic!("{name}: the program printed no {k} {p:?}"));
                    (k, p.size_bytes, p.exchange_ns / q)
                })
                .collect();
            let m = median(ratios.iter().map(|x| x.2).collect());
            println!("{name}: calibration over program {ratios:.2?}, median {m:.2}");
            medians.push(m);
        }
        let held = medians.iter().filter(|m| (0.5..=2.0).contains(*m)).count();
        assert!(
            held >= 2,
            "{}: the jobs' medians {medians:.2?}, {held} of 3 within 0.5–2 ×",
            mpi.name()
        );
    }
}

/// Four ranks of one host (on 2 cores here, so only where forced): every rank takes
/// part, and the Alltoall's row says that the concurrent exchange prices it; the same
/// report without it prices that row lower, where its 256 KiB ratio is above 1.05 (a
/// round of the Alltoall has four ranks copying at once). Unforced, a host holding more
/// ranks than cores runs none.
#[test]
fn four_ranks_of_a_host_run_it_and_the_model_prices_by_it() {
    let args = ["alltoall", "262144", "20"];
    let (r, _) = shim_job(
        Mpi::OpenMpi,
        4,
        "coll_model.c",
        &args,
        &[FORCE],
        "concurrent_four",
    );
    well_formed("concurrent_four", &r, 4);
    let row = |r: &Report| {
        (r.collective_model.iter())
            .find(|x| x.function == "MPI_Alltoall" && x.message_bytes == 262144)
            .cloned()
            .unwrap_or_else(|| panic!("no 256 KiB Alltoall row: {:?}", r.collective_model))
    };
    let with = row(&r);
    let note = with.note.clone().unwrap_or_default();
    assert!(note.contains("concurrent exchange"), "{note}");
    let mut without = r.clone();
    without.calibration.concurrent_exchanges.clear();
    without.collective_model = loggp_model::coll::rows(&without);
    let plain = row(&without);
    let ex = intra_node_send(&r)
        .points
        .iter()
        .find(|p| p.size_bytes == 262144)
        .and_then(|p| p.exchange_ns);
    let conc: Vec<f64> = (r.calibration.concurrent_exchanges.iter())
        .flat_map(|e| &e.points)
        .filter(|p| p.size_bytes == 262144)
        .map(|p| p.exchange_ns)
        .collect();
    let ratio = ex.map(|e| conc.iter().sum::<f64>() / conc.len() as f64 / e);
    println!(
        "concurrent_four: {} {:?} ns with it, {:?} without; the concurrent exchange over the pair's at 256 KiB {ratio:.2?}",
        with.algorithm.as_deref().unwrap_or("?"),
        with.predicted_ns,
        plain.predicted_ns
    );
    let (Some(a), Some(b)) = (with.predicted_ns, plain.predicted_ns) else {
        panic!("unpriced: {with:?}");
    };
    assert!(a >= b, "{a} against {b}");
    if ratio.is_some_and(|x| x > 1.05) {
        assert!(a > b, "{a} against {b}");
    }
    let (r, _) = shim_job(
        Mpi::OpenMpi,
        4,
        "coll_model.c",
        &args,
        &[],
        "concurrent_four_unforced",
    );
    if cores() < 4 {
        assert!(
            r.calibration.concurrent_exchanges.is_empty(),
            "four ranks on {} cores: {:?}",
            cores(),
            r.calibration.concurrent_exchanges
        );
    } else {
        well_formed("concurrent_four_unforced", &r, 4);
    }
}
