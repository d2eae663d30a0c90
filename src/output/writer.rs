//! The writer thread: every report write that a signal or a timer asks for happens here,
//! never in a signal handler. A handler only writes one byte to a pipe and, for a
//! terminating signal, waits on a second pipe with poll(2) — write, poll, read, unlink,
//! sigqueue and raise are async-signal-safe (POSIX.1-2017 §2.4.3); it allocates nothing
//! and takes no lock, so a signal that lands inside malloc cannot deadlock the rank.
//!
//! Requests, one byte each: `U` an outside SIGUSR1 (write an interim rank file and pass
//! the request on to the other ranks of this host), `u` a request passed on by another
//! rank (write only), or a terminating signal's number (write the partial rank file, then
//! answer on the done pipe). `LOGGP_INTERVAL` adds an interim write every N seconds.
//!
//! The thread is started at MPI_Init with every signal blocked, so no handler ever runs
//! on it. It makes no MPI call.
use crate::base::runtime;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicI32, AtomicU8, Ordering::*};
use std::time::{Duration, Instant};

/// Write end of the request pipe (handlers), -1 until the thread runs.
static REQUEST_W: AtomicI32 = AtomicI32::new(-1);
/// Read end of the done pipe: readable once the terminating write is over.
static DONE_R: AtomicI32 = AtomicI32::new(-1);
/// The process the thread runs in: a forked child inherits the handlers and the pipes,
/// not the thread, and must not ask its parent's writer for anything.
static WRITER_PID: AtomicI32 = AtomicI32::new(-1);

fn ours() -> bool {
    // SAFETY: getpid is async-signal-safe and cannot fail.
    WRITER_PID.load(Acquire) == unsafe { libc::getpid() }
}

const OUTSIDE_USR1: u8 = b'U';
const PASSED_USR1: u8 = b'u';
/// `sigval` of a SIGUSR1 one rank passes on to another ("loggp").
pub const PASSED_ON: usize = 0x0001_0669;

/// Longest a terminating signal's handler waits for the partial write. A write takes
/// a few ms here (a rank file of ~0.6 MB); a launcher that kills the other ranks once one
/// has died must not find ours still writing.
const TERMINATE_WAIT_MS: c_int = 1500;
/// Interim requests closer than this to the last interim write are one request (a
/// SIGUSR1 that reached every rank through the launcher and was also passed on).
const COALESCE: Duration = Duration::from_secs(1);

/// What the thread writes with: the orchestrator's interim and partial rank-file writers
/// (each takes why the file is written).
#[derive(Clone, Copy)]
pub struct Writes {
    pub interim: fn(&str),
    pub partial: fn(&str),
}

/// Starts the thread. `local_pids`: the other ranks of this host, to pass SIGUSR1 on to.
pub fn start(writes: Writes, interval_s: u64, local_pids: Vec<i32>) -> bool {
    let (mut req, mut done) = ([0 as c_int; 2], [0 as c_int; 2]);
    // SAFETY: pipe2 writes two fds into each array.
    unsafe {
        if libc::pipe2(req.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return false;
        }
        if libc::pipe2(done.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            libc::close(req[0]);
            libc::close(req[1]);
            return false;
        }
        // A handler never blocks on a full pipe: a request that does not fit is one
        // already pending.
        libc::fcntl(req[1], libc::F_SETFL, libc::O_NONBLOCK);
    }
    // The new thread inherits this mask: all signals blocked there.
    // SAFETY: sigset operations on local sets.
    let spawned = unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        let r = std::thread::Builder::new()
            .name("loggp-writer".into())
            .spawn(move || run(writes, req[0], done[1], interval_s, local_pids));
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        r.is_ok()
    };
    if spawned {
        // SAFETY: as above.
        WRITER_PID.store(unsafe { libc::getpid() }, Release);
        REQUEST_W.store(req[1], Release);
        DONE_R.store(done[0], Release);
    }
    spawned
}

fn run(writes: Writes, request_r: c_int, done_w: c_int, interval_s: u64, local_pids: Vec<i32>) {
    let interval = (interval_s > 0).then(|| Duration::from_secs(interval_s));
    let mut next = interval.map(|i| Instant::now() + i);
    let mut last_interim: Option<Instant> = None;
    let recent = |last: &Option<Instant>| last.is_some_and(|t| t.elapsed() < COALESCE);
    loop {
        let timeout_ms = match next {
            Some(t) => t
                .saturating_duration_since(Instant::now())
                .as_millis()
                .min(i32::MAX as u128) as c_int,
            None => -1,
        };
        let mut pfd = libc::pollfd {
            fd: request_r,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd.
        let n = unsafe { libc::poll(&mut pfd, 1, timeout_ms) };
        if n < 0 {
            continue; // EINTR cannot happen (all blocked), but harmless
        }
        if runtime::phase() == runtime::Phase::Done {
            return;
        }
        if n == 0 {
            if let (Some(t), Some(i)) = (next.as_mut(), interval) {
                *t += i;
                (writes.interim)("LOGGP_INTERVAL");
                last_interim = Some(Instant::now());
            }
            continue;
        }
        let mut byte = 0u8;
        // SAFETY: one byte into a local.
        if unsafe { libc::read(request_r, &mut byte as *mut u8 as *mut _, 1) } != 1 {
            continue;
        }
        match byte {
            OUTSIDE_USR1 => {
                if !recent(&last_interim) {
                    last_interim = Some(Instant::now());
                    (writes.interim)("SIGUSR1");
                }
                pass_on(&local_pids);
            }
            PASSED_USR1 => {
                if !recent(&last_interim) {
                    last_interim = Some(Instant::now());
                    (writes.interim)("SIGUSR1 (passed on by a rank of this host)");
                }
            }
            sig => {
                if crate::base::settings::get().verbose >= 2 {
                    runtime::say(&format!(
                        "loggp: signal {sig}: writing the partial rank file"
                    ));
                }
                (writes.partial)(signal_name(sig as c_int));
                // SAFETY: one byte to our own pipe; never read, so it stays readable for
                // every handler that waits.
                unsafe { libc::write(done_w, b"d".as_ptr() as *const _, 1) };
                return;
            }
        }
    }
}

/// Passes an outside SIGUSR1 on to the other ranks of this host, marked so that they do
/// not pass it on again. Ranks on other hosts are reached by the launcher: `mpirun`,
/// Hydra and `scancel --signal=USR1` deliver it to every rank.
fn pass_on(pids: &[i32]) {
    for &pid in pids {
        let v = libc::sigval {
            sival_ptr: PASSED_ON as *mut _,
        };
        // SAFETY: queues a signal to a process of this job; failure is harmless.
        unsafe { libc::sigqueue(pid, libc::SIGUSR1, v) };
    }
}

pub fn signal_name(sig: c_int) -> &'static str {
    match sig {
        libc::SIGTERM => "signal SIGTERM",
        libc::SIGINT => "signal SIGINT",
        libc::SIGHUP => "signal SIGHUP",
        _ => "signal",
    }
}

/// From a SIGUSR1 handler: asks for an interim write. Async-signal-safe.
pub fn request_interim(passed_on: bool) -> bool {
    let fd = REQUEST_W.load(Acquire);
    if fd < 0 || !ours() {
        return false;
    }
    let b = if passed_on { PASSED_USR1 } else { OUTSIDE_USR1 };
    // SAFETY: one byte to a non-blocking pipe.
    unsafe { libc::write(fd, &b as *const u8 as *const _, 1) };
    true
}

/// From a terminating signal's handler: asks for the partial write and waits for it at
/// most `TERMINATE_WAIT_MS`. Async-signal-safe: write and poll only.
pub fn request_partial_and_wait(sig: c_int) {
    let (w, done) = (REQUEST_W.load(Acquire), DONE_R.load(Acquire));
    if w < 0 || done < 0 || !ours() {
        return;
    }
    let b = sig as u8;
    // SAFETY: one byte to a non-blocking pipe, then poll on one fd.
    unsafe {
        libc::write(w, &b as *const u8 as *const _, 1);
        let mut pfd = libc::pollfd {
            fd: done,
            events: libc::POLLIN,
            revents: 0,
        };
        let deadline =
            crate::base::clock::monotonic_raw_ns() + TERMINATE_WAIT_MS as u64 * 1_000_000;
        loop {
            let left_ms =
                deadline.saturating_sub(crate::base::clock::monotonic_raw_ns()) / 1_000_000;
            let r = libc::poll(&mut pfd, 1, left_ms as c_int);
            if r != 0 && !(r < 0 && *libc::__errno_location() == libc::EINTR) {
                break;
            }
            if r == 0 || left_ms == 0 {
                break;
            }
        }
    }
    close_naming_gate();
}

// The naming gate: a file a rank writes is unnamed (O_TMPFILE) until complete, then
// linked under a temporary name and renamed over the report. A process that dies between
// the link and the rename would leave the temporary name behind; a terminating handler
// closes the gate first, so a write either finishes naming or never starts it.
const GATE_OPEN: u8 = 0;
const GATE_NAMING: u8 = 1;
const GATE_CLOSED: u8 = 2;
static GATE: AtomicU8 = AtomicU8::new(GATE_OPEN);
/// The temporary name being linked while the gate is `GATE_NAMING` (NUL-terminated).
static NAMING_PATH: [AtomicU8; 4096] = [const { AtomicU8::new(0) }; 4096];

/// Before linking `tmp`: false when the process is going away (do not link).
pub fn begin_naming(tmp: &str) -> bool {
    let b = tmp.as_bytes();
    if b.len() >= NAMING_PATH.len() || GATE.load(Acquire) != GATE_OPEN {
        return false;
    }
    for (i, &c) in b.iter().enumerate() {
        NAMING_PATH[i].store(c, Relaxed);
    }
    NAMING_PATH[b.len()].store(0, Relaxed);
    GATE.compare_exchange(GATE_OPEN, GATE_NAMING, AcqRel, Acquire)
        .is_ok()
}

/// After the rename (or its failure).
pub fn end_naming() {
    let _ = GATE.compare_exchange(GATE_NAMING, GATE_OPEN, AcqRel, Acquire);
}

/// From a terminating handler: no write links a name from now on; one caught between
/// link and rename gets 100 ms to finish, then its temporary name is unlinked.
fn close_naming_gate() {
    for _ in 0..100 {
        match GATE.compare_exchange(GATE_OPEN, GATE_CLOSED, AcqRel, Acquire) {
            Ok(_) | Err(GATE_CLOSED) => return,
            Err(_) => {
                // SAFETY: a 1 ms sleep (nanosleep is async-signal-safe).
                let ts = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 1_000_000,
                };
                unsafe { libc::nanosleep(&ts, std::ptr::null_mut()) };
            }
        }
    }
    let mut path = [0u8; 4096];
    for (d, s) in path.iter_mut().zip(NAMING_PATH.iter()) {
        *d = s.load(Relaxed);
    }
    path[4095] = 0;
    GATE.store(GATE_CLOSED, Release);
    // SAFETY: a NUL-terminated path on the stack.
    unsafe { libc::unlink(path.as_ptr() as *const _) };
}
