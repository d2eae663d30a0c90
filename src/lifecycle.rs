//! The lifecycle of a profiled rank: set-up at MPI_Init, the merge and report at
//! MPI_Finalize, and the partial reports of every other way out (MPI_Abort, exit without
//! MPI_Finalize, SIGTERM/SIGINT/SIGHUP). Whichever comes first claims the one transition
//! to "finishing" (`runtime::begin_finish`), so each rank reports once.
#![allow(non_snake_case)]
use crate::collect::{self, Blob, Cell, CellKey};
use crate::intercept::Func;
use crate::mpi::{self, MPI_Comm};
use crate::runtime::{self, fault, protect, say, Guard};
use crate::{clock, peers, settings, stats};
use loggp_report::{Calibration, Clock, Job, Report, Tool, SCHEMA};
use std::collections::BTreeMap;
use std::os::raw::{c_char, c_int};
use std::sync::Mutex;

/// What MPI_Init learned, for the report.
#[derive(Clone, Default)]
struct JobInfo {
    priv_comm_bits: u64,
    have_priv: bool,
    rank: i32,
    size: i32,
    host: String,
    hosts: Vec<String>,
    job_id: String,
    executable: String,
    mpi_library: String,
    thread_level: String,
    started_at: String,
    start_mono_ns: u64,
    report_path: String,
    /// Process ids of the other ranks on this host (SIGUSR1 is passed on to them).
    local_pids: Vec<i32>,
}

static JOB: Mutex<Option<JobInfo>> = Mutex::new(None);

fn job() -> Option<JobInfo> {
    JOB.lock().ok().and_then(|j| j.clone())
}

const MERGE_TAG: c_int = 0x10_66;
const HOST_LEN: usize = 256;
const JOB_ID_LEN: usize = 64;

/// MPI_Init and MPI_Init_thread around any way of calling the MPI's own (PMPI_ from C,
/// the Fortran binding's from Fortran): set-up and calibration after it succeeds.
pub(crate) fn init_with(
    func: Func,
    call: impl FnOnce() -> c_int,
    level: impl FnOnce() -> c_int,
) -> c_int {
    let Some(_g) = Guard::enter_always() else {
        return call();
    };
    if settings::get().disable {
        return call();
    }
    let t0 = clock::now();
    let rc = call();
    let t1 = clock::now();
    if rc == mpi::success() {
        after_init(func, level(), t1.wrapping_sub(t0));
    }
    rc
}

/// MPI 4.0 §11.2.1.
#[no_mangle]
pub unsafe extern "C" fn MPI_Init(argc: *mut c_int, argv: *mut *mut *mut c_char) -> c_int {
    init_with(
        Func::MPI_Init,
        || mpi::PMPI_Init(argc, argv),
        mpi::thread_single,
    )
}

/// MPI 4.0 §11.2.1.
#[no_mangle]
pub unsafe extern "C" fn MPI_Init_thread(
    argc: *mut c_int,
    argv: *mut *mut *mut c_char,
    required: c_int,
    provided: *mut c_int,
) -> c_int {
    init_with(
        Func::MPI_Init_thread,
        || mpi::PMPI_Init_thread(argc, argv, required, provided),
        || {
            if provided.is_null() {
                required
            } else {
                *provided
            }
        },
    )
}

fn after_init(func: Func, level: c_int, init_ticks: u64) {
    protect(|| {
        if let Err(e) = setup(level) {
            fault(&e);
            return;
        }
        if let (Some(j), Some(w)) = (job(), peers::world()) {
            crate::calib::run::run_at_init(mpi::Handle::from_bits(j.priv_comm_bits), w);
        }
        runtime::set_running();
        stats::record(
            func as u8,
            stats::Mode::None,
            stats::Class::Unknown,
            0,
            0,
            init_ticks,
        );
    });
}

fn cstr(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

fn copy_into(dst: &mut [u8], s: &str) {
    let n = s.len().min(dst.len() - 1);
    dst[..n].copy_from_slice(&s.as_bytes()[..n]);
}

/// Collective set-up on a private duplicate of MPI_COMM_WORLD: who runs where, the job id,
/// the report's path. Every rank calls it from MPI_Init.
fn setup(level: c_int) -> Result<(), String> {
    let s = settings::get();
    clock::setup(0);
    if !stats::setup(s.max_threads, s.cells_per_thread)
        || !crate::requests::setup(s.max_requests)
        || !peers::setup()
    {
        return Err("cannot map the statistics tables".into());
    }
    // SAFETY: MPI is initialised; all buffers are sized as passed.
    unsafe {
        let mut priv_comm: MPI_Comm = Default::default();
        if mpi::PMPI_Comm_dup(mpi::comm_world(), &mut priv_comm) != mpi::success() {
            return Err("MPI_Comm_dup of MPI_COMM_WORLD failed".into());
        }
        mpi::PMPI_Comm_set_errhandler(priv_comm, mpi::errors_return());
        let (mut rank, mut size) = (0, 0);
        mpi::PMPI_Comm_rank(priv_comm, &mut rank);
        mpi::PMPI_Comm_size(priv_comm, &mut size);

        // One fixed-size record per rank: node leader, host name, job id.
        let mut node: MPI_Comm = Default::default();
        mpi::PMPI_Comm_split_type(
            priv_comm,
            mpi::comm_type_shared(),
            rank,
            mpi::info_null(),
            &mut node,
        );
        let mut leader = rank;
        mpi::PMPI_Bcast(
            &mut leader as *mut c_int as *mut _,
            1,
            mpi::dt_int(),
            0,
            node,
        );
        mpi::PMPI_Comm_free(&mut node);

        let mut name = vec![0u8; (mpi::max_processor_name() as usize + 1).max(HOST_LEN)];
        let mut len: c_int = 0;
        mpi::PMPI_Get_processor_name(name.as_mut_ptr() as *mut c_char, &mut len);
        let host = cstr(&name);
        let rec_len = 4 + HOST_LEN + JOB_ID_LEN + 4;
        let mut mine = vec![0u8; rec_len];
        mine[..4].copy_from_slice(&leader.to_le_bytes());
        mine[rec_len - 4..].copy_from_slice(&(std::process::id() as i32).to_le_bytes());
        copy_into(&mut mine[4..4 + HOST_LEN], &host);
        copy_into(
            &mut mine[4 + HOST_LEN..4 + HOST_LEN + JOB_ID_LEN],
            &job_id_from_env(),
        );
        let mut all = vec![0u8; rec_len * size as usize];
        mpi::PMPI_Allgather(
            mine.as_ptr() as *const _,
            rec_len as c_int,
            mpi::dt_byte(),
            all.as_mut_ptr() as *mut _,
            rec_len as c_int,
            mpi::dt_byte(),
            priv_comm,
        );
        let mut hosts: Vec<String> = Vec::new();
        let mut nodes: Vec<(i32, u32)> = Vec::new();
        let (mut node_of, mut host_of) = (Vec::new(), Vec::new());
        for r in 0..size as usize {
            let rec = &all[r * rec_len..(r + 1) * rec_len];
            let l = i32::from_le_bytes([rec[0], rec[1], rec[2], rec[3]]);
            let h = cstr(&rec[4..4 + HOST_LEN]);
            let hi = match hosts.iter().position(|x| *x == h) {
                Some(i) => i,
                None => {
                    hosts.push(h);
                    hosts.len() - 1
                }
            } as u32;
            // Same shared-memory domain and same host name: same node.
            let ni = match nodes.iter().position(|&n| n == (l, hi)) {
                Some(i) => i,
                None => {
                    nodes.push((l, hi));
                    nodes.len() - 1
                }
            } as u32;
            node_of.push(ni);
            host_of.push(hi);
        }
        let job_id = cstr(&all[4 + HOST_LEN..4 + HOST_LEN + JOB_ID_LEN]);
        let local_pids: Vec<i32> = (0..size as usize)
            .filter(|&r| r != rank as usize && node_of[r] == node_of[rank as usize])
            .map(|r| {
                let p = &all[(r + 1) * rec_len - 4..(r + 1) * rec_len];
                i32::from_le_bytes([p[0], p[1], p[2], p[3]])
            })
            .collect();
        peers::set_world(rank, size, node_of, hosts.clone(), host_of);

        let mut lib = vec![0u8; mpi::max_library_version_string() as usize + 1];
        let mut lib_len: c_int = 0;
        mpi::PMPI_Get_library_version(lib.as_mut_ptr() as *mut c_char, &mut lib_len);

        let executable = std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let exe_name = std::path::Path::new(&executable)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "app".into());
        let report_path = absolute(&s.report.clone().unwrap_or_else(|| {
            format!("loggp-{}-{}.json", sanitize(&exe_name), sanitize(&job_id))
        }));
        let info = JobInfo {
            priv_comm_bits: mpi::Handle::bits(priv_comm),
            have_priv: true,
            rank,
            size,
            host,
            hosts,
            job_id,
            executable,
            mpi_library: cstr(&lib).trim().to_string(),
            thread_level: mpi::thread_level_name(level).to_string(),
            started_at: rfc3339_now(),
            start_mono_ns: clock::monotonic_raw_ns(),
            report_path,
            local_pids,
        };
        if rank == 0 {
            for e in settings::errors() {
                say(e);
            }
            if s.dump_config {
                dump_config(s);
            }
            if s.verbose >= 1 {
                say(&format!(
                    "loggp: profiling {} ranks on {} host(s) ({}); report: {}",
                    size,
                    info.hosts.len(),
                    mpi::FLAVOR,
                    info.report_path
                ));
            }
        }
        if let Ok(mut j) = JOB.lock() {
            *j = Some(info);
        }
    }
    if let Some(j) = job() {
        install_exit_paths(&j);
    }
    Ok(())
}

fn dump_config(s: &settings::Settings) {
    say("loggp: effective settings (LOGGP_DUMP_CONFIG=1):");
    for d in settings::describe(s) {
        say(&format!(
            "loggp:   {:<24} = {:<32} [{}; default {}] {}",
            d.name, d.value, d.accepts, d.default, d.what
        ));
    }
}

/// A job id from the resource manager, or the pid of rank 0 (chosen at the allgather).
fn job_id_from_env() -> String {
    for k in [
        "SLURM_JOB_ID",
        "PBS_JOBID",
        "LSB_JOBID",
        "JOB_ID",
        "FLUX_JOB_ID",
    ] {
        if let Ok(v) = std::env::var(k) {
            if !v.is_empty() {
                return v;
            }
        }
    }
    std::process::id().to_string()
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn absolute(p: &str) -> String {
    let path = std::path::Path::new(p);
    if path.is_absolute() {
        return p.to_string();
    }
    std::env::current_dir()
        .map(|d| d.join(path).display().to_string())
        .unwrap_or_else(|_| p.to_string())
}

/// Current UTC time as RFC 3339, without a date library (civil-from-days).
fn rfc3339_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (days, rem) = (secs.div_euclid(86400), secs.rem_euclid(86400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// MPI_Finalize around any way of calling the MPI's own: the ranks merge their
/// statistics over the private communicator in a binomial tree first; rank 0 writes.
pub(crate) fn finalize_with(call: impl FnOnce() -> c_int) -> c_int {
    let Some(_g) = Guard::enter_always() else {
        return call();
    };
    if runtime::begin_finish() {
        if let Some(j) = job() {
            finalize_report(&j);
            remove_interim(&j);
        }
        runtime::set_done();
    }
    call()
}

/// MPI 4.0 §11.2.2.
#[no_mangle]
pub unsafe extern "C" fn MPI_Finalize() -> c_int {
    finalize_with(|| mpi::PMPI_Finalize())
}

fn local_blob(j: &JobInfo, ns_per_tick: f64) -> Blob {
    if let Some(reason) = runtime::faulted() {
        return fault_blob(j, &reason);
    }
    if settings::inject("finalize") {
        panic!("injected fault (LOGGP_INJECT_FAULT=finalize)");
    }
    let cells = collect::local_cells(ns_per_tick);
    let entry = collect::rank_entry(j.rank as u32, &j.host, &cells, ns_per_tick);
    let calibration = crate::calib::run::outcome()
        .map(|o| crate::calib::report::sets(&o, j.rank as u32, ns_per_tick))
        .unwrap_or_default();
    let raw = crate::calib::run::outcome()
        .map(|o| crate::calib::report::raw_sets(&o, j.rank as u32, ns_per_tick))
        .unwrap_or_default();
    Blob {
        ranks: vec![entry],
        cells: cells.into_iter().collect(),
        // Where a calibration schedule ended early, and why (issue 13 §8).
        warnings: crate::calib::run::outcome()
            .map(|o| o.warnings)
            .unwrap_or_default(),
        calibration,
        raw,
    }
}

fn fault_blob(j: &JobInfo, reason: &str) -> Blob {
    Blob {
        warnings: vec![format!(
            "rank {}: profiling stopped early: {reason}",
            j.rank
        )],
        ..Default::default()
    }
}

/// The merge must never leave a parent waiting: every step that could fail is guarded,
/// and each rank sends its parent exactly one message whatever happened before.
fn finalize_report(j: &JobInfo) {
    let t0_ns = crate::clock::monotonic_raw_ns();
    let ns_per_tick = collect::ns_per_tick();
    let mut blob = runtime::guarded("collecting statistics", || local_blob(j, ns_per_tick))
        .unwrap_or_else(|| fault_blob(j, "internal error while collecting statistics"));
    if !j.have_priv {
        return;
    }
    let comm: MPI_Comm = mpi::Handle::from_bits(j.priv_comm_bits);
    // Binomial tree: receive from children rank+1, rank+2, rank+4, ... then send to the
    // parent; log2(P) steps, no rank holds more than its subtree.
    let mut mask = 1;
    while mask < j.size {
        if j.rank & mask != 0 {
            let bytes = runtime::guarded("encoding statistics", || {
                serde_json::to_vec(&blob).unwrap_or_default()
            })
            .unwrap_or_default();
            // SAFETY: sending a byte buffer on the private communicator.
            unsafe {
                mpi::PMPI_Send(
                    bytes.as_ptr() as *const _,
                    bytes.len() as c_int,
                    mpi::dt_byte(),
                    j.rank - mask,
                    MERGE_TAG,
                    comm,
                )
            };
            break;
        }
        let child = j.rank + mask;
        if child < j.size {
            let received = recv_blob(comm, child);
            let merged = received
                .and_then(|b| runtime::guarded("merging statistics", || merge_blob(&mut blob, b)));
            if merged.is_none() {
                blob.warnings.push(format!(
                    "statistics of rank {child}'s subtree could not be read"
                ));
            }
        }
        mask <<= 1;
    }
    if j.rank == 0 {
        runtime::guarded("writing the report", || {
            blob.ranks.sort_by_key(|r| r.rank);
            let report = build_report(j, blob, true, "MPI_Finalize", None, ns_per_tick);
            let verbose = settings::get().verbose >= 1;
            if write_report(&j.report_path, &report, j.rank, verbose) && verbose {
                // What a many-rank job pays at Finalize (issue 13 §4): rank 0's merge of
                // every subtree, the fits and the write.
                let bytes = std::fs::metadata(&j.report_path)
                    .map(|m| m.len())
                    .unwrap_or(0);
                say(&format!(
                    "loggp: {} ranks merged and the report written in {:.0} ms ({} bytes)",
                    report.ranks.len(),
                    crate::clock::monotonic_raw_ns().saturating_sub(t0_ns) as f64 / 1e6,
                    bytes
                ));
            }
        });
    }
    // All ranks enter the MPI's Finalize together, as they would without us: rank 0 comes
    // late from the write, and under UCX 1.13's tcp transport an endpoint flushed while its
    // peer already left for the PMI barrier is never progressed (openucx/ucx#8738; every
    // MPICH job with UCX_TLS=tcp hung here without this barrier).
    // SAFETY: our own communicator.
    let mut c = comm;
    unsafe {
        mpi::PMPI_Barrier(comm);
        mpi::PMPI_Comm_free(&mut c)
    };
}

fn recv_blob(comm: MPI_Comm, src: c_int) -> Option<Blob> {
    // SAFETY: probe, size and receive a byte message on the private communicator.
    unsafe {
        let mut st = mpi::empty_status();
        mpi::PMPI_Probe(src, MERGE_TAG, comm, &mut st);
        let mut n: c_int = 0;
        mpi::PMPI_Get_count(&st, mpi::dt_byte(), &mut n);
        let mut buf = vec![0u8; n.max(0) as usize];
        mpi::PMPI_Recv(
            buf.as_mut_ptr() as *mut _,
            n,
            mpi::dt_byte(),
            src,
            MERGE_TAG,
            comm,
            mpi::status_ignore(),
        );
        serde_json::from_slice(&buf).ok()
    }
}

fn merge_blob(into: &mut Blob, from: Blob) {
    into.ranks.extend(from.ranks);
    into.warnings.extend(from.warnings);
    into.calibration.extend(from.calibration);
    into.raw.extend(from.raw);
    let mut map: BTreeMap<CellKey, Cell> = std::mem::take(&mut into.cells).into_iter().collect();
    for (k, c) in from.cells {
        map.entry(k).or_default().merge(&c);
    }
    into.cells = map.into_iter().collect();
}

fn build_report(
    j: &JobInfo,
    blob: Blob,
    complete: bool,
    end: &str,
    partial_rank: Option<u32>,
    ns_per_tick: f64,
) -> Report {
    let s = settings::get();
    let cells: BTreeMap<CellKey, Cell> = blob.cells.into_iter().collect();
    let mut warnings = blob.warnings;
    let untracked: u64 = blob.ranks.iter().map(|r| r.requests_untracked).sum();
    if untracked > 0 {
        warnings.push(format!(
            "{untracked} requests were not tracked (table full, or a Wait/Test array longer than the scratch space); raise LOGGP_MAX_REQUESTS"
        ));
    }
    let dropped: u64 = blob.ranks.iter().map(|r| r.records_without_histogram).sum();
    if dropped > 0 {
        warnings.push(format!(
            "{dropped} calls are counted without a duration histogram (statistics table full or more threads than LOGGP_MAX_THREADS)"
        ));
    }
    let mut sections = BTreeMap::new();
    let (calibration, thresholds) = calibration_section(blob.calibration, blob.raw, complete);
    sections.insert(
        "calibration.raw".into(),
        if calibration.raw.is_empty() {
            "none: no raw transport was planned (LOGGP_RAW=off, calibration off, or no pair)".into()
        } else {
            "done".into()
        },
    );
    let passive = crate::passive::sets(&cells);
    sections.insert("calibration".into(), calibration.status.clone());
    sections.insert("passive.bins".into(), "done".into());
    sections.insert("passive.ranges".into(), "done".into());
    sections.insert("model_check".into(), "done".into());
    sections.insert("thresholds.passive".into(), "done".into());
    sections.insert("ranks".into(), "done".into());
    let mut report = Report {
        schema: SCHEMA.into(),
        tool: Tool {
            name: "loggp".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        job: Job {
            complete,
            end: end.into(),
            executable: j.executable.clone(),
            job_id: j.job_id.clone(),
            ranks: j.size as u32,
            hosts: j.hosts.clone(),
            mpi_library: j.mpi_library.clone(),
            mpi_flavor: mpi::FLAVOR.into(),
            thread_level: j.thread_level.clone(),
            started_at: j.started_at.clone(),
            wall_time_ns: clock::monotonic_raw_ns().saturating_sub(j.start_mono_ns) as f64,
            clock: Clock {
                source: clock::source().name().into(),
                tsc_hz: (clock::source() != clock::Source::ClockGettime).then(|| 1e9 / ns_per_tick),
                invariant: clock::invariant(),
                read_floor_ns: (clock::source() != clock::Source::ClockGettime)
                    .then(clock::read_floor_ns),
            },
            settings: settings::describe(s)
                .into_iter()
                .map(|d| (d.name.to_string(), d.value))
                .collect(),
            partial_rank,
            interim: false,
        },
        passive,
        ranks: blob.ranks,
        calibration,
        thresholds,
        sections,
        warnings,
        ..Default::default()
    };
    // The estimates: ranges, intervals, MPI − raw, brackets, model check (the model crate,
    // the same code `loggp refit` runs offline).
    // Not on an abnormal exit: there the write must be quick (a launcher may kill the
    // rank), and the measurements are in the file for `loggp refit`.
    if complete {
        loggp_model::estimate(&mut report, &crate::calib::switches::model_settings());
    } else {
        report.sections.insert(
            "estimates".into(),
            "not computed on an abnormal exit: `loggp refit` computes them from this file".into(),
        );
    }
    let overhead_status = if report.mpi_overhead.is_empty() {
        "none: no raw transport calibrated beside MPI".to_string()
    } else {
        "done".to_string()
    };
    report
        .sections
        .insert("mpi_overhead".into(), overhead_status);
    report
}

/// The calibration section: the agreed status, and per (peer class, mode) the set of the
/// first pair that measured it (all pairs are listed in `pairs`).
/// With `read_mpi_t` (the MPI_Finalize path only), each threshold gets the setting of the
/// component that carries its traffic.
fn calibration_section(
    mut sets: Vec<(loggp_report::CalibrationSet, loggp_report::Threshold)>,
    mut raw: Vec<loggp_report::RawSet>,
    read_mpi_t: bool,
) -> (Calibration, Vec<loggp_report::Threshold>) {
    let o = crate::calib::run::outcome().unwrap_or_default();
    sets.sort_by_key(|(s, _)| s.pair[0]);
    let mut seen = std::collections::BTreeSet::new();
    sets.retain(|(s, _)| seen.insert((s.peer_class.clone(), s.mode.clone())));
    let mut thresholds: Vec<loggp_report::Threshold> =
        sets.iter().map(|(_, t)| t.clone()).collect();
    if read_mpi_t && !thresholds.is_empty() {
        let keys: Vec<(String, String)> = thresholds
            .iter()
            .map(|t| (t.peer_class.clone(), t.mode.clone()))
            .collect();
        for (t, v) in thresholds
            .iter_mut()
            .zip(crate::calib::knob::settings_in_use(&keys))
        {
            match v {
                Ok(s) => {
                    if s.source == "MPI_T" {
                        t.mpi_t = s.value.map(|value| loggp_report::MpiT {
                            name: s.name.clone(),
                            value,
                        });
                    }
                    t.setting = Some(s);
                }
                Err(why) => {
                    let n = format!("setting: {why}");
                    t.note = Some(match t.note.take() {
                        Some(x) => format!("{x}; {n}"),
                        None => n,
                    });
                }
            }
        }
    }
    let calibration = Calibration {
        status: if o.status.is_empty() {
            "skipped: MPI_Init was not seen".into()
        } else {
            o.status
        },
        duration_ns: (o.duration_ns > 0.0).then_some(o.duration_ns),
        pairs: o.pairs,
        disturbance: o.disturbance,
        off_cpu_share: o.off_cpu_share,
        mpi: sets.into_iter().map(|(s, _)| s).collect(),
        raw: {
            // One set per (transport, class): the first pair's, as for MPI.
            let mut seen = std::collections::BTreeSet::new();
            raw.retain(|r| seen.insert((r.transport.clone(), r.peer_class.clone())));
            raw
        },
    };
    (calibration, thresholds)
}

/// Writes `report` atomically. The text goes into an unnamed file in the report's
/// directory (O_TMPFILE), which is given a temporary name only once complete and then
/// renamed over the report: a rank killed while writing (a launcher's SIGKILL after its
/// grace period) leaves nothing behind, where a named temporary file would stay half
/// written. Where the file system has no O_TMPFILE or /proc is missing, a named
/// temporary file (never following a symlink) and rename. A failure is one warning; the
/// application is not affected.
fn write_report(path: &str, report: &Report, rank: i32, announce: bool) -> bool {
    let _w = WRITE_LOCK.lock();
    write_report_locked(path, report, rank, announce)
}

/// One report write at a time in this process (the final report, interim and partial
/// rank files): the naming gate (`writer`) follows one write.
static WRITE_LOCK: Mutex<()> = Mutex::new(());

fn write_report_locked(path: &str, report: &Report, rank: i32, announce: bool) -> bool {
    let text = match serde_json::to_vec_pretty(report) {
        Ok(t) => t,
        Err(e) => {
            say(&format!("loggp: cannot encode the report: {e}"));
            return false;
        }
    };
    let tmp = format!("{path}.tmp.{}", std::process::id());
    let res = write_unnamed_then_link(path, &tmp, &text).or_else(|e| {
        if e.kind() == std::io::ErrorKind::Interrupted {
            return Err(e);
        }
        // The named fallback is as exposed as the link step: the gate covers it whole.
        if !crate::writer::begin_naming(&tmp) {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let r = named_fallback(path, &tmp, &text);
        crate::writer::end_naming();
        r
    });
    match res {
        Ok(()) => {
            if announce {
                say(&format!("loggp: rank {rank}: report written to {path}"));
            }
            true
        }
        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => false, // the rank is ending
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            say(&format!(
                "loggp: rank {rank}: cannot write the report to {path}: {e}"
            ));
            false
        }
    }
}

/// Where there is no O_TMPFILE: a named temporary file (never following a symlink) and
/// rename.
fn named_fallback(path: &str, tmp: &str, text: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW)
        .open(tmp)?;
    f.write_all(text)?;
    f.write_all(b"\n")?;
    std::fs::rename(tmp, path)
}

/// The O_TMPFILE path of `write_report`: unnamed file, write, link as `tmp`, rename.
fn write_unnamed_then_link(path: &str, tmp: &str, text: &[u8]) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::io::Write;
    use std::os::fd::{AsRawFd, FromRawFd};
    let dir = match std::path::Path::new(path).parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let cstr = |s: &str| CString::new(s).map_err(|_| std::io::ErrorKind::InvalidInput);
    let cdir = cstr(&dir.display().to_string())?;
    // SAFETY: a C string we own; the fd is owned by the File below.
    let fd = unsafe {
        libc::open(
            cdir.as_ptr(),
            libc::O_TMPFILE | libc::O_WRONLY | libc::O_CLOEXEC,
            0o644 as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fd was just opened and is not owned elsewhere.
    let mut f = unsafe { std::fs::File::from_raw_fd(fd) };
    f.write_all(text)?;
    f.write_all(b"\n")?;
    let proc_path = cstr(&format!("/proc/self/fd/{}", f.as_raw_fd()))?;
    let ctmp = cstr(tmp)?;
    // The unnamed file vanishes with the process; from here on a name exists, so a
    // terminating signal waits for the rename (or removes the name).
    if !crate::writer::begin_naming(tmp) {
        return Err(std::io::ErrorKind::Interrupted.into());
    }
    let r = link_then_rename(&proc_path, &ctmp, tmp, path);
    crate::writer::end_naming();
    r
}

fn link_then_rename(
    proc_path: &std::ffi::CStr,
    ctmp: &std::ffi::CStr,
    tmp: &str,
    path: &str,
) -> std::io::Result<()> {
    // SAFETY: C strings we own; linkat gives the complete file a name.
    let linked = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            proc_path.as_ptr(),
            libc::AT_FDCWD,
            ctmp.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if linked != 0 {
        return Err(std::io::Error::last_os_error());
    }
    std::fs::rename(tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(tmp);
    })
}

/// Path of a rank's partial report: `<report without .json>.rank<R>.json`.
fn partial_path(report: &str, rank: i32) -> String {
    let stem = report.strip_suffix(".json").unwrap_or(report);
    format!("{stem}.rank{rank}.json")
}

/// This rank's own statistics, without MPI, marked incomplete: the last thing a rank
/// that ends without MPI_Finalize does (Abort, exit, terminating signal through the
/// writer thread).
pub(crate) fn write_partial(end: &str) {
    if !settings::get().partial || !runtime::begin_finish() {
        return;
    }
    protect(|| write_rank_file(end, false));
    runtime::set_done();
}

/// Set once this rank wrote an interim rank file (MPI_Finalize then removes it: the
/// complete report supersedes it).
static INTERIM_WRITTEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// An interim rank file (SIGUSR1, LOGGP_INTERVAL), from the writer thread: the
/// statistics so far, the calls in progress, and the rank goes on.
pub(crate) fn write_interim(why: &str) {
    if runtime::phase() != runtime::Phase::Running || runtime::faulted().is_some() {
        return;
    }
    runtime::guarded("writing an interim report", || {
        write_rank_file(&format!("interim: {why}"), true)
    });
}

fn write_rank_file(end: &str, interim: bool) {
    let Some(j) = job() else { return };
    let t0 = std::time::Instant::now();
    let ns_per_tick = collect::ns_per_tick();
    let mut blob = local_blob(&j, ns_per_tick);
    for r in &mut blob.ranks {
        r.in_progress = collect::in_progress(ns_per_tick);
    }
    let mut report = build_report(&j, blob, false, end, Some(j.rank as u32), ns_per_tick);
    report.job.hosts = vec![j.host.clone()];
    report.job.interim = interim;
    // Interim writes stop once the rank finishes (the lock orders them with it).
    let _w = WRITE_LOCK.lock();
    if interim && runtime::phase() != runtime::Phase::Running {
        return;
    }
    let verbose = settings::get().verbose >= 2;
    if write_report_locked(
        &partial_path(&j.report_path, j.rank),
        &report,
        j.rank,
        verbose,
    ) && interim
    {
        INTERIM_WRITTEN.store(true, std::sync::atomic::Ordering::Release);
    }
    if verbose {
        say(&format!(
            "loggp: rank {}: rank file took {:.1} ms",
            j.rank,
            t0.elapsed().as_secs_f64() * 1e3
        ));
    }
}

/// At MPI_Finalize, after the merge: this rank's interim file is superseded.
fn remove_interim(j: &JobInfo) {
    let _w = WRITE_LOCK.lock();
    if INTERIM_WRITTEN.load(std::sync::atomic::Ordering::Acquire) {
        let _ = std::fs::remove_file(partial_path(&j.report_path, j.rank));
    }
}

/// MPI_Abort around any way of calling the MPI's own: the calling rank leaves its
/// statistics before the job is torn down.
pub(crate) fn abort_with(call: impl FnOnce() -> c_int) -> c_int {
    if let Some(_g) = Guard::enter_always() {
        write_partial("MPI_Abort");
    }
    call()
}

/// MPI 4.0 §9.5.
#[no_mangle]
pub unsafe extern "C" fn MPI_Abort(comm: MPI_Comm, errorcode: c_int) -> c_int {
    abort_with(|| mpi::PMPI_Abort(comm, errorcode))
}

extern "C" fn at_exit() {
    if runtime::phase() == runtime::Phase::Running {
        if let Some(_g) = Guard::enter_always() {
            write_partial("exit without MPI_Finalize");
        }
    }
}

const SIGNALS: [c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];
/// The dispositions we replaced, by signal number (written once at MPI_Init before any
/// handler is installed, read by handlers without a lock).
static OLD_ACTIONS: std::sync::OnceLock<Vec<(c_int, libc::sigaction)>> = std::sync::OnceLock::new();

/// SIGTERM, SIGINT, SIGHUP. Async-signal-safe: no allocation, lock, stdio or MPI. The
/// writer thread writes the partial rank file; this waits for it (bounded), then does
/// what would have happened without us.
extern "C" fn on_signal(sig: c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // A shared-memory segment of the raw calibration, if the kill came in its short
    // linked window: unlinked first (one syscall), so /dev/shm keeps nothing of ours.
    crate::raw::shm::cleanup();
    if runtime::phase() == runtime::Phase::Running {
        crate::writer::request_partial_and_wait(sig);
    }
    chain(sig, info, ctx);
}

/// SIGUSR1: an interim rank file, written by the writer thread; the rank goes on.
extern "C" fn on_usr1(sig: c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo with SA_SIGINFO.
    let passed_on = !info.is_null()
        && unsafe {
            (*info).si_code == libc::SI_QUEUE
                && (*info).si_value().sival_ptr as usize == crate::writer::PASSED_ON
        };
    crate::writer::request_interim(passed_on);
    // An application's own SIGUSR1 handler still runs; its default (terminate) is what
    // loggp replaces, and only where the application left it.
    let old = OLD_ACTIONS
        .get()
        .and_then(|v| v.iter().find(|(s, _)| *s == sig).map(|(_, a)| *a));
    if let Some(a) = old {
        if a.sa_sigaction != libc::SIG_DFL && a.sa_sigaction != libc::SIG_IGN {
            chain(sig, info, ctx);
        }
    }
}

/// The previous disposition of `sig`: its handler is called; the default is restored
/// and the signal raised again, so the process ends as it would have.
fn chain(sig: c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    let old = OLD_ACTIONS
        .get()
        .and_then(|v| v.iter().find(|(s, _)| *s == sig).map(|(_, a)| *a));
    // SAFETY: restoring or invoking the previous disposition of this signal.
    unsafe {
        match old {
            Some(a) if a.sa_sigaction == libc::SIG_IGN => {}
            Some(a) if a.sa_sigaction != libc::SIG_DFL => {
                if a.sa_flags & libc::SA_SIGINFO != 0 {
                    let f: extern "C" fn(c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                        std::mem::transmute(a.sa_sigaction);
                    f(sig, info, ctx);
                } else {
                    let f: extern "C" fn(c_int) = std::mem::transmute(a.sa_sigaction);
                    f(sig);
                }
            }
            _ => {
                libc::signal(sig, libc::SIG_DFL);
                libc::raise(sig);
            }
        }
    }
}

fn install_exit_paths(j: &JobInfo) {
    let s = settings::get();
    let writer = crate::writer::start(s.interval_s, j.local_pids.clone());
    // SAFETY: registering process-wide handlers once, at MPI_Init.
    unsafe {
        libc::atexit(at_exit);
        if !writer {
            return; // no partial or interim writes from signals; exit and Abort still write
        }
        let mut olds = Vec::new();
        let mut ours = Vec::new();
        for &sig in SIGNALS.iter().chain(&[libc::SIGUSR1]) {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(sig, std::ptr::null(), &mut old);
            if old.sa_sigaction == libc::SIG_IGN {
                continue; // the application ignores it: so do we
            }
            olds.push((sig, old));
            ours.push(sig);
        }
        // The table first, then the handlers that read it.
        let _ = OLD_ACTIONS.set(olds);
        for sig in ours {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = if sig == libc::SIGUSR1 {
                on_usr1 as *const () as usize
            } else {
                on_signal as *const () as usize
            };
            act.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(sig, &act, std::ptr::null_mut());
        }
    }
}
