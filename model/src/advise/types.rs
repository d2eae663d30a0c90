//! What the advice says: the value, the candidates and their savings, and the checks.
use loggp_report::{Mode, PeerClass};
use serde::Serialize;

/// One candidate value of the knob and what it saves.
#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    pub value: i64,
    /// Largest message size sent eagerly with this value.
    pub eager_up_to_bytes: u64,
    pub messages: u64,
    pub predicted_saving_ns: f64,
    pub predicted_saving_ns_ci: Option<[f64; 2]>,
}

/// The advice for one (peer class, mode).
#[derive(Clone, Debug, Serialize)]
pub struct Advice {
    pub peer_class: PeerClass,
    pub mode: Mode,
    /// The knob: `{name, value}` — the advised value, or the current one where no change
    /// is advised.
    pub setting: Option<SettingValue>,
    /// The knob's value in use and the switch it gives (largest eager size).
    pub current: Option<i64>,
    /// The value in use as the MPI states it (`auto` for UCX's default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_text: Option<String>,
    pub current_switch_bytes: Option<u64>,
    /// Time the job spent in this mode (all sizes) and its messages.
    pub observed_ns: f64,
    pub observed_messages: u64,
    /// Messages above the switch (sent with rendezvous) and their time in this mode.
    pub rendezvous_messages: u64,
    pub rendezvous_observed_ns: f64,
    pub advised: bool,
    pub predicted_saving_ns: Option<f64>,
    pub predicted_saving_ns_ci: Option<[f64; 2]>,
    pub predicted_saving_per_message_ns: Option<f64>,
    /// Messages the advised value turns eager.
    pub messages: u64,
    /// The model's check on the job (send mode, where blocking receives of the same sizes
    /// were seen): the pair's time in MPI_Send + MPI_Recv for the priced rendezvous
    /// messages, observed and as the calibration prices it (PRTT(1,0,s) per message).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rendezvous_pair_observed_ns: Option<f64>,
    pub rendezvous_pair_predicted_ns: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_over_model: Option<f64>,
    /// What the job's own eager messages next to the switch cost the pair in MPI_Send +
    /// MPI_Recv over what the calibration's eager line says (1 in a ping-pong; below 1
    /// where both ranks' sends overlap, as in exchanges); the eager side of the saving is
    /// scaled by it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eager_observed_over_model: Option<f64>,
    /// The advice's own warning, given before any rerun, that its saving may be off by
    /// more than the model's error: the calibration was disturbed, the switch is not
    /// exact, or the job's own eager messages cost the pair far (outside 0.67–1.5 ×) from
    /// what the calibration's eager line says, so that the eager side of the saving
    /// rests on a large correction. (A rendezvous side far from the calibration's round
    /// trips is not one: the saving starts from the job's own time for those messages.)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saving_warning: Option<String>,
    /// The ways to set it with this MPI's launchers.
    pub command: Option<String>,
    pub commands: Vec<String>,
    pub candidates: Vec<Candidate>,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SettingValue {
    pub name: String,
    pub value: Option<i64>,
}
