//! The lifecycle of a profiled rank, orchestrated: set-up and calibration at MPI_Init,
//! the merge and report at MPI_Finalize, and the rank files of every other way out
//! (MPI_Abort, exit without MPI_Finalize, terminating signals) and of interim requests.
//! Whichever way out comes first claims the one transition to "finishing"
//! (`runtime::begin_finish`), so each rank reports once. The work itself is the stages':
//! `identity`, `calib`, `reduce`, `output`.
pub mod clocks;
pub mod identity;

use crate::base::mpi::{self, Handle, MPI_Comm};
use crate::base::runtime::{self, fault, protect, say, Guard};
use crate::base::{clock, settings};
use crate::calib::{self, outcome::Outcome};
use crate::output::{coverage, exits, files, report};
use crate::record::{matrix, peers, requests, stats};
use crate::reduce::{cells, merge, sites, waits};
use identity::JobInfo;
use loggp_report::{Mode, PeerClass, Report};
use std::os::raw::c_int;
use std::sync::OnceLock;

/// Who this rank is (set once, at MPI_Init).
static JOB: OnceLock<JobInfo> = OnceLock::new();
/// What this rank's calibration measured (set once, when it returns).
static CALIBRATION: OnceLock<Outcome> = OnceLock::new();

/// MPI_Init and MPI_Init_thread around any way of calling the MPI's own (PMPI_ from C,
/// the Fortran binding's from Fortran): set-up and calibration after it succeeds.
/// `level`: the thread level provided, read after the call.
pub fn on_init(
    func: u8,
    mode: Mode,
    call: impl FnOnce() -> c_int,
    level: impl FnOnce() -> c_int,
) -> c_int {
    let Some(_g) = Guard::enter_always() else {
        return call();
    };
    if settings::get().disable {
        return call();
    }
    if let Some(theirs) = identity::foreign_mpi() {
        fault(&format!(
            "this libloggp.so is built for {}, but the program runs on another MPI ({theirs}); preload the build for that MPI (scripts/build.sh makes target/shim/openmpi/ and target/shim/mpich/); the program's own MPI calls may fail, as the two MPIs' handles differ",
            mpi::FLAVOR
        ));
        return call();
    }
    // The job's wall time starts here, so that MPI_Init's own time, which counts as time
    // in MPI, lies within it.
    // Timed in ns: the counter is chosen and its rate measured only once the MPI is up
    // (`clock::setup` in `after_init`), which converts. Recorded as counter ticks before,
    // MPI_Init's time read 1/2.1 of what it took here (TSC at 2.1 GHz).
    let entered_ns = clock::monotonic_raw_ns();
    calib::mpit::open_before_init();
    let rc = call();
    let returned_ns = clock::monotonic_raw_ns();
    if rc == mpi::success() {
        let init_ns = returned_ns.saturating_sub(entered_ns);
        protect(|| after_init(func, mode, level(), init_ns, entered_ns));
        report::init_work_took(clock::monotonic_raw_ns().saturating_sub(returned_ns));
    } else {
        calib::mpit::close_before_finalize();
    }
    rc
}

fn after_init(func: u8, mode: Mode, level: c_int, init_ns: u64, entered_ns: u64) {
    let s = settings::get();
    clock::setup(0);
    if !stats::setup(s.max_threads, s.cells_per_thread)
        || !requests::setup(s.max_requests)
        || !peers::setup()
    {
        fault("cannot map the statistics tables");
        return;
    }
    let job = match identity::discover(level, entered_ns) {
        Ok(j) => j,
        Err(e) => {
            fault(&e);
            return;
        }
    };
    let job = JOB.get_or_init(|| job);
    requests::set_concurrent(level == crate::base::mpi::thread_multiple());
    // The matrix before the calibration, whose own messages it counts apart.
    // Not mapped: the report's `matrix` section says so.
    let _ = matrix::setup(
        job.facts.ranks as usize,
        s.max_threads,
        settings::inject("hide_send"),
    );
    matrix::setup_own(job.facts.ranks as usize);
    // Not mapped: the report's `call_sites` says so.
    let _ = crate::record::sites::setup(s.max_threads);
    // Not mapped: nothing is sampled, and the report's `waits` says so.
    let _ = crate::record::samples::setup(s.max_threads);
    // Not mapped: each blocking call resolves its records anew.
    let _ = crate::record::memo::setup(s.max_threads);
    exits::install(
        exits::ExitHooks {
            write_partial,
            cleanup: calib::transports::shm::cleanup,
        },
        write_interim,
        s.interval_s,
        job.local_pids.clone(),
    );
    if let Some(world) = peers::world() {
        let comm = mpi::Handle::from_bits(job.priv_comm_bits);
        let outcome = calib::run::run_at_init(comm, world);
        let _ = CALIBRATION.set(outcome);
        // Not where the calibration is off: it costs what the user turned off. Before
        // the clocks' ping-pongs with rank 0, which every rank waits in until rank 0 is
        // done: after them, rank 0 alone left MPI_Init about 10 ms later than the others,
        // and the demo's first finding was that wait, made by loggp ("rank 1 waits for
        // rank 0's sends (late sender): 9.28–9.68 ms", Open MPI and MPICH, 2026-11-29).
        if world.rank == 0 && s.calibrate != crate::base::settings::Calibrate::Off {
            calib::local::time_at_init();
        }
        clocks::at_init(comm, world.rank, world.size);
    }
    crate::output::counters::start();
    runtime::set_running();
    // In ticks of the counter now in use (its rate needs 2 ms since `clock::setup`: the
    // calibration took longer; without one, this may wait what is left of them).
    let init_ticks = (init_ns as f64 / clock::ns_per_tick(clock::hz())).round() as u64;
    stats::record(func, mode, PeerClass::Unknown, 0, 0, init_ticks);
}

/// This rank's fragment of the report: its `ranks[]` entry, its cells, and what its
/// calibration pairs measured (see `reduce::merge`).
fn local_fragment(j: &JobInfo, ns_per_tick: f64, measured: waits::Measured) -> Report {
    if let Some(reason) = runtime::faulted() {
        return fault_fragment(j, &reason);
    }
    if settings::inject("finalize") {
        panic!("injected fault (LOGGP_INJECT_FAULT=finalize)");
    }
    let cells = cells::local_cells(ns_per_tick);
    let mut entry = cells::rank_entry(j.rank as u32, &j.host, &cells, ns_per_tick);
    entry.app_wall_time_ns = Some(report::app_wall_ns(j.facts.start_mono_ns));
    // The Wait and Test calls that completed one nonblocking collective, and the Test
    // calls that polled it before (which completed nothing, so their cells name no mode).
    let polls = crate::record::hooks::completion::COLLECTIVE_POLL_TICKS
        .load(std::sync::atomic::Ordering::Relaxed);
    let completions_ns = waits::collective_completions_ns(&cells) + polls as f64 * ns_per_tick;
    // The Wait and Test calls that completed only I/O or one-sided requests: other calls.
    let other_ns = crate::record::hooks::completion::OTHER_COMPLETION_TICKS
        .load(std::sync::atomic::Ordering::Relaxed) as f64
        * ns_per_tick;
    let (split, waits, passive_latency) = waits::finish(
        measured,
        &entry,
        (completions_ns, other_ns, &cells),
        ns_per_tick,
    );
    let mut fragment = Report {
        time_split: vec![split],
        passive_latency,
        waits,
        ranks: vec![entry],
        cells,
        matrix: cells::matrix_fragment(j.rank as u32, ns_per_tick),
        ..Default::default()
    };
    fragment.coverage.own_traffic = cells::own_traffic(j.rank as u32);
    fragment.call_sites = sites::fragment(ns_per_tick);
    if let Some(o) = CALIBRATION.get() {
        let (calibration, thresholds) = calib::report::fragment(o, j.rank as u32, ns_per_tick);
        fragment.calibration = calibration;
        fragment.thresholds = thresholds;
        // Where a calibration schedule ended early, and why (issue 13 §8).
        fragment.warnings = o.warnings.clone();
    }
    fragment
}

fn fault_fragment(j: &JobInfo, reason: &str) -> Report {
    Report {
        warnings: vec![format!(
            "rank {}: profiling stopped early: {reason}",
            j.rank
        )],
        ..Default::default()
    }
}

/// MPI_Finalize around any way of calling the MPI's own: the ranks merge their fragments
/// over the private communicator; rank 0 adds the estimates and writes the report.
pub fn on_finalize(_func: u8, _mode: Mode, call: impl FnOnce() -> c_int) -> c_int {
    let Some(_g) = Guard::enter_always() else {
        return call();
    };
    if runtime::begin_finish() {
        if let Some(j) = JOB.get() {
            finalize_report(j);
            files::remove_interim(&files::rank_file_path(&j.report_path, j.rank));
        }
        runtime::set_done();
    }
    calib::mpit::close_before_finalize();
    let rc = call();
    // Open MPI's monitoring files are written in its own Finalize: compared now.
    if let (Some(j), Ok(prefix)) = (JOB.get(), coverage::plan()) {
        if j.rank == 0 && rc == mpi::success() && runtime::faulted().is_none() {
            protect(|| coverage::after_mpi_finalize(&j.report_path, &prefix));
        }
    }
    rc
}

fn finalize_report(j: &JobInfo) {
    let t0_ns = clock::monotonic_raw_ns();
    report::finish_work_from(t0_ns);
    let ns_per_tick = cells::ns_per_tick();
    let comm: MPI_Comm = Handle::from_bits(j.priv_comm_bits);
    // Before the fragment: its own-traffic count includes the sync's messages.
    let node_of = peers::world()
        .map(|w| w.node_of.clone())
        .unwrap_or_default();
    let size = j.facts.ranks as i32;
    let clocks = clocks::at_finalize(comm, j.rank, size, &node_of);
    // The waits' samples, matched between ranks (collective on the private communicator).
    let conv = clocks::conversions(comm, j.rank, size, &node_of);
    let measured = waits::exchange(
        comm,
        j.rank,
        size,
        conv,
        clocks::injected_skew_ticks(j.rank),
    );
    let fragment = runtime::guarded("collecting statistics", || {
        local_fragment(j, ns_per_tick, measured)
    })
    .unwrap_or_else(|| fault_fragment(j, "internal error while collecting statistics"));
    if let Some(mut job) = merge::over_tree(comm, j.rank, j.facts.ranks as i32, fragment) {
        job.clocks = clocks.unwrap_or_default();
        runtime::guarded("writing the report", || {
            let ending = report::Ending {
                complete: true,
                end: "MPI_Finalize",
                partial_rank: None,
                interim: false,
            };
            let mut r = report::assemble(&j.facts, job, ending, ns_per_tick);
            // Open MPI's registry where it can be read (`calib::mcavar`: no MPI_T
            // session); else one MPI_T session around both readers: MPI_T counts its
            // sessions, and only the first one costs (207 ms in Open MPI 4.1 here); both
            // nest in the one held since MPI_Init (`mpit::open_before_init`) where it
            // opened.
            r.collective_config = calib::mpit::held(|| {
                calib::report::annotate_settings(&mut r.thresholds);
                calib::mpit::collective_config()
            });
            r.collective_config.user_op_ns = loggp_report::user_op_ns_of(&r.ranks);
            // The estimates: ranges, intervals, MPI − raw, brackets, model check (the same
            // code `loggp refit` runs offline).
            loggp_model::estimate(&mut r, &calib::switches::model_settings());
            report::estimates_status(&mut r, true);
            let verbose = settings::get().verbose >= 1;
            if files::write_report(&j.report_path, &r, j.rank, verbose) && verbose {
                // What a many-rank job pays at Finalize (issue 13 §4): rank 0's merge of
                // every subtree, the fits and the write.
                let bytes = std::fs::metadata(&j.report_path)
                    .map(|m| m.len())
                    .unwrap_or(0);
                say(&format!(
                    "loggp: {} ranks merged and the report written in {:.0} ms ({} bytes)",
                    r.ranks.len(),
                    clock::monotonic_raw_ns().saturating_sub(t0_ns) as f64 / 1e6,
                    bytes
                ));
            }
        });
    }
    // All ranks enter the MPI's Finalize together, as they would without us: rank 0 comes
    // late from the write, and under UCX 1.13's tcp transport an endpoint flushed while its
    // peer already left for the PMI barrier is never progressed (openucx/ucx#8738; every
    // MPICH job with UCX_TLS=tcp hung here without this barrier).
    let mut c = comm;
    // SAFETY: our own communicator.
    unsafe {
        mpi::PMPI_Barrier(comm);
        mpi::PMPI_Comm_free(&mut c)
    };
}

/// This rank's own statistics, without MPI, marked incomplete: the last thing a rank
/// that ends without MPI_Finalize does (Abort, exit, terminating signal through the
/// writer thread).
fn write_partial(end: &str) {
    if !settings::get().partial || !runtime::begin_finish() {
        return;
    }
    protect(|| write_rank_file(end, false));
    runtime::set_done();
}

/// An interim rank file (SIGUSR1, LOGGP_INTERVAL), from the writer thread: the
/// statistics so far, the calls in progress, and the rank goes on.
fn write_interim(why: &str) {
    if runtime::phase() != runtime::Phase::Running || runtime::faulted().is_some() {
        return;
    }
    runtime::guarded("writing an interim report", || {
        write_rank_file(&format!("interim: {why}"), true)
    });
}

fn write_rank_file(end: &str, interim: bool) {
    let Some(j) = JOB.get() else { return };
    let t0 = std::time::Instant::now();
    let ns_per_tick = cells::ns_per_tick();
    let ((mut fragment, progress), read_at) = crate::output::counters::stamped(|| {
        (
            local_fragment(j, ns_per_tick, Default::default()),
            cells::in_progress(ns_per_tick),
        )
    });
    // The samples are matched between ranks at MPI_Finalize only.
    fragment.time_split.clear();
    fragment.passive_latency.clear();
    fragment.waits = loggp_report::Waits {
        status: "at MPI_Finalize only: both ends of a message are matched there".into(),
        ..Default::default()
    };
    for r in &mut fragment.ranks {
        r.in_progress = progress.clone();
    }
    let ending = report::Ending {
        complete: false,
        end,
        partial_rank: Some(j.rank as u32),
        interim,
    };
    let mut r = report::assemble(&j.facts, fragment, ending, ns_per_tick);
    r.job.hosts = vec![j.host.clone()];
    report::estimates_status(&mut r, false);
    if interim {
        crate::output::counters::add(&r, read_at);
    }
    let verbose = settings::get().verbose >= 2;
    files::write_rank_file(
        &files::rank_file_path(&j.report_path, j.rank),
        &r,
        j.rank,
        verbose,
        interim,
        || runtime::phase() == runtime::Phase::Running,
    );
    if verbose {
        say(&format!(
            "loggp: rank {}: rank file took {:.1} ms",
            j.rank,
            t0.elapsed().as_secs_f64() * 1e3
        ));
    }
}

/// MPI_Pcontrol: pauses profiling at level 0, resumes it at any other (see
/// `runtime::pcontrol`), then calls the MPI's own (which does nothing).
pub fn on_pcontrol(_func: u8, _mode: Mode, level: c_int, call: impl FnOnce() -> c_int) -> c_int {
    if let Some(_g) = Guard::enter_always() {
        protect(|| runtime::pcontrol(level == 0));
    }
    call()
}

/// MPI_T_init_thread: the MPI's own, with `provided` as it would be without us
/// (`mpit::nested_in_ours`).
///
/// # Safety
/// `provided` is null or points to a writable `c_int` (MPI_T_init_thread's argument).
pub unsafe fn on_mpit_init(
    _func: u8,
    _mode: Mode,
    required: c_int,
    provided: *mut c_int,
    call: impl FnOnce() -> c_int,
) -> c_int {
    // SAFETY: the caller's contract is the callee's.
    unsafe { calib::mpit::nested_in_ours(required, provided, call) }
}

/// MPI_Abort around any way of calling the MPI's own: the calling rank leaves its
/// statistics before the job is torn down.
pub fn on_abort(_func: u8, _mode: Mode, call: impl FnOnce() -> c_int) -> c_int {
    if let Some(_g) = Guard::enter_always() {
        write_partial("MPI_Abort");
    }
    call()
}
