//! The rank's counters over time (issue 27 §2): at each interim snapshot (LOGGP_INTERVAL,
//! SIGUSR1) the writer thread adds one point of cumulative counters, and `loggp trace`
//! draws their rates between points: the share of time in MPI, the small sends' mean
//! call time (the passive o_s of the smallest messages) and the share off the CPU.
//!
//! Off the hot path: only the writer thread adds (and MPI_Init's start point, before the
//! writer's first tick); MPI_Finalize takes them. Bounded: at most `MAX_POINTS`; when
//! full, every other point is dropped. The counters are cumulative, so the rates over
//! the longer intervals that remain are still exact.
use loggp_report::{Report, Role};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

const MAX_POINTS: usize = 1024;

/// The largest message counted as small: vader's first switch, below every eager limit
/// seen here (UCX's am_short is 92 B, so a UCX job's small sends span two ranges).
pub const SMALL_SEND_BYTES: u64 = 256;

/// One point: the rank's counter and cumulative counts since MPI_Init returned (MPI_Init's own call left out).
#[derive(Clone, Copy, Debug, Default)]
pub struct Point {
    pub tick: u64,
    pub time_in_mpi_ns: f64,
    pub calls: u64,
    /// Blocking and nonblocking sends (MPI_Send, MPI_Isend) of at most
    /// `SMALL_SEND_BYTES`: their number and summed call time.
    pub small_send_calls: u64,
    pub small_send_ns: f64,
    /// The thread that called MPI_Init: its time on a CPU and waiting in the run queue
    /// for one (Linux schedstat), where readable.
    pub on_cpu_ns: Option<u64>,
    pub runqueue_ns: Option<u64>,
}

static POINTS: Mutex<Vec<Point>> = Mutex::new(Vec::new());
static MAIN_TID: AtomicI32 = AtomicI32::new(0);

/// At the end of MPI_Init (after the calibration), from the thread that called it: its
/// id for schedstat, and the start point (every count zero).
pub fn start() {
    // SAFETY: gettid has no arguments and cannot fail.
    let tid = unsafe { libc::syscall(libc::SYS_gettid) } as i32;
    MAIN_TID.store(tid, Ordering::Relaxed);
    let p = point(None);
    if let Ok(mut v) = POINTS.lock() {
        v.clear();
        v.push(p);
    }
}

/// When a snapshot's counts were read: the counter at the middle of the read, and the
/// MPI_Init thread's schedstat then. Taken beside the read, not when the point is
/// added: the interim report is assembled in between, which on a loaded 2-core machine
/// takes long enough to move a 1 s interval's share in MPI (a CI run saw 1.066 against
/// the program's 1.000, MPICH, 4 ranks).
#[derive(Clone, Copy, Debug, Default)]
pub struct Stamp {
    tick: u64,
    sched: Option<(u64, u64)>,
}

/// Brackets `read` (which reads the counts) with two counter reads; its stamp is their
/// middle.
pub fn stamped<T>(read: impl FnOnce() -> T) -> (T, Stamp) {
    let t0 = crate::base::clock::now();
    let v = read();
    let t1 = crate::base::clock::now();
    let stamp = Stamp {
        tick: t0 + t1.saturating_sub(t0) / 2,
        sched: schedstat(MAIN_TID.load(Ordering::Relaxed)),
    };
    (v, stamp)
}

/// One point from an interim report of this rank (the writer thread), at `at`: when its
/// counts were read.
pub fn add(r: &Report, at: Stamp) {
    let mut p = point(Some(r));
    p.tick = at.tick;
    p.on_cpu_ns = at.sched.map(|s| s.0);
    p.runqueue_ns = at.sched.map(|s| s.1);
    if let Ok(mut v) = POINTS.lock() {
        if v.len() >= MAX_POINTS {
            // Keep the first and every other one after it.
            let kept: Vec<Point> = v.iter().copied().step_by(2).collect();
            *v = kept;
        }
        v.push(p);
    }
}

/// The points so far (MPI_Finalize).
pub fn taken() -> Vec<Point> {
    POINTS.lock().map(|v| v.clone()).unwrap_or_default()
}

fn point(r: Option<&Report>) -> Point {
    let mut p = Point {
        tick: crate::base::clock::now(),
        ..Default::default()
    };
    if let Some(r) = r {
        // Counted from the end of MPI_Init: its own call (and the calibration in it)
        // is left out.
        let after_init = |f: &String| !f.starts_with("MPI_Init");
        for k in &r.ranks {
            for (_, c) in k.calls.iter().filter(|(f, _)| after_init(f)) {
                p.time_in_mpi_ns += c.time_ns;
                p.calls += c.count;
            }
            // A call in progress counts up to the read: a call counted only when it ends
            // would move its whole time into the interval where it ends (a rank
            // descheduled inside a call for a time slice moves tens of ms).
            p.time_in_mpi_ns += k
                .in_progress
                .iter()
                .filter(|c| after_init(&c.function))
                .map(|c| c.for_ns)
                .sum::<f64>();
        }
        for c in r.cells.iter().filter(|c| {
            c.role == Role::Initiates
                && (c.function == "MPI_Send" || c.function == "MPI_Isend")
                && c.largest_bytes <= SMALL_SEND_BYTES
        }) {
            p.small_send_calls += c.count;
            p.small_send_ns += c.time_ns;
        }
    }
    if let Some((on, wait)) = schedstat(MAIN_TID.load(Ordering::Relaxed)) {
        p.on_cpu_ns = Some(on);
        p.runqueue_ns = Some(wait);
    }
    p
}

/// /proc/self/task/<tid>/schedstat: ns on a CPU, ns waiting in the run queue (and
/// time slices). None where the kernel does not offer it.
fn schedstat(tid: i32) -> Option<(u64, u64)> {
    if tid <= 0 {
        return None;
    }
    let s = std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat")).ok()?;
    let mut w = s.split_whitespace().map(|x| x.parse::<u64>().ok());
    Some((w.next()??, w.next()??))
}
