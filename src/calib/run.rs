//! Active calibration at MPI_Init: every rank takes part, in disjoint pairs, on the private
//! communicator; the lower rank of a pair drives the probes (see `engine`), measures each
//! size of the schedule for each mode, fits the protocol ranges (see `fit`) and locates
//! each switch to the byte by bisection. Results stay on the client until MPI_Finalize,
//! where they travel to rank 0 with the statistics.
use super::engine::{late_delay, measure_point, serve, Client, Control, PointTicks, Transport};
use crate::mpi::{self, MPI_Comm};
use crate::peers::{class_of_world, World};
use crate::runtime::say;
use crate::settings::{self, Calibrate};
use crate::stats::Class;
use loggp_model::active as model;
use loggp_model::stats::summarize;
use std::os::raw::c_int;
use std::sync::Mutex;

const CTRL_TAG: c_int = 0x1067;
const DATA_TAG: c_int = 0x1068;
const MODE_BEGIN: u64 = 0x100;
const FINISH: u64 = 0x200;
const RAW_BEGIN: u64 = 0x300;

/// One mode's calibration between the pair.
#[derive(Clone, Debug, Default)]
pub struct ModeResult {
    pub mode: String,
    pub n: u64,
    pub points: Vec<PointTicks>,
    /// Each switch between the model's ranges, located to the byte: the last size of the
    /// range on its left. The ranges themselves are fitted at report time.
    pub switches: Vec<usize>,
    /// Level changes between two schedule sizes that did not repeat when both were probed
    /// again, interleaved (not switches; the report's ranges do not split there).
    pub not_repeated: Vec<[usize; 2]>,
    /// Whether `active_bytes` was confirmed by repeated probes on both sides of it.
    pub exact: bool,
    /// Largest size still eager, located by bisection; None when no eager→rendezvous switch.
    pub active_bytes: Option<usize>,
    pub threshold_note: Option<String>,
    pub bisection_probes: u32,
    /// Where the schedule stopped growing before its largest size, and why (the next
    /// size would not have fitted in the budget left).
    pub schedule_note: Option<String>,
    /// The schedule stopped before its largest size (the budget allowed no more).
    pub schedule_cut: bool,
}

/// What this rank learned (clients) and what all ranks agreed on.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub status: String,
    pub duration_ns: f64,
    /// Every pair of every round.
    pub pairs: Vec<[u32; 2]>,
    /// What this rank measured as the client of a pair, one per round it drove.
    pub results: Vec<PairResult>,
    /// Notes for the report (where a schedule ended early, and why).
    pub warnings: Vec<String>,
    /// Why the probes cannot be trusted to the byte (the ranks were preempted).
    pub disturbance: Option<String>,
    /// Largest off-CPU share of a rank's probing time (see the report field).
    pub off_cpu_share: Option<f64>,
}

/// One pair's calibration, on its client.
#[derive(Clone, Debug)]
pub struct PairResult {
    pub pair: [u32; 2],
    pub class: Class,
    pub modes: Vec<ModeResult>,
    /// Raw transports beneath MPI.
    pub raw: Vec<RawResult>,
}

/// One raw transport's calibration between the pair, or why there is none.
#[derive(Clone, Debug, Default)]
pub struct RawResult {
    pub transport: String,
    pub status: String,
    pub result: ModeResult,
    /// UCT: the transport and device used, and which operation carried which sizes.
    pub tl: Option<String>,
    pub device: Option<String>,
    pub note: Option<String>,
}

static OUTCOME: Mutex<Option<Outcome>> = Mutex::new(None);

pub fn outcome() -> Option<Outcome> {
    OUTCOME.lock().ok().and_then(|o| o.clone())
}

/// Disjoint pairs over all ranks: first one pair inside a node and one across nodes where
/// the job has them, then the remaining ranks in order; an odd rank out waits.
pub fn choose_pairs(node_of: &[u32]) -> Vec<[u32; 2]> {
    let n = node_of.len();
    let mut used = vec![false; n];
    let mut pairs = vec![];
    let mut take = |a: usize, b: usize, used: &mut Vec<bool>| {
        used[a] = true;
        used[b] = true;
        pairs.push([a as u32, b as u32]);
    };
    if let Some((a, b)) = (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .find(|&(a, b)| node_of[a] == node_of[b])
    {
        take(a, b, &mut used);
    }
    if let Some((a, b)) = (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .find(|&(a, b)| !used[a] && !used[b] && node_of[a] != node_of[b])
    {
        take(a, b, &mut used);
    }
    let rest: Vec<usize> = (0..n).filter(|&r| !used[r]).collect();
    for c in rest.chunks(2) {
        if let [a, b] = c {
            take(*a, *b, &mut used);
        }
    }
    pairs
}

/// The rounds of pairs: `choose_pairs`, then, where that has no pair across nodes but the
/// job spans several (two nodes of two ranks: both pairs lie inside a node), a second
/// round with one pair across, so that both peer classes are calibrated in one job.
pub fn choose_rounds(node_of: &[u32]) -> Vec<Vec<[u32; 2]>> {
    let first = choose_pairs(node_of);
    let across = |p: &[u32; 2]| node_of[p[0] as usize] != node_of[p[1] as usize];
    let mut rounds = vec![first];
    if !rounds[0].iter().any(across) {
        if let Some(b) = (1..node_of.len()).find(|&b| node_of[b] != node_of[0]) {
            rounds.push(vec![[0, b as u32]]);
        }
    }
    rounds
}

/// The message sizes of a schedule: 1 byte, then `per_octave` sizes per power of two.
pub fn schedule(max: usize, per_octave: u32) -> Vec<usize> {
    let mut v = vec![1usize];
    let mut k = 1u32;
    while (1usize << k) <= max {
        for j in 0..per_octave {
            let s = (2f64.powf(k as f64 + j as f64 / per_octave as f64)).round() as usize;
            if s <= max && v.last() != Some(&s) {
                v.push(s);
            }
        }
        k += 1;
    }
    v
}

/// First byte of the client's stop mark (probe data is 0xA5).
const STOP_BYTE: u8 = 0x5A;

/// MPI point-to-point in one send mode on the private communicator.
struct MpiTransport {
    comm: MPI_Comm,
    peer: c_int,
    mode: String,
    sbuf: Vec<u8>,
    rbuf: Vec<u8>,
}

impl Transport for MpiTransport {
    fn send(&mut self, size: usize) -> bool {
        let buf = self.sbuf.as_ptr() as *const _;
        let (n, dt) = (size as c_int, mpi::dt_byte());
        // SAFETY: sbuf holds at least `size` bytes; private communicator.
        let rc = unsafe {
            match self.mode.as_str() {
                "ssend" => mpi::PMPI_Ssend(buf, n, dt, self.peer, DATA_TAG, self.comm),
                "isend" => {
                    let mut r: mpi::MPI_Request = mpi::request_null();
                    mpi::PMPI_Isend(buf, n, dt, self.peer, DATA_TAG, self.comm, &mut r);
                    mpi::PMPI_Wait(&mut r, mpi::status_ignore())
                }
                _ => mpi::PMPI_Send(buf, n, dt, self.peer, DATA_TAG, self.comm),
            }
        };
        rc == mpi::success()
    }
    /// The stop mark: one byte of `STOP_BYTE` on the data tag (every probe message is at
    /// least 1 byte of 0xA5, and a receive of s ≥ 1 bytes takes a shorter message).
    fn send_stop(&mut self) -> bool {
        let mark = [STOP_BYTE];
        // SAFETY: one byte; private communicator.
        unsafe {
            mpi::PMPI_Send(
                mark.as_ptr() as *const _,
                1,
                mpi::dt_byte(),
                self.peer,
                DATA_TAG,
                self.comm,
            ) == mpi::success()
        }
    }
    fn clear_stop(&mut self) {
        if let Some(b) = self.rbuf.first_mut() {
            *b = 0;
        }
    }
    fn stopped(&self) -> bool {
        self.rbuf.first() == Some(&STOP_BYTE)
    }
    fn recv(&mut self, size: usize) -> bool {
        let buf = self.rbuf.as_mut_ptr() as *mut _;
        let (n, dt) = (size as c_int, mpi::dt_byte());
        // SAFETY: rbuf holds at least `size` bytes.
        let rc = unsafe {
            if self.mode == "isend" {
                let mut r: mpi::MPI_Request = mpi::request_null();
                mpi::PMPI_Irecv(buf, n, dt, self.peer, DATA_TAG, self.comm, &mut r);
                mpi::PMPI_Wait(&mut r, mpi::status_ignore())
            } else {
                mpi::PMPI_Recv(
                    buf,
                    n,
                    dt,
                    self.peer,
                    DATA_TAG,
                    self.comm,
                    mpi::status_ignore(),
                )
            }
        };
        rc == mpi::success()
    }
    fn progress(&mut self) {
        let mut flag: c_int = 0;
        // SAFETY: a probe on a tag nobody sends; it only drives MPI's progress engine.
        unsafe {
            mpi::PMPI_Iprobe(
                self.peer,
                DATA_TAG + 1,
                self.comm,
                &mut flag,
                mpi::status_ignore(),
            )
        };
    }
}

struct MpiControl {
    comm: MPI_Comm,
    peer: c_int,
}

impl Control for MpiControl {
    fn send_words(&mut self, w: &[u64; 4]) -> bool {
        // SAFETY: four u64 on the private communicator.
        unsafe {
            mpi::PMPI_Send(
                w.as_ptr() as *const _,
                4,
                mpi::dt_u64(),
                self.peer,
                CTRL_TAG,
                self.comm,
            ) == mpi::success()
        }
    }
    fn recv_words(&mut self) -> Option<[u64; 4]> {
        let mut w = [0u64; 4];
        // SAFETY: room for four u64.
        let rc = unsafe {
            mpi::PMPI_Recv(
                w.as_mut_ptr() as *mut _,
                4,
                mpi::dt_u64(),
                self.peer,
                CTRL_TAG,
                self.comm,
                mpi::status_ignore(),
            )
        };
        (rc == mpi::success()).then_some(w)
    }
}

const MODES: [&str; 3] = ["send", "isend", "ssend"];

enum Stop {
    Budget(String),
    Failed(String),
}

/// Runs the calibration on every rank; returns when all ranks agree it is over.
pub fn run_at_init(comm: MPI_Comm, world: &World) {
    let s = settings::get();
    let mut out = Outcome::default();
    if s.calibrate == Calibrate::Off {
        out.status = "off".into();
    } else if world.size < 2 {
        out.status = "skipped: a job of one rank has no pair to measure".into();
    } else {
        calibrate(comm, world, s, &mut out);
    }
    if let Ok(mut o) = OUTCOME.lock() {
        *o = Some(out);
    }
}

fn calibrate(comm: MPI_Comm, world: &World, s: &settings::Settings, out: &mut Outcome) {
    let quick = s.calibrate == Calibrate::Quick;
    let (per_octave, reps, n) = if quick { (4, 5u64, 16u64) } else { (8, 9, 16) };
    let max_size = s.max_bytes();
    let budget_ns = s.budget_ms() * 1_000_000;
    let modes = s.modes();
    let rounds = choose_rounds(&world.node_of);
    out.pairs = rounds.concat();
    let verbose = s.verbose >= 1 && world.rank == 0;
    if verbose {
        say(&format!(
            "loggp: calibrating ({}, {} pair(s), modes {}, budget {} ms) ...",
            s.calibrate.name(),
            out.pairs.len(),
            modes.join(","),
            s.budget_ms()
        ));
    }
    super::engine::set_yield_margin();
    // One start for all pairs: ranks reach MPI_Init at different times (seconds apart
    // with 64 ranks on 2 cores), and the last pair to start would hold the others in the
    // closing reduction past the budget.
    // SAFETY: the private communicator.
    unsafe { mpi::PMPI_Barrier(comm) };
    let t0 = crate::clock::monotonic_raw_ns();
    // A second barrier prices the closing reduction, which must fit in the budget too:
    // 64 ranks on 2 cores took ~0.2 s for it.
    // SAFETY: as above.
    unsafe { mpi::PMPI_Barrier(comm) };
    let collective_ns = crate::clock::monotonic_raw_ns().saturating_sub(t0);
    let preempted0 = involuntary_switches();
    let cpu0 = thread_cpu_ns();
    let me = world.rank as u32;
    let mut code: i32 = 0; // 0 done, 1 over budget, 2 failed
    let mut why = String::new();
    // The probes end a little before the budget (1/32 of it, or twice a collective's time
    // where that is more, at most a quarter), which leaves the fits, the set-up of a raw
    // transport and the closing reduction inside it. Rounds share what is left: each
    // client gives its round an equal part of the rest.
    let end = t0 + budget_ns - (budget_ns / 32).max(2 * collective_ns).min(budget_ns / 4);
    let plan = Plan {
        comm,
        max_size,
        sizes: schedule(max_size, per_octave),
        n,
        reps,
        modes: &modes,
        raw: s.raw.as_deref(),
        mpi_over_ucx: matches!(
            super::knob::transport_component().as_deref(),
            Some("pml ucx") | Some("ucx")
        ),
    };
    for (i, round) in rounds.iter().enumerate() {
        let Some(p) = round.iter().find(|p| p.contains(&me)) else {
            continue;
        };
        let peer = if p[0] == me { p[1] } else { p[0] };
        let class = class_of_world(world, peer as i32);
        if p[0] == me && code == 2 {
            // Failed in an earlier round: the server of this one still waits for a
            // command, and only its client can release it. (A round stopped by its share
            // of the budget leaves the next its own share.)
            MpiControl {
                comm,
                peer: peer as c_int,
            }
            .send_words(&[FINISH, 0, 0, 0]);
        } else if p[0] == me {
            let now_ns = crate::clock::monotonic_raw_ns();
            let deadline = now_ns + end.saturating_sub(now_ns) / (rounds.len() - i) as u64;
            let (r, c, w) = drive_pair(&plan, *p, class, deadline, &mut out.warnings);
            out.results.push(r);
            if c > code {
                (code, why) = (c, w);
            }
        } else {
            serve_pair(&plan, peer, class == Class::IntraNode);
        }
    }
    // All ranks agree on the outcome (the worst of all pairs) and on how often the most
    // disturbed rank was preempted while probing.
    let preempted = involuntary_switches()
        .saturating_sub(preempted0)
        .min(c_int::MAX as i64) as c_int;
    // Off-CPU share of this rank's probing, in per mille: wall time the thread did not run.
    let wall = crate::clock::monotonic_raw_ns().saturating_sub(t0).max(1);
    let off_cpu_permille = match (cpu0, thread_cpu_ns()) {
        (Some(a), Some(b)) => {
            let off = wall.saturating_sub(b.saturating_sub(a));
            (off.saturating_mul(1000) / wall).min(1000) as c_int
        }
        _ => -1,
    };
    let mine: [c_int; 3] = [code, preempted, off_cpu_permille];
    let mut agreed: [c_int; 3] = mine;
    // SAFETY: three ints, MAX, on the private communicator.
    unsafe {
        mpi::PMPI_Allreduce(
            mine.as_ptr() as *const _,
            agreed.as_mut_ptr() as *mut _,
            3,
            mpi::dt_int(),
            mpi::op_max(),
            comm,
        )
    };
    let worst = agreed[0];
    out.duration_ns = crate::clock::monotonic_raw_ns().saturating_sub(t0) as f64;
    out.off_cpu_share = (agreed[2] >= 0).then(|| agreed[2] as f64 / 1000.0);
    // Disturbed: the probing thread was off its CPU for more than a tenth of the probing
    // time (where the thread CPU clock is missing: preempted more often than tolerated).
    let tolerated =
        (PREEMPTIONS_PER_S_TOLERATED * out.duration_ns / 1e9).max(PREEMPTIONS_FLOOR as f64);
    let disturbed = match out.off_cpu_share {
        Some(share) => share > OFF_CPU_SHARE_TOLERATED,
        None => agreed[1] as f64 > tolerated,
    };
    if disturbed {
        let share = out
            .off_cpu_share
            .map(|x| format!(" and off its CPU for {:.0} % of the time", x * 100.0))
            .unwrap_or_default();
        out.disturbance = Some(format!(
            "a rank was preempted {} times (involuntary context switches){share} during {:.0} ms of probes: other processes competed for its core, so the probes' times include waits for the CPU; switches located by them are not exact and the intervals are wider",
            agreed[1],
            out.duration_ns / 1e6
        ));
    }
    // A budget reached is not a failure: the probes stop in band, within it, and what
    // they measured is reported ("stopped: …", issue 13 §7).
    out.status = match worst {
        0 => "done".into(),
        1 if code == 1 => format!(
            "stopped: the budget of {} ms was reached ({why}); the sizes measured are kept",
            s.budget_ms()
        ),
        1 => format!(
            "stopped: another pair reached the budget of {} ms",
            s.budget_ms()
        ),
        _ if code == 2 => format!("failed: {why}"),
        _ => "failed: a pair could not complete its probes".into(),
    };
    // A disturbed calibration says so in its status: "disturbed: …" where it completed
    // (its switches are then not exact), appended where it failed.
    if out.disturbance.is_some() {
        out.status = if worst == 0 {
            "disturbed: the ranks were preempted while probing (see calibration.disturbance); switches are not exact".into()
        } else {
            format!(
                "{} (disturbed: the ranks were preempted while probing)",
                out.status
            )
        };
    }
    if verbose {
        say(&format!(
            "loggp: calibration {} in {:.0} ms",
            if worst == 0 { "done" } else { "stopped" },
            out.duration_ns / 1e6
        ));
    }
}

/// What every pair measures.
struct Plan<'a> {
    comm: MPI_Comm,
    max_size: usize,
    sizes: Vec<usize>,
    n: u64,
    reps: u64,
    modes: &'a [String],
    raw: Option<&'a [String]>,
    /// The MPI's point-to-point traffic runs over UCX (pml ucx, ch4:ucx).
    mpi_over_ucx: bool,
}

impl Plan<'_> {
    fn transport(&self, peer: u32, mode: &str) -> MpiTransport {
        MpiTransport {
            comm: self.comm,
            peer: peer as c_int,
            mode: mode.to_string(),
            sbuf: vec![0xA5; self.max_size],
            // Written, not only allocated: a zeroed allocation maps its pages lazily.
            rbuf: vec![0x5B; self.max_size],
        }
    }
}

/// The client of one pair: every mode, then the raw transports with what is left.
/// Returns its result and its code (0 done, 1 over budget, 2 failed) with why.
fn drive_pair(
    plan: &Plan,
    pair: [u32; 2],
    class: Class,
    deadline: u64,
    notes: &mut Vec<String>,
) -> (PairResult, i32, String) {
    let peer = pair[1];
    let mut res = PairResult {
        pair,
        class,
        modes: vec![],
        raw: vec![],
    };
    let (mut code, mut why) = (0, String::new());
    let mut planned: Option<String> = None;
    let mut ctl = MpiControl {
        comm: plan.comm,
        peer: peer as c_int,
    };
    // Each mode and each raw transport gets an equal part of what is left when it starts
    // (one mode must not spend the others' time, issue 13 §8).
    let modes: Vec<&str> = MODES
        .iter()
        .copied()
        .filter(|m| plan.modes.iter().any(|x| x == m))
        .collect();
    let raws = crate::raw::plan(plan.raw, class == Class::IntraNode, plan.mpi_over_ucx);
    let mut parts_left = (modes.len() + raws.iter().filter(|r| r.1.is_ok()).count()) as u64;
    let mut share = || {
        let now_ns = crate::clock::monotonic_raw_ns();
        let d = now_ns + deadline.saturating_sub(now_ns) / parts_left.max(1);
        parts_left = parts_left.saturating_sub(1);
        d
    };
    for mode in modes {
        if !ctl.send_words(&[
            MODE_BEGIN,
            MODES.iter().position(|m| *m == mode).unwrap_or(0) as u64,
            0,
            0,
        ]) {
            code = 2;
            why = "control message failed".into();
            break;
        }
        let mut t = plan.transport(peer, mode);
        let mut c = Client::new(&mut t, &mut ctl, share());
        let (m, stop) = calibrate_mode(&mut c, mode, &plan.sizes, plan.n, plan.reps);
        c.done();
        if let Some(note) = &m.schedule_note {
            notes.push(format!("calibration ({}, {mode}): {note}", class.name()));
            // A schedule cut short for lack of budget is a stop too, said in the
            // status; the raw transports still get their share.
            if m.schedule_cut && planned.is_none() {
                planned = Some(format!("{mode}: {note}"));
            }
        }
        if !m.points.is_empty() {
            res.modes.push(m);
        }
        match stop {
            None => {}
            Some(Stop::Budget(w)) => {
                code = 1;
                why = w;
                break;
            }
            Some(Stop::Failed(w)) => {
                code = 2;
                why = w;
                break;
            }
        }
    }
    // The raw transports, with what is left of the budget.
    for (name, how) in raws {
        let mut r = RawResult {
            transport: name,
            ..Default::default()
        };
        match how {
            Err(why) => r.status = why,
            Ok(_) if code != 0 => r.status = "skipped: the MPI calibration did not complete".into(),
            // The budget did not even cover the MPI schedule: nothing is left for this.
            Ok(_) if planned.is_some() => r.status =
                "skipped: the budget did not cover the MPI calibration's schedule (see warnings)"
                    .into(),
            Ok(raw) => {
                let (status, m) = raw_client(
                    &mut ctl,
                    &raw,
                    class == Class::InterNode,
                    &mut r,
                    plan.max_size,
                    &plan.sizes,
                    plan.n,
                    plan.reps,
                    share(),
                );
                // A raw transport over the budget is its own status; the MPI
                // calibration before it stays complete.
                r.status = status;
                r.result = m;
            }
        }
        res.raw.push(r);
    }
    ctl.send_words(&[FINISH, 0, 0, 0]);
    if let (0, Some(w)) = (code, planned) {
        (code, why) = (1, w);
    }
    (res, code, why)
}

/// The server of one pair: carries out the client's commands until it says FINISH.
fn serve_pair(plan: &Plan, peer: u32, same_host: bool) {
    let mut ctl = MpiControl {
        comm: plan.comm,
        peer: peer as c_int,
    };
    while let Some(w) = ctl.recv_words() {
        match w[0] {
            MODE_BEGIN => {
                let mode = MODES.get(w[1] as usize).copied().unwrap_or("send");
                let mut t = plan.transport(peer, mode);
                serve(&mut t, &mut ctl);
            }
            RAW_BEGIN => raw_server(&mut ctl, w, plan.max_size, same_host),
            _ => break,
        }
    }
}

/// A larger off-CPU share of the probing time marks the calibration disturbed. Measured on
/// this 2-core VM, 2 ranks, quick mode: undisturbed 0.002–0.015 (Open MPI vader, MPICH),
/// 0.005 for two namespace hosts over TCP; with two CPU-bound processes beside the job
/// 0.34–0.77; with both ranks bound to one core 0.50. (A count of involuntary switches
/// misleads where ranks yield when idle: sched_yield to a runnable task counts as one.)
const OFF_CPU_SHARE_TOLERATED: f64 = 0.10;

/// Without a thread CPU clock: more preemptions per second of probing than this mark the
/// calibration disturbed (and
/// never fewer than `PREEMPTIONS_FLOOR`). Measured on this 2-core VM, 2 ranks, quick mode:
/// undisturbed 9–36 per rank in 0.8 s (≤ 45/s: the launcher's own wake-ups); with two
/// CPU-bound processes beside the job 433–653 in 2.4–3.4 s (≥ 180/s).
const PREEMPTIONS_PER_S_TOLERATED: f64 = 100.0;
const PREEMPTIONS_FLOOR: c_int = 50;

/// CPU time of the calling thread so far (CLOCK_THREAD_CPUTIME_ID), in ns.
fn thread_cpu_ns() -> Option<u64> {
    // SAFETY: clock_gettime fills the struct we own.
    unsafe {
        let mut ts: libc::timespec = std::mem::zeroed();
        (libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) == 0)
            .then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
    }
}

/// Involuntary context switches of the calling thread so far (getrusage, RUSAGE_THREAD).
fn involuntary_switches() -> i64 {
    // SAFETY: getrusage fills the struct we own.
    unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_THREAD, &mut ru) == 0 {
            ru.ru_nivcsw
        } else {
            0
        }
    }
}

/// Client side of one raw transport: connect over the control channel, run the same
/// probes as for MPI, tear down. Returns the status and the result.
#[allow(clippy::too_many_arguments)]
fn raw_client(
    ctl: &mut MpiControl,
    raw: &crate::raw::Raw,
    inter: bool,
    entry: &mut RawResult,
    max_size: usize,
    sizes: &[usize],
    n: u64,
    reps: u64,
    deadline: u64,
) -> (String, ModeResult) {
    let name = entry.transport.clone();
    let name = name.as_str();
    if crate::clock::monotonic_raw_ns() > deadline {
        return (
            "skipped: the calibration budget was spent".into(),
            ModeResult::default(),
        );
    }
    let tl = match raw {
        crate::raw::Raw::Ucx(tl) => crate::raw::ucx::pack_name(tl),
        _ => [0, 0],
    };
    if !ctl.send_words(&[RAW_BEGIN, raw.id() | (inter as u64) << 8, tl[0], tl[1]]) {
        return (
            "failed: control message failed".into(),
            ModeResult::default(),
        );
    }
    static ATTEMPT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let attempt = ATTEMPT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    fn probe<T: Transport>(
        t: &mut T,
        ctl: &mut MpiControl,
        name: &str,
        sizes: &[usize],
        (n, reps): (u64, u64),
        deadline: u64,
    ) -> (ModeResult, Option<Stop>) {
        let mut c = Client::new(t, ctl, deadline);
        let r = calibrate_mode(&mut c, name, sizes, n, reps);
        c.done();
        r
    }
    let (m, stop) = match raw {
        crate::raw::Raw::Shm => match crate::raw::shm::connect_client(ctl, max_size, attempt) {
            Ok(mut t) => probe(&mut t, ctl, name, sizes, (n, reps), deadline),
            Err(e) => return (format!("failed: {e}"), ModeResult::default()),
        },
        crate::raw::Raw::Ucx(_) => match crate::raw::ucx::connect_client(ctl, inter, max_size) {
            Ok(mut t) => {
                entry.tl = Some(t.tl());
                entry.device = Some(t.device());
                entry.note = Some(format!("UCT {}/{}: {}", t.tl(), t.device(), t.describe()));
                probe(&mut t, ctl, name, sizes, (n, reps), deadline)
            }
            Err(e) => return (format!("failed: {e}"), ModeResult::default()),
        },
        crate::raw::Raw::Tcp => match crate::raw::tcp::connect_client(ctl, max_size) {
            Ok(mut t) => probe(&mut t, ctl, name, sizes, (n, reps), deadline),
            Err(e) => return (format!("failed: {e}"), ModeResult::default()),
        },
    };
    let status = match &stop {
        None if m.schedule_cut => format!(
            "stopped: the calibration budget was reached ({}); the sizes measured are kept",
            m.schedule_note.as_deref().unwrap_or("")
        ),
        None => "done".to_string(),
        Some(Stop::Budget(w)) => {
            format!(
                "stopped: the calibration budget was reached ({w}); the sizes measured are kept"
            )
        }
        Some(Stop::Failed(w)) => format!("failed: {w}"),
    };
    (status, m)
}

/// Server side of one raw transport.
fn raw_server(ctl: &mut MpiControl, w: [u64; 4], max_size: usize, same_host: bool) {
    match w[1] & 0xff {
        crate::raw::UCX => {
            let tl = crate::raw::ucx::unpack_name([w[2], w[3]]);
            let inter = w[1] >> 8 & 1 == 1;
            if let Ok(mut t) = crate::raw::ucx::connect_server(ctl, &tl, inter, max_size) {
                serve(&mut t, ctl);
            }
        }
        crate::raw::SHM => {
            if let Ok(mut t) = crate::raw::shm::connect_server(ctl, max_size) {
                serve(&mut t, ctl);
            }
        }
        _ => {
            if let Ok(mut t) = crate::raw::tcp::connect_server(ctl, max_size, same_host) {
                serve(&mut t, ctl);
            }
        }
    }
}

fn calibrate_mode<T: Transport, C: Control>(
    c: &mut Client<T, C>,
    mode: &str,
    sizes: &[usize],
    n: u64,
    reps: u64,
) -> (ModeResult, Option<Stop>) {
    let mut m = ModeResult {
        mode: mode.into(),
        n,
        ..Default::default()
    };
    // Warm-up, not recorded: first messages pay for connection set-up and page faults
    // (the buffers are written in full beforehand). One message of up to 1 MiB: a burst
    // at the largest size cost 21 s at 200 Mbit/s with 16 MiB (full), the whole budget.
    let max = *sizes.last().unwrap_or(&0);
    for (k, s) in [(n, 1), (1, max.min(1 << 20))] {
        if c.prtt(k, 0, s, 2).is_none() {
            return (m, Some(stop_of(c, format!("{mode}: during the warm-up"))));
        }
    }
    let mut stop = None;
    // The last size measured and what its probes took (ns): the schedule adapts to the
    // link (issue 13 §8), so a size whose probes would not fit what is left of the
    // budget is not started. Their time grows at most in proportion to the size.
    let mut last: Option<(usize, u64)> = None;
    // Sizes per octave of the schedule: thinning keeps at least one.
    let per_octave = sizes
        .iter()
        .filter(|&&x| (1 << 10..1 << 11).contains(&x))
        .count()
        .max(1);
    let mut stride = 1;
    let mut notes: Vec<String> = vec![];
    let mut i = 0;
    while i < sizes.len() {
        let s = sizes[i];
        let now_ns = crate::clock::monotonic_raw_ns();
        let left_ns = c.deadline_ns.saturating_sub(now_ns);
        // Half of what is left stays for locating the switches by bisection.
        if let Some((prev, took_ns)) = last {
            let predicted_ns = (took_ns as f64 * (s as f64 / prev as f64).max(1.0)) as u64;
            if predicted_ns > left_ns / 2 {
                notes.push(format!(
                    "sizes measured up to {prev} bytes, not to {max}: {prev} bytes took {:.0} ms, so {s} would take about {:.0} ms, more than half of the {:.0} ms left in the budget (kept for locating the switches)",
                    took_ns as f64 / 1e6,
                    predicted_ns as f64 / 1e6,
                    left_ns as f64 / 1e6
                ));
                m.schedule_cut = true;
                break;
            }
        }
        // Fewer repetitions for large messages (each already takes long and varies
        // little), and where one size's probes take a fiftieth of what is left.
        let slow = last.is_some_and(|(_, t)| t > left_ns / 50);
        let r = if s > 1 << 20 || slow {
            reps.min(3)
        } else if s > 64 << 10 {
            reps.min(5)
        } else {
            reps
        };
        match measure_point(c, n, s, r) {
            Some(p) => m.points.push(p),
            None => {
                stop = Some(stop_of(
                    c,
                    format!("{mode}: within the probes of {s} bytes"),
                ));
                break;
            }
        }
        let done_ns = crate::clock::monotonic_raw_ns();
        let took_ns = done_ns.saturating_sub(now_ns);
        last = Some((s, took_ns));
        // A slow link: where the rest of the schedule would not fit in half of what is
        // left even at this size's cost (a lower bound: the cost grows with the size),
        // keep every second size, down to one per octave, and say so. (A slope fitted
        // through two sizes' times was no guide: a millisecond of scheduling noise
        // between small sizes reads as microseconds per byte.)
        let budget_left = c.deadline_ns.saturating_sub(done_ns) / 2;
        let from = stride;
        while stride < per_octave {
            let rest = sizes[(i + stride).min(sizes.len())..]
                .iter()
                .step_by(stride)
                .count() as u64;
            if rest.saturating_mul(took_ns) <= budget_left {
                break;
            }
            stride *= 2;
        }
        if stride > from {
            notes.push(format!(
                "from {} bytes one size in {stride} of the schedule: {s} bytes took {:.0} ms, and the rest would not fit in half of the {:.0} ms left",
                sizes.get(i + stride).copied().unwrap_or(max),
                took_ns as f64 / 1e6,
                budget_left as f64 * 2.0 / 1e6
            ));
        }
        i += stride;
    }
    if !notes.is_empty() {
        m.schedule_note = Some(notes.join("; "));
    }
    // Past the budget, no bisection: its segmentation alone is CPU work that an
    // oversubscribed node stretches many times (the report's fit of the points measured
    // happens at Finalize anyway).
    if m.points.len() < 3 || stop.is_some() {
        return (m, stop);
    }
    if let Err(e) = fit_mode(c, &mut m, n, reps) {
        stop = stop.or(Some(e));
    }
    (m, stop)
}

/// Whether size `s` lies nearer the left range's line of G_all(s) = g + (s−1)G than the
/// right's (hoefler2007 Eq. 7), from one PRTT(1,0,s) and one PRTT(n,0,s) probe; None where
/// a probe failed.
fn nearer_left<T: Transport, C: Control>(
    c: &mut Client<T, C>,
    s: usize,
    n: u64,
    reps: u64,
    ns_per_tick: f64,
    left: (f64, f64),
    right: (f64, f64),
) -> Option<bool> {
    let p1 = summarize(&mut c.prtt(1, 0, s, reps)?);
    let pn = summarize(&mut c.prtt(n, 0, s, reps)?);
    let gall = (pn.median - p1.median) / (n - 1) as f64 * ns_per_tick;
    Some((gall - gall_on(left, s)).abs() <= (gall - gall_on(right, s)).abs())
}

/// A range's line of G_all at size `s`: g + (s−1)G.
fn gall_on((g, gg): (f64, f64), s: usize) -> f64 {
    g + gg * (s as f64 - 1.0)
}

/// Why the client's probes ended early: the budget (its repetitions stopped in band) or a
/// failed transfer.
fn stop_of<T: Transport, C: Control>(c: &Client<T, C>, at: String) -> Stop {
    if c.stopped {
        Stop::Budget(format!(
            "{at}: the next repetition would have ended past the budget"
        ))
    } else {
        Stop::Failed(format!("{at}: a probe failed"))
    }
}

/// The model's settings as the shim uses them (timer floor of this job).
pub fn model_settings() -> loggp_model::Settings {
    loggp_model::Settings {
        abs_floor_ns: 2.0 * crate::clock::read_floor_ns(),
        penalty_scale: settings::get().model_penalty,
        ..Default::default()
    }
}

/// The eager limit and the other switches of one mode's points: the model's ranges (the
/// same segmentation the report's ranges will come from), each boundary then located to
/// the byte by bisection on the message size within a bounded number of probes — the
/// eager limit by the late-receiver test, other switches by which range's line of G_all
/// predicts the probed size better.
fn fit_mode<T: Transport, C: Control>(
    c: &mut Client<T, C>,
    m: &mut ModeResult,
    n: u64,
    reps: u64,
) -> Result<(), Stop> {
    let mode = m.mode.clone();
    let max = m.points.last().map(|p| p.size).unwrap_or(0);
    let k = crate::clock::ns_per_tick(crate::clock::hz());
    let pts: Vec<loggp_report::Point> = m
        .points
        .iter()
        .map(|p| super::report::point(p, n, k))
        .collect();
    let ms = model_settings();
    let boot = model::bootstrap(&pts, n, ms.bootstrap, ms.seed);
    let idx = model::segments(&pts, &boot, &ms);
    let split = model::eager_split(&pts);
    match split {
        Some(0) => m.threshold_note = Some("rendezvous from the smallest size".into()),
        None => m.threshold_note = Some(format!("no eager-to-rendezvous switch up to {max} bytes")),
        Some(_) => {}
    }
    let sg = model::gall_sigmas(&boot, &ms);
    m.exact = true;
    for w in idx.windows(2) {
        let (l, r) = (w[0], w[1]);
        let eager_limit = Some(r.0) == split;
        let fl = model::gap_fit(&pts, &boot, 0, &sg, l.0, l.1);
        let fr = model::gap_fit(&pts, &boot, 0, &sg, r.0, r.1);
        let (mut lo, mut hi) = (m.points[l.1].size, m.points[r.0].size);
        // The schedule probes sizes in increasing order, so a change of the machine over
        // time (a VM slowed by 2× from one size on) looks like a switch. Probe both sizes
        // again, interleaved: a protocol switch repeats, a phase does not. Only where the
        // two ranges' lines of G_all differ by more than a quarter (the run-to-run drift is 15 %) at
        // both sizes can the probes tell the sides apart (a split made by o_s alone, as
        // over a rate-limited link, is bisected as before).
        let distinct = |(a, b): ((f64, f64), (f64, f64)), s: usize| {
            let (ya, yb) = (gall_on(a, s), gall_on(b, s));
            (ya - yb).abs() > 0.25 * ya.max(yb)
        };
        let judged = match (fl, fr) {
            (Some(a), Some(b)) if !eager_limit && distinct((a, b), lo) && distinct((a, b), hi) => {
                Some((a, b))
            }
            _ => None,
        };
        if let Some((a, b)) = judged {
            let mut votes = [0, 0];
            for _ in 0..3 {
                for (side, size) in [(0, lo), (1, hi)] {
                    let Some(left) = nearer_left(c, size, n, reps, k, a, b) else {
                        return Err(stop_of(
                            c,
                            format!("{mode}: probing {lo} and {hi} bytes again"),
                        ));
                    };
                    m.bisection_probes += 1;
                    if left == (side == 0) {
                        votes[side] += 1;
                    }
                }
            }
            if votes[0] < 2 || votes[1] < 2 {
                m.not_repeated.push([lo, hi]);
                continue;
            }
        }
        while hi - lo > 1 && m.bisection_probes < 96 {
            let fail = |c: &Client<T, C>| stop_of(c, format!("{mode}: bisecting {lo}..{hi} bytes"));
            let mid = lo + (hi - lo) / 2;
            let left_side = if eager_limit {
                let Some(mut v) = c.prtt(1, 0, mid, reps) else {
                    return Err(fail(c));
                };
                let late = late_delay(summarize(&mut v).median);
                let Some(waits) = c.send_waits(late, mid, reps) else {
                    return Err(fail(c));
                };
                !waits
            } else {
                let (Some(a), Some(b)) = (fl, fr) else {
                    break;
                };
                let Some(left) = nearer_left(c, mid, n, reps, k, a, b) else {
                    return Err(fail(c));
                };
                left
            };
            m.bisection_probes += 1;
            if left_side {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        if eager_limit {
            // Confirm the limit: the last eager size must not wait and the next must, in
            // a second round of probes; otherwise it is not exact.
            let fail = |c: &Client<T, C>| stop_of(c, format!("{mode}: confirming the limit {lo}"));
            let Some(mut v) = c.prtt(1, 0, lo + 1, reps) else {
                return Err(fail(c));
            };
            let late = late_delay(summarize(&mut v).median);
            let Some(below) = c.send_waits(late, lo, reps) else {
                return Err(fail(c));
            };
            let Some(above) = c.send_waits(late, lo + 1, reps) else {
                return Err(fail(c));
            };
            m.bisection_probes += 3;
            m.exact = !below && above;
            m.active_bytes = Some(lo);
        }
        m.switches.push(lo);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_nodes_of_two_ranks_get_a_second_round_across() {
        assert_eq!(
            choose_rounds(&[0, 0, 1, 1]),
            vec![vec![[0, 1], [2, 3]], vec![[0, 2]]]
        );
        // A first round with a pair across needs no second.
        assert_eq!(choose_rounds(&[0, 0, 1, 1, 2]).len(), 1);
        // One node: one round.
        assert_eq!(choose_rounds(&[0, 0, 0, 0]), vec![vec![[0, 1], [2, 3]]]);
        // One rank per node: the first round is across already.
        assert_eq!(choose_rounds(&[0, 1]), vec![vec![[0, 1]]]);
    }

    #[test]
    fn pairs_cover_ranks_with_one_intra_and_one_inter_pair() {
        // ranks 0,1 on node 0; 2,3 on node 1; 4 on node 2
        let p = choose_pairs(&[0, 0, 1, 1, 2]);
        assert_eq!(p[0], [0, 1]);
        assert_eq!(p[1], [2, 4]);
        assert_eq!(p.len(), 2, "an odd rank out waits: {p:?}");
        let p = choose_pairs(&[0, 1]);
        assert_eq!(p, [[0, 1]]);
        let p = choose_pairs(&[0, 0, 0, 0]);
        assert_eq!(p, [[0, 1], [2, 3]]);
    }

    #[test]
    fn schedule_has_four_points_per_octave() {
        let s = schedule(1 << 20, 4);
        assert_eq!(s[0], 1);
        assert_eq!(*s.last().unwrap(), 1 << 20);
        let octave: Vec<_> = s.iter().filter(|&&x| (4096..8192).contains(&x)).collect();
        assert_eq!(octave.len(), 4);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
    }
}
