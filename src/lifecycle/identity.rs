//! Who this rank is: the collective set-up at MPI_Init on a private duplicate of
//! MPI_COMM_WORLD (ranks, hosts and nodes, the job id, the MPI library, the report's
//! path), and the one-time announcements of rank 0.
use crate::base::mpi::{self, MPI_Comm};
use crate::base::runtime::say;
use crate::base::settings;
use crate::output::report::JobFacts;
use crate::record::peers;
use std::os::raw::{c_char, c_int};

/// What MPI_Init learned: this rank, its private communicator, the report's path, and
/// the job's facts for the report.
#[derive(Clone, Default)]
pub struct JobInfo {
    pub priv_comm_bits: u64,
    pub rank: i32,
    pub host: String,
    pub facts: JobFacts,
    pub report_path: String,
    /// Process ids of the other ranks on this host (SIGUSR1 is passed on to them).
    pub local_pids: Vec<i32>,
}

const HOST_LEN: usize = 256;
const JOB_ID_LEN: usize = 64;

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
/// `entered_ns`: when MPI_Init was entered (CLOCK_MONOTONIC_RAW), the job's wall-time start.
pub fn discover(level: c_int, entered_ns: u64) -> Result<JobInfo, String> {
    let s = settings::get();
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
        let host0 = (host_of.first())
            .and_then(|&h| hosts.get(h as usize))
            .cloned()
            .unwrap_or_default();
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
        let job_report = absolute(&s.report.clone().unwrap_or_else(|| {
            format!("loggp-{}-{}.json", sanitize(&exe_name), sanitize(&job_id))
        }));
        // A world that MPI_Comm_spawn started (MPI 4.0 §11.8.2) inherits the job's
        // environment, LOGGP_REPORT and the batch system's job id among it: its report
        // and rank files would replace the parent's. It writes beside them under a name
        // of its own, its rank 0's host and process id (every rank reads them from the
        // records above), and says whose report it stands beside.
        let mut parent: MPI_Comm = Default::default();
        let spawned = mpi::PMPI_Comm_get_parent(&mut parent) == mpi::success()
            && mpi::Handle::bits(parent) != mpi::Handle::bits(mpi::comm_null());
        let (report_path, spawned_from_report) = if spawned {
            let pid0 = i32::from_le_bytes([
                all[rec_len - 4],
                all[rec_len - 3],
                all[rec_len - 2],
                all[rec_len - 1],
            ]);
            let path = spawned_path(&job_report, &format!("{}-{}", sanitize(&host0), pid0));
            // The spawning job's report is named by LOGGP_REPORT or the batch system's
            // job id, which this world inherited; without either, its name holds the
            // spawning job's rank 0's pid, which this world cannot know.
            let known = s.report.is_some() || batch_job_id().is_some();
            (path, known.then_some(job_report))
        } else {
            (job_report, None)
        };
        let info = JobInfo {
            priv_comm_bits: mpi::Handle::bits(priv_comm),
            rank,
            host,
            facts: JobFacts {
                executable,
                job_id,
                ranks: size as u32,
                hosts,
                mpi_library: cstr(&lib).trim().to_string(),
                thread_level: mpi::thread_level_name(level).to_string(),
                started_at: rfc3339_now(),
                start_mono_ns: entered_ns,
                spawned,
                spawned_from_report,
            },
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
                    info.facts.hosts.len(),
                    mpi::FLAVOR,
                    info.report_path
                ));
            }
        }
        Ok(info)
    }
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
    batch_job_id().unwrap_or_else(|| std::process::id().to_string())
}

/// The batch system's job id, where one is set.
fn batch_job_id() -> Option<String> {
    for k in [
        "SLURM_JOB_ID",
        "PBS_JOBID",
        "LSB_JOBID",
        "JOB_ID",
        "FLUX_JOB_ID",
    ] {
        if let Ok(v) = std::env::var(k) {
            if !v.is_empty() {
                return Some(v);
            }
        }
    }
    None
}

/// The report path of a spawned world: the job's, `.spawned-<tag>` before its extension
/// (`r.json` → `r.spawned-host-4242.json`).
fn spawned_path(job_report: &str, tag: &str) -> String {
    let p = std::path::Path::new(job_report);
    let stem = p
        .file_stem()
        .map_or_else(|| "loggp".into(), |s| s.to_string_lossy().into_owned());
    let name = match p.extension() {
        Some(e) => format!("{stem}.spawned-{tag}.{}", e.to_string_lossy()),
        None => format!("{stem}.spawned-{tag}"),
    };
    p.with_file_name(name).display().to_string()
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

pub fn absolute(p: &str) -> String {
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

/// The MPI library the program runs on, where it is plainly not the one this shim was
/// built for (`mpi::FLAVOR`): an Open MPI build preloaded into a program linked with
/// MPICH (or one of its ABI family), or the reverse. The handles of the two differ (Open
/// MPI's are pointers, MPICH's integers), so the shim can neither profile nor pass the
/// program's calls on faithfully; it says so before anything else (a mismatched preload
/// crashed in the shim's own set-up at MPI_Init: LAMMPS from Debian, linked with Open
/// MPI, run under MPICH's mpirun with the MPICH build). MPI_Get_library_version may be
/// called before MPI_Init (MPI 4.0 §9.1.1); the buffer holds the larger of the two
/// libraries' MPI_MAX_LIBRARY_VERSION_STRING (MPICH's 8192).
pub fn foreign_mpi() -> Option<String> {
    let mut lib = vec![0u8; 8192 + 1];
    let mut len: c_int = 0;
    // SAFETY: the buffer holds MPI_MAX_LIBRARY_VERSION_STRING of either library.
    unsafe { mpi::PMPI_Get_library_version(lib.as_mut_ptr() as *mut c_char, &mut len) };
    let text = cstr(&lib);
    let first = text.lines().next().unwrap_or("").trim().to_string();
    let open_mpi = text.contains("Open MPI");
    let mpich_family = ["MPICH", "Intel(R) MPI", "MVAPICH"]
        .iter()
        .any(|k| text.contains(k));
    let foreign = match mpi::FLAVOR {
        "openmpi" => mpich_family && !open_mpi,
        _ => open_mpi,
    };
    foreign.then_some(first)
}
