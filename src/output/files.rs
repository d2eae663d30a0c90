//! Report files, written atomically: the final report, and each rank's interim or
//! partial rank file beside it (`<report>.rank<R>.json`).
use crate::base::runtime::say;
use loggp_report::Report;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Writes `report` atomically. The text goes into an unnamed file in the report's
/// directory (O_TMPFILE), which is given a temporary name only once complete and then
/// renamed over the report: a rank killed while writing (a launcher's SIGKILL after its
/// grace period) leaves nothing behind, where a named temporary file would stay half
/// written. Where the file system has no O_TMPFILE or /proc is missing, a named
/// temporary file (never following a symlink) and rename. A failure is one warning; the
/// application is not affected.
pub fn write_report(path: &str, report: &Report, rank: i32, announce: bool) -> bool {
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
        if !super::writer::begin_naming(&tmp) {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let r = named_fallback(path, &tmp, &text);
        super::writer::end_naming();
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
    // Where no report is there yet (a rank's first file, a killed job's partial one), the
    // complete file is linked under its final name at once: no temporary name exists at
    // any moment. A launcher that SIGKILLs a rank as soon as another has died hit two
    // ranks writing in step, one between link and rename (a `.tmp` left in 1 of 6 killed
    // MPICH jobs of one CI run).
    let cpath = cstr(path)?;
    // SAFETY: C strings we own; linkat fails with EEXIST where a report is there.
    let direct = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            proc_path.as_ptr(),
            libc::AT_FDCWD,
            cpath.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if direct == 0 {
        return Ok(());
    }
    let ctmp = cstr(tmp)?;
    // The unnamed file vanishes with the process; from here on a name exists, so a
    // terminating signal waits for the rename (or removes the name).
    if !super::writer::begin_naming(tmp) {
        return Err(std::io::ErrorKind::Interrupted.into());
    }
    let r = link_then_rename(&proc_path, &ctmp, tmp, path);
    super::writer::end_naming();
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

/// Path of a rank's file: `<report without .json>.rank<R>.json`.
pub fn rank_file_path(report: &str, rank: i32) -> String {
    let stem = report.strip_suffix(".json").unwrap_or(report);
    format!("{stem}.rank{rank}.json")
}

/// Set once this rank wrote an interim rank file (MPI_Finalize then removes it: the
/// complete report supersedes it).
static INTERIM_WRITTEN: AtomicBool = AtomicBool::new(false);

/// Writes this rank's file. An interim write is skipped once `still_running` says the
/// rank finishes (checked under the write lock, which orders it with the final write).
pub fn write_rank_file(
    path: &str,
    report: &Report,
    rank: i32,
    announce: bool,
    interim: bool,
    still_running: impl Fn() -> bool,
) {
    let _w = WRITE_LOCK.lock();
    if interim && !still_running() {
        return;
    }
    if write_report_locked(path, report, rank, announce) && interim {
        INTERIM_WRITTEN.store(true, Ordering::Release);
    }
}

/// At MPI_Finalize, after the merge: this rank's interim file is superseded.
pub fn remove_interim(path: &str) {
    let _w = WRITE_LOCK.lock();
    if INTERIM_WRITTEN.load(Ordering::Acquire) {
        let _ = std::fs::remove_file(path);
    }
}
