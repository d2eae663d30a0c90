//! What the calibration hands on: each pair's results on its client, per MPI send mode
//! and per raw transport, in TSC ticks (`report` turns them into the report's sets).
use super::engine::PointTicks;
use loggp_report::PeerClass;

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
    /// Passes over the schedule (see `passes`); each point's repetitions are in pass order.
    pub passes: usize,
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
    /// Largest share of the host's CPU time the hypervisor took while probing.
    pub steal_share: Option<f64>,
    /// This rank's concurrent exchange, where it took part (`concurrent`).
    pub concurrent: Option<super::concurrent::Measured>,
}

/// One pair's calibration, on its client.
#[derive(Clone, Debug)]
pub struct PairResult {
    pub pair: [u32; 2],
    pub class: PeerClass,
    pub modes: Vec<ModeResult>,
    /// Raw transports beneath MPI.
    pub raw: Vec<RawResult>,
    /// The longest stall of the client's probes (ns; see `Client::note_stall`).
    pub stall_ns: u64,
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
