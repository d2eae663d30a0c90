//! What the application's own calls showed: per (peer class, mode) the size bins of the
//! calls with their envelopes, the ranges learned from them, and the model check.
use crate::{Mode, PeerClass, Range};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Passive {
    pub peer_class: PeerClass,
    pub mode: Mode,
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
pub struct ModelCheck {
    pub peer_class: PeerClass,
    pub mode: Mode,
    pub calls: u64,
    /// Count-weighted median over the size bins of |line − median| / median, the ranges
    /// with a fitted parameter only (a median holds the call's waits for its partner).
    pub median_relative_error: Option<f64>,
    /// Calls in the ranges with a fitted parameter, of a blocking mode (a nonblocking
    /// mode's line is the calls' overhead, not their time: 0).
    pub priced_calls: u64,
    /// The fitted model's price of all the calls, Σ count × line(size); `null` unless
    /// every call is priced.
    pub priced_ns: Option<f64>,
    /// The cost part of the same calls' time in the waits' split (`time_split[]
    /// .by_class_mode`, summed over ranks: their time less the waits for the partner),
    /// with its 95 % interval (the ranks' bounds summed); `null` without a split.
    pub cost_ns: Option<f64>,
    pub cost_ns_ci: Option<[f64; 2]>,
}
