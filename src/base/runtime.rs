//! The shim's state and its two safety nets: the reentry guard and the fault stop.
//!
//! `ACTIVE` is the one flag the hot path reads: true between a successful MPI_Init set-up
//! and the start of MPI_Finalize, false when LOGGP_DISABLE is set or after a fault. A
//! panic anywhere in the shim's own code is caught at the C boundary by [`protect`]; it
//! turns profiling off for the rest of the run and says so once on stderr.
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::*};
use std::sync::Mutex;

static ACTIVE: AtomicBool = AtomicBool::new(false);
static FAULTED: AtomicBool = AtomicBool::new(false);
static FAULT_REASON: Mutex<String> = Mutex::new(String::new());

/// Lifecycle: every exit path (Finalize, Abort, exit, signal) goes through one transition
/// to `Done`, so that a report is written at most once per rank.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Phase {
    Loaded = 0,
    Running = 1,
    Finishing = 2,
    Done = 3,
}

static PHASE: AtomicU8 = AtomicU8::new(Phase::Loaded as u8);

pub fn phase() -> Phase {
    match PHASE.load(Acquire) {
        0 => Phase::Loaded,
        1 => Phase::Running,
        2 => Phase::Finishing,
        _ => Phase::Done,
    }
}

pub fn set_running() {
    PHASE.store(Phase::Running as u8, Release);
    if !FAULTED.load(Relaxed) && !PAUSED.load(Relaxed) {
        ACTIVE.store(true, Release);
    }
}

/// MPI_Pcontrol(0) until MPI_Pcontrol(level ≠ 0) (MPI 4.0 §15.2.4, as mpiP and IPM read
/// it): the application pauses the profile around code it does not want counted. A
/// pause clears `ACTIVE`, the flag the hot path already reads, so that it costs the
/// hot path nothing; every intercepted call made while paused passes straight to its
/// PMPI_ function, unrecorded.
static PAUSED: AtomicBool = AtomicBool::new(false);
/// The counter at the open pause's start (meaningful while `PAUSED`); `NOT_TIMED` for a
/// pause made before MPI_Init, when the counter is not set up yet (its ticks would not
/// be the ones the end of the pause reads).
static PAUSED_SINCE_TICKS: AtomicU64 = AtomicU64::new(0);
const NOT_TIMED: u64 = u64::MAX;
static PAUSES: AtomicU64 = AtomicU64::new(0);
static PAUSED_TICKS: AtomicU64 = AtomicU64::new(0);

/// Pauses (`pause`) or resumes profiling; a repeat of the state it is in does nothing.
pub fn pcontrol(pause: bool) {
    let now = crate::base::clock::now();
    if pause {
        if !PAUSED.swap(true, AcqRel) {
            let since = if phase() == Phase::Loaded {
                NOT_TIMED
            } else {
                now
            };
            PAUSED_SINCE_TICKS.store(since, Release);
            PAUSES.fetch_add(1, Relaxed);
            ACTIVE.store(false, Release);
        }
    } else if PAUSED.swap(false, AcqRel) {
        let since = PAUSED_SINCE_TICKS.load(Acquire);
        if since != NOT_TIMED {
            PAUSED_TICKS.fetch_add(now.saturating_sub(since), Relaxed);
        }
        if phase() == Phase::Running && !FAULTED.load(Acquire) {
            ACTIVE.store(true, Release);
            // A fault between the check and the store keeps profiling off.
            if FAULTED.load(Acquire) {
                ACTIVE.store(false, Release);
            }
        }
    }
}

/// The pauses so far, and the counter ticks paused (an open pause counted to `now`).
pub fn paused_ticks(now: u64) -> (u64, u64) {
    let since = PAUSED_SINCE_TICKS.load(Acquire);
    let open = if PAUSED.load(Acquire) && since != NOT_TIMED {
        now.saturating_sub(since)
    } else {
        0
    };
    (PAUSES.load(Relaxed), PAUSED_TICKS.load(Relaxed) + open)
}

/// Claims the right to write this rank's final or partial statistics: true for exactly one
/// caller, the first exit path to get here.
pub fn begin_finish() -> bool {
    ACTIVE.store(false, Release);
    PHASE
        .compare_exchange(
            Phase::Running as u8,
            Phase::Finishing as u8,
            AcqRel,
            Acquire,
        )
        .is_ok()
}

pub fn set_done() {
    PHASE.store(Phase::Done as u8, Release);
}

pub fn faulted() -> Option<String> {
    if FAULTED.load(Acquire) {
        Some(FAULT_REASON.lock().map(|s| s.clone()).unwrap_or_default())
    } else {
        None
    }
}

/// All the state the hot path keeps per thread, in one thread-local. A shared library
/// reaches a thread-local through `__tls_get_addr` (the general-dynamic TLS model, the
/// only one stable Rust gives a cdylib), once per variable and function: one block means
/// one such call per intercepted call, where three variables made four or five.
pub struct ThreadState {
    /// 0 outside an intercepted call; inside one, the application's call site (the
    /// entry point's return address), or 1 where it is not known.
    pub in_call: Cell<usize>,
    /// The thread's stats slot index + 1 (0 = not claimed yet, usize::MAX = none left).
    pub slot_index: Cell<usize>,
    /// The address of the thread's stats slot (its header; 0 until claimed) and its cell
    /// table's mask, kept here so that finding the slot on the hot path reads this block
    /// only (`record::stats::this_slot`).
    pub slot_header: Cell<usize>,
    pub slot_mask: Cell<usize>,
    /// The address of the thread's in-progress record in its slot (0 until its first
    /// call), see `record::progress::InProgress`.
    pub current: Cell<usize>,
    /// The thread's last probe that found a message (a blocking one, or polling ones):
    /// communicator handle, the message's source (world rank, low half) and tag (high
    /// half), the probe's entry (0: none), and the ticks inside the probe calls that found
    /// it (`samples::poll_word`). See `record::hooks::probe::probed_from`.
    pub probed: Cell<(u64, u64, u64, u64)>,
    /// The request (handle bits + 1; the first of an array) this thread is polling with
    /// Test calls that completed nothing, and the first such call's entry (0: none). See
    /// `record::hooks::complete::polled_since`.
    pub polled: Cell<(u64, u64)>,
    /// The ticks those Test calls took, together (the polls of a nonblocking collective
    /// are the collectives' time when one completes it: `complete::polled_since`).
    pub polled_ticks: Cell<u64>,
    /// The (communicator, source, tag) arguments this thread is polling with MPI_Iprobe
    /// or MPI_Improbe calls that found nothing, hashed, and the first such call's entry
    /// (0: none). See `record::hooks::probe::probe_polled_since`.
    pub probe_polled: Cell<(u64, u64)>,
    /// The ticks those probe calls took, together.
    pub probe_polled_ticks: Cell<u64>,
    /// Per collective channel (function and communicator: `samples::coll_channel`),
    /// direct-mapped by its hash: the channel, the exit of this thread's last call there,
    /// and `coll_ticks` at that exit, from which the next call's pause is timed
    /// (`hooks::coll::pause_since_last`).
    pub coll_exits: [Cell<(u64, u64, u64)>; COLL_EXITS],
    /// The ticks this thread has spent inside blocking collective calls, together.
    pub coll_ticks: Cell<u64>,
}

/// Entries of [`ThreadState::coll_exits`]: a job's collective channels are seldom more;
/// two that share an entry leave each other's next pause not known.
pub const COLL_EXITS: usize = 32;

thread_local! {
    pub static THREAD: ThreadState = const {
        ThreadState {
            in_call: Cell::new(0),
            slot_index: Cell::new(0),
            slot_header: Cell::new(0),
            slot_mask: Cell::new(0),
            current: Cell::new(0),
            probed: Cell::new((0, 0, 0, 0)),
            polled: Cell::new((0, 0)),
            polled_ticks: Cell::new(0),
            probe_polled: Cell::new((0, 0)),
            probe_polled_ticks: Cell::new(0),
            coll_exits: [const { Cell::new((0, 0, 0)) }; COLL_EXITS],
            coll_ticks: Cell::new(0),
        }
    };
}

/// Held while an intercepted call runs; a nested MPI_ call (an MPI implementation calling
/// its own MPI_ symbols, a Fortran binding routed through C) passes straight through.
pub struct Guard(());

impl Guard {
    /// Entered from the application's call at `call_site` (0: not known).
    #[inline(always)]
    pub fn enter(call_site: usize) -> Option<Guard> {
        if !ACTIVE.load(Relaxed) {
            return None;
        }
        Guard::enter_from(call_site)
    }

    /// Like `enter`, but also while profiling is off (for the lifecycle calls).
    pub fn enter_always() -> Option<Guard> {
        Guard::enter_from(0)
    }

    #[inline(always)]
    fn enter_from(call_site: usize) -> Option<Guard> {
        THREAD.with(|t| {
            if t.in_call.get() != 0 {
                None
            } else {
                t.in_call.set(call_site.max(1));
                Some(Guard(()))
            }
        })
    }
}

impl Drop for Guard {
    #[inline(always)]
    fn drop(&mut self) {
        THREAD.with(|t| t.in_call.set(0));
    }
}

/// The application's call site of the intercepted call this thread is in (0: none known).
#[inline(always)]
pub fn call_site() -> usize {
    THREAD.with(|t| t.in_call.get()) & !1
}

/// The return address of the function this expands in: the application's call site when
/// it expands in an exported MPI entry point (or a function inlined into one). It reads
/// the frame record the prologue built, so it exists only where the shim is built with
/// frame pointers (`.cargo/config.toml`; build.rs checks and sets `loggp_call_sites`);
/// elsewhere it is 0 and the report says call sites were not recorded.
#[macro_export]
macro_rules! return_address {
    () => {{
        #[cfg(all(loggp_call_sites, target_arch = "x86_64"))]
        let ra: usize = {
            let ra: usize;
            // SAFETY: with frame pointers forced, rbp holds this frame's base, and the
            // word above it is the return address the call pushed.
            unsafe {
                std::arch::asm!("mov {}, qword ptr [rbp + 8]", out(reg) ra,
                    options(nostack, readonly, preserves_flags));
            }
            ra
        };
        #[cfg(all(loggp_call_sites, target_arch = "aarch64"))]
        let ra: usize = {
            let ra: usize;
            // SAFETY: with frame pointers forced, x29 holds this frame's record, whose
            // second word is the saved link register.
            unsafe {
                std::arch::asm!("ldr {}, [x29, #8]", out(reg) ra,
                    options(nostack, readonly, preserves_flags));
            }
            ra
        };
        #[cfg(not(loggp_call_sites))]
        let ra: usize = 0;
        ra
    }};
}

/// Runs shim code; a panic stops profiling instead of crossing into the application.
#[inline(always)]
pub fn protect<F: FnOnce()>(f: F) {
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
        fault("internal error (panic) while recording");
    }
}

/// Like [`protect`], returning the closure's value, or None after a fault.
pub fn guarded<T, F: FnOnce() -> T>(what: &str, f: F) -> Option<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => Some(v),
        Err(_) => {
            fault(&format!("internal error (panic) while {what}"));
            None
        }
    }
}

/// Stops profiling for the rest of the run and says so once.
#[cold]
pub fn fault(reason: &str) {
    ACTIVE.store(false, Release);
    if !FAULTED.swap(true, AcqRel) {
        if let Ok(mut r) = FAULT_REASON.lock() {
            *r = reason.to_string();
        }
        say(&format!("loggp: {reason}; profiling stopped for the rest of this run, the application continues"));
    }
}

/// An anonymous, private, zero-filled mapping that commits memory only where touched:
/// the fixed tables of the shim. None if it cannot be mapped.
pub fn map_zeroed(bytes: usize) -> Option<*mut u8> {
    // SAFETY: anonymous private mapping, no file.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    (p != libc::MAP_FAILED).then_some(p as *mut u8)
}

/// Writes one line to stderr without panicking (eprintln! can panic on a closed stderr).
pub fn say(line: &str) {
    let mut buf = Vec::with_capacity(line.len() + 1);
    buf.extend_from_slice(line.as_bytes());
    buf.push(b'\n');
    let mut off = 0;
    while off < buf.len() {
        // SAFETY: valid buffer; fd 2 may be closed, in which case write fails harmlessly.
        let n = unsafe { libc::write(2, buf[off..].as_ptr() as *const _, buf.len() - off) };
        if n <= 0 {
            break;
        }
        off += n as usize;
    }
}

/// Installs a panic hook that stays silent for panics inside the shim (its own message
/// comes from `fault`) and defers to the previous hook otherwise.
pub fn install_panic_hook() {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let ours = THREAD.try_with(|t| t.in_call.get() != 0).unwrap_or(false);
        if !ours {
            prev(info);
        }
    }));
}
