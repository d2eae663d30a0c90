//! Output: a report from a fragment (one rank's, or the job's merged): the job section,
//! the calibration sets of the first pair per (peer class, mode), the passive bins from
//! the cells, the warnings and the sections' status. The estimates are added after, by
//! the model (`loggp_model::estimate`), the same code `loggp refit` runs.
use crate::base::{clock, mpi, settings};
use loggp_report::{Clock, Job, Report, Tool, SCHEMA};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// loggp's own work inside the job's wall time (`Job::loggp_time_ns`): after MPI_Init
/// returned (ns), and the start of MPI_Finalize's reduction (CLOCK_MONOTONIC_RAW, 0: not
/// begun).
static INIT_WORK_NS: AtomicU64 = AtomicU64::new(0);
static FINISH_FROM_NS: AtomicU64 = AtomicU64::new(0);

/// loggp's set-up and calibration after the MPI's Init took `ns`.
pub fn init_work_took(ns: u64) {
    INIT_WORK_NS.store(ns, Relaxed);
}

/// MPI_Finalize's reduction began at `mono_ns`.
pub fn finish_work_from(mono_ns: u64) {
    FINISH_FROM_NS.store(mono_ns, Relaxed);
}

/// loggp's own time so far, at `now_ns`.
fn loggp_time_ns(now_ns: u64) -> f64 {
    let from = FINISH_FROM_NS.load(Relaxed);
    let finishing = if from == 0 {
        0
    } else {
        now_ns.saturating_sub(from)
    };
    (INIT_WORK_NS.load(Relaxed) + finishing) as f64
}

/// This rank's wall time from its MPI_Init's entry at `start_mono_ns` to now, less
/// loggp's own work in it (`RankEntry::app_wall_time_ns`).
pub fn app_wall_ns(start_mono_ns: u64) -> f64 {
    let now_ns = clock::monotonic_raw_ns();
    (now_ns.saturating_sub(start_mono_ns) as f64 - loggp_time_ns(now_ns)).max(0.0)
}

/// What the report says about the job, learned at MPI_Init (`lifecycle::identity`).
#[derive(Clone, Debug, Default)]
pub struct JobFacts {
    pub executable: String,
    pub job_id: String,
    pub ranks: u32,
    pub hosts: Vec<String>,
    pub mpi_library: String,
    pub thread_level: String,
    pub started_at: String,
    pub start_mono_ns: u64,
    /// Whether MPI_Comm_spawn started this world.
    pub spawned: bool,
    /// The report of the job that spawned this world, where its name is known (this
    /// world's own is named beside it).
    pub spawned_from_report: Option<String>,
}

/// How the report ends: complete (MPI_Finalize) or not, why, and whose rank file.
pub struct Ending<'a> {
    pub complete: bool,
    pub end: &'a str,
    pub partial_rank: Option<u32>,
    pub interim: bool,
}

/// The report of `fragment`, without the model's estimates.
pub fn assemble(
    facts: &JobFacts,
    mut fragment: Report,
    ending: Ending,
    ns_per_tick: f64,
) -> Report {
    let s = settings::get();
    let mut warnings = std::mem::take(&mut fragment.warnings);
    let untracked: u64 = fragment.ranks.iter().map(|r| r.requests_untracked).sum();
    if untracked > 0 {
        warnings.push(format!(
            "{untracked} requests were not tracked (table full, or a Wait/Test array longer than the scratch space); raise LOGGP_MAX_REQUESTS"
        ));
    }
    let paused: Vec<&loggp_report::Paused> = fragment
        .ranks
        .iter()
        .filter_map(|r| r.paused.as_ref())
        .collect();
    if !paused.is_empty() {
        warnings.push(format!(
            "MPI_Pcontrol(0) paused profiling on {} of {} ranks ({} pauses, up to {:.1} ms a rank): the calls made while paused are not in this report",
            paused.len(),
            fragment.ranks.len(),
            paused.iter().map(|p| p.times).sum::<u64>(),
            paused.iter().map(|p| p.for_ns).fold(0.0, f64::max) / 1e6
        ));
    }
    let dropped: u64 = fragment
        .ranks
        .iter()
        .map(|r| r.records_without_histogram)
        .sum();
    if dropped > 0 {
        warnings.push(format!(
            "{dropped} calls are counted without a duration histogram (statistics table full or more threads than LOGGP_MAX_THREADS)"
        ));
    }
    let mut calibration = std::mem::take(&mut fragment.calibration);
    let thresholds = first_pair_only(&mut calibration, std::mem::take(&mut fragment.thresholds));
    if calibration.status.is_empty() {
        calibration.status = "skipped: MPI_Init was not seen".into();
    }
    let mut sections = BTreeMap::new();
    sections.insert(
        "calibration.raw".into(),
        if calibration.raw.is_empty() {
            "none: no raw transport was planned (LOGGP_RAW=off, calibration off, or no pair)".into()
        } else {
            "done".into()
        },
    );
    sections.insert("calibration".into(), calibration.status.clone());
    for done in [
        "passive.bins",
        "passive.ranges",
        "model_check",
        "thresholds.passive",
        "ranks",
    ] {
        sections.insert(done.into(), "done".into());
    }
    sections.insert(
        "matrix".into(),
        if crate::record::matrix::mapped() {
            "done".into()
        } else {
            "none: the matrix was not mapped (MPI_Init not seen, or no memory)".into()
        },
    );
    // Said rather than guessed: what an algorithm sends inside a collective is not seen.
    sections.insert(
        "matrix.collectives".into(),
        "not in the matrix: the messages a collective makes run beneath PMPI; its calls are in `cells` and `ranks[].calls`".into(),
    );
    let mut coverage = std::mem::take(&mut fragment.coverage);
    coverage.status = match super::coverage::plan() {
        Ok(prefix) => format!("to be compared after MPI_Finalize with Open MPI's monitoring files {prefix}.<rank>.prof"),
        Err(why) => why,
    };
    let passive = loggp_model::cells::passive(&fragment.cells);
    let counted = clock::source() != clock::Source::ClockGettime;
    let now_ns = clock::monotonic_raw_ns();
    Report {
        schema: SCHEMA.into(),
        tool: Tool {
            name: "loggp".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        job: Job {
            complete: ending.complete,
            end: ending.end.into(),
            executable: facts.executable.clone(),
            job_id: facts.job_id.clone(),
            ranks: facts.ranks,
            hosts: facts.hosts.clone(),
            mpi_library: facts.mpi_library.clone(),
            mpi_flavor: mpi::FLAVOR.into(),
            thread_level: facts.thread_level.clone(),
            started_at: facts.started_at.clone(),
            wall_time_ns: now_ns.saturating_sub(facts.start_mono_ns) as f64,
            loggp_time_ns: Some(loggp_time_ns(now_ns)),
            clock: Clock {
                source: clock::source().name().into(),
                tsc_hz: counted.then(|| 1e9 / ns_per_tick),
                invariant: clock::invariant(),
                read_floor_ns: counted.then(clock::read_floor_ns),
            },
            settings: settings::describe(s)
                .into_iter()
                .map(|d| (d.name.to_string(), d.value))
                .collect(),
            partial_rank: ending.partial_rank,
            interim: ending.interim,
            spawned: facts.spawned,
            spawned_from_report: facts.spawned_from_report.clone(),
        },
        passive,
        ranks: fragment.ranks,
        cells: fragment.cells,
        matrix: fragment.matrix,
        coverage,
        call_sites: fragment.call_sites,
        clocks: fragment.clocks,
        time_split: sorted_by_rank(fragment.time_split),
        passive_latency: {
            let mut l = fragment.passive_latency;
            l.sort_by_key(|x| x.rank);
            l
        },
        waits: {
            let mut w = fragment.waits;
            w.collectives.sort_by_key(|x| x.rank);
            w.largest.sort_by_key(|x| x.rank);
            w
        },
        calibration,
        thresholds,
        sections,
        warnings,
        ..Default::default()
    }
}

fn sorted_by_rank(mut v: Vec<loggp_report::TimeSplit>) -> Vec<loggp_report::TimeSplit> {
    v.sort_by_key(|t| t.rank);
    v
}

/// Per (peer class, mode) the set and threshold of the first pair that measured it (all
/// pairs are listed in `calibration.pairs`); per (transport, class) the first raw set.
/// The fragment's sets and thresholds are parallel (one threshold per set).
fn first_pair_only(
    calibration: &mut loggp_report::Calibration,
    thresholds: Vec<loggp_report::Threshold>,
) -> Vec<loggp_report::Threshold> {
    let mut sets: Vec<_> = std::mem::take(&mut calibration.mpi)
        .into_iter()
        .zip(thresholds)
        .collect();
    sets.sort_by_key(|(s, _)| s.pair[0]);
    let mut seen = BTreeSet::new();
    sets.retain(|(s, _)| seen.insert((s.peer_class, s.mode)));
    let (mpi, thresholds) = sets.into_iter().unzip();
    calibration.mpi = mpi;
    let mut seen = BTreeSet::new();
    calibration
        .raw
        .retain(|r| seen.insert((r.transport.clone(), r.peer_class)));
    thresholds
}

/// The sections a report says about its estimates, after the model ran (or did not, on
/// an abnormal exit, where the write must be quick: a launcher may kill the rank).
pub fn estimates_status(report: &mut Report, estimated: bool) {
    if !estimated {
        report.sections.insert(
            "estimates".into(),
            "not computed on an abnormal exit: `loggp refit` computes them from this file".into(),
        );
    }
    let overhead = if report.mpi_overhead.is_empty() {
        "none: no raw transport calibrated beside MPI"
    } else {
        "done"
    };
    report
        .sections
        .insert("mpi_overhead".into(), overhead.to_string());
}
