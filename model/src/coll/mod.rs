//! The LogGP model of collectives (issue 26): each collective the job called, priced for
//! every algorithm its MPI offers from the calibration's point-to-point measurements, the
//! algorithm in use named where it can be known, and both set beside the measured cost.
//!
//! A message of s bytes between two ranks is priced from the calibration's blocking-send
//! set of their peer class (hoefler2007 §3): its end-to-end time PRTT(1,0,s)/2, o_s(s),
//! o_r(s) and the gap g + (s−1)G = G_all(s) (Eq. 7), interpolated between the measured
//! sizes (beyond the largest, extended by the last range's G), and the protocol of the
//! range holding s (rendezvous waits for the receive). A step where two ranks send to each
//! other at once (recursive doubling, pairwise, two-process exchanges) is priced by the
//! calibration's exchange probe, MPI_Sendrecv both ways (`exchange_ns`), where the set has
//! it: both copies at once share the memory system, and a sender's rendezvous time is
//! mostly waiting for the receiver's copy, neither of which one-way probes show. The
//! allgather phase after a reduce-scatter (Rabenseifner's, the ring's) receives into the
//! part of the buffer the partner has just read: its exchanges are priced by the refill
//! exchange (`exchange_refill_ns`), where through shared memory each line is taken back
//! from the partner's cache (2 ranks, 128 KiB: 29 µs against 15 µs for the plain
//! exchange, Open MPI vader and MPICH alike). The local reduction is priced by
//! MPI_Reduce_local as measured at MPI_Finalize (`collective_config.reduce_local_ns`).
//! The schedules and the simulation are in `schedule`, the MPIs' choices in `select`.
mod buffers;
mod classes;
mod concurrent;
pub mod crowd;
pub mod fixed;
mod measured;
mod mpich_nodes;
pub mod operation;
mod prices;
pub mod schedule;
pub mod select;
pub mod sim;
mod unpriced;

pub use concurrent::concurrent_rendezvous;
use loggp_report::{AlgorithmCost, CollectiveModel, Mode, PeerClass, Report};
use measured::measured;
pub use measured::{after_pause_probe, MIN_BACK_TO_BACK};
use sim::Price;
use unpriced::returns_at_count_0;
pub use unpriced::{nothing_at_count_0, NOTHING_AT_COUNT_0, ONE_RANK};

/// The collectives the model covers: MPI name, the MPI's short name.
const COLLECTIVES: [(&str, &str); 6] = [
    ("MPI_Allreduce", "allreduce"),
    ("MPI_Bcast", "bcast"),
    ("MPI_Allgather", "allgather"),
    ("MPI_Alltoall", "alltoall"),
    ("MPI_Barrier", "barrier"),
    ("MPI_Reduce", "reduce"),
];

/// The MPI's short name of a collective the model covers (`MPI_Bcast` → `bcast`).
fn short_name(function: &str) -> Option<&'static str> {
    COLLECTIVES.iter().find(|c| c.0 == function).map(|c| c.1)
}

/// The message size m of a call from its send plus receive bytes at one rank (the way
/// loggp counts a collective's bytes): Allreduce m + m, Bcast m, Allgather m + n·m,
/// Alltoall n·m + n·m, Reduce m (2m at the root). MPI_IN_PLACE halves what is counted
/// for Allreduce, Allgather and Alltoall; the model takes the calls as not in place.
fn message_bytes(coll: &str, n: u32, bytes: f64) -> u64 {
    let n = n.max(1) as f64;
    (match coll {
        "allreduce" => bytes / 2.0,
        "allgather" => bytes / (n + 1.0),
        "alltoall" => bytes / (2.0 * n),
        "barrier" => 0.0,
        _ => bytes,
    })
    .round() as u64
}

/// A measured local operation's time for `bytes` (`[bytes, ns]` points: MPI_Reduce_local,
/// the local copy), interpolated (0 where it was not measured).
fn reduce_local(points: &[[f64; 2]], bytes: u64) -> f64 {
    let s = bytes as f64;
    let mut prev = [0.0, 0.0];
    for &p in points {
        if p[0] >= s {
            let t = (s - prev[0]) / (p[0] - prev[0]).max(1.0);
            return prev[1] + (p[1] - prev[1]) * t;
        }
        prev = p;
    }
    if prev[0] > 0.0 {
        prev[1] * s / prev[0]
    } else {
        0.0
    }
}

/// How one collective is priced: its algorithms, and the one in use with how it is known.
struct Choice {
    algorithms: &'static [select::Algorithm],
    in_use: Option<(&'static str, &'static str)>,
    force: fn(&str, &str) -> String,
    note: Option<String>,
}

/// MPICH's variables that name a collective selection file in place of its built-in
/// tree (MPICH 4.0.2: the MPIR level's and ch4's).
pub const MPICH_SELECTION_FILES: [&str; 3] = [
    "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE",
    "MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE",
    "MPIR_CVAR_CH4_POSIX_COLL_SELECTION_TUNING_JSON_FILE",
];

/// How MPICH's default is known: MPICH 4.0's built-in selection tree, which
/// `select::mpich_default` encodes, where the job ran MPICH 4.0 (read from the library's
/// version string); an assumption for any other version, whose tree may differ.
pub const MPICH_BUILT_IN: &str = "built-in rules (MPICH 4.0)";
/// How MPICH's default is known for a version other than 4.0.
pub const MPICH_ASSUMED: &str = "default (assumed)";

fn mpich_default_source(library: &str) -> &'static str {
    let version = library
        .lines()
        .find_map(|l| l.strip_prefix("MPICH Version:"))
        .map(str::trim);
    match version {
        Some(v) if v.starts_with("4.0.") || v == "4.0" => MPICH_BUILT_IN,
        _ => MPICH_ASSUMED,
    }
}

fn choice(r: &Report, coll: &'static str, n: u32, m: u64) -> Choice {
    choice_for(r, coll, n, m, operation::ASSUMED)
}

/// [`choice`] for a reduction's operation (`operation`).
fn choice_for(r: &Report, coll: &'static str, n: u32, m: u64, op: operation::Operation) -> Choice {
    let c = &r.collective_config;
    match c.decider.as_str() {
        "openmpi_tuned" => {
            let algorithms = select::openmpi(coll);
            let forced = c
                .variables
                .get(&format!("coll_tuned_{coll}_algorithm"))
                .and_then(|v| v.parse::<u32>().ok())
                .filter(|&v| v != 0 && c.dynamic_rules == Some(true));
            let (in_use, note) = match forced {
                Some(id) => (
                    algorithms
                        .iter()
                        .find(|a| a.id == id.to_string())
                        .map(|a| (a.id, "forced")),
                    None,
                ),
                None => match operation::openmpi_fixed(coll, n, m, op) {
                    Some(id) => (Some((id, "fixed rules")), None),
                    None => (
                        None,
                        Some(format!(
                            "Open MPI's fixed rules for {coll} on {n} ranks are not encoded here"
                        )),
                    ),
                },
            };
            Choice {
                algorithms,
                in_use,
                force: |coll, id| {
                    format!("coll_tuned_use_dynamic_rules=1 coll_tuned_{coll}_algorithm={id}")
                },
                note,
            }
        }
        "mpich" => {
            let algorithms = select::mpich(coll);
            let var = format!("MPIR_CVAR_{}_INTRA_ALGORITHM", coll.to_uppercase());
            let set = c.variables.get(&var).filter(|v| v.as_str() != "auto");
            // A selection file replaces MPICH's built-in tree (`mpich_default`).
            let file = MPICH_SELECTION_FILES
                .iter()
                .find_map(|k| c.variables.get(*k).map(|v| format!("{k}={v}")));
            let default = operation::mpich_default(coll, n, m, op);
            let in_use = match (set, &file) {
                (Some(v), _) => algorithms
                    .iter()
                    .find(|a| a.id == v)
                    .map(|a| (a.id, "forced")),
                (None, Some(_)) => None,
                (None, None) => default
                    .and_then(|id| algorithms.iter().find(|a| a.id == id))
                    .map(|a| (a.id, mpich_default_source(&r.job.mpi_library))),
            };
            let note = match (set, file) {
                (Some(v), _) if in_use.is_none() => {
                    Some(format!("{var}={v} is not an algorithm the model knows"))
                }
                (None, Some(f)) => Some(format!(
                    "{f} replaces MPICH's built-in selection: the algorithm in use is not known"
                )),
                (None, None) if in_use.is_none() => default.map(|id| {
                    format!("MPICH's default here is {id}, which the model does not build")
                }),
                _ => None,
            };
            Choice {
                algorithms,
                in_use,
                force: |coll, id| format!("MPIR_CVAR_{}_INTRA_ALGORITHM={id}", coll.to_uppercase()),
                note,
            }
        }
        other => Choice {
            algorithms: select::openmpi(coll),
            in_use: None,
            force: |coll, id| {
                format!("coll_tuned_use_dynamic_rules=1 coll_tuned_{coll}_algorithm={id}")
            },
            note: Some(if other.is_empty() {
                "which algorithm the MPI used is not known: the report has no collective configuration".into()
            } else {
                format!("which algorithm the MPI used is not known ({other})")
            }),
        },
    }
}

/// Why a row measured well below its price, where the members did not enter together:
/// the cost is measured from the last entry, and what the first member sent before it may
/// already have arrived, while the model prices the members entering at once. MPICH's
/// binomial Bcast of 8 B on 2 ranks, each call after a barrier (tests/c/coll_model.c):
/// the root entered 218–293 ns before the other rank on average, which measured 334–390
/// ns from its own entry against a price of 530–600 ns (the root's one-way message).
fn early_entry(row: &CollectiveModel, lead_ns: f64) -> Option<String> {
    let (p, m) = (row.predicted_ns?, row.measured_ns?);
    (p > 1.3 * m && lead_ns >= 0.2 * p).then(|| {
        let as_entered = row.predicted_as_entered_ns.map_or(String::new(), |a| {
            format!(" (priced as they entered: {a:.0} ns, {:.2} x)", m / a)
        });
        format!(
            "measured {:.2} x the price: one member entered {lead_ns:.0} ns before the last on average, and the cost is measured from the last entry, when part of the call had run; the model prices the members entering together{as_entered}",
            m / p
        )
    })
}

/// The cheapest algorithm by the model; the one in use where it ties (an algorithm that
/// falls back to another at this size runs the same schedule: LAMMPS melt's 4-byte
/// Allreduce under ring was shown "best: recursive_doubling" at the same 596 ns, with a
/// setting to force it).
fn best_of(alternatives: &[AlgorithmCost], in_use: Option<&str>) -> Option<AlgorithmCost> {
    let cheapest = alternatives
        .iter()
        .min_by(|a, b| a.predicted_ns.total_cmp(&b.predicted_ns))?;
    let tied = alternatives.iter().find(|a| {
        Some(a.algorithm.as_str()) == in_use
            && a.predicted_ns <= cheapest.predicted_ns * (1.0 + 1e-9)
    });
    Some(tied.unwrap_or(cheapest).clone())
}

/// How the note of an MPICH barrier row begins where a forced Bcast algorithm closes it
/// (the algorithm's name follows): the barrier's cost then moves with that setting.
pub const FORCED_BCAST_CLOSES: &str = "its closing 1-byte Bcast is the forced";

/// Every collective of the report priced per algorithm, beside its measured cost.
pub fn rows(r: &Report) -> Vec<CollectiveModel> {
    let set_of = |class: PeerClass| {
        r.calibration
            .mpi
            .iter()
            .find(|s| s.peer_class == class && s.mode == Mode::Send)
    };
    let classes = classes::Classes::of(r);
    let pause_probe = set_of(PeerClass::IntraNode).and_then(measured::after_pause_probe);
    let mut out = vec![];
    for x in measured(r) {
        // MPICH on several hosts: ch4's compositions (`mpich_nodes`), the algorithm in use
        // the one its leaders' communicator selects where the collective runs by node.
        let nodes = classes.mpich_nodes(x.n, x.members.as_deref());
        let selecting = (nodes.as_ref()).map_or(x.n, |n| n.selecting_size(x.coll, x.m, x.op));
        let c = choice_for(r, x.coll, selecting, x.m, x.op);
        // A communicator of one rank (MPI_COMM_SELF, a split into singletons) sends no
        // message and has no algorithm to choose: Open MPI serves it by coll self, MPICH
        // by a local copy. hpcc's 1-rank Allreduce and Barrier were priced and advised
        // "coll_tuned_allreduce_algorithm=1", a setting coll tuned never sees there.
        let one_rank = x.n <= 1;
        // A count of 0 that the MPI returns from at once (every call of the row moved
        // nothing): no algorithm runs either.
        let count_0 = !one_rank && x.bin.1 == 0 && returns_at_count_0(r, x.coll);
        let unpriced = one_rank || count_0;
        let in_use = if unpriced { None } else { c.in_use };
        let mut row = CollectiveModel {
            function: x.function.clone(),
            comm_size: x.n,
            size_lo_bytes: x.bin.0,
            size_hi_bytes: x.bin.1,
            message_bytes: x.m,
            measured_ns: x.cost.map(|c| c.0),
            measured_ns_ci: x.cost.and_then(|c| c.1),
            calls_matched: x.calls,
            calls_after_pause: x.after_pause.map(|a| a.0),
            members: x.members.clone(),
            measured_after_pause_ns: x.after_pause.and_then(|a| a.1),
            algorithm: in_use.and_then(|(id, _)| {
                c.algorithms
                    .iter()
                    .find(|a| a.id == id)
                    .map(|a| a.name.to_string())
            }),
            algorithm_source: in_use.map(|(_, how)| how.to_string()),
            operation: x.operation.clone(),
            element_bytes: x.op.recorded.then_some(x.op.element_bytes),
            ..Default::default()
        };
        let mut notes: Vec<String> = if one_rank {
            vec![ONE_RANK.into()]
        } else if count_0 {
            vec![NOTHING_AT_COUNT_0.into()]
        } else {
            c.note.into_iter().collect()
        };
        notes.push(format!("measured: {}", x.from));
        notes.extend((nodes.as_ref()).map(|n| mpich_nodes::note(n, x.coll, x.m, x.op)));
        notes.extend(x.after_pause_note(pause_probe.as_deref()));
        let prices = if unpriced {
            None
        } else {
            classes.for_row(x.n, x.members.as_deref(), &mut notes)
        };
        if let Some(d) = &r.calibration.disturbance {
            notes.push(format!(
                "the calibration was disturbed ({d}): its prices may be off"
            ));
        }
        if let Some((p, across)) = prices {
            for q in std::iter::once(p).chain(across.as_ref().map(|a| a.0)) {
                if !q.spikes.is_empty() {
                    let more = q.spikes.len().saturating_sub(6);
                    notes.push(format!(
                        "calibration points above twice what both sides show (a preemption's), each priced by the line between the nearest points not taken: {}{}",
                        q.spikes[..q.spikes.len() - more].join("; "),
                        if more > 0 { format!("; and {more} more") } else { String::new() }
                    ));
                }
            }
            if across.is_none() {
                notes.extend(p.crowd_note());
            }
            let cfg = &r.collective_config;
            // A user-defined operation's reduction is priced by the job's own calls of
            // such operations (`user_op_ns`, per element, at the row's element size).
            let user_op = x.op.recorded && !x.op.builtin;
            let user: Vec<[f64; 2]> = (cfg.user_op_ns.iter())
                .filter(|_| user_op)
                .map(|&[elements, ns]| [elements * x.op.element_bytes as f64, ns])
                .collect();
            let local = if user_op && !user.is_empty() {
                &user
            } else {
                &cfg.reduce_local_ns
            };
            if local.is_empty() && matches!(x.coll, "allreduce" | "reduce") {
                notes.push(
                    "the local reduction is not priced (MPI_Reduce_local was not measured)".into(),
                );
            } else if user_op && user.is_empty() {
                notes.push(format!("a user-defined operation ({}): its local reduction is priced as MPI_Reduce_local of MPI_SUM on doubles, the one measured (the job's own operation was not timed: created after the first 16, or while profiling was off)", x.operation.as_deref().unwrap_or_default()));
            } else if user_op {
                notes.push(format!("a user-defined operation ({}): its local reduction is priced by the job's own calls of its user-defined operations on every rank (`collective_config.user_op_ns`, all of them together)", x.operation.as_deref().unwrap_or_default()));
            }
            // Allgather, Alltoall and Allreduce begin with each rank's copy of its own
            // block (or vector) into the receive buffer, every rank alike: it delays the
            // whole schedule by one copy (none with MPI_IN_PLACE, which the model does not
            // see: the calls are taken as not in place).
            let copies = &r.collective_config.copy_local_ns;
            let copy = if matches!(x.coll, "allgather" | "alltoall" | "allreduce") {
                reduce_local(copies, x.m)
            } else {
                0.0
            };
            let reduce_ns = |b| reduce_local(local, b);
            let copy_ns = |b| reduce_local(copies, b);
            let ops = schedule::Local {
                reduce_ns: &reduce_ns,
                copy_ns: &copy_ns,
                datatype_setup_ns: cfg.datatype_setup_ns.unwrap_or(0.0),
            };
            // Each member's exit, the members entering at `entries`, every parameter at
            // its interval's `bound`.
            let exits = |sch: &schedule::Schedule, entries: &[f64], bound: i32| {
                // The concurrent exchange prices a host's copies where every member
                // shares the host (its ranks at once are the host's, not the row's).
                let (intra_at, inter_at) = (
                    |b| {
                        let mut q = p.at(b, bound);
                        q.crowd = q.crowd.filter(|_| across.is_none());
                        q
                    },
                    across.as_ref().map(|a| move |b| a.0.at(b, bound)),
                );
                let member_hosts = across.as_ref().map_or(&[][..], |a| a.1.as_slice());
                let price = |from: u32, to: u32, b: u64| {
                    let inter = inter_at.as_ref().map(|f| f as &dyn Fn(u64) -> Price);
                    classes::pair_price(&intra_at, inter, member_hosts, from, to, b)
                };
                sim::simulate_members_from(entries, sch, &price, &ops)
            };
            let together = vec![0.0; x.n as usize];
            // (last member's exit, mean member's exit)
            let cost = |sch: &schedule::Schedule, bound: i32| {
                let t = exits(sch, &together, bound);
                let last = t.iter().copied().fold(0.0, f64::max);
                let mean = t.iter().sum::<f64>() / t.len().max(1) as f64;
                (copy + last, copy + mean)
            };
            let entries = x.entries(r.ranks.len());
            let as_entered = |sch: &schedule::Schedule, e: &[f64]| {
                let last_entry = e.iter().copied().fold(0.0, f64::max);
                copy + exits(sch, e, 0).into_iter().fold(0.0, f64::max) - last_entry
            };
            // MPICH's barrier ends in a 1-byte Bcast by the Bcast algorithm in use, but
            // where no two members share a host.
            let flat = nodes.as_ref().is_some_and(|n| n.flat());
            let barrier_bcast = (x.coll == "barrier" && cfg.decider == "mpich" && !flat)
                .then(|| choice(r, "bcast", x.n, 1).in_use)
                .flatten();
            if let Some((id, "forced")) = barrier_bcast {
                notes.push(format!(
                    "{FORCED_BCAST_CLOSES} {id}: MPICH's barrier broadcasts through MPIR_Bcast"
                ));
            }
            let decider = cfg.decider.as_str();
            let part = |coll, k, b| {
                let id = choice(r, coll, k, b).in_use?.0;
                select::mpich(coll).iter().find(|a| a.id == id)
            };
            let (runs, not): (Vec<_>, Vec<_>) =
                (c.algorithms.iter()).partition(|a| x.op.supports(decider, x.coll, a.id));
            if !not.is_empty() {
                let names: Vec<&str> = not.iter().map(|a| a.name).collect();
                notes.push(format!(
                    "not priced or advised, as the MPI does not run them as themselves for this operation: {}",
                    names.join(", ")
                ));
            }
            for a in runs {
                let sch = match (&nodes, barrier_bcast) {
                    (Some(n), _) => mpich_nodes::schedule(n, x.coll, a, x.m, x.op, &part),
                    (None, Some((id, _))) => select::mpich_barrier(x.n, id),
                    (None, None) => (a.schedule)(x.n, x.m),
                };
                let Some(sch) = sch else {
                    continue;
                };
                let (lo, mid, hi) = (cost(&sch, -1), cost(&sch, 0), cost(&sch, 1));
                row.alternatives.push(AlgorithmCost {
                    algorithm: a.name.to_string(),
                    force: (c.force)(x.coll, a.id),
                    predicted_ns: mid.0,
                    predicted_ns_ci: Some([lo.0, hi.0]),
                    predicted_member_mean_ns: Some(mid.1),
                    predicted_member_mean_ns_ci: Some([lo.1, hi.1]),
                    predicted_as_entered_ns: entries.as_deref().map(|e| as_entered(&sch, e)),
                });
            }
            if let Some(name) = &row.algorithm {
                if let Some(a) = row.alternatives.iter().find(|a| &a.algorithm == name) {
                    row.predicted_ns = Some(a.predicted_ns);
                    row.predicted_ns_ci = a.predicted_ns_ci;
                    row.predicted_as_entered_ns = a.predicted_as_entered_ns;
                }
            }
            if let Some(why) = early_entry(&row, x.lead_ns) {
                notes.push(why);
            }
            row.best = best_of(&row.alternatives, row.algorithm.as_deref());
        }
        row.note = Some(notes.join("; "));
        out.push(row);
    }
    out.sort_by(|a, b| {
        (&a.function, a.comm_size, a.size_lo_bytes, &a.members).cmp(&(
            &b.function,
            b.comm_size,
            b.size_lo_bytes,
            &b.members,
        ))
    });
    out
}

#[cfg(test)]
mod crowd_tests;
#[cfg(test)]
mod exchange_tests;
#[cfg(test)]
mod tests;
