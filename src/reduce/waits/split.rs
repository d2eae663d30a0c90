//! The split of one rank's time from its matched samples (see the parent module).
use super::calls::{is_collective, is_nonblocking_collective, MESSAGE_CALLS};
use super::strata::{ratio_part, Strata, Stratified};
use super::{Measured, Split};
use crate::base::funcs;
use crate::record::samples;
use loggp_report::bins::size_bin_range;
use loggp_report::{operation_name, PAUSE_NS};
use loggp_report::{
    AfterPause, CallWaitBin, Cell, ClassModeSplit, CollectiveSplit, CounterPoint, Mode,
    PassiveLatency, PeerClass, RankEntry, TimeSplit, TraceEvent, WaitEntry, Waits,
};

/// Ratio estimate of one part: (estimate, 95 % interval) of `total` × Σw·part / Σw·dur
/// (`strata::ratio_part`).
fn ratio(total: f64, s: &[Split], part: impl Fn(&Split) -> [f64; 3]) -> (f64, Option<[f64; 2]>) {
    let refs: Vec<&Split> = s.iter().collect();
    match ratio_part(total, &refs, &part) {
        Some(p) => (p.est, Some(p.interval((0.0, 0.0)))),
        None => (0.0, None),
    }
}

/// The weighted median of `(value, weight)` pairs, with the pairs' count, and its 95 %
/// interval: the weighted quantiles 0.5 ± 1.96·0.5/√n of `lower` and `upper` (each a
/// value's lower and upper bound, weighted alike), n the effective sample size (Kish),
/// widened by `u` (the clocks' uncertainty, same unit) and floored at 0. Order statistics
/// need no distribution (Le Boudec, Performance Evaluation, §2.2.1).
fn weighted_median(
    mut lower: Vec<(f64, f64)>,
    mut upper: Vec<(f64, f64)>,
    u: f64,
) -> ((f64, u64), [f64; 2]) {
    let total: f64 = upper.iter().map(|x| x.1).sum();
    let squares: f64 = upper.iter().map(|x| x.1 * x.1).sum();
    let effective = total * total / squares.max(f64::MIN_POSITIVE);
    let half = 1.96 * 0.5 / effective.sqrt();
    let at = |v: &[(f64, f64)], q: f64| {
        let want = q.clamp(0.0, 1.0) * total;
        let mut sum = 0.0;
        for x in v {
            sum += x.1;
            if sum >= want {
                return x.0;
            }
        }
        v.last().map_or(0.0, |x| x.0)
    };
    lower.sort_by(|a, b| a.0.total_cmp(&b.0));
    upper.sort_by(|a, b| a.0.total_cmp(&b.0));
    (
        (at(&upper, 0.5), upper.len() as u64),
        [
            (at(&lower, 0.5 - half) - u).max(0.0),
            at(&upper, 0.5 + half) + u,
        ],
    )
}

/// A collective row's calls after a pause and the others (`loggp_report::AfterPause`),
/// of the calls whose pause is known (blocking calls after each member's first on the
/// channel); None where none is.
fn after_pause(s: &[Split], u: f64, ns: f64) -> Option<AfterPause> {
    let pause_ticks = PAUSE_NS / ns;
    let known = s.iter().filter(|x| x.pause.is_some());
    let (after, back): (Vec<Split>, Vec<Split>) =
        known.partition(|x| x.pause.unwrap_or(0.0) >= pause_ticks);
    if after.is_empty() && back.is_empty() {
        return None;
    }
    let median_of = |calls: &[Split]| -> (Option<f64>, Option<[f64; 2]>) {
        if calls.is_empty() {
            return (None, None);
        }
        let (m, ci) = median(calls, &cost_part, u);
        (Some(m * ns), Some(ci.map(|v| v * ns)))
    };
    let (a, a_ci) = median_of(&after);
    let (b, b_ci) = median_of(&back);
    // How long the pauses before those calls were (`AfterPause::pause_median_ns`).
    let pauses: Vec<(f64, f64)> = (after.iter())
        .map(|x| (x.pause.unwrap_or(0.0) * ns, x.w))
        .collect();
    let pause_median_ns =
        (!pauses.is_empty()).then(|| weighted_median(pauses.clone(), pauses, 0.0).0 .0);
    Some(AfterPause {
        pause_ns: PAUSE_NS,
        calls: after.len() as u64,
        pause_median_ns,
        cost_median_ns: a,
        cost_median_ns_ci: a_ci,
        calls_back_to_back: back.len() as u64,
        back_to_back_cost_median_ns: b,
        back_to_back_cost_median_ns_ci: b_ci,
    })
}

/// A collective's per-call cost as the weighted median of its samples (`part`: point,
/// lower and upper bound of each), with its interval (`weighted_median`). Beside the
/// mean: a call preempted for a time slice (ms on this kind of shared machine) moves the
/// mean of a few dozen samples by more than the algorithm's cost, and not the median.
fn median(s: &[Split], part: &dyn Fn(&Split) -> [f64; 3], u: f64) -> (f64, [f64; 2]) {
    let point: Vec<(f64, f64)> = s.iter().map(|x| (part(x)[0], x.w)).collect();
    let lower: Vec<(f64, f64)> = s
        .iter()
        .map(|x| (part(x)[1].min(part(x)[2]), x.w))
        .collect();
    let upper: Vec<(f64, f64)> = s
        .iter()
        .map(|x| (part(x)[1].max(part(x)[2]), x.w))
        .collect();
    let ((mid, _), _) = weighted_median(point.clone(), point, 0.0);
    let (_, ci) = weighted_median(lower, upper, u);
    (mid, [ci[0].min(mid), ci[1].max(mid)])
}

/// A call's time less its waits: the cost, at the waits' estimate, then with the
/// waits at their upper and their lower bound.
fn cost_part(x: &Split) -> [f64; 3] {
    let d = x.dur;
    [
        d - x.ls[0] - x.lr[0],
        d - x.ls[2] - x.lr[2],
        d - x.ls[1] - x.lr[1],
    ]
}

/// An interval widened by `by` on both sides, within [0, `total`] (`total`: the time of
/// the calls its part is a share of).
fn widen(ci: Option<[f64; 2]>, by: f64, total: f64) -> Option<[f64; 2]> {
    ci.map(|[a, b]| [(a - by).max(0.0).min(total), (b + by).min(total)])
}

/// The point-to-point split per (peer class, mode): each group's parts are the same
/// stratified estimates as the rank's with the other groups' parts set to nothing, so
/// that the groups add up to the rank's figures; intervals widened like the rank's.
fn by_class_mode(st: &Stratified, s: &[Split]) -> Vec<ClassModeSplit> {
    let mut groups: Vec<(u8, u8)> = s.iter().map(|x| (x.class, x.mode)).collect();
    groups.sort_unstable();
    groups.dedup();
    groups
        .into_iter()
        .map(|(class, mode)| {
            let mine = |x: &Split| x.class == class && x.mode == mode;
            let part = |f: &dyn Fn(&Split) -> [f64; 3]| {
                st.estimate(&|x| if mine(x) { f(x) } else { [0.0; 3] })
            };
            let (calls, message_calls_ns_ci) = part(&|x| [x.dur; 3]);
            let (ls, late_sender_ns_ci) = part(&|x| x.ls);
            let (lr, late_receiver_ns_ci) = part(&|x| x.lr);
            let (cost, cost_ns_ci) = part(&cost_part);
            ClassModeSplit {
                peer_class: PeerClass::from_u8(class),
                mode: Mode::from_u8(mode),
                calls_matched: s.iter().filter(|x| mine(x)).count() as u64,
                message_calls_ns: calls,
                cost_ns: cost,
                late_sender_ns: ls,
                late_receiver_ns: lr,
                message_calls_ns_ci,
                cost_ns_ci,
                late_sender_ns_ci,
                late_receiver_ns_ci,
            }
        })
        .collect()
}

/// The time of the Wait and Test calls that each completed one nonblocking (or
/// persistent) collective: their cells of mode `collective` (`hooks::complete`).
pub(crate) fn collective_completions_ns(cells: &[Cell]) -> f64 {
    cells
        .iter()
        .filter(|c| c.mode == Mode::Collective && MESSAGE_CALLS.contains(&c.function.as_str()))
        .map(|c| c.time_ns)
        .sum()
}

/// The split of this rank's time (its `ranks[]` entry holds every call's time;
/// `completions_ns`: [`collective_completions_ns`]; `other_completions_ns`: the Wait and
/// Test calls that completed only requests that move no message, nonblocking I/O and
/// request-based one-sided calls (`completion::OTHER_COMPLETION_TICKS`), which go to
/// `other_ns`; `cells`: this rank's, whose histograms give the calls' time by duration,
/// `strata`).
pub(crate) fn finish(
    m: Measured,
    e: &RankEntry,
    (completions_ns, other_completions_ns, cells): (f64, f64, &[Cell]),
    ns: f64,
) -> (TimeSplit, Waits, Vec<PassiveLatency>) {
    let time_of = |pick: &dyn Fn(&str) -> bool| -> f64 {
        e.calls
            .iter()
            .filter(|(f, _)| pick(f))
            .fold(0.0, |a, (_, c)| a + c.time_ns)
    };
    // A completion call that completed only nonblocking collectives (one, or several in
    // one MPI_Waitall) is the collectives' time; one that also completed a message stays
    // in the message calls.
    let all_msg = time_of(&|f| MESSAGE_CALLS.contains(&f));
    let nb = completions_ns.clamp(0.0, all_msg);
    let msg = (all_msg - nb - other_completions_ns).max(0.0);
    let blocking = time_of(&|f| is_collective(f));
    let col = blocking + nb;
    // Point to point: post-stratified by call duration (`strata`).
    let strata = Strata::of(cells).scaled_to(msg);
    let st = Stratified::new(&strata, &m.p2p, ns);
    let (ls, ls_ci) = st.estimate(&|x| x.ls);
    let (lr, lr_ci) = st.estimate(&|x| x.lr);
    let (cost, cost_ci) = if m.p2p.is_empty() {
        (msg, None)
    } else {
        st.estimate(&cost_part)
    };
    // Blocking and nonblocking collectives, each its own estimate (their calls' times
    // are measured apart), then summed with their intervals: the blocking ones
    // post-stratified by call duration like the messages, the nonblocking ones (whose
    // completing calls' cells are the message calls') a ratio estimate.
    let (kb, knb): (Vec<Split>, Vec<Split>) = m.coll.iter().partition(|x| !x.nonblocking);
    let coll_strata = Strata::of_collectives(cells).scaled_to(blocking);
    let sb = Stratified::new(&coll_strata, &kb, ns);
    let blocking_part = |f: &dyn Fn(&Split) -> [f64; 3], none: f64| {
        if kb.is_empty() {
            (none * blocking, None)
        } else {
            sb.estimate(f)
        }
    };
    let nb_part = |f: &dyn Fn(&Split) -> [f64; 3], none: f64| {
        if knb.is_empty() {
            (none * nb, None)
        } else {
            ratio(nb, &knb, f)
        }
    };
    let add = |a: (f64, Option<[f64; 2]>), b: (f64, Option<[f64; 2]>)| {
        let ci = match (a.1, b.1) {
            (Some([p, q]), Some([r, t])) => Some([p + r, q + t]),
            (Some([p, q]), None) => Some([p + b.0, q + b.0]),
            (None, Some([r, t])) => Some([a.0 + r, a.0 + t]),
            (None, None) => None,
        };
        (a.0 + b.0, ci)
    };
    let (cw, cw_ci) = add(blocking_part(&|x| x.ls, 0.0), nb_part(&|x| x.ls, 0.0));
    // A collective's sample has no late-receiver part: its cost is the rest.
    let (cc, cc_ci) = add(blocking_part(&cost_part, 1.0), nb_part(&cost_part, 1.0));
    // Nonblocking collectives: what the sample cannot attribute, the difference between
    // the calls' measured time and the sample's own estimate of it (slow calls it did not
    // keep, or kept ones that stand for faster ones). Any part may hold it, so each
    // part's interval is widened by it (one call of 200 can take 100× the others), and
    // none can hold more than the collectives' time.
    let unexplained = |total: f64, s: &[Split]| {
        let est: f64 = s.iter().map(|x| x.w * x.dur).sum::<f64>() * ns;
        if s.is_empty() {
            0.0
        } else {
            (total - est).abs()
        }
    };
    let dc = unexplained(nb, &knb);
    let (cw_ci, cc_ci) = (widen(cw_ci, dc, col), widen(cc_ci, dc, col));
    let split = TimeSplit {
        rank: e.rank,
        time_in_mpi_ns: e.time_in_mpi_ns,
        message_calls_ns: msg,
        cost_ns: cost,
        late_sender_ns: ls,
        late_receiver_ns: lr,
        collective_calls_ns: col,
        collective_wait_ns: cw,
        collective_cost_ns: cc,
        other_ns: (e.time_in_mpi_ns - msg - col).max(0.0),
        cost_ns_ci: cost_ci,
        late_sender_ns_ci: ls_ci,
        late_receiver_ns_ci: lr_ci,
        collective_wait_ns_ci: cw_ci,
        collective_cost_ns_ci: cc_ci,
        sampled_messages: m.sampled_messages,
        matched_messages: m.matched,
        messages_represented: m.represented,
        sampled_collectives: m.sampled_collectives,
        matched_collectives: m.coll.len() as u64,
        sampled_estimate_ns: m.sampled_ticks * ns,
        unsampled_ns: st.unsampled_ns,
        clock_uncertainty_ns: m.uncertainty_ticks * ns,
        by_class_mode: by_class_mode(&st, &m.p2p),
    };
    // Per call: the weighted mean and its interval, finite-population corrected by the
    // row's calls (`calls`: this rank's, from its cells, where they hold at least the
    // samples), else by the samples' summed weights. Why the cells: a sample's weight
    // is its channel's stride, which stands for the channel's calls, not the row's (as
    // the point-to-point strata found, `strata::ratio_part_of`).
    let mean =
        |s: &[Split], calls: f64, part: &dyn Fn(&Split) -> [f64; 3]| -> (f64, Option<[f64; 2]>) {
            let w: f64 = s.iter().map(|x| x.w).sum();
            let mu = |k: usize| s.iter().map(|x| x.w * part(x)[k]).sum::<f64>() / w;
            let m0 = mu(0);
            let n = s.len() as f64;
            let var = s
                .iter()
                .map(|x| x.w * (part(x)[0] - m0).powi(2))
                .sum::<f64>()
                / w;
            let population = if calls >= n { calls } else { w };
            let se = (var / n).sqrt() * (1.0 - n / population).max(0.0).sqrt();
            let (lo, hi) = (mu(1).min(mu(2)), mu(1).max(mu(2)));
            (
                m0 * ns,
                Some([((lo - 1.96 * se) * ns).max(0.0), (hi + 1.96 * se) * ns]),
            )
        };
    let u = m.uncertainty_ticks;
    let mut collectives: Vec<CollectiveSplit> = m
        .coll_rows
        .iter()
        .filter(|((f, _, _, _), _)| {
            is_collective(funcs::name(*f)) || is_nonblocking_collective(funcs::name(*f))
        })
        .map(|(&(f, comm_size, bin, comm), (s, bytes))| {
            let (lo, hi) = size_bin_range(bin);
            let name = funcs::name(f);
            let calls: u64 = (cells.iter())
                .filter(|c| {
                    c.function == name && c.comm_size == Some(comm_size) && c.size_bin == bin
                })
                .map(|c| c.count)
                .sum();
            let (aw, aw_ci) = mean(s, calls as f64, &|x| x.ls);
            let (c, c_ci) = mean(s, calls as f64, &cost_part);
            let (median, median_ci) = median(s, &cost_part, u);
            let (operation, element_bytes) =
                operation_of(m.coll_ops.get(&(f, comm_size, bin, comm)));
            CollectiveSplit {
                rank: e.rank,
                function: funcs::name(f).to_string(),
                comm_size,
                size_lo_bytes: lo,
                size_hi_bytes: hi,
                calls_matched: s.len() as u64,
                bytes_mean: bytes / s.len().max(1) as f64,
                arrival_wait_ns: aw,
                arrival_wait_ns_ci: aw_ci,
                cost_ns: c,
                cost_ns_ci: c_ci,
                cost_median_ns: Some(median * ns),
                cost_median_ns_ci: Some(median_ci.map(|v| v * ns)),
                operation,
                element_bytes,
                after_pause: after_pause(s, u, ns),
                members: m.coll_members.get(&comm).cloned(),
            }
        })
        .collect();
    collectives.sort_by(|a, b| {
        let key = |c: &CollectiveSplit| (c.function.clone(), c.comm_size, c.size_lo_bytes);
        (key(a), &a.members).cmp(&(key(b), &b.members))
    });
    // The largest waits, each end scaled like the split's stratum of its call.
    let mut largest: Vec<(WaitEntry, u64)> = m
        .largest
        .iter()
        .map(|(&(peer, recv, f, bin, site), (n, ends))| {
            let w: f64 = ends
                .iter()
                .map(|&(dur, func, w)| w * st.scale(dur, func))
                .sum();
            let n = *n;
            let (lo, hi) = size_bin_range(bin);
            let e = WaitEntry {
                rank: e.rank,
                peer,
                kind: if recv { "late_sender" } else { "late_receiver" }.into(),
                function: funcs::name(f).to_string(),
                size_lo_bytes: lo,
                size_hi_bytes: hi,
                messages_matched: n,
                wait_ns: w,
                ..Default::default()
            };
            (e, site)
        })
        .collect();
    largest.sort_by(|a, b| b.0.wait_ns.total_cmp(&a.0.wait_ns));
    largest.truncate(5);
    let sites = crate::reduce::sites::locate(&largest.iter().map(|x| x.1).collect::<Vec<_>>());
    let largest: Vec<WaitEntry> = largest
        .into_iter()
        .zip(sites)
        .map(|((mut e, _), at)| {
            if let Some((path, build_id, address)) = at {
                e.object = Some(path);
                e.build_id = build_id;
                e.address = Some(address);
            }
            e
        })
        .collect();
    let mut latency: Vec<PassiveLatency> = m
        .latency
        .into_iter()
        .map(|((class, bin), v)| {
            // Weighted by stride: the early messages of a channel are all kept and the
            // later ones one per block, so an unweighted median leans to a job's start.
            let (mid, [lo_q, hi_q]) = weighted_median(v.clone(), v, u);
            let (lo, hi) = size_bin_range(bin);
            PassiveLatency {
                rank: e.rank,
                peer_class: PeerClass::from_u8(class),
                size_lo_bytes: lo,
                size_hi_bytes: hi,
                pairs: mid.1,
                median_ns: mid.0 * ns,
                median_ns_ci: Some([lo_q * ns, hi_q * ns]),
            }
        })
        .collect();
    latency.sort_by_key(|l| (l.peer_class as u8, l.size_lo_bytes));
    let waits = Waits {
        status: "done".into(),
        method: METHOD.into(),
        samples_dropped: m.dropped,
        messages_unnumbered: m.unnumbered,
        pairs_inconsistent: m.inconsistent,
        collectives,
        largest,
        trace: m
            .trace
            .iter()
            .map(
                |&(side, f, t0, t1, peer, bytes, flow, wait, posted)| TraceEvent {
                    rank: e.rank,
                    function: funcs::name(f).to_string(),
                    side: ["send", "recv", "collective"][side.min(2) as usize].into(),
                    start_ns: t0,
                    posted_ns: (side < 2 && posted < t0).then_some(posted),
                    end_ns: t1,
                    peer: (side < 2).then_some(peer),
                    bytes,
                    flow: (side < 2).then_some(flow),
                    arrival_wait_ns: (side == 2).then_some(wait),
                },
            )
            .collect(),
        counters: m
            .counters
            .iter()
            .map(|&(at_ns, p)| CounterPoint {
                rank: e.rank,
                at_ns,
                time_in_mpi_ns: p.time_in_mpi_ns,
                calls: p.calls,
                small_send_calls: p.small_send_calls,
                small_send_ns: p.small_send_ns,
                on_cpu_ns: p.on_cpu_ns.map(|x| x as f64),
                runqueue_wait_ns: p.runqueue_ns.map(|x| x as f64),
            })
            .collect(),
        call_waits: call_waits(&m.call_waits),
    };
    (split, waits, latency)
}

/// A row's reduction operation and element size from what its samples kept
/// (`Measured::coll_ops`).
fn operation_of(meta: Option<&u8>) -> (Option<String>, Option<u64>) {
    match meta {
        None => (None, None),
        Some(&o) if o == super::colls::MIXED_OP => {
            (Some(loggp_report::MIXED_OPERATIONS.to_string()), None)
        }
        Some(&o) => {
            let (kind, size) = samples::op_of_meta(o);
            (operation_name(kind).map(str::to_string), size)
        }
    }
}

/// `Waits::call_waits` of this rank, by class, mode and size.
fn call_waits(bins: &std::collections::HashMap<(u8, u8, u16), [u64; 3]>) -> Vec<CallWaitBin> {
    let mut v: Vec<CallWaitBin> = bins
        .iter()
        .map(|(&(class, mode, bin), &[sends, messages, waiting])| {
            let (lo, hi) = size_bin_range(bin);
            CallWaitBin {
                peer_class: PeerClass::from_u8(class),
                mode: Mode::from_u8(mode),
                size_lo_bytes: lo,
                size_hi_bytes: hi,
                calls_matched: sends,
                messages,
                messages_waiting: waiting,
            }
        })
        .collect();
    v.sort_by_key(|b| (b.peer_class as u8, b.mode as u8, b.size_lo_bytes));
    v
}

const METHOD: &str = "deterministic sample: on each channel (sender, receiver, communicator, tag) every message up to 64, then 32 per doubling of the count, the same on both ends by MPI's non-overtaking order (a nonblocking send, or receive with a named source and tag, numbered when started, a persistent one at each MPI_Start; a wildcard receive at completion from its status); collectives, blocking (the communicator constructors, MPI_Comm_split and its kin, the process calls MPI_Comm_spawn, _accept, _connect and MPI_Comm_disconnect, MPI_Win_fence on its window's communicator, MPI_File_open, and the blocking collective I/O calls, MPI_File_write_all and its kin and a split collective's _begin, on their file's communicator among them; and the general active-target synchronization of windows as meetings of two, each origin with each target: MPI_Win_start with MPI_Win_post, MPI_Win_complete with MPI_Win_wait or the MPI_Win_test that found the epoch complete (from the first poll's entry), numbered per pair and kept per window, a call meeting several peers waiting for the last of them), nonblocking and persistent (numbered at the start, a persistent one at each MPI_Start, kept at completion; the nonblocking collective I/O calls, MPI_File_iwrite_all and its kin, on their file's communicator), by their order on the communicator and function. Both ends matched on clocks aligned to rank 0's (`clocks`). Late sender: a receive, from the entry of the call that waits for it (MPI_Recv, the MPI_Wait* that completes an MPI_Irecv or a started persistent receive, the first of the MPI_Test* calls that polled for it, the MPI_Probe that found the message an MPI_Recv receives from the same source and tag, or the first of the MPI_Iprobe calls that polled for it, or the MPI_Mprobe whose message an MPI_Mrecv, or an MPI_Imrecv and the call that completes it, receives, or the first of the MPI_Improbe calls that polled for it), to the send's start; late receiver: a send still in progress when its receive was posted, from the entry of the call that waits for it to that post; a Wait completing several requests waits as long as its longest, once, under that one's kind; a collective's arrival wait: from this rank's entry to the last member's (a neighbourhood collective's, MPI_Neighbor_* and MPI_Ineighbor_*: to the last of its in-neighbours', the ranks it receives from in the communicator's topology; a nonblocking collective's: from the entry of the call that completed it, or of the first MPI_Test* that polled for it, to the last member's start); cost: the rest of the call. Each part is the matched samples' share of the sampled calls' duration (weighted by stride) times the measured time of all calls of the kind; point to point, post-stratified by call duration: per octave of ns, each stratum's measured time (from the cells' histograms) split by its own samples' shares, and the Test calls, probes and strata without samples by the remaining samples' shares, every interval widened by what those cannot attribute (blocking sends, receives, send-receives, MPI_Probe, MPI_Iprobe, MPI_Mprobe and MPI_Improbe with MPI_Mrecv, MPI_Wait* and MPI_Test*; blocking collectives, and the MPI_Wait* and MPI_Test* calls that each completed one nonblocking or persistent collective, with the MPI_Test* calls that polled it before, split as the sampled nonblocking ones); 95 % intervals from the sampling and the clocks' uncertainty. A request polled by MPI_Test* counts its calls' own time: the earlier polls' (taken as spread evenly over the span up to the completing call, so that the wait holds their share before the other end's start) and the completing call's. A message found by probes (polling MPI_Iprobe/MPI_Improbe calls, or a blocking MPI_Probe/MPI_Mprobe) counts the probes' own time and its receive's, the same way, the receive being the completing call (an MPI_Imrecv counts with the probes, and the calls that complete its request as the Test calls and the completing call). Nonblocking and persistent starts (MPI_Imrecv's too), the MPI_Wait* and MPI_Test* calls that completed only requests of independent nonblocking I/O or request-based one-sided calls (with the MPI_Test* calls that polled them), one-sided calls other than MPI_Win_fence, MPI_Win_start, MPI_Win_complete, MPI_Win_post and MPI_Win_wait (MPI_Win_test among them), and I/O calls other than MPI_File_open, the blocking collective ones and the split collectives' _begin (their _end, the starts of nonblocking ones and the independent calls; a nonblocking collective I/O call's completion is split as a nonblocking collective's) are in other_ns.";
