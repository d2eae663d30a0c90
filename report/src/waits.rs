//! Where a job's MPI time goes (issue 25): each rank's time in MPI split into the cost of
//! its messages and collectives and the time it waited for a partner, from a
//! deterministic sample of messages matched between their two ends on clocks aligned to
//! rank 0's (`clocks`).
//!
//! The wait patterns follow Scalasca's definitions (Geimer et al., "The Scalasca
//! performance toolset architecture", 2010):
//! - late sender: a receive waits from the entry of the call that waits for it
//!   (MPI_Recv, or the MPI_Wait* completing an MPI_Irecv) until the matching send starts;
//! - late receiver: a send that was still in progress when the matching receive was
//!   posted waited from the entry of the call that waits for it until that post;
//! - arrival wait of a collective: from this rank's entry to the last member's entry
//!   (of a neighbourhood collective, MPI_Neighbor_* and MPI_Ineighbor_*: to the last
//!   entry among the ranks it receives from, its in-neighbours in the communicator's
//!   topology); the rest of the call, from the last entry to this rank's exit, is its
//!   cost. A
//!   nonblocking collective (MPI_Iallreduce, …) waits in the call that completes it: its
//!   arrival wait runs from that call's entry (or the first MPI_Test* that polled for it)
//!   to the last member's start, and the rest of that call is its cost; the program's
//!   work between its start and that call overlaps the wait and is not counted.
use serde::{Deserialize, Serialize};

/// The one-sided and I/O calls that the split divides as collectives, into an arrival
/// wait and a cost (`collective_wait_ns`, `collective_cost_ns` and their
/// `CollectiveSplit` rows): MPI_Win_fence, collective over its window's group (MPI 4.0
/// §12.5.1); the general active-target synchronization (§12.5.2), as meetings of two,
/// each origin with each target of its epoch: MPI_Win_start with MPI_Win_post, then
/// MPI_Win_complete with MPI_Win_wait, their rows of `comm_size` 2 (MPI_Win_start and
/// MPI_Win_complete waiting for a late post, MPI_Win_wait for the last origin's
/// MPI_Win_complete: Scalasca's late post and early wait); MPI_File_open, collective
/// over the communicator it names, and the blocking collective calls on an open file,
/// over the file's group (§14.2, §14.4.2, §14.4.3, §14.4.4, §14.6.1), a split
/// collective's `_begin` among them (ROMIO and ompio do the collective there). The other
/// one-sided and I/O calls are in `other_ns`. Such a call's cost is the one-sided
/// communication's or the I/O's: `loggp show` counts it with those calls, its arrival
/// wait with the collectives'.
pub const SPLIT_AS_COLLECTIVES: &[&str] = &[
    "MPI_Win_fence",
    "MPI_Win_start",
    "MPI_Win_complete",
    "MPI_Win_post",
    "MPI_Win_wait",
    "MPI_File_open",
    "MPI_File_close",
    "MPI_File_set_size",
    "MPI_File_preallocate",
    "MPI_File_sync",
    "MPI_File_set_view",
    "MPI_File_set_info",
    "MPI_File_set_atomicity",
    "MPI_File_seek_shared",
    "MPI_File_read_at_all",
    "MPI_File_write_at_all",
    "MPI_File_read_all",
    "MPI_File_write_all",
    "MPI_File_read_ordered",
    "MPI_File_write_ordered",
    "MPI_File_read_at_all_begin",
    "MPI_File_write_at_all_begin",
    "MPI_File_read_all_begin",
    "MPI_File_write_all_begin",
    "MPI_File_read_ordered_begin",
    "MPI_File_write_ordered_begin",
];

/// The nonblocking collective I/O calls (MPI 4.0 §14.4.2, §14.4.3) the split divides
/// as nonblocking collectives, over their file's group: numbered at the start and kept
/// at the Wait or Test that completes them, whose time is their arrival wait and cost
/// (ROMIO's members meet there); the start itself is in `other_ns`. As for the blocking
/// ones, `loggp show` counts the cost with the I/O calls and the arrival wait with the
/// collectives'.
pub const SPLIT_AS_NONBLOCKING_COLLECTIVES: &[&str] = &[
    "MPI_File_iread_at_all",
    "MPI_File_iwrite_at_all",
    "MPI_File_iread_all",
    "MPI_File_iwrite_all",
];

/// One rank's time in MPI, split. `cost_ns + late_sender_ns + late_receiver_ns +
/// collective_wait_ns + collective_cost_ns + other_ns = time_in_mpi_ns`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct TimeSplit {
    pub rank: u32,
    pub time_in_mpi_ns: f64,
    /// Time in the point-to-point calls the split covers (MPI_Send, Ssend, Bsend, Rsend,
    /// Recv, Sendrecv, Sendrecv_replace, MPI_Probe, Iprobe, Mprobe and Improbe, the
    /// blocking MPI_Mrecv of a matched probe's message, and MPI_Wait, Waitall, Waitany, Waitsome, Test,
    /// Testall, Testany, Testsome, which complete nonblocking and started persistent
    /// messages; not those that completed one collective's request), measured for every
    /// call.
    pub message_calls_ns: f64,
    /// The part of `message_calls_ns` that was not waiting: the messages' transfer cost.
    pub cost_ns: f64,
    pub late_sender_ns: f64,
    pub late_receiver_ns: f64,
    /// Time in blocking collectives and in the MPI_Wait* and MPI_Test* calls that each
    /// completed one nonblocking or persistent collective, measured for every call.
    pub collective_calls_ns: f64,
    pub collective_wait_ns: f64,
    pub collective_cost_ns: f64,
    /// Every other MPI call: MPI_Init (the MPI's own time; loggp's calibration is in
    /// `job.loggp_time_ns`, not here), the starts of nonblocking and persistent calls
    /// (MPI_Imrecv too), and the rest.
    pub other_ns: f64,
    /// 95 % intervals `[lo, hi]`: sampling (ratio estimator, finite-population
    /// corrected) and the clocks' uncertainty together.
    pub cost_ns_ci: Option<[f64; 2]>,
    pub late_sender_ns_ci: Option<[f64; 2]>,
    pub late_receiver_ns_ci: Option<[f64; 2]>,
    pub collective_wait_ns_ci: Option<[f64; 2]>,
    pub collective_cost_ns_ci: Option<[f64; 2]>,
    /// Messages of this rank's blocking calls kept by the sampling rule, those whose
    /// other end was found and consistent, and the messages they stand for.
    pub sampled_messages: u64,
    pub matched_messages: u64,
    pub messages_represented: u64,
    /// The same for blocking collective calls.
    pub sampled_collectives: u64,
    pub matched_collectives: u64,
    /// Σ stride × duration over the calls of the kept messages (a Wait that completed
    /// several once): the sample's own estimate of `message_calls_ns`, a check of the
    /// scaling.
    pub sampled_estimate_ns: f64,
    /// The message calls' time in the durations (octaves of ns) no kept sample fell in:
    /// the split is post-stratified by call duration, and of these calls nothing is
    /// known, so any point-to-point part may hold any of it; its intervals allow that.
    pub unsampled_ns: f64,
    /// This rank's clock uncertainty against rank 0's (0 when it shares the counter).
    pub clock_uncertainty_ns: f64,
    /// The point-to-point part (`message_calls_ns`, cost and the two waits) per (peer
    /// class, mode) of the messages; the rows add up to the rank's figures.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub by_class_mode: Vec<ClassModeSplit>,
}

/// One (peer class, mode)'s share of a rank's point-to-point time. A matched sample
/// counts under its message's class and mode (the mode of the call that started it:
/// `send`, `isend`, `recv`, `irecv`, …); a Wait that completed several requests counts
/// under the one it waited longest for. Each figure is the group's share of the sampled
/// calls' duration (weighted by stride) times the rank's measured time in those calls,
/// as in the rank's split, with its 95 % interval.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ClassModeSplit {
    pub peer_class: crate::PeerClass,
    pub mode: crate::Mode,
    /// Matched samples (calls) in the group.
    pub calls_matched: u64,
    pub message_calls_ns: f64,
    pub cost_ns: f64,
    pub late_sender_ns: f64,
    pub late_receiver_ns: f64,
    pub message_calls_ns_ci: Option<[f64; 2]>,
    pub cost_ns_ci: Option<[f64; 2]>,
    pub late_sender_ns_ci: Option<[f64; 2]>,
    pub late_receiver_ns_ci: Option<[f64; 2]>,
}

/// Per (rank, collective, communicator size, size bin): the mean arrival wait and cost
/// of one call, over the matched samples.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct CollectiveSplit {
    pub rank: u32,
    pub function: String,
    pub comm_size: u32,
    pub size_lo_bytes: u64,
    pub size_hi_bytes: u64,
    pub calls_matched: u64,
    /// The mean of this rank's send plus receive bytes over the matched calls.
    pub bytes_mean: f64,
    pub arrival_wait_ns: f64,
    pub arrival_wait_ns_ci: Option<[f64; 2]>,
    pub cost_ns: f64,
    pub cost_ns_ci: Option<[f64; 2]>,
    /// The weighted median of the matched calls' cost (the collective model's measured
    /// cost: a call preempted for a time slice moves the mean of a few dozen samples,
    /// not the median), with its 95 % interval: the weighted quantiles 0.5 ± 1.96·0.5/√n,
    /// n the effective sample size (Kish), widened by the clocks' uncertainty. `null` in
    /// reports of earlier versions, whose collective model took the mean.
    pub cost_median_ns: Option<f64>,
    pub cost_median_ns_ci: Option<[f64; 2]>,
    /// A reduction's (MPI_Allreduce, MPI_Reduce) operation in the matched calls:
    /// "predefined" (MPI_SUM, MPI_MAX, …), "user_commutative", "user_noncommutative",
    /// "mixed" (calls of the row differ), or null (not a reduction, or not known). The
    /// MPIs choose their algorithm by it: Open MPI's fixed rules by commutativity, MPICH's
    /// selection by commutativity and whether the operation is built in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// The reduction's datatype size in bytes, where every matched call had the same
    /// (MPICH compares the element count, bytes over this, with the communicator size).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element_bytes: Option<u64>,
    /// The matched blocking calls split by the pause before them: a call some member
    /// entered at least [`PAUSE_NS`] after it left its previous call of the same function
    /// on the same communicator, the time it spent inside other blocking collective calls
    /// since taken out (a member waiting in the next barrier is inside MPI, not away from
    /// it), against the others (back to back). An MPI call whose code
    /// has not run for a while costs more than back to back, and the LogGP price is
    /// measured back to back. `null` in reports of earlier versions, and for nonblocking
    /// and neighbourhood collectives (their pauses are not gathered). A member's first call
    /// on a communicator has no pause to time, nor a call whose entry in the shim's small
    /// per-thread table another channel took: those calls are in neither count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_pause: Option<AfterPause>,
    /// The world ranks of the row's communicator, in its rank order, where the job's
    /// ranks are on several hosts and the communicator is not every rank in rank order
    /// (MPI_COMM_WORLD, its duplicates): which of its pairs are inter-node follows from
    /// them. The calls of communicators with other members are rows of their own. Null
    /// on one host, for every rank in order, where not recorded (more than
    /// [`MEMBERS_RECORDED`] members, or a communicator the shim's table had no room for),
    /// and in reports of earlier versions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub members: Option<Vec<u32>>,
}

/// The most members a row's communicator is recorded with (`CollectiveSplit::members`).
pub const MEMBERS_RECORDED: usize = 4096;

/// The pause after which a collective call counts as one after a pause
/// (`CollectiveSplit::after_pause`): on the 2-core VM loggp is tested on, an 8-byte
/// MPI_Send took 43 ns back to back, 45 ns after 50 µs away from MPI, 216 ns after 100 µs
/// and 1.4 µs after 1 ms (Open MPI vader; MPICH ch4:ucx 184, 196, 268 and 1710 ns;
/// `bench/after_pause.c`).
pub const PAUSE_NS: f64 = 100_000.0;

/// A collective row's calls after a pause and the others ([`PAUSE_NS`]), each with the
/// weighted median of their cost (as `CollectiveSplit::cost_median_ns`: from the last
/// entry to this member's exit) and its 95 % interval.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct AfterPause {
    /// The pause, ns ([`PAUSE_NS`]).
    pub pause_ns: f64,
    /// Matched calls some member entered after the pause, and their median cost.
    pub calls: u64,
    /// The median over those calls of the pause before them (the longest member's);
    /// absent in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_median_ns: Option<f64>,
    pub cost_median_ns: Option<f64>,
    pub cost_median_ns_ci: Option<[f64; 2]>,
    /// Matched calls every member entered sooner (back to back), and their median cost.
    /// Calls whose pause is not known are in neither count.
    pub calls_back_to_back: u64,
    pub back_to_back_cost_median_ns: Option<f64>,
    pub back_to_back_cost_median_ns_ci: Option<[f64; 2]>,
}

/// The words of [`CollectiveSplit::operation`].
pub const OP_PREDEFINED: &str = "predefined";
pub const OP_USER_COMMUTATIVE: &str = "user_commutative";
pub const OP_USER_NONCOMMUTATIVE: &str = "user_noncommutative";

/// The word of the kind the shim records (1 predefined, 2 user-defined commutative, 3
/// user-defined non-commutative; else not known).
pub fn operation_name(kind: u8) -> Option<&'static str> {
    match kind {
        1 => Some(OP_PREDEFINED),
        2 => Some(OP_USER_COMMUTATIVE),
        3 => Some(OP_USER_NONCOMMUTATIVE),
        _ => None,
    }
}

/// "mixed" in [`CollectiveSplit::operation`].
pub const MIXED_OPERATIONS: &str = "mixed";

/// End-to-end latency of messages whose receiver was already waiting: from the send's
/// entry to the receive's exit, per receiving rank, peer class and size bin.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct PassiveLatency {
    pub rank: u32,
    pub peer_class: crate::PeerClass,
    pub size_lo_bytes: u64,
    pub size_hi_bytes: u64,
    pub pairs: u64,
    /// The median over the sampled pairs, each weighted by the messages it stands for.
    pub median_ns: f64,
    /// 95 % interval of the median: the weighted quantiles 0.5 ± 1.96·0.5/√n, n the
    /// effective sample size (Kish), widened by the clocks' uncertainty.
    pub median_ns_ci: Option<[f64; 2]>,
}

/// One of the largest waits: a rank waiting on one peer, in one kind, function and
/// size bin, scaled to all its calls.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct WaitEntry {
    pub rank: u32,
    pub peer: u32,
    /// "late_sender" or "late_receiver".
    pub kind: String,
    pub function: String,
    pub size_lo_bytes: u64,
    pub size_hi_bytes: u64,
    pub messages_matched: u64,
    pub wait_ns: f64,
    /// The call site of the waiting calls: its object, that object's build id and the return address in the object's own
    /// addresses; `loggp show` symbolizes it like `call_sites`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<u64>,
}

/// How the split was made, the collectives' split and the largest waits.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Waits {
    /// "done", or why not.
    pub status: String,
    pub method: String,
    /// Samples lost to the full buffer and messages not numbered (channel table full),
    /// over all ranks.
    pub samples_dropped: u64,
    pub messages_unnumbered: u64,
    /// Matched pairs dropped because the two ends did not fit (size, or a receive that
    /// ended before its send began beyond the clocks' uncertainty).
    pub pairs_inconsistent: u64,
    pub collectives: Vec<CollectiveSplit>,
    /// Up to 5 per rank, the largest first.
    pub largest: Vec<WaitEntry>,
    /// Matched calls for a timeline (`loggp trace`), on rank 0's clock. A message end is
    /// kept where a hash of its channel and number falls in 1 of 8 (both ends decide
    /// alike, so a kept send has its receive), at most 2048 per rank; collectives: the
    /// first 512 matched per rank.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trace: Vec<TraceEvent>,
    /// Each rank's counters over time, one point per interim snapshot (LOGGP_INTERVAL,
    /// SIGUSR1) after a start point at the end of MPI_Init, on the timeline's clock
    /// (`trace`): `loggp trace` draws their rates between points. At most 1024 per rank
    /// (every other one dropped when full: the counts are cumulative). Only a complete
    /// report has them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<CounterPoint>,
    /// Per (peer class, blocking mode, size bin), over all ranks: how many of the sampled
    /// blocking calls whose other end was found waited for it for at least half of the
    /// call: a send (MPI_Send, Ssend, Bsend, Rsend) for its receive (late receiver), a
    /// receive (MPI_Recv) for its send (late sender). The passive o_s, g and G of a send
    /// range, and o_r and G of a receive range, are lower envelopes of the calls'
    /// durations and spacings; where nearly every call waited that long, they measure
    /// the partner, and the model says so rather than fit them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub call_waits: Vec<CallWaitBin>,
}

/// One size bin of [`Waits::call_waits`]. Counts are of messages: each sampled call
/// weighted by the messages it stands for (its stride).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct CallWaitBin {
    pub peer_class: crate::PeerClass,
    pub mode: crate::Mode,
    pub size_lo_bytes: u64,
    pub size_hi_bytes: u64,
    /// Sampled calls whose other end was found.
    pub calls_matched: u64,
    /// The messages they stand for, and those of the calls that waited for the other
    /// end for at least half of the call (beyond the clocks' uncertainty).
    pub messages: u64,
    pub messages_waiting: u64,
}

/// One point of a rank's cumulative counters, counted from the end of MPI_Init.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct CounterPoint {
    pub rank: u32,
    /// When, ns on rank 0's clock from the timeline's origin (may be negative: the
    /// origin is the earliest sampled call).
    pub at_ns: f64,
    /// Time in intercepted calls other than MPI_Init, and their number.
    pub time_in_mpi_ns: f64,
    pub calls: u64,
    /// MPI_Send and MPI_Isend of at most 256 B: their number and summed call time (the
    /// mean over an interval is the passive o_s of the smallest messages).
    pub small_send_calls: u64,
    pub small_send_ns: f64,
    /// The thread that called MPI_Init: time on a CPU and waiting in the run queue for
    /// one (Linux schedstat), where readable.
    pub on_cpu_ns: Option<f64>,
    pub runqueue_wait_ns: Option<f64>,
}

/// One call on the timeline: times in ns on rank 0's clock, from the job's earliest
/// sampled call, every rank's ticks scaled by rank 0's tick length.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct TraceEvent {
    pub rank: u32,
    pub function: String,
    /// "send", "recv" or "collective".
    pub side: String,
    /// The call's entry (for a nonblocking message: the entry of the Wait completing it)
    /// and exit.
    pub start_ns: f64,
    pub end_ns: f64,
    /// A nonblocking message's post (MPI_Isend, MPI_Irecv), before the Wait above.
    pub posted_ns: Option<f64>,
    pub peer: Option<u32>,
    pub bytes: u64,
    /// The same number on a message's two ends (below 2^52).
    pub flow: Option<u64>,
    /// Collectives: from this rank's entry to the last member's (a neighbourhood
    /// collective's: to the last in-neighbour's).
    pub arrival_wait_ns: Option<f64>,
}

/// Adds another rank's (or subtree's) waits to `into`: rows are per rank, counters add.
pub fn merge_waits(into: &mut Waits, from: Waits) {
    if into.status.is_empty() {
        into.status = from.status;
        into.method = from.method;
    }
    into.samples_dropped += from.samples_dropped;
    into.messages_unnumbered += from.messages_unnumbered;
    into.pairs_inconsistent += from.pairs_inconsistent;
    into.collectives.extend(from.collectives);
    into.largest.extend(from.largest);
    into.trace.extend(from.trace);
    into.counters.extend(from.counters);
    for b in from.call_waits {
        let same = |x: &&mut CallWaitBin| {
            (x.peer_class, x.mode, x.size_lo_bytes) == (b.peer_class, b.mode, b.size_lo_bytes)
        };
        match into.call_waits.iter_mut().find(same) {
            Some(x) => {
                x.calls_matched += b.calls_matched;
                x.messages += b.messages;
                x.messages_waiting += b.messages_waiting;
            }
            None => into.call_waits.push(b),
        }
    }
}
