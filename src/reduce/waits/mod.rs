//! The waits' reduce step (issue 25 §3), at MPI_Finalize on every rank: each rank turns
//! its kept samples (`record::samples`) into rank 0's clock, sends each message's end to
//! the other end's rank and each collective call to a home rank that finds the last
//! member's entry, then splits its own time in MPI (definitions in `loggp_report::waits`).
//!
//! Scaling: the waits of the matched samples are a ratio of the sampled calls' duration
//! (each sample weighted by its stride); that ratio times the measured duration of all
//! calls of the kind is the estimate (a ratio estimator: Cochran, "Sampling Techniques",
//! 1977, §6), with its standard error corrected for the finite population (0 when every
//! message was kept). Point to point, the ratio is taken per stratum of call duration
//! and the strata summed (`strata`): the cells' histograms hold every call's duration.
use crate::base::mpi::{self, MPI_Comm};
use crate::record::samples::{self, Coll, P2p, P2P_WORDS, SIDE_RECV, SIDE_SEND};
use loggp_report::bins::size_bin;
use std::collections::HashMap;
use std::os::raw::c_int;

/// One matched sample of a blocking call: weight, duration, and each wait with its
/// bounds from the clocks (ticks).
#[derive(Default, Clone, Copy)]
struct Split {
    w: f64,
    dur: f64,
    ls: [f64; 3],
    lr: [f64; 3],
    /// The message's peer class and mode (`PeerClass`, `Mode` as u8; point to point).
    class: u8,
    mode: u8,
    /// A nonblocking collective's completion (its duration is the completing call's).
    nonblocking: bool,
    /// The function of the call that waited (point to point: which calls' durations it
    /// stands for, `strata`).
    func: u8,
    /// Its duration is a polled span's calls (`samples::poll_word`): Test calls, or the
    /// probes with the receive of what they found, not one call of `func`.
    spans: bool,
    /// A blocking collective call: the longest of its members' pauses since their
    /// previous call of it on its communicator, in ticks (None: not known).
    pause: Option<f64>,
}

type TraceRaw = (u8, u8, f64, f64, u32, u64, u64, f64, f64);

/// A collective's row: function, communicator size, size bin, communicator (`coll_rows`).
type CollRow = (u8, u32, u16, u64);

/// A wait's group: peer, late sender (else late receiver), function, size bin, call site.
type WaitKey = (u32, bool, u8, u16, u64);

/// One end of a wait group: its call's duration (ticks), function, and weighted wait.
type WaitEnd = (f64, u8, f64);

/// What a rank measured, before its exact call times scale it.
#[derive(Default)]
pub(crate) struct Measured {
    p2p: Vec<Split>,
    sampled_messages: u64,
    /// Message ends whose other end was found and fits (requests a Wait completed
    /// together count one by one here, and as one call in `p2p`).
    matched: u64,
    represented: u64,
    sampled_ticks: f64,
    coll: Vec<Split>,
    /// Per (function, communicator size, size bin, communicator's name where its members
    /// make a row of their own, else 0: `colls::communicator`): the calls, and their bytes.
    coll_rows: HashMap<CollRow, (Vec<Split>, f64)>,
    /// Per row of `coll_rows`: the reductions' operation and element size
    /// (`samples::op_meta`; `colls::MIXED_OP` where the calls differ; 0 not a reduction).
    coll_ops: HashMap<CollRow, u8>,
    /// The members' world ranks of each communicator named in a row's key.
    coll_members: HashMap<u64, Vec<u32>>,
    sampled_collectives: u64,
    /// (latency ticks, the message's weight: its stride) per (class, size bin).
    latency: HashMap<(u8, u16), Vec<(f64, f64)>>,
    /// Per wait group: the ends, and each end's (call duration, function, weighted wait)
    /// in ticks, scaled by its stratum (`strata`).
    largest: HashMap<WaitKey, (u64, Vec<WaitEnd>)>,
    /// Calls for the timeline: (side, function, entry, exit, peer, bytes, flow, arrival
    /// wait, the message's post), ns on rank 0's clock from the earliest sampled call
    /// (see `timeline_scale`).
    trace: Vec<TraceRaw>,
    /// The rank's counters over time (`output::counters`), each at its time in ns on
    /// the timeline's clock.
    counters: Vec<(f64, crate::output::counters::Point)>,
    /// Per (class, blocking mode, size bin): matched sampled calls, the messages they
    /// stand for, and those of the calls that waited for the other end for at least half
    /// of the call (`Waits::call_waits`).
    call_waits: HashMap<(u8, u8, u16), [u64; 3]>,
    inconsistent: u64,
    uncertainty_ticks: f64,
    dropped: u64,
    unnumbered: u64,
}

/// How one rank turns its counter into rank 0's: the offset measured at each end,
/// interpolated linearly between them (the drift), and the larger of the two ends'
/// uncertainties. A rank that shares rank 0's counter (see `lifecycle::clocks`) has all
/// zero; `clocks::conversions` measures it.
#[derive(Clone, Copy, Debug, Default)]
pub struct ToRank0 {
    pub off_init: i64,
    pub at_init: u64,
    pub off_fin: i64,
    pub at_fin: u64,
    pub uncertainty_ticks: u64,
}

impl ToRank0 {
    /// `t` of this rank's counter in rank 0's.
    pub fn apply(&self, t: u64) -> u64 {
        let span = self.at_fin.wrapping_sub(self.at_init) as f64;
        let off = if span > 0.0 && self.at_fin > self.at_init {
            let x = (t as f64 - self.off_init as f64 - self.at_init as f64) / span;
            self.off_init as f64 + (self.off_fin - self.off_init) as f64 * x.clamp(0.0, 1.0)
        } else {
            self.off_fin as f64
        };
        (t as i128 - off.round() as i128).max(0) as u64
    }
}

const WAITS_TAG: c_int = 0x10_68;

/// Sends each rank its part (u64 words) and returns what every rank sent this one: one
/// message per non-empty part, point to point on the private communicator and counted as
/// loggp's own traffic (Open MPI's monitoring counts the messages of MPI_Alltoallv
/// beneath it as user messages, which the coverage check could not take away). An
/// MPI_Allreduce of the per-destination message counts tells each rank how many to
/// receive.
fn alltoallv(comm: MPI_Comm, rank: i32, parts: &[Vec<u64>], step: c_int) -> Vec<Vec<u64>> {
    let tag = WAITS_TAG + step;
    let n = parts.len();
    let mut out: Vec<Vec<u64>> = vec![Vec::new(); n];
    let me = rank as usize;
    let mut expect: Vec<c_int> = parts.iter().map(|p| (!p.is_empty()) as c_int).collect();
    if let Some(e) = expect.get_mut(me) {
        *e = 0; // this rank's own part is not sent
    }
    let mut total = vec![0 as c_int; n];
    // SAFETY: n ints each way.
    unsafe {
        mpi::PMPI_Allreduce(
            expect.as_ptr() as *const _,
            total.as_mut_ptr() as *mut _,
            n as c_int,
            mpi::dt_int(),
            mpi::op_sum(),
            comm,
        );
    }
    let mut reqs: Vec<mpi::MPI_Request> = Vec::new();
    for (to, p) in parts.iter().enumerate() {
        if to == me {
            out[me] = p.clone();
        } else if !p.is_empty() {
            crate::record::matrix::own_sent(to as i32, p.len() as u64 * 8);
            let mut r: mpi::MPI_Request = mpi::request_null();
            // SAFETY: `parts` outlives the Waitall below.
            unsafe {
                mpi::PMPI_Isend(
                    p.as_ptr() as *const _,
                    p.len() as c_int,
                    mpi::dt_u64(),
                    to as c_int,
                    tag,
                    comm,
                    &mut r,
                )
            };
            reqs.push(r);
        }
    }
    for _ in 0..total.get(me).copied().unwrap_or(0) {
        let mut st = mpi::empty_status();
        let mut words: c_int = 0;
        // SAFETY: probe, then a receive sized by the probed count.
        unsafe {
            mpi::PMPI_Probe(mpi::any_source(), tag, comm, &mut st);
            mpi::PMPI_Get_count(&st, mpi::dt_u64(), &mut words);
        }
        let from = st.MPI_SOURCE;
        let mut buf = vec![0u64; words.max(0) as usize];
        // SAFETY: room for `words` u64.
        unsafe {
            mpi::PMPI_Recv(
                buf.as_mut_ptr() as *mut _,
                words,
                mpi::dt_u64(),
                from,
                tag,
                comm,
                mpi::status_ignore(),
            )
        };
        if let Some(o) = out.get_mut(from.max(0) as usize) {
            *o = buf;
        }
    }
    // SAFETY: the requests started above.
    unsafe {
        mpi::PMPI_Waitall(
            reqs.len() as c_int,
            reqs.as_mut_ptr(),
            mpi::statuses_ignore(),
        )
    };
    out
}

/// One wait a call, under one kind. A Wait that completed a send and a receive of a late
/// peer saw both ends wait from the call's entry: the receive for the send's start, and
/// the send, still in the call because the call waited for the receive, for the peer's
/// post. Those are one span of the call, counted once, as the longer of the two (the
/// bounds the larger of each). Counted as both, an MPI_Waitall of an MPI_Irecv, an
/// MPI_Isend and an MPI_Iallreduce whose peer came 0.5 ms late (tests/c/waits.c
/// `icoll_mixed`) read 48.9 ms of late sender and 49.0 ms of late receiver in 51.1 ms of
/// calls, and a cost of −46.8 ms.
fn one_wait(e: &mut Split) {
    let both: [f64; 3] = std::array::from_fn(|k| e.ls[k].max(e.lr[k]));
    // A call of one end keeps its kind, its upper bound too where its estimate is 0.
    if (e.ls[0], e.ls[2]) >= (e.lr[0], e.lr[2]) {
        (e.ls, e.lr) = (both, [0.0; 3]);
    } else {
        (e.ls, e.lr) = ([0.0; 3], both);
    }
}

/// A wait that ends at `until` (the partner's event, ± u) within [from, end].
fn bounded(until: f64, from: f64, end: f64, u: f64) -> [f64; 3] {
    let w = |t: f64| (t - from).clamp(0.0, (end - from).max(0.0));
    [w(until), w(until - u), w(until + u)]
}

/// The part inside MPI of the first `x` ticks of a polled span (from the first poll's
/// entry `from` through the completing call, entered at `t0`, to its exit `end`), whose
/// earlier polls took `polls` ticks: those polls taken as spread evenly over the span up
/// to `t0` (the program's work between them alike), then the completing call's own time.
/// Why: MPICH's MPI_Testany took 57 % of a polling loop's time here, so the span from
/// the first poll overstated the calls' time by 75 %, and every part's interval was
/// widened by the difference: [57, 405 ms] around a wait of 232 ms in polls. Timed by
/// the calls, 12 runs of tests/waits.rs's late sender through MPI_Testany (MPICH) held
/// the polls' time that the program saw go before each send inside intervals of
/// ±1–17 %.
fn in_polls(x: f64, (from, t0, end): (f64, f64, f64), polls: f64) -> f64 {
    let at = from + x;
    if at <= t0 {
        if t0 > from {
            polls * x / (t0 - from)
        } else {
            0.0
        }
    } else {
        polls + (at - t0).min(end - t0)
    }
}

/// A blocking mode whose call lasts as long as it waits for the other end where it does:
/// MPI_Send, Ssend, Bsend, Rsend and MPI_Recv (`Mode` as u8).
fn is_blocking(mode: u8) -> bool {
    use loggp_report::Mode;
    matches!(
        Mode::from_u8(mode),
        Mode::Send | Mode::Ssend | Mode::Bsend | Mode::Rsend | Mode::Recv
    )
}

/// The exchange (collective over the private communicator: every rank calls it, with
/// whatever it kept).
/// `skew`: LOGGP_INJECT_FAULT=clock_skew's shift of this rank's counter (ticks).
pub(crate) fn exchange(comm: MPI_Comm, rank: i32, size: i32, conv: ToRank0, skew: i64) -> Measured {
    let n = size.max(1) as usize;
    let (mut p2p, mut coll) = samples::taken();
    let (dropped, unnumbered) = samples::lost();
    let counts = samples::channel_counts();
    let cut = |channel: u64, k: u64, stride: u64| {
        samples::weight(k, stride, counts.get(&channel).copied().unwrap_or(u64::MAX))
    };
    let my_u = conv.uncertainty_ticks;
    let to_rank0 = |t: &mut u64| *t = conv.apply(t.wrapping_add_signed(skew));
    for s in &mut p2p {
        s[3..6].iter_mut().for_each(to_rank0);
    }
    for c in &mut coll {
        c[2..4].iter_mut().for_each(to_rank0);
        to_rank0(&mut c[6]);
    }
    let (origin, ns0) = timeline_scale(comm, &p2p, &coll);
    let at = |t: f64| (t - origin as f64) * ns0;
    // Point to point: each end to the other's rank, its peer word replaced by this
    // rank's clock uncertainty (the receiver knows who sent it).
    let mut parts = vec![Vec::new(); n];
    for s in p2p.iter().filter(|s| (s[7] as usize) < n) {
        let mut v = *s;
        v[7] = my_u;
        parts[s[7] as usize].extend_from_slice(&v);
    }
    let got = alltoallv(comm, rank, &parts, 0);
    let mut other: HashMap<(u64, u64, u64), P2p> = HashMap::new();
    for words in &got {
        for c in words.chunks_exact(P2P_WORDS) {
            let side = (c[6] >> 32) & 1;
            other.insert((c[0], c[1], side), c.try_into().unwrap_or([0; P2P_WORDS]));
        }
    }
    let counters = crate::output::counters::taken();
    let mut m = Measured {
        counters: counters
            .into_iter()
            .map(|p| {
                let mut t = p.tick;
                to_rank0(&mut t);
                (at(t as f64), p)
            })
            .collect(),
        uncertainty_ticks: my_u as f64,
        dropped,
        unnumbered,
        ..Default::default()
    };
    // One call per (entry, exit): a Wait that completed several requests, or an
    // MPI_Sendrecv, is one call for several message ends, each sampled on its own channel
    // with its own stride. Each kept end stands for stride / (the ends its call completed)
    // of the call (`samples::side_of`), so that the call counts once: counted per end, a
    // Waitall of an MPI_Irecv and an MPI_Isend counted twice, and the demo's sample stood
    // for 14.0 ms of calls that took 10.4 ms, which widened every part's interval by the
    // difference (late sender 0.2 ms, [0, 4.0 ms]). The call waited as long as the
    // longest wait of its kept ends.
    let mut calls: HashMap<(u64, u64), Split> = HashMap::new();
    // Each kept end that waited: its call (entry, exit), wait group, end (its wait
    // unweighted) and weight.
    let mut waited: Vec<((u64, u64), WaitKey, WaitEnd, f64)> = Vec::new();
    for s in &p2p {
        let stride = cut(s[0], s[1], s[6] & 0xffff_ffff);
        let (side, together) = ((s[6] >> 32) & 1, ((s[6] >> 33) & 0x7f).max(1));
        let w = stride as f64 / together as f64;
        let (class, func) = (((s[6] >> 40) & 0xff) as u8, ((s[6] >> 48) & 0xff) as u8);
        let (start, wait, end) = (s[3] as f64, s[4] as f64, s[5] as f64);
        // A request polled by MPI_Test*: the earlier polls' time inside MPI and the
        // completing call's entry (`samples::poll_word`).
        let polled = samples::poll_parts(s[9]).map(|(p, c)| (p as f64, (end - c as f64).max(wait)));
        m.sampled_messages += 1;
        // The call's own time: from its entry (a completing call's, for a nonblocking
        // message) to its exit; a polled request's, its polls' and the completing call's.
        let dur = polled.map_or(end - wait, |(p, t0)| p + end - t0);
        m.sampled_ticks += w * dur;
        let Some(c) = other.get(&(s[0], s[1], 1 - side)) else {
            continue;
        };
        let u = (my_u + c[7]) as f64;
        let (c_start, c_end) = (c[3] as f64, c[5] as f64);
        let fits = if side == SIDE_RECV {
            c[2] <= s[2] && c_start <= end + u
        } else {
            s[2] <= c[2] && c_end + u >= start
        };
        if !fits {
            m.inconsistent += 1;
            continue;
        }
        let flow = flow_id(s[0], s[1]);
        if flow.is_multiple_of(8) && m.trace.len() < TRACE_MESSAGES {
            m.trace.push((
                side as u8,
                func,
                at(wait),
                at(end),
                s[7] as u32,
                s[2],
                flow,
                0.0,
                at(start),
            ));
        }
        let mut sp = Split {
            w,
            dur,
            class,
            mode: (s[6] >> 56) as u8,
            func,
            spans: polled.is_some(),
            ..Default::default()
        };
        if side == SIDE_RECV {
            sp.ls = bounded(c_start, wait, end, u);
            if wait <= c_start {
                m.latency
                    .entry((class, size_bin(c[2])))
                    .or_default()
                    .push((end - c_start, stride as f64));
            }
        } else if end > c_start && side == SIDE_SEND {
            // Still in the send when the receive was posted: it waited for it.
            sp.lr = bounded(c_start, wait, end, u);
        }
        if let Some((p, t0)) = polled {
            let inside = |x: f64| in_polls(x, (wait, t0, end), p);
            sp.ls = sp.ls.map(inside);
            sp.lr = sp.lr.map(inside);
        }
        if is_blocking(sp.mode) {
            let e = m
                .call_waits
                .entry((class, sp.mode, size_bin(s[2])))
                .or_default();
            e[0] += 1;
            e[1] += stride;
            // The lower bound of the wait: beyond the clocks' uncertainty.
            let waited = if side == SIDE_RECV {
                sp.ls[1]
            } else {
                sp.lr[1]
            };
            e[2] += stride * u64::from(waited >= 0.5 * sp.dur && sp.dur > 0.0);
        }
        let kind_recv = side == SIDE_RECV;
        let wait_ticks = if kind_recv { sp.ls[0] } else { sp.lr[0] };
        if wait_ticks > 0.0 {
            let key = (s[7] as u32, kind_recv, func, size_bin(s[2]), s[8]);
            waited.push(((s[4], s[5]), key, (sp.dur, func, wait_ticks), sp.w));
        }
        m.represented += stride;
        m.matched += 1;
        let e = calls.entry((s[4], s[5])).or_insert(Split {
            dur: sp.dur,
            func,
            class: sp.class,
            mode: sp.mode,
            spans: sp.spans,
            ..Default::default()
        });
        // The call counts under the message it waited longest for.
        if sp.ls[0].max(sp.lr[0]) > e.ls[0].max(e.lr[0]) {
            (e.class, e.mode) = (sp.class, sp.mode);
        }
        e.w += sp.w;
        for k in 0..3 {
            e.ls[k] = e.ls[k].max(sp.ls[k]);
            e.lr[k] = e.lr[k].max(sp.lr[k]);
        }
    }
    calls.values_mut().for_each(one_wait);
    // The largest waits: the ends of the kind their call's wait was counted under, which
    // stand for the whole call (its weight shared among them by theirs).
    let counted = |call: &(u64, u64), recv: bool| {
        calls
            .get(call)
            .filter(|e| if recv { e.ls[0] > 0.0 } else { e.lr[0] > 0.0 })
            .map(|e| e.w)
    };
    let mut kept_w: HashMap<(u64, u64), f64> = HashMap::new();
    for (call, key, _, w) in &waited {
        if counted(call, key.1).is_some() {
            *kept_w.entry(*call).or_default() += w;
        }
    }
    for (call, key, (dur, func, wait), w) in waited {
        if let Some(call_w) = counted(&call, key.1) {
            let share = w / kept_w
                .get(&call)
                .copied()
                .unwrap_or(w)
                .max(f64::MIN_POSITIVE);
            let e = m.largest.entry(key).or_default();
            e.0 += 1;
            e.1.push((dur, func, call_w * share * wait));
        }
    }
    m.p2p.extend(calls.into_values());
    for c in &mut coll {
        let stride = cut(c[0], c[1], c[4] & 0xffff_ffff);
        c[4] = (c[4] >> 32) << 32 | stride;
    }
    // The timeline holds only message ends so far: collectives count from here.
    let scale = (origin, ns0, m.trace.len());
    let (neighbourhood, coll): (Vec<Coll>, Vec<Coll>) = coll
        .into_iter()
        .partition(|c| crate::base::funcs::is_neighborhood((c[5] >> 56) as u8));
    let x = colls::Ctx {
        comm,
        rank,
        n,
        my_u,
        scale,
    };
    colls::collectives(&x, &coll, &mut m);
    colls::neighbourhoods(&x, &neighbourhood, &mut m);
    m
}

mod calls;
mod colls;
mod split;
mod strata;
mod timeline;
pub(crate) use split::{collective_completions_ns, finish};
use timeline::{flow_id, timeline_scale, TRACE_MESSAGES};
