//! The active calibration at MPI_Init: its sets, ranges and points, the raw transports,
//! the switches and the settings behind them, and MPI minus the raw layer.
use crate::{Mode, PeerClass};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Calibration {
    pub status: String,
    pub duration_ns: Option<f64>,
    pub pairs: Vec<[u32; 2]>,
    /// Set when the probes were disturbed (the ranks were preempted while measuring):
    /// what was seen, and that the switches are then not exact.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disturbance: Option<String>,
    /// The largest share, over the ranks, of the probing time a rank's probing thread
    /// spent off its CPU (1 − thread CPU time / wall time): the waits for the CPU that
    /// the probes' times include. Absent in reports of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off_cpu_share: Option<f64>,
    /// The largest share, over the ranks' hosts, of the host's CPU time that the
    /// hypervisor gave to other work while the ranks probed (steal in /proc/stat): where
    /// it makes up the off-CPU share, the disturbance names the hypervisor, not other
    /// processes. Absent where /proc/stat cannot be read, and in earlier reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_share: Option<f64>,
    pub mpi: Vec<CalibrationSet>,
    pub raw: Vec<RawSet>,
    /// The concurrent exchange, one entry per rank that took part: every rank of a host
    /// exchanging at once, where a host holds three ranks or more, each on a core of its
    /// own. Absent where no host did, and in earlier reports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub concurrent_exchanges: Vec<ConcurrentExchange>,
}

/// One rank's part of the concurrent exchange: after the pairs' probes, every rank of its
/// host sends to the next rank of the host and receives from the one before (world rank
/// order, a ring), all at once after a barrier, each repetition in the next block of a
/// buffer larger than a core's cache (`buffer_bytes`), as a collective over a large
/// buffer reads and writes it. Within a host each such message is a copy, and the copies
/// share the memory system: the collective model prices a round where more than two
/// ranks of a host copy rendezvous data at once by it (the pairs' exchange probe measures
/// two, on a buffer that stays in cache).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ConcurrentExchange {
    pub rank: u32,
    /// The ranks of its host that exchanged at once (all of them).
    pub host_ranks: u32,
    /// Each send and receive buffer's size: the repetitions walk through it block by block.
    pub buffer_bytes: u64,
    pub points: Vec<ConcurrentPoint>,
}

/// One size of the concurrent exchange, on one rank.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ConcurrentPoint {
    pub size_bytes: u64,
    /// The median of `exchange_reps_ns` (of an even count, the mean of the middle two).
    pub exchange_ns: f64,
    /// Each repetition: this rank's MPI_Sendrecv, from its start to its end.
    pub exchange_reps_ns: Vec<f64>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct CalibrationSet {
    pub peer_class: PeerClass,
    pub mode: Mode,
    /// The pair that measured it (client, server) and the n of PRTT(n, d, s).
    pub pair: [u32; 2],
    pub n: u64,
    /// PRTT(1,0,s) probes spent locating the switches by bisection (and probing each
    /// level change again to see that it repeats).
    pub bisection_probes: u64,
    /// Each switch located to the byte by bisection: the last size of its range.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub switches_bytes: Vec<u64>,
    /// Level changes between two calibrated sizes `[left, right]` that are not taken for
    /// switches: either they did not repeat when both sizes were probed again,
    /// interleaved (the machine changed over time, as sizes are probed in increasing
    /// order; the protocol did not), or they cannot be judged: no quantity's lines on
    /// the two sides lie more than 25 % apart (a step within the run-to-run drift), away
    /// from the eager limit and from a limit the MPI names. The ranges do not split there.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_repeated_bytes: Vec<[u64; 2]>,
    /// Passes over the schedule: every size measured once per pass, the passes after the
    /// first in a shuffled order, MPI and the raw transports side by side. Each point's
    /// `*_reps_ns` then hold one value per pass, in pass order (0.3 on; absent before:
    /// the repetitions were taken in a row and stored sorted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passes: Option<u64>,
    pub ranges: Vec<Range>,
    pub points: Vec<Point>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct RawSet {
    pub transport: String,
    pub peer_class: PeerClass,
    pub status: String,
    /// UCT (transport `ucx`, or `verbs` through UCT): the UCT transport used (`posix`,
    /// `tcp`, `rc_verbs`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tl: Option<String>,
    /// UCT: the device (`memory`, `eth0`, `mlx5_0:1`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// How the set was measured where it says more than the transport's name (UCT: which
    /// operation carried which sizes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The n of PRTT(n, d, s) (0 in reports before 0.2: 16 was used).
    pub n: u64,
    /// Switches located to the byte by bisection (see CalibrationSet).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub switches_bytes: Vec<u64>,
    /// Level changes that did not repeat (see CalibrationSet).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_repeated_bytes: Vec<[u64; 2]>,
    /// Passes over the schedule (see CalibrationSet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passes: Option<u64>,
    pub ranges: Vec<Range>,
    pub points: Vec<Point>,
}

/// One protocol range and its LogGP parameters.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Range {
    pub size_lo_bytes: u64,
    pub size_hi_bytes: u64,
    pub send_overhead_ns: Option<f64>,
    pub recv_overhead_ns: Option<f64>,
    pub gap_ns: Option<f64>,
    pub gap_per_byte_ns: Option<f64>,
    pub latency_ns: Option<f64>,
    /// 95 % intervals of the parameters above, `[lo, hi]`; null where the parameter is.
    pub send_overhead_ns_ci: Option<[f64; 2]>,
    pub recv_overhead_ns_ci: Option<[f64; 2]>,
    pub gap_ns_ci: Option<[f64; 2]>,
    pub gap_per_byte_ns_ci: Option<[f64; 2]>,
    pub latency_ns_ci: Option<[f64; 2]>,
    pub fit_rms_ns: Option<f64>,
    /// How the parameters and their intervals were estimated (method and source).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// "eager" or "rendezvous", where the measurement tells.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Point {
    pub size_bytes: u64,
    /// Medians of the repetitions.
    pub prtt_1_0_ns: Option<f64>,
    pub prtt_n_0_ns: Option<f64>,
    pub prtt_n_d_ns: Option<f64>,
    pub recv_overhead_ns: Option<f64>,
    /// o_s = (PRTT(n,d,s) − PRTT(1,0,s))/(n−1) − d.
    pub send_overhead_ns: Option<f64>,
    /// The median duration of the send calls themselves within PRTT(n,d,s), timed at
    /// the edges of the time between sends: the direct o_s, beside the formula's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_call_ns: Option<f64>,
    /// g + (s−1)G = (PRTT(n,0,s) − PRTT(1,0,s))/(n−1).
    pub gap_all_ns: Option<f64>,
    /// Spread of PRTT(1,0,s): minimum and interquartile range of the repetitions.
    pub prtt_1_0_min_ns: Option<f64>,
    pub prtt_1_0_iqr_ns: Option<f64>,
    /// The delay d used, and whether PRTT(2,0,s) replaced PRTT(1,0,s) for it.
    pub delay_ns: Option<f64>,
    pub delay_fallback: bool,
    pub repetitions: u64,
    /// Every repetition of each probe (the medians above are theirs): the bootstrap of
    /// the intervals resamples them. In pass order where the set has `passes`; absent in
    /// reports of loggp before 0.2.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub prtt_1_0_reps_ns: Vec<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub prtt_n_0_reps_ns: Vec<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub prtt_n_d_reps_ns: Vec<f64>,
    /// The server's receive overhead: each pass's median of its n − 1 timed receives
    /// (where the set has `passes`; before, every timed receive, sorted).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recv_overhead_reps_ns: Vec<f64>,
    /// Whether a send of this size waited for a receiver that came late: true for a
    /// synchronous or rendezvous protocol, false for eager.
    pub send_waits_for_receiver: Option<bool>,
    /// The exchange probe: both ranks of the pair call MPI_Sendrecv of s bytes each way,
    /// back to back; the median time per exchange (the two directions' copies at once,
    /// the step of recursive doubling and pairwise algorithms, which the collective model
    /// prices with it). Blocking-send sets of MPI only; absent in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange_ns: Option<f64>,
    /// Each pass's time per exchange.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exchange_reps_ns: Vec<f64>,
    /// The refill exchange: as `exchange_ns`, but each rank sends what it received in
    /// the exchange before, into the buffer it sent from then, so the lines it writes are
    /// the ones the peer has just read (the allgather phase of Rabenseifner's and the
    /// ring's Allreduce). Through shared memory the peer's cache gives each line back:
    /// up to 2 × `exchange_ns` at 64-256 KiB. From 4 KiB (8 KiB in reports of
    /// 2026-11-25); absent in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange_refill_ns: Option<f64>,
    /// The exchange probe through persistent requests set up, started, completed and
    /// freed each time (`MPI_Recv_init`, `MPI_Send_init`, `MPI_Startall`, `MPI_Waitall`,
    /// `MPI_Request_free`), the way Open MPI's linear Alltoall makes its messages: a
    /// started persistent send misses the inline path of a blocking one of a few bytes.
    /// At 1, 4, 16, 64, 256 and 1024 B; absent in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange_persistent_ns: Option<f64>,
    /// The isolated exchange: as `exchange_ns`, but each exchange right after a 0-byte
    /// one, timed from its end, so that both ranks start it together (a collective's
    /// step after its members met, or with a new partner). Back to back, the two sides
    /// of a train run out of step and each exchange costs up to 1.3 × more. The median
    /// over passes of each pass's mean; absent in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange_isolated_ns: Option<f64>,
    /// The isolated one-way message: s bytes from one rank to the other, each message
    /// right after a 0-byte exchange, from the later side's start to the receiver's end
    /// (`..._recv_ns`) and to the sender's (`..._send_ns`, 0 where an eager send ended
    /// before the receive began), the ranks of one host reading one counter. A
    /// collective's step from one member to another, where half a ping-pong's round
    /// trip holds the wait of each side's rendezvous send for the other's FIN. The median
    /// over passes of each pass's median; absent in older reports and across hosts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_way_isolated_recv_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_way_isolated_send_ns: Option<f64>,
    /// The isolated exchange after a pause away from MPI: as `exchange_isolated_ns`, but
    /// between the 0-byte exchange and the one timed both ranks spin on the clock alone
    /// for `pause_ns`, as an application computes between its calls. An MPI call whose
    /// code has not run for a while costs more than back to back, where every other probe
    /// runs; the time split counts a collective call entered after such a pause apart
    /// (`CollectiveSplit::after_pause`). At 8 B, after 100 µs and 1 ms, one exchange
    /// after each pause per pass, where the exchange is; absent in older reports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exchange_after_pause: Vec<ExchangeAfterPause>,
}

/// The isolated exchange after one pause (`Point::exchange_after_pause`).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ExchangeAfterPause {
    /// How long both ranks spun away from MPI before the exchange.
    pub pause_ns: f64,
    /// The median over every exchange after this pause (each combines both ranks' sides).
    pub exchange_ns: f64,
    /// Each exchange, in the order taken (several per pass, passes in order).
    pub exchange_reps_ns: Vec<f64>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Threshold {
    pub peer_class: PeerClass,
    pub mode: Mode,
    pub active_bytes: Option<u64>,
    pub passive_lo_bytes: Option<u64>,
    pub passive_hi_bytes: Option<u64>,
    pub mpi_t: Option<MpiT>,
    /// The setting that governs this switch, read from the component that carries the
    /// pair's traffic (Open MPI's btl through MPI_T, or UCX's own configuration).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub setting: Option<Setting>,
    /// False when the probes were disturbed and `active_bytes` is not exact: the switch
    /// then lies in `[active_lo_bytes, active_hi_bytes]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_exact: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_lo_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_hi_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Why the traffic gave no passive bracket, or what it is worth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passive_note: Option<String>,
}

/// A configuration value of the MPI stack, named as its component names it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Setting {
    /// The component that carries the traffic: "btl vader", "btl tcp", "pml ucx", "ucx".
    pub component: String,
    /// The variable: `btl_vader_eager_limit`, `UCX_RNDV_THRESH`, ...
    pub name: String,
    /// Its value in bytes, where it is a number.
    pub value: Option<i64>,
    /// Its value as the component prints it (e.g. "auto").
    pub text: String,
    /// Where it was read: "MPI_T", "UCX configuration (ucp_config_print)".
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct MpiT {
    pub name: String,
    pub value: i64,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct MpiOverhead {
    pub peer_class: PeerClass,
    pub transport: String,
    pub size_lo_bytes: u64,
    pub size_hi_bytes: u64,
    pub send_overhead_ns: Option<f64>,
    pub recv_overhead_ns: Option<f64>,
    pub latency_ns: Option<f64>,
    pub gap_ns: Option<f64>,
    pub gap_per_byte_ns: Option<f64>,
    /// 95 % intervals (bootstrap of both sides' repetitions).
    pub send_overhead_ns_ci: Option<[f64; 2]>,
    pub recv_overhead_ns_ci: Option<[f64; 2]>,
    pub latency_ns_ci: Option<[f64; 2]>,
    pub gap_ns_ci: Option<[f64; 2]>,
    pub gap_per_byte_ns_ci: Option<[f64; 2]>,
    /// Why a parameter is null, where one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
