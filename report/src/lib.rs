//! The loggp report, schema `loggp/1`: the contract between the preloaded shim that writes
//! it, the `loggp` command that reads it, and users' scripts. See
//! `shared/docs/report-schema.md`; fields may be added, but renaming or removing one needs
//! a new schema version.
//!
//! Units are in the names (`_ns` nanoseconds, `_bytes` bytes). A value that could not be
//! determined is `None` (JSON `null`), never 0, and the entry says why in `note`.
pub mod bins;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const SCHEMA: &str = "loggp/1";
pub const SCHEMA_VERSION: u32 = 1;

/// Status text of a section that a later version of loggp fills.
pub const NOT_IMPLEMENTED: &str = "not implemented in this version";

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Report {
    pub schema: String,
    pub tool: Tool,
    pub job: Job,
    pub ranks: Vec<RankEntry>,
    pub calibration: Calibration,
    pub passive: Vec<Passive>,
    pub thresholds: Vec<Threshold>,
    pub mpi_overhead: Vec<MpiOverhead>,
    pub model_check: Vec<ModelCheck>,
    /// The estimator and its settings that produced the ranges, intervals and brackets
    /// (`loggp refit` can redo them with others).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub model: BTreeMap<String, String>,
    /// For each array section, whether it is filled ("done") or why not.
    pub sections: BTreeMap<String, String>,
    pub warnings: Vec<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Job {
    /// False when written on an abort, signal or exit path instead of MPI_Finalize.
    pub complete: bool,
    /// How the statistics were taken: "MPI_Finalize", "MPI_Abort", "signal SIGTERM", ...
    pub end: String,
    pub executable: String,
    pub job_id: String,
    pub ranks: u32,
    pub hosts: Vec<String>,
    pub mpi_library: String,
    pub mpi_flavor: String,
    pub thread_level: String,
    pub started_at: String,
    pub wall_time_ns: f64,
    pub clock: Clock,
    pub settings: BTreeMap<String, String>,
    /// Set in a per-rank partial report: the only rank it holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial_rank: Option<u32>,
    /// A snapshot written while the job runs (SIGUSR1 or LOGGP_INTERVAL); the rank goes on.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interim: bool,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Clock {
    pub source: String,
    pub tsc_hz: Option<f64>,
    pub invariant: bool,
    /// The shortest interval two successive counter reads report: the resolution of one
    /// call's timing. Deviations below it are noise to the passive change detection.
    pub read_floor_ns: Option<f64>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct RankEntry {
    pub rank: u32,
    pub host: String,
    pub pid: u32,
    pub time_in_mpi_ns: f64,
    /// Threads that made intercepted calls.
    pub threads: u32,
    pub calls: BTreeMap<String, CallStats>,
    /// Nonblocking and persistent requests by mode, followed from start to completion.
    pub requests: BTreeMap<String, RequestStats>,
    /// Records that found their statistics table full: counted in `calls`, but not in
    /// the size/duration histograms.
    pub records_without_histogram: u64,
    /// Requests that could not be tracked (table full): their completions are not timed.
    pub requests_untracked: u64,
    /// Interim and partial rank files: the intercepted calls in progress when it was
    /// written, one per thread inside one (what a rank of a hung job waits on).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub in_progress: Vec<CallInProgress>,
}

/// An intercepted call that had not returned when the rank file was written.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct CallInProgress {
    /// The MPI function, e.g. "MPI_Recv".
    pub function: String,
    /// World rank of the peer it sends to or receives from, where known (not for a
    /// wildcard receive or a request the shim does not track).
    pub peer: Option<u32>,
    /// Message size, bytes, where known.
    pub bytes: Option<u64>,
    /// Requests passed to a Wait/Test variant.
    pub requests: Option<u64>,
    /// How long it had been running, ns.
    pub for_ns: f64,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct CallStats {
    pub count: u64,
    pub bytes: u64,
    pub time_ns: f64,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct RequestStats {
    /// Completed in a Wait/Test variant (cancelled ones excluded).
    pub completed: u64,
    pub completed_bytes: u64,
    /// Completed and reported cancelled by MPI_Test_cancelled.
    pub cancelled: u64,
    /// Released by MPI_Request_free while still active.
    pub freed_active: u64,
    /// Lifetime from initiation (or MPI_Start) to completion.
    pub lifetime_ns: f64,
}

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
    pub mpi: Vec<CalibrationSet>,
    pub raw: Vec<RawSet>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct CalibrationSet {
    pub peer_class: String,
    pub mode: String,
    /// The pair that measured it (client, server) and the n of PRTT(n, d, s).
    pub pair: [u32; 2],
    pub n: u64,
    /// PRTT(1,0,s) probes spent locating the switches by bisection (and probing each
    /// level change again to see that it repeats).
    pub bisection_probes: u64,
    /// Each switch located to the byte by bisection: the last size of its range.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub switches_bytes: Vec<u64>,
    /// Level changes between two calibrated sizes `[left, right]` that did not repeat when
    /// both sizes were probed again, interleaved: the machine changed over time (sizes are
    /// probed in increasing order), the protocol did not. The ranges do not split there.
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
    pub peer_class: String,
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
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Passive {
    pub peer_class: String,
    pub mode: String,
    pub ranges: Vec<Range>,
    /// Why `ranges` is empty, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranges_status: Option<String>,
    pub bins: Vec<Bin>,
}

/// Call durations of one (mode, peer class, size bin), all ranks merged.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Bin {
    pub size_lo_bytes: u64,
    pub size_hi_bytes: u64,
    /// Smallest and largest message size actually seen in this bin.
    pub smallest_bytes: u64,
    pub largest_bytes: u64,
    pub count: u64,
    pub min_ns: Option<f64>,
    pub p10_ns: Option<f64>,
    pub p50_ns: Option<f64>,
    pub p90_ns: Option<f64>,
    pub mean_ns: Option<f64>,
    /// The lower envelope the passive estimates use: the 10th percentile of the
    /// initiating call, plus that of the completion call for nonblocking modes, with its
    /// 95 % interval (order statistics of the histograms).
    pub envelope_ns: Option<f64>,
    pub envelope_ns_ci: Option<[f64; 2]>,
    /// Median of the same (start + completion), for the model check.
    pub envelope_p50_ns: Option<f64>,
    /// Spacing of back-to-back sends to one peer: how many, and its lower envelope.
    #[serde(skip_serializing_if = "is_zero")]
    pub burst_gaps: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst_gap_ns: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst_gap_ns_ci: Option<[f64; 2]>,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Threshold {
    pub peer_class: String,
    pub mode: String,
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
    pub peer_class: String,
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

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ModelCheck {
    pub peer_class: String,
    pub mode: String,
    pub calls: u64,
    pub median_relative_error: Option<f64>,
}

/// Why a file could not be read as a loggp report; each says it in one line.
#[derive(Debug)]
pub enum ReadError {
    Io(String, std::io::Error),
    NotJson(String, String),
    NotLoggp(String),
    NewerSchema(String, String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(p, e) => write!(f, "{p}: cannot read: {e}"),
            ReadError::NotJson(p, e) => write!(f, "{p}: not a complete JSON document ({e}); a truncated report?"),
            ReadError::NotLoggp(p) => write!(f, "{p}: JSON, but not a loggp report (no \"schema\": \"loggp/N\")"),
            ReadError::NewerSchema(p, s) => write!(
                f,
                "{p}: report schema {s} is newer than this loggp understands ({SCHEMA}); upgrade loggp"
            ),
        }
    }
}

impl std::error::Error for ReadError {}

/// Parses a report, refusing non-loggp JSON and newer schema versions.
pub fn parse(path: &str, bytes: &[u8]) -> Result<Report, ReadError> {
    let value: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| ReadError::NotJson(path.into(), e.to_string()))?;
    let schema = value.get("schema").and_then(|s| s.as_str()).unwrap_or("");
    let version = schema
        .strip_prefix("loggp/")
        .and_then(|v| v.parse::<u32>().ok())
        .ok_or_else(|| ReadError::NotLoggp(path.into()))?;
    if version > SCHEMA_VERSION {
        return Err(ReadError::NewerSchema(path.into(), schema.into()));
    }
    serde_json::from_value(value).map_err(|e| ReadError::NotJson(path.into(), e.to_string()))
}

/// Reads and parses a report file.
/// The report's JSON Schema (draft 2020-12), generated from these types: the contract
/// the shim writes and `loggp` reads, shipped as `report/loggp-1.schema.json`.
#[cfg(feature = "schema")]
pub fn schema_json() -> String {
    let mut schema = schemars::schema_for!(Report);
    schema.insert(
        "$id".into(),
        format!("urn:loggp:schema:{}", SCHEMA.replace('/', "-")).into(),
    );
    serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n"
}

pub fn read(path: &str) -> Result<Report, ReadError> {
    let bytes = std::fs::read(path).map_err(|e| ReadError::Io(path.into(), e))?;
    parse(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped schema is the one these types generate (LOGGP_UPDATE_GOLDEN=1
    /// rewrites it).
    #[cfg(feature = "schema")]
    #[test]
    fn shipped_schema_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/loggp-1.schema.json");
        let now = schema_json();
        if std::env::var_os("LOGGP_UPDATE_GOLDEN").is_some() {
            std::fs::write(path, &now).unwrap();
        }
        let shipped = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            shipped == now,
            "report/loggp-1.schema.json is stale: run LOGGP_UPDATE_GOLDEN=1 cargo test -p loggp-report --features schema"
        );
    }

    #[test]
    fn round_trip_and_nulls() {
        let mut r = Report {
            schema: SCHEMA.into(),
            ..Default::default()
        };
        r.thresholds.push(Threshold {
            peer_class: "intra_node".into(),
            mode: "send".into(),
            ..Default::default()
        });
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.contains("\"active_bytes\":null"));
        assert_eq!(parse("x", text.as_bytes()).unwrap(), r);
    }

    #[test]
    fn refuses_other_json_truncation_and_newer_schema() {
        assert!(matches!(
            parse("x", b"{\"a\":1}"),
            Err(ReadError::NotLoggp(_))
        ));
        assert!(matches!(
            parse("x", b"{\"schema\":\"loggp/1\""),
            Err(ReadError::NotJson(..))
        ));
        assert!(matches!(
            parse("x", b"{\"schema\":\"loggp/2\"}"),
            Err(ReadError::NewerSchema(..))
        ));
        assert!(parse("x", b"{\"schema\":\"loggp/1\"}").is_ok());
    }
}
