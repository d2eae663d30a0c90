//! Each rank's clock against rank 0's (`clocks`): offsets measured by ping-pong at
//! MPI_Init and at MPI_Finalize, the drift between them, and whether a rank shares rank
//! 0's counter (established from the measurement, not assumed from the host).
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ClockSync {
    /// "done", or why not.
    pub status: String,
    pub method: String,
    /// Ranks 1..N (rank 0 is the reference).
    pub ranks: Vec<RankClock>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct RankClock {
    pub rank: u32,
    /// On rank 0's host, with an invariant counter, and an offset within its uncertainty
    /// of 0 at both ends: its timestamps need no correction.
    pub same_counter_as_rank0: bool,
    pub at_init: Option<ClockOffset>,
    pub at_finalize: Option<ClockOffset>,
    /// Change of the offset per unit of time between the two, parts per million.
    pub drift_ppm: Option<f64>,
    pub drift_ppm_uncertainty: Option<f64>,
}

/// This rank's clock minus rank 0's, as rank 0 measured it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ClockOffset {
    pub offset_ns: f64,
    /// Half the shortest round trip: the true offset lies within ± this of `offset_ns`.
    pub uncertainty_ns: f64,
    pub exchanges: u32,
}
