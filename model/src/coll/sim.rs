//! A LogGP simulation of a collective's point-to-point schedule: each rank's clock, its
//! CPU (o_s, o_r) and its injection gap (g + (s−1)G), message by message.
use super::crowd::crowd_factor;
pub use super::crowd::Crowd;
/// One round: messages `(from, to, bytes)`, each rank's sends posted in the order listed,
/// and the local reductions `(rank, bytes)` each rank makes once its round's receives
/// are in. A rank starts its next round when all its sends and receives of this one are
/// complete (the Waitall of the algorithm's step).
#[derive(Clone, Debug, Default)]
pub struct Round {
    pub msgs: Vec<(u32, u32, u64)>,
    pub reduce: Vec<(u32, u64)>,
    /// Local copies `(rank, bytes)` each rank makes after its reductions of the round
    /// (Bruck's rotations).
    pub copy: Vec<(u32, u64)>,
    /// Each rank receives into the part of its buffer its partner read earlier in the
    /// collective (the allgather phase after a reduce-scatter): an exchange step is then
    /// priced by the refill exchange (`Price::exchange_refill_ns`) where measured.
    pub refill: bool,
    /// Bytes each rank writes, before the round's messages, into lines its partner read
    /// in the call before (an algorithm that copies its input into a buffer it then
    /// sends from, called again on the same buffers): the copy itself is priced
    /// elsewhere; this prices taking the lines back from the partner's cache, the refill
    /// exchange's excess over the plain one for as many bytes (`rewrite_ns`).
    pub rewrite: Vec<(u32, u64)>,
    /// Persistent requests `(rank, count)` a rank sets up before the round's messages
    /// and frees after them (Open MPI's linear Alltoall), each priced by half what the
    /// persistent exchange costs beyond the plain one at the round's message size
    /// (`persistent_ns`).
    pub persistent_requests: Vec<(u32, u32)>,
    /// Derived datatypes `(rank, count)` a rank builds before the round's messages and
    /// frees after them (Bruck's Alltoall), each priced by `Local::datatype_setup_ns`.
    pub datatypes: Vec<(u32, u32)>,
}

/// The prices of a rank's local work: a reduction and a copy of so many bytes, one
/// derived datatype's setup and teardown (ns; 0 where not measured).
pub struct Local<'a> {
    pub reduce_ns: &'a dyn Fn(u64) -> f64,
    pub copy_ns: &'a dyn Fn(u64) -> f64,
    pub datatype_setup_ns: f64,
}

pub type Schedule = Vec<Round>;

/// The price of one message of a size between two ranks (ns): the sender's CPU time
/// `o_s`, the receiver's `o_r`, the gap before the sender's next message may leave
/// (`g + (s−1)G`), the end-to-end time from the send's start to the receive's end
/// (`o_s + L + (s−1)G + o_r`), and whether the protocol waits for the receive to be
/// posted (rendezvous) before the data moves.
#[derive(Clone, Copy, Debug, Default)]
pub struct Price {
    pub send_overhead_ns: f64,
    pub recv_overhead_ns: f64,
    pub gap_ns: f64,
    pub end_to_end_ns: f64,
    /// Both ranks sending this size to each other at once, as a step (MPI_Sendrecv both
    /// ways, measured), where known.
    pub exchange_ns: Option<f64>,
    /// The same, each side receiving into the buffer the other has just read (the
    /// calibration's refill exchange), where known.
    pub exchange_refill_ns: Option<f64>,
    /// The same through persistent requests set up and freed each time (the
    /// calibration's persistent exchange), where known.
    pub exchange_persistent_ns: Option<f64>,
    /// The same with both ranks starting it together (the calibration's isolated
    /// exchange, each after a 0-byte one), where known: a step whose pair did not
    /// exchange in the round before. `exchange_ns` (a train) prices the step after one.
    pub exchange_isolated_ns: Option<f64>,
    /// One message alone, both ranks starting together (the calibration's isolated
    /// one-way message, each after a 0-byte exchange), where known: from the later start
    /// to the receiver's end and to the sender's (ns). A rendezvous step from one member
    /// to another costs this; `end_to_end_ns`, half a ping-pong's round trip, holds each
    /// side's wait for the other's FIN (`isolated_one_way_ticks` in the shim).
    pub one_way_isolated_ns: Option<(f64, f64)>,
    pub rendezvous: bool,
    /// A rendezvous send's own CPU time and gap, where known: those of the smallest
    /// message the calibration measured, the request that the send posts. Within one
    /// host the receiver reads the data from the sender's buffer (Open MPI vader's CMA
    /// get, UCX's cma): the blocking probe's o_s is mostly waiting for that copy, and a
    /// sender that starts several at once (a linear Bcast's root) is not busy for it.
    pub post: Option<(f64, f64)>,
    /// Every rank of the host copying at once, where measured (the calibration's
    /// concurrent exchange) and the pair's ranks share a host with the row's other
    /// members: see [`crowd_factor`].
    pub crowd: Option<Crowd>,
}

/// The exchanges of a round, as index pairs into its messages: two ranks that send to
/// each other, each message the only one either rank sends or receives in the round
/// (recursive doubling, pairwise and two-process steps). Such a step is priced by the
/// calibration's exchange probe where it has one.
pub fn exchanges(round: &Round) -> Vec<(usize, usize)> {
    let only = |r: u32, to: bool| {
        round
            .msgs
            .iter()
            .filter(|m| m.0 != m.1 && if to { m.1 == r } else { m.0 == r })
            .count()
            == 1
    };
    let mut out = vec![];
    for (i, &(a, b, _)) in round.msgs.iter().enumerate() {
        if a >= b {
            continue;
        }
        if let Some(j) = round.msgs.iter().position(|m| m.0 == b && m.1 == a) {
            if only(a, false) && only(a, true) && only(b, false) && only(b, true) {
                out.push((i, j));
            }
        }
    }
    out
}

/// What an exchange variant costs beyond the plain exchange of the same size, where both
/// were measured (0 otherwise).
fn excess_ns(variant: Option<f64>, p: &Price) -> f64 {
    match (variant, p.exchange_ns) {
        (Some(v), Some(plain)) => (v - plain).max(0.0),
        _ => 0.0,
    }
}

/// What writing `bytes` into lines the partner read costs beyond a plain write: the
/// refill exchange's excess (0 below 4 KiB, where the calibration does not measure the
/// refill, and where it weighs little).
pub fn rewrite_ns(p: &Price) -> f64 {
    excess_ns(p.exchange_refill_ns, p)
}

/// What one persistent request costs beyond a plain one, set up, started, completed and
/// freed: half the persistent exchange's excess (0 beyond 1 KiB, where the calibration
/// does not measure it, and where both take the same send path).
pub fn persistent_ns(p: &Price) -> f64 {
    excess_ns(p.exchange_persistent_ns, p) / 2.0
}

/// How much longer a receiver's copy of a rendezvous message takes while other ranks
/// copy at the same time: the exchange probe's two copies at once over one alone, on
/// the copy's part of it (its time beyond the request's flight, over o_r), between 1
/// and 2. Measured for two copies; more at once are priced as two, which the
/// calibration does not measure (a 16-core VM, Open MPI 4.1.6 vader, 4 ranks, 2026-11-27: a
/// linear Bcast's three copies of 256 KiB at once 2.1 × one, two at once 1.7 ×).
pub fn shared_copy_factor(p: &Price) -> f64 {
    match p.exchange_ns {
        Some(ex) if p.recv_overhead_ns > 0.0 => {
            let flight = (p.end_to_end_ns - p.recv_overhead_ns).max(0.0);
            ((ex - flight) / p.recv_overhead_ns).clamp(1.0, 2.0)
        }
        _ => 1.0,
    }
}

/// How many ranks copy rendezvous data from different buffers at once in a round: each
/// rank that receives in one of its exchanges (`ex`), and of the other rendezvous
/// messages the fewer of their distinct receivers and distinct senders (receivers that
/// read one sender's buffer take turns at it, see the copies in `simulate_members_from`).
pub(super) fn copies_at_once(
    round: &Round,
    ex: &[(usize, usize)],
    n: usize,
    price: &dyn Fn(u32, u32, u64) -> Price,
) -> usize {
    let in_exchange: std::collections::BTreeSet<usize> =
        ex.iter().flat_map(|&(i, j)| [i, j]).collect();
    let mut exchanging = 0;
    let (mut senders, mut receivers) = (
        std::collections::BTreeSet::new(),
        std::collections::BTreeSet::new(),
    );
    for (i, &(from, to, bytes)) in round.msgs.iter().enumerate() {
        if from == to || from as usize >= n || to as usize >= n {
            continue;
        }
        if !price(from, to, bytes).rendezvous {
            continue;
        }
        if in_exchange.contains(&i) {
            exchanging += 1;
        } else {
            senders.insert(from);
            receivers.insert(to);
        }
    }
    exchanging + senders.len().min(receivers.len())
}

/// A message of a round as its receiver takes it in.
struct Arrival {
    to: usize,
    /// When its data is in (ns).
    at: f64,
    recv_overhead_ns: f64,
    /// The sender, and how long after the receiver's end it is done, where the isolated
    /// one-way message says so (`Price::one_way_isolated_ns`).
    fin: Option<(usize, f64)>,
}

/// LogGP simulation (Alexandrov et al., SPAA 1995; the rendezvous wait as in LogGOPS):
/// every rank enters at 0; returns the time the last rank leaves.
pub fn simulate(
    n: u32,
    schedule: &Schedule,
    price: &dyn Fn(u32, u32, u64) -> Price,
    reduce_ns: &dyn Fn(u64) -> f64,
) -> f64 {
    let local = Local {
        reduce_ns,
        copy_ns: &|_| 0.0,
        datatype_setup_ns: 0.0,
    };
    simulate_members(n, schedule, price, &local)
        .into_iter()
        .fold(0.0, f64::max)
}

/// As `simulate`, each rank's leaving time, all local work priced by `local`.
pub fn simulate_members(
    n: u32,
    schedule: &Schedule,
    price: &dyn Fn(u32, u32, u64) -> Price,
    local: &Local,
) -> Vec<f64> {
    simulate_members_from(&vec![0.0; n as usize], schedule, price, local)
}

/// As `simulate_members`, each rank entering at its own time (`entries`, one per rank):
/// what a message sent before its receiver entered, or a partner's late entry, does to
/// each member's exit.
pub fn simulate_members_from(
    entries: &[f64],
    schedule: &Schedule,
    price: &dyn Fn(u32, u32, u64) -> Price,
    local: &Local,
) -> Vec<f64> {
    let n = entries.len();
    let mut t = entries.to_vec();
    // Each rank's partner in the round before's exchange, if it made one.
    let mut exchanged_with: Vec<Option<usize>> = vec![None; n];
    for round in schedule {
        let start = t.clone();
        let mut cpu = start.clone();
        let mut nic = start.clone();
        let mut done = start.clone();
        // What a rank does before the round's messages: lines taken back from the
        // partner's cache, requests and datatypes set up (their teardown after the
        // messages is counted here too: the next round waits for it alike). Most rounds
        // have none, and the per-rank scans below would cost n × messages per round.
        let setup = !(round.rewrite.is_empty()
            && round.persistent_requests.is_empty()
            && round.datatypes.is_empty());
        // The requests' message size: the largest each rank sends in the round (one pass
        // over the messages, not one per rank: a linear Alltoall has n(n−1) of them).
        let mut largest = vec![0u64; n];
        if !round.persistent_requests.is_empty() {
            for &(from, _, bytes) in &round.msgs {
                if let Some(x) = largest.get_mut(from as usize) {
                    *x = (*x).max(bytes);
                }
            }
        }
        let ranks = if setup { 0..n } else { 0..0 };
        for r in ranks {
            let rank = r as u32;
            let partner = if (rank ^ 1) < n as u32 {
                rank ^ 1
            } else {
                (rank + 1) % n as u32
            };
            let count = |v: &[(u32, u32)]| {
                v.iter()
                    .filter(|x| x.0 == rank)
                    .map(|x| x.1 as f64)
                    .sum::<f64>()
            };
            let requests = count(&round.persistent_requests);
            let per_request = if requests > 0.0 {
                persistent_ns(&price(rank, partner, largest[r]))
            } else {
                0.0
            };
            let before = (round.rewrite.iter())
                .filter(|x| x.0 == rank)
                .map(|x| rewrite_ns(&price(rank, partner, x.1)))
                .sum::<f64>()
                + requests * per_request
                + count(&round.datatypes) * local.datatype_setup_ns;
            if before > 0.0 {
                cpu[r] = start[r] + before;
                nic[r] = cpu[r];
                done[r] = cpu[r];
            }
        }
        let start: Vec<f64> = cpu.clone();
        let mut arrivals: Vec<Arrival> = Vec::new();
        // An exchange step (see `exchanges`): both finish the measured exchange time
        // after the later of them is free. A rendezvous step of a pair that did not
        // exchange in the round before starts together, and costs the calibration's
        // isolated exchange (`Price::exchange_isolated_ns`), measured as a collective's
        // cost is, from the later side's start; a train's time per exchange held one more
        // message's latency (its sides out of phase): a 2-rank Allgather and Alltoall of
        // 4 KiB under Open MPI vader, priced by the train at 1.15-1.37 × their cost in
        // four jobs, were at 0.96-1.06 × by the isolated exchange (2026-11-29). An eager
        // step keeps the train, less the partners' skew (below): priced by the isolated
        // exchange, which already holds the skew its 0-byte exchange left, the 8-byte
        // Allreduce, Allgather and Alltoall rows' medians of three jobs fell from
        // 0.93-1.05 × to 0.80-0.90 ×. A pair that exchanged in the round
        // before runs as the train does.
        let mut exchanged = vec![false; round.msgs.len()];
        let mut partner_now: Vec<Option<usize>> = vec![None; n];
        let ex_pairs = exchanges(round);
        // Where more than two ranks of the host copy at once, each copy takes longer
        // (`crowd_factor`); only where measured.
        let crowded = round.msgs.len() > 2 && price(0, 1, round.msgs[0].2).crowd.is_some();
        let crowd = if crowded {
            copies_at_once(round, &ex_pairs, n, price)
        } else {
            0
        };
        for (i, j) in ex_pairs {
            let (a, b) = (round.msgs[i].0, round.msgs[i].1);
            let (x, y) = (a as usize, b as usize);
            if x >= n || y >= n {
                continue;
            }
            let bytes = round.msgs[i].2.max(round.msgs[j].2);
            let p = price(a, b, bytes);
            let refill = p.exchange_refill_ns.filter(|_| round.refill);
            let again = exchanged_with[x] == Some(y) && exchanged_with[y] == Some(x);
            let isolated = p.exchange_isolated_ns.filter(|_| p.rendezvous && !again);
            let Some(ex) = refill.or(isolated).or(p.exchange_ns) else {
                continue;
            };
            let ex = ex * crowd_factor(p.crowd, p.rendezvous, crowd);
            // An eager partner free `skew` earlier has sent its part already: the exchange
            // ends that much sooner, down to one message's end-to-end time (the later
            // side's message crossing alone). Both free together, it takes the measured
            // exchange. Two ranks after a barrier, Open MPI vader, 8 B (2026-11-28): an
            // exchange timed from the later entry took 250–290 ns against the probe's 390
            // ns. A rendezvous part moves only once the later side is there: taken off
            // there too, MPICH's 256 KiB scatter-allgather Bcast was priced ×2.38 its
            // binomial one against ×2.9–3.2 measured (×2.85 without).
            let (free_x, free_y) = (cpu[x].max(nic[x]), cpu[y].max(nic[y]));
            let skew = if p.rendezvous {
                0.0
            } else {
                (free_x - free_y).abs()
            };
            let end = free_x.max(free_y) + (ex - skew).max(p.end_to_end_ns.min(ex));
            for r in [x, y] {
                cpu[r] = end;
                nic[r] = end;
                done[r] = done[r].max(end);
            }
            exchanged[i] = true;
            exchanged[j] = true;
            partner_now[x] = Some(y);
            partner_now[y] = Some(x);
        }
        exchanged_with = partner_now;
        // The rendezvous copies of this round (exchanges apart, which the exchange probe
        // priced), per receiver, and per sender those whose receiver copies nothing else
        // in the round, so that all of them read the sender's buffer at once.
        let mut copies_in = vec![0usize; n];
        let rendezvous: Vec<bool> = (round.msgs.iter().enumerate())
            .map(|(i, &(from, to, bytes))| {
                let (s, d) = (from as usize, to as usize);
                let r =
                    !exchanged[i] && s != d && s < n && d < n && price(from, to, bytes).rendezvous;
                if r {
                    copies_in[d] += 1;
                }
                r
            })
            .collect();
        let mut read_at_once = vec![0usize; n];
        for (i, &(from, to, _)) in round.msgs.iter().enumerate() {
            if rendezvous[i] && copies_in[to as usize] == 1 {
                read_at_once[from as usize] += 1;
            }
        }
        let shared = copies_in.iter().filter(|&&c| c > 0).count() > 1;
        for (i, &(from, to, bytes)) in round.msgs.iter().enumerate() {
            let (s, d) = (from as usize, to as usize);
            if s >= n || d >= n || s == d || exchanged[i] {
                continue;
            }
            let p = price(from, to, bytes);
            let inject = cpu[s].max(nic[s]);
            let (o_s, gap) = match p.post {
                Some(post) if p.rendezvous => post,
                _ => (p.send_overhead_ns, p.gap_ns),
            };
            cpu[s] = inject + o_s;
            nic[s] = inject + gap.max(o_s);
            // A rendezvous send moves its data once the receive is posted: at the
            // receiver's start of this round at the earliest.
            let begin = if p.rendezvous {
                inject.max(start[d])
            } else {
                inject
            };
            // The data is in when the receiver's o_r would begin, so that one message alone
            // costs its end-to-end time. Where o_s + o_r exceed it (a rendezvous over a
            // single copy: the sender's o_s is mostly waiting for the receiver's copy), the
            // two overlap in time, and a bound of o_s here counted that time twice.
            //
            // A rendezvous message whose isolated one-way was measured costs that: its
            // receiver is done `to_receiver` after the later start (its o_r at most that
            // much of it), its sender when the receiver's FIN comes back, `to_sender` less
            // `to_receiver` after the receiver's end (later where the receiver's copy was
            // slowed). By half a ping-pong's round trip, a 2-rank Bcast of 4 KiB under Open
            // MPI vader (basic linear: one rendezvous message) was priced 1.16–1.43 × its
            // cost in five jobs (2026-11-29).
            let one_way = p.one_way_isolated_ns.filter(|_| p.rendezvous);
            let (flight, o_r, fin) = match one_way {
                Some((to_receiver, to_sender)) => {
                    let o_r = p.recv_overhead_ns.min(to_receiver);
                    (
                        to_receiver - o_r,
                        o_r,
                        Some((s, (to_sender - to_receiver).max(0.0))),
                    )
                }
                None => (
                    (p.end_to_end_ns - p.recv_overhead_ns).max(0.0),
                    p.recv_overhead_ns,
                    None,
                ),
            };
            let arrive = begin + flight;
            done[s] = done[s].max(if p.rendezvous { arrive } else { cpu[s] });
            // Copies at once share the memory system (`shared_copy_factor`, f); k copies
            // reading one sender's buffer at once take turns at it, each beyond the first
            // adding f − 1 of a copy (3, 7 and 15 receivers of a linear Bcast of 256 KiB
            // took 2.1, 4.5 and 10.7 × one copy; priced 2.4, 5.3 and 11.1 × with f = 1.72;
            // a 16-core VM, Open MPI 4.1.6 vader, 2026-11-27).
            let copy = if rendezvous[i] && shared {
                let f = shared_copy_factor(&p);
                let k = if copies_in[d] == 1 {
                    read_at_once[s]
                } else {
                    1
                };
                f.max(1.0 + (k.max(1) - 1) as f64 * (f - 1.0))
            } else {
                1.0
            };
            arrivals.push(Arrival {
                to: d,
                at: arrive,
                recv_overhead_ns: o_r * copy * crowd_factor(p.crowd, p.rendezvous, crowd),
                fin,
            });
        }
        arrivals.sort_by(|a, b| a.at.total_cmp(&b.at));
        for Arrival {
            to: d,
            at: arrive,
            recv_overhead_ns: o_r,
            fin,
        } in arrivals
        {
            let end = cpu[d].max(arrive) + o_r;
            cpu[d] = end;
            done[d] = done[d].max(end);
            if let Some((s, after)) = fin {
                done[s] = done[s].max(end + after);
            }
        }
        for (list, cost) in [
            (&round.reduce, local.reduce_ns),
            (&round.copy, local.copy_ns),
        ] {
            for &(rank, bytes) in list {
                let r = rank as usize;
                if r < n {
                    done[r] = done[r].max(cpu[r]) + cost(bytes);
                    cpu[r] = done[r];
                }
            }
        }
        t = done;
    }
    t
}
