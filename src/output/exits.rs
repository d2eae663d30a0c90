//! Every way out other than MPI_Finalize: exit without it (atexit), and the terminating
//! signals SIGTERM, SIGINT and SIGHUP, whose handlers ask the writer thread for the
//! partial rank file, wait for it (bounded), then do what would have happened without us.
//! SIGUSR1 asks for an interim rank file. Handlers are async-signal-safe: no allocation,
//! lock, stdio or MPI.
use super::writer;
use crate::base::runtime::{self, Guard};
use std::os::raw::c_int;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// What the exit paths call: the partial rank file's writer, and the clean-up a
/// terminating signal does first (set once at MPI_Init, before any handler).
#[derive(Clone, Copy)]
pub struct ExitHooks {
    /// Writes this rank's partial file, saying how the rank ended.
    pub write_partial: fn(&str),
    /// Async-signal-safe clean-up (a raw transport's shared-memory name).
    pub cleanup: fn(),
}

static HOOKS: OnceLock<ExitHooks> = OnceLock::new();

/// How long the exit path takes on every rank, whatever its own write took (unless the
/// write takes longer). Why: a launcher may end a job's other ranks as soon as one exits
/// without MPI_Finalize (Hydra's proxy SIGKILLs them when a rank's PMI socket closes,
/// src/pm/hydra/pm/pmiserv/pmip_cb.c). Ranks that leave a barrier together and exit end
/// together without us; with us, rank 0 also writes the calibration (1.0–1.2 ms against
/// 0.7–0.8 for rank 1). In 100 MPICH 2-rank jobs of each kind, interleaved: unpadded, 18
/// exited 0 with one rank file missing (that rank killed mid-write) and 2 exited 9;
/// padded, 100 exited 0 with both files; without loggp, 99 exited 0 and 1 exited 1.
/// Beside a CPU hog, 40 of each: 6 unpadded lost a file, none padded. (Padded by a sleep
/// alone, whose wake-up differs by rank, 2 of 150 exited 1.) A rank that leaves without
/// MPI_Finalize loses only this much time.
const EXIT_PATH: Duration = Duration::from_millis(200);
/// The last part of the pad, kept by the clock rather than by a sleep: a sleep wakes late
/// by up to the timer slack (50 µs by default), by a different amount on each rank.
const SPIN: Duration = Duration::from_millis(2);

/// Returns at `deadline`: asleep until `SPIN` before it, then by the clock.
fn wait_until(deadline: Instant) {
    if let Some(d) = deadline.checked_duration_since(Instant::now() + SPIN) {
        std::thread::sleep(d);
    }
    while Instant::now() < deadline {
        std::hint::spin_loop();
    }
}

extern "C" fn at_exit() {
    if runtime::phase() == runtime::Phase::Running {
        if let (Some(_g), Some(h)) = (Guard::enter_always(), HOOKS.get()) {
            let entered = Instant::now();
            (h.write_partial)("exit without MPI_Finalize");
            runtime::protect(|| wait_until(entered + EXIT_PATH));
        }
    }
}

const SIGNALS: [c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];
/// The dispositions we replaced, by signal number (written once at MPI_Init before any
/// handler is installed, read by handlers without a lock).
static OLD_ACTIONS: OnceLock<Vec<(c_int, libc::sigaction)>> = OnceLock::new();

/// SIGTERM, SIGINT, SIGHUP. Async-signal-safe: no allocation, lock, stdio or MPI. The
/// writer thread writes the partial rank file; this waits for it (bounded), then does
/// what would have happened without us.
extern "C" fn on_signal(sig: c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // A shared-memory segment of the raw calibration, if the kill came in its short
    // linked window: unlinked first (one syscall), so /dev/shm keeps nothing of ours.
    if let Some(h) = HOOKS.get() {
        (h.cleanup)();
    }
    if runtime::phase() == runtime::Phase::Running {
        writer::request_partial_and_wait(sig);
    }
    chain(sig, info, ctx);
}

/// SIGUSR1: an interim rank file, written by the writer thread; the rank goes on.
extern "C" fn on_usr1(sig: c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo with SA_SIGINFO.
    let passed_on = !info.is_null()
        && unsafe {
            (*info).si_code == libc::SI_QUEUE
                && (*info).si_value().sival_ptr as usize == writer::PASSED_ON
        };
    writer::request_interim(passed_on);
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

/// Installs the exit paths once, at MPI_Init: the writer thread (interim files every
/// `interval_s` and on SIGUSR1, passed on to `local_pids`), atexit, and the handlers of
/// SIGTERM, SIGINT, SIGHUP and SIGUSR1 (where the application does not ignore them).
pub fn install(hooks: ExitHooks, interim: fn(&str), interval_s: u64, local_pids: Vec<i32>) {
    if HOOKS.set(hooks).is_err() {
        return;
    }
    let writer = writer::start(
        writer::Writes {
            interim,
            partial: hooks.write_partial,
        },
        interval_s,
        local_pids,
    );
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
