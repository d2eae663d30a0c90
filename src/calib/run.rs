//! Active calibration at MPI_Init: every rank takes part, in disjoint pairs, on the private
//! communicator; the lower rank of a pair drives the probes (see `engine`) on every
//! channel at once — MPI's send modes and the raw transports beneath it (`channels`) — in
//! interleaved passes over the schedule (`passes`), then locates each switch to the byte
//! (`switches`). Results stay on the client until MPI_Finalize, where they travel to rank
//! 0 with the statistics.
use super::channels::{self, Mux, FINISH, SERVE};
use super::engine::{Client, Control};
use super::outcome::{ModeResult, Outcome, PairResult, RawResult};
use super::pairs::choose_rounds;
use super::passes;
use super::switches::{fit_mode, Stop};
use super::transports::mpi::{MpiControl, MODES};
use crate::base::mpi::{self, MPI_Comm};
use crate::base::runtime::say;
use crate::base::settings::{self, Calibrate};
use crate::record::peers::{class_of_world, World};
use loggp_report::PeerClass;
use std::os::raw::c_int;
/// Runs the calibration on every rank; returns when all ranks agree it is over.
pub fn run_at_init(comm: MPI_Comm, world: &World) -> Outcome {
    let s = settings::get();
    let mut out = Outcome::default();
    if s.calibrate == Calibrate::Off {
        out.status = "off".into();
    } else if world.size < 2 {
        out.status = "skipped: a job of one rank has no pair to measure".into();
    } else {
        calibrate(comm, world, s, &mut out);
    }
    out
}

fn calibrate(comm: MPI_Comm, world: &World, s: &settings::Settings, out: &mut Outcome) {
    let quick = s.calibrate == Calibrate::Quick;
    // Repetitions of each probe: passes over the schedule (an even number, half of them
    // each way round), and the repetitions of a bisection's probes.
    let (per_octave, passes, reps, n) = if quick {
        (4, 6u64, 5u64, 16u64)
    } else {
        (8, 10, 9, 16)
    };
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
    let t0 = crate::base::clock::monotonic_raw_ns();
    // A second barrier prices the closing reduction, which must fit in the budget too:
    // 64 ranks on 2 cores took ~0.2 s for it.
    // SAFETY: as above.
    unsafe { mpi::PMPI_Barrier(comm) };
    let collective_ns = crate::base::clock::monotonic_raw_ns().saturating_sub(t0);
    let watch = super::disturbance::Watch::start();
    let me = world.rank as u32;
    let mut code: i32 = 0; // 0 done, 1 over budget, 2 failed
    let mut why = String::new();
    // The probes end a little before the budget (1/32 of it, or twice a collective's time
    // where that is more, at most a quarter), which leaves the fits, the set-up of a raw
    // transport and the closing reduction inside it. Rounds share what is left: each
    // client gives its round an equal part of the rest.
    //
    // Where a node holds more ranks than cores, every rank runs for a slice in turn, and
    // the last repetition and the closing reduction wait for all of them to run: the
    // reserve covers one such round too, 4 ms a rank per core (CFS gives each runnable
    // task 0.75 ms × (1 + log2 cores) at least; 1.5 ms on 2 cores, so about 2.5 slices).
    // 128 ranks on 2 cores (`tests/many_ranks.rs`) ended 1684–1899 ms into a 2000 ms
    // budget in nine runs and 2131 ms in one, with one pass over the first size taking
    // 196–442 ms; with this round reserved (256 ms there), 1582–1719 ms in five.
    let end = t0 + budget_ns
        - (budget_ns / 32)
            .max(2 * collective_ns)
            .max(oversubscribed_round_ns(&world.node_of))
            .min(budget_ns / 4);
    let plan = Plan {
        comm,
        max_size,
        sizes: passes::schedule(max_size, per_octave),
        n,
        passes,
        reps,
        modes: &modes,
        raw: s.raw.as_deref(),
        component: super::knob::transport_component(),
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
            MpiControl::new(comm, peer).send_words(&[FINISH, 0, 0, 0]);
        } else if p[0] == me {
            let now_ns = crate::base::clock::monotonic_raw_ns();
            let deadline = now_ns + end.saturating_sub(now_ns) / (rounds.len() - i) as u64;
            if class == PeerClass::InterNode {
                let cc = super::congestion::tcp_congestion_control();
                let w =
                    super::congestion::paced_tcp_warning(cc.as_deref(), plan.component.as_deref());
                out.warnings.extend(w.filter(|w| !out.warnings.contains(w)));
            }
            let (r, c, w) = drive_pair(&plan, *p, class, deadline, &mut out.warnings);
            out.results.push(r);
            if c > code {
                (code, why) = (c, w);
            }
        } else {
            channels::serve_pair(comm, peer, max_size, class == PeerClass::IntraNode);
        }
    }
    // Every rank of a host at once (`concurrent`), where a host holds three or more.
    let (concurrent, left_out) = super::concurrent::run(comm, world, max_size, end);
    out.concurrent = concurrent;
    // The same on every rank: said once.
    out.warnings.extend(left_out.filter(|_| world.rank == 0));
    // All ranks agree on the outcome (the worst of all pairs) and on what the most
    // disturbed rank saw (see `disturbance`).
    let wall = crate::base::clock::monotonic_raw_ns().saturating_sub(t0);
    let [preempted, off_cpu, steal] = watch.seen(wall);
    let stall_ms = out.results.iter().map(|r| r.stall_ns).max().unwrap_or(0) / 1_000_000;
    let stall_ms = stall_ms.min(c_int::MAX as u64) as c_int;
    let mine: [c_int; 5] = [code, preempted, off_cpu, steal, stall_ms];
    let mut agreed: [c_int; 5] = mine;
    // SAFETY: five ints, MAX, on the private communicator.
    unsafe {
        mpi::PMPI_Allreduce(
            mine.as_ptr() as *const _,
            agreed.as_mut_ptr() as *mut _,
            5,
            mpi::dt_int(),
            mpi::op_max(),
            comm,
        )
    };
    let worst = agreed[0];
    out.duration_ns = crate::base::clock::monotonic_raw_ns().saturating_sub(t0) as f64;
    super::disturbance::judge([agreed[1], agreed[2], agreed[3]], agreed[4], out);
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

/// One round of every rank of the fullest node on its cores, where ranks outnumber
/// them: 4 ms per rank per core (see `calibrate`), 0 otherwise. The same on every rank
/// (from `node_of`, and the online cores of this host).
fn oversubscribed_round_ns(node_of: &[u32]) -> u64 {
    let mut per_node = std::collections::BTreeMap::<u32, u64>::new();
    for &n in node_of {
        *per_node.entry(n).or_default() += 1;
    }
    let fullest = per_node.values().copied().max().unwrap_or(0);
    // SAFETY: sysconf has no preconditions.
    let cores = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.max(1) as u64;
    if fullest <= cores {
        0
    } else {
        fullest.div_ceil(cores) * 4_000_000
    }
}

/// What every pair measures.
struct Plan<'a> {
    comm: MPI_Comm,
    max_size: usize,
    sizes: Vec<usize>,
    n: u64,
    /// Passes over the schedule (each size's repetitions).
    passes: u64,
    /// Repetitions of a bisection's probes.
    reps: u64,
    modes: &'a [String],
    raw: Option<&'a [String]>,
    /// The MPI's point-to-point component (`knob::transport_component`): "pml ob1",
    /// "pml ucx", MPICH's "ucx".
    component: Option<String>,
}

impl Plan<'_> {
    /// The MPI's point-to-point traffic runs over UCX (pml ucx, ch4:ucx).
    fn mpi_over_ucx(&self) -> bool {
        super::switches::over_ucx(self.component.as_deref())
    }
}

/// The client of one pair: opens every channel (MPI's modes, then the raw transports),
/// runs the passes over all of them, then locates each channel's switches, each with an
/// equal share of what is left. Returns its result and its code (0 done, 1 over budget,
/// 2 failed) with why.
fn drive_pair(
    plan: &Plan,
    pair: [u32; 2],
    class: PeerClass,
    deadline: u64,
    notes: &mut Vec<String>,
) -> (PairResult, i32, String) {
    let peer = pair[1];
    let mut res = PairResult {
        pair,
        class,
        modes: vec![],
        raw: vec![],
        stall_ns: 0,
    };
    let mut ctl = MpiControl::new(plan.comm, peer);
    let modes: Vec<usize> = (0..MODES.len())
        .filter(|&m| plan.modes.iter().any(|x| x == MODES[m]))
        .collect();
    let same_host = class == PeerClass::IntraNode;
    let mut mux = Mux::new(plan.comm, peer, plan.max_size, &modes, same_host);
    let mut names: Vec<String> = modes.iter().map(|&m| MODES[m].to_string()).collect();
    // The raw transports: connected first, measured with MPI in the same passes.
    let mut raws: Vec<(RawResult, Option<usize>)> = vec![];
    for (name, how) in crate::calib::transports::plan(plan.raw, same_host, plan.mpi_over_ucx()) {
        let mut r = RawResult {
            transport: name,
            ..Default::default()
        };
        let mut chan = None;
        match how {
            Err(why) => r.status = why,
            Ok(raw) => {
                let c = channels::connect_client(
                    &mut ctl,
                    &raw,
                    class == PeerClass::InterNode,
                    plan.max_size,
                );
                (r.tl, r.device, r.note) = (c.tl, c.device, c.note);
                match c.channel {
                    Ok(ch) => {
                        mux.add_raw(ch);
                        names.push(r.transport.clone());
                        chan = Some(names.len() - 1);
                    }
                    Err(why) => r.status = why,
                }
            }
        }
        raws.push((r, chan));
    }
    let mask = modes.iter().fold(0u64, |m, &i| m | 1 << i);
    if !ctl.send_words(&[SERVE, mask, 0, 0]) {
        return (res, 2, "control message failed".into());
    }
    let mut c = Client::new(&mut mux, &mut ctl, deadline);
    // Three quarters of the pair's time for the passes, a quarter kept for locating the
    // switches.
    let now_ns = crate::base::clock::monotonic_raw_ns();
    let passes_end = now_ns + deadline.saturating_sub(now_ns) * 3 / 4;
    let p = passes::run(
        &mut c,
        &names,
        &plan.sizes,
        plan.n,
        plan.passes as usize,
        passes_end,
    );
    let mut results: Vec<ModeResult> = p
        .probes
        .iter()
        .zip(&names)
        .map(|(probes, name)| ModeResult {
            mode: name.clone(),
            n: plan.n,
            passes: p.passes,
            points: probes
                .iter()
                .filter(|x| x.passes() > 0)
                .map(|x| x.finish())
                .collect(),
            schedule_note: p.note.clone(),
            schedule_cut: p.cut,
            ..Default::default()
        })
        .collect();
    let mut stop = p.stop;
    // Past the budget, no bisection: its segmentation alone is CPU work that an
    // oversubscribed node stretches many times (the report's fit of the points measured
    // happens at Finalize anyway).
    // Limits the layer beneath names: candidate switches for MPI's sets.
    let raw_notes: Vec<&str> = raws.iter().filter_map(|(r, _)| r.note.as_deref()).collect();
    let hints = super::switches::Hints::of(plan.component.as_deref(), &raw_notes);
    // Only MPI's modes: a raw transport's set takes the ranges of MPI's (see the model's
    // `estimate`), so its own bends are not located.
    if stop.is_none() {
        let mpi = &mut results[..modes.len()];
        let mut left = mpi.iter().filter(|m| m.points.len() >= 3).count() as u64;
        for (k, m) in mpi.iter_mut().enumerate() {
            if m.points.len() < 3 {
                continue;
            }
            let now_ns = crate::base::clock::monotonic_raw_ns();
            c.deadline_ns = now_ns + deadline.saturating_sub(now_ns) / left.max(1);
            left -= 1;
            c.select(k);
            if let Err(e) = fit_mode(&mut c, m, plan.n, plan.reps, &hints) {
                stop = Some(e);
                break;
            }
        }
    }
    c.done();
    res.stall_ns = c.longest_stall_ns;
    for (r, chan) in &mut raws {
        if let Some(note) = chan.and_then(|k| mux.note_of(k)) {
            r.note = Some(note);
        }
    }
    ctl.send_words(&[FINISH, 0, 0, 0]);
    let (mut code, mut why) = match &stop {
        None => (0, String::new()),
        Some(Stop::Budget(w)) => (1, w.clone()),
        Some(Stop::Failed(w)) => (2, w.clone()),
    };
    if let Some(note) = &p.note {
        notes.push(format!("calibration ({}): {note}", class.name()));
        // A schedule cut short for lack of budget is a stop too, said in the status.
        if p.cut && code == 0 {
            (code, why) = (1, note.clone());
        }
    }
    let status = match &stop {
        None if p.cut => format!(
            "stopped: the calibration budget was reached ({}); the sizes measured are kept",
            p.note.as_deref().unwrap_or("")
        ),
        None => "done".to_string(),
        Some(Stop::Budget(w)) => {
            format!(
                "stopped: the calibration budget was reached ({w}); the sizes measured are kept"
            )
        }
        Some(Stop::Failed(w)) => format!("failed: {w}"),
    };
    let mut results = results.into_iter().enumerate();
    for (k, m) in results.by_ref().take(modes.len()) {
        debug_assert!(k < modes.len());
        if !m.points.is_empty() {
            res.modes.push(m);
        }
    }
    let mut rest: Vec<Option<ModeResult>> = results.map(|(_, m)| Some(m)).collect();
    for (mut r, chan) in raws {
        if let Some(k) = chan {
            r.status = status.clone();
            r.result = rest[k - modes.len()].take().unwrap_or_default();
        }
        res.raw.push(r);
    }
    (res, code, why)
}
