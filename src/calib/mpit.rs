//! Reading MPI_T control variables (MPI 4.0 §15.3.6): the configured eager limit of the
//! transport a pair uses, reported beside the measured switch, and what decides the
//! collective algorithms. Under Open MPI the variables are read from its own registry
//! where it can be (`mcavar`), with no MPI_T session: a first session costs 0.2 s there.
use super::{local, mcavar};
use crate::base::mpi;
use loggp_model::coll::select::COLLECTIVES;
use loggp_report::PeerClass;
use std::ffi::CString;
use std::os::raw::{c_char, c_int};
use std::sync::atomic::{AtomicBool, Ordering};

/// Opens one MPI_T session (MPI_T_init_thread); true if it opened, to be paired with
/// `end_session`. MPI_T may be initialised any number of times, also before MPI_Init.
fn begin_session() -> bool {
    let mut provided: c_int = 0;
    // SAFETY: an int for `provided`; any number of sessions, each paired with a finalize.
    unsafe { mpi::PMPI_T_init_thread(mpi::thread_single(), &mut provided) == mpi::success() }
}

/// Closes a session `begin_session` opened.
fn end_session() {
    // SAFETY: pairs a successful begin_session.
    unsafe { mpi::PMPI_T_finalize() };
}

/// Runs `f` inside one MPI_T session (MPI_T_init_thread … MPI_T_finalize), or without
/// one where the variables come from Open MPI's registry (`mcavar`).
fn session<T>(f: impl FnOnce() -> T) -> Option<T> {
    if mcavar::available() {
        return Some(f());
    }
    if !begin_session() {
        return None;
    }
    let v = f();
    end_session();
    Some(v)
}

/// Whether this rank holds the session `open_before_init` opened.
static HELD_FROM_INIT: AtomicBool = AtomicBool::new(false);

/// Open MPI only, where its registry cannot be read (`mcavar`; then nothing is opened):
/// opens an MPI_T session just before the MPI's own Init, held until
/// `close_before_finalize`. Why: Open MPI 4.1's MPI_T_init_thread registers every
/// framework's variables, which took 205–207 ms here after MPI_Init; opened before it,
/// MPI_Init then finds most of that work done (2 ranks under mpirun: MPI_T_init_thread
/// 0.214–0.227 s and MPI_Init 0.011–0.023 s, against MPI_Init alone 0.222–0.233 s), and
/// the reading at MPI_Finalize nests in this session for next to nothing. Opened at
/// Finalize instead, every Open MPI job's MPI_Finalize took 0.27 s against 0.047 s. Under
/// pml ucx the 0.22 s only moves from MPI_Finalize to MPI_Init (2 ranks, a job of
/// MPI_Init, a barrier and MPI_Finalize: 0.313–0.320 s, against 0.31–0.32 s opened at
/// Finalize and 0.073–0.082 s without loggp). Rank 0 only (`launched_as_rank_0`). MPI_T
/// may be initialised before MPI_Init and any number of times (MPI 4.0 §15.3.4); the
/// application's own sessions nest with ours.
pub fn open_before_init() {
    if mpi::FLAVOR != "openmpi" || mcavar::available() || !launched_as_rank_0() {
        return;
    }
    HELD_FROM_INIT.store(begin_session(), Ordering::Relaxed);
}

/// Whether the launcher started this process as world rank 0, the one rank that reads
/// MPI_T (at MPI_Finalize), before MPI_Init can say: Open MPI's mpirun sets
/// OMPI_COMM_WORLD_RANK, PMIx launchers (srun --mpi=pmix, prun) PMIX_RANK; neither set, a
/// singleton. Only there is the session opened early: where MPI_Init shares little of its
/// cost (pml ucx), every rank would pay what rank 0 alone paid before.
fn launched_as_rank_0() -> bool {
    match ["OMPI_COMM_WORLD_RANK", "PMIX_RANK"]
        .iter()
        .find_map(|k| std::env::var(k).ok())
    {
        Some(rank) => rank.trim() == "0",
        None => true,
    }
}

/// Closes the session `open_before_init` opened, if it did (once).
pub fn close_before_finalize() {
    if HELD_FROM_INIT.swap(false, Ordering::Relaxed) {
        end_session();
    }
}

/// The application's MPI_T_init_thread (`call`), where it nests in the session
/// `open_before_init` holds: Open MPI 4.1 writes `provided` only in a first session
/// (ompi/mpi/tool/init_thread.c), where it writes the level required. Left unwritten by a
/// nested call, it is written so, as without us (seen before: -1, the value the test
/// program had put there, against 3 for MPI_THREAD_MULTIPLE without loggp).
///
/// # Safety
/// `provided` is null or points to a writable `c_int` (MPI_T_init_thread's argument).
pub unsafe fn nested_in_ours(
    required: c_int,
    provided: *mut c_int,
    call: impl FnOnce() -> c_int,
) -> c_int {
    /// Not a thread level: what the MPI left in place if it did not write `provided`.
    const UNWRITTEN: c_int = c_int::MIN;
    if provided.is_null() || !HELD_FROM_INIT.load(Ordering::Relaxed) {
        return call();
    }
    // SAFETY: non-null here, and writable by the caller's contract.
    let before = unsafe { *provided };
    // SAFETY: as above.
    unsafe { *provided = UNWRITTEN };
    let rc = call();
    // SAFETY: as above.
    if unsafe { *provided } == UNWRITTEN {
        let v = if rc == mpi::success() {
            required
        } else {
            before
        };
        // SAFETY: as above.
        unsafe { *provided = v };
    }
    rc
}

/// Runs `f` with an MPI_T session held open (Open MPI only, where opening one is slow,
/// and only where its registry cannot be read instead): the sessions `f` opens inside
/// then nest and cost next to nothing.
pub fn held<T>(f: impl FnOnce() -> T) -> T {
    if mpi::FLAVOR != "openmpi" || mcavar::available() {
        return f();
    }
    let ok = begin_session();
    let v = f();
    if ok {
        end_session();
    }
    v
}

/// An integer control variable by name, if this MPI has it (from Open MPI's registry,
/// else inside a session).
fn cvar_int(name: &str) -> Option<i64> {
    if mcavar::available() {
        return mcavar::read(name)?.int();
    }
    let bytes = cvar_bytes(name, 8)?;
    Some(i64::from_le_bytes(bytes[..8].try_into().ok()?))
}

/// A string control variable by name (MPI_CHAR), if this MPI has it (from Open MPI's
/// registry, else inside a session).
fn cvar_string(name: &str) -> Option<String> {
    if mcavar::available() {
        return mcavar::read(name).map(|v| v.value);
    }
    let bytes = cvar_bytes(name, 4096)?;
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    Some(String::from_utf8_lossy(&bytes[..end]).into_owned())
}

fn cvar_bytes(name: &str, cap: usize) -> Option<Vec<u8>> {
    let cname = CString::new(name).ok()?;
    // SAFETY: MPI_T calls with buffers sized for what they write; an integer cvar writes
    // at most 8 bytes, a string cvar at most `count` chars (checked against cap).
    unsafe {
        let mut out = None;
        let mut idx: c_int = 0;
        if mpi::PMPI_T_cvar_get_index(cname.as_ptr() as *const c_char, &mut idx) == mpi::success() {
            let mut handle: mpi::MPI_T_cvar_handle = Default::default();
            let mut count: c_int = 0;
            if mpi::PMPI_T_cvar_handle_alloc(idx, std::ptr::null_mut(), &mut handle, &mut count)
                == mpi::success()
            {
                let need = if cap > 8 {
                    count.max(1) as usize + 1
                } else {
                    8 * count.max(1) as usize
                };
                if need <= cap.max(64) {
                    let mut buf = vec![0u8; need.max(cap).max(16)];
                    // Integer cvars may be int or 64-bit: zeroed 8 bytes read as LE fits both.
                    if mpi::PMPI_T_cvar_read(handle, buf.as_mut_ptr() as *mut _) == mpi::success() {
                        let mut dt: mpi::MPI_Datatype = Default::default();
                        let (mut nl, mut dl, mut verb, mut bind, mut scope) = (0, 0, 0, 0, 0);
                        let mut en: mpi::MPI_T_enum = Default::default();
                        mpi::PMPI_T_cvar_get_info(
                            idx,
                            std::ptr::null_mut(),
                            &mut nl,
                            &mut verb,
                            &mut dt,
                            &mut en,
                            std::ptr::null_mut(),
                            &mut dl,
                            &mut bind,
                            &mut scope,
                        );
                        let mut size: c_int = 8;
                        mpi::PMPI_Type_size(dt, &mut size);
                        if cap == 8 && size == 4 {
                            let v =
                                i32::from_le_bytes(buf[..4].try_into().unwrap_or([0; 4])) as i64;
                            buf[..8].copy_from_slice(&v.to_le_bytes());
                        }
                        out = Some(buf);
                    }
                }
                mpi::PMPI_T_cvar_handle_free(&mut handle);
            }
        }
        out
    }
}

/// The eager-limit control variable of the transport a peer class uses in this MPI.
/// The eager-limit control variables of several peer classes, in one MPI_T session: a
/// session is not free (Open MPI 4.1's MPI_T_init_thread took 207 ms here, unless nested
/// in the one `open_before_init` holds), so this runs once, on rank 0 at MPI_Finalize,
/// never on a signal path.
pub fn eager_limit_cvars(peer_classes: &[PeerClass]) -> Vec<Option<(String, i64)>> {
    if mpi::FLAVOR != "openmpi" || peer_classes.is_empty() {
        // MPICH ch4:ucx takes its switch from UCX settings, not from an MPI_T variable.
        return vec![None; peer_classes.len()];
    }
    session(|| {
        peer_classes
            .iter()
            .map(|&c| eager_limit_in_session(c))
            .collect()
    })
    .unwrap_or_else(|| vec![None; peer_classes.len()])
}

fn eager_limit_in_session(peer_class: PeerClass) -> Option<(String, i64)> {
    let btls = cvar_string("btl").unwrap_or_default();
    let allowed = |b: &str| {
        btls.is_empty()
            || (!btls.starts_with('^') && btls.split(',').any(|x| x == b))
            || (btls.starts_with('^') && !btls[1..].split(',').any(|x| x == b))
    };
    let candidates: &[&str] = match peer_class {
        PeerClass::SelfRank => &["self"],
        PeerClass::IntraNode => &["vader", "sm", "tcp"],
        _ => &["tcp"],
    };
    for b in candidates {
        if allowed(b) {
            let name = format!("btl_{b}_eager_limit");
            if let Some(v) = cvar_int(&name) {
                return Some((name, v));
            }
        }
    }
    None
}

/// What decides this MPI's collective algorithms (issue 26), on rank 0 at MPI_Finalize:
/// Open MPI's coll tuned variables (`cvar_int`; set by `--mca`, `OMPI_MCA_*` or a
/// parameter file alike), MPICH's `MPIR_CVAR_<COLL>_INTRA_ALGORITHM` and selection files
/// from the environment (where MPICH reads them), and MPI_Reduce_local's cost. The user
/// operations' price comes from every rank's calls, in the merged report
/// (`loggp_report::user_op_ns_of`).
pub fn collective_config() -> loggp_report::CollectiveConfig {
    let ops = local::at_finalize();
    let mut c = loggp_report::CollectiveConfig {
        reduce_local_ns: ops.reduce_ns,
        copy_local_ns: ops.copy_ns,
        datatype_setup_ns: ops.datatype_setup_ns,
        ..Default::default()
    };
    if mpi::FLAVOR == "openmpi" {
        let read = session(|| {
            let coll = cvar_string("coll").unwrap_or_default();
            let dynamic = cvar_int("coll_tuned_use_dynamic_rules");
            let vars: Vec<(String, Option<i64>)> = COLLECTIVES
                .iter()
                .map(|k| {
                    let name = format!("coll_tuned_{k}_algorithm");
                    let v = cvar_int(&name);
                    (name, v)
                })
                .collect();
            (coll, dynamic, vars)
        });
        match read {
            Some((coll, dynamic, vars)) => {
                let excluded = (coll.starts_with('^')
                    && coll[1..].split(',').any(|x| x == "tuned"))
                    || (!coll.is_empty()
                        && !coll.starts_with('^')
                        && !coll.split(',').any(|x| x == "tuned"));
                c.decider = if excluded {
                    format!("unknown: the coll selection \"{coll}\" leaves out tuned")
                } else {
                    "openmpi_tuned".into()
                };
                c.dynamic_rules = dynamic.map(|v| v != 0);
                for (name, v) in vars {
                    if let Some(v) = v {
                        c.variables.insert(name, v.to_string());
                    }
                }
            }
            None => c.decider = "unknown: MPI_T could not be started".into(),
        }
    } else {
        c.decider = "mpich".into();
        for k in COLLECTIVES {
            let name = format!("MPIR_CVAR_{}_INTRA_ALGORITHM", k.to_uppercase());
            if let Some(v) = mpich_env(&name) {
                c.variables.insert(name, v.to_ascii_lowercase());
            }
        }
        // A selection file replaces MPICH's built-in choice of algorithm (the model then
        // says the one in use is not known).
        for name in loggp_model::coll::MPICH_SELECTION_FILES {
            if let Some(v) = mpich_env(name).filter(|v| !v.is_empty()) {
                c.variables.insert(name.to_string(), v);
            }
        }
    }
    c
}

/// An MPICH control variable `MPIR_CVAR_<X>` as MPICH reads it from the environment:
/// under that name, or else as `MPICH_<X>`.
fn mpich_env(name: &str) -> Option<String> {
    let short = name.strip_prefix("MPIR_CVAR_").unwrap_or(name);
    std::env::var(name)
        .or_else(|_| std::env::var(format!("MPICH_{short}")))
        .ok()
}
