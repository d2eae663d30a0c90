//! The LogGP model of collectives (issue 26): each collective the job called, priced
//! from the calibration's point-to-point parameters for every algorithm the MPI can
//! choose, beside the algorithm the MPI did choose and the cost the job measured.
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What decides the MPI's collective algorithms, read at MPI_Finalize on rank 0, and the
/// local reduction's cost; the model's inputs beside the calibration.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct CollectiveConfig {
    /// "openmpi_tuned" (Open MPI's coll tuned component decides), "mpich" (the
    /// `MPIR_CVAR_<COLL>_INTRA_ALGORITHM` control variables), or "unknown" (e.g. another
    /// coll component selected, or the variables unreadable).
    pub decider: String,
    /// Open MPI: `coll_tuned_use_dynamic_rules`; a forced algorithm counts only with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dynamic_rules: Option<bool>,
    /// The control variables read, by name, with their values: Open MPI's
    /// `coll_tuned_<coll>_algorithm` (0: the fixed rules decide), MPICH's
    /// `MPIR_CVAR_<COLL>_INTRA_ALGORITHM` (`auto`: MPICH's own selection decides).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub variables: BTreeMap<String, String>,
    /// MPI_Reduce_local of MPI_DOUBLE with MPI_SUM on rank 0: `[bytes, ns]` per call, the
    /// median of 5 windows of up to 1024 calls less the clock reads' cost, timed at
    /// MPI_Finalize and, where the calibration ran, at MPI_Init: per size the lesser (a
    /// phase of the machine only adds time); the price of a reduction algorithm's local
    /// arithmetic.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reduce_local_ns: Vec<[f64; 2]>,
    /// A local copy (memcpy) on rank 0: `[bytes, ns]` per call, timed as
    /// `reduce_local_ns`;
    /// the price of the copy of a rank's own block (Allgather, Alltoall) or vector
    /// (Allreduce) into the receive buffer with which those algorithms begin.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub copy_local_ns: Vec<[f64; 2]>,
    /// An indexed datatype of one block built, committed and freed
    /// (`MPI_Type_indexed`, `MPI_Type_commit`, `MPI_Type_free`), in ns, timed as
    /// `reduce_local_ns`: the price of the datatype Bruck's Alltoall builds in each of
    /// its steps (Open MPI and MPICH alike).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datatype_setup_ns: Option<f64>,
    /// The application's user-defined operations (MPI_Op_create, C) on every rank, each
    /// call of its function timed in the job (`ranks[].user_op_calls`; rank 0's alone in
    /// reports before 2026-11-29): `[elements, ns]` per octave of the element count: the
    /// calls' mean elements at their median ns per element (`ranks[].
    /// user_op_ns_per_1024_elements`; the mean ns in reports before 2026-11-30), all
    /// such operations together; the price of
    /// a reduction with one (`collective_model[].operation` "user_..."), where
    /// `reduce_local_ns` (MPI_SUM) would be a guess. Empty where none ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user_op_ns: Vec<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One algorithm's predicted cost.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct AlgorithmCost {
    /// The MPI's own name of the algorithm (Open MPI's `ompi_info` names, MPICH's CVAR
    /// values).
    pub algorithm: String,
    /// The value that forces it: `coll_tuned_<coll>_algorithm=<id>` (Open MPI, with
    /// `coll_tuned_use_dynamic_rules=1`) or `MPIR_CVAR_<COLL>_INTRA_ALGORITHM=<name>`.
    pub force: String,
    pub predicted_ns: f64,
    /// The prediction at every parameter's interval bound at once (all low, all high):
    /// what a repeat calibration's parameters would predict.
    pub predicted_ns_ci: Option<[f64; 2]>,
    /// The mean over the members of the time from a common entry to each member's exit
    /// (`predicted_ns` is the last member's): the time each member spends, on average,
    /// which a root that leaves early lowers. Advice prices savings with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_member_mean_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_member_mean_ns_ci: Option<[f64; 2]>,
    /// The prediction with each member entering when it did (its mean wait for the last
    /// entry, `waits.collectives[].arrival_wait_ns`), from the last entry to the last
    /// exit, as `measured_ns` is measured: what a message sent before its receiver
    /// entered, or a late partner, does to the call. Null without the time split, or
    /// where the members are not known (a communicator of every rank is taken in world
    /// rank order; another by its recorded `members`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_as_entered_ns: Option<f64>,
}

/// Per (collective, communicator size, size bin): the prediction for the algorithm in
/// use and for the best alternative, beside the measured cost.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct CollectiveModel {
    pub function: String,
    pub comm_size: u32,
    pub size_lo_bytes: u64,
    pub size_hi_bytes: u64,
    /// The collective's message size: count × type size (per block for Allgather and
    /// Alltoall), from the calls' mean send and receive bytes; 0 for MPI_Barrier.
    pub message_bytes: u64,
    /// The algorithm in use, where it can be known (else null, with the reason in `note`).
    pub algorithm: Option<String>,
    /// How it is known: "forced" (a control variable), "fixed rules" (Open MPI 4.1's
    /// coll tuned decision for this size), "built-in rules (MPICH 4.0)" (MPICH 4.0's
    /// built-in selection tree for `auto`), or "default (assumed)" (that tree, for
    /// another MPICH version, whose tree may differ).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub algorithm_source: Option<String>,
    /// A reduction's operation and element size, as its calls had them
    /// (`CollectiveSplit::operation`, `element_bytes`); null where not recorded, and the
    /// model then takes a predefined operation on 8-byte elements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element_bytes: Option<u64>,
    pub predicted_ns: Option<f64>,
    pub predicted_ns_ci: Option<[f64; 2]>,
    /// The algorithm in use's `AlgorithmCost::predicted_as_entered_ns`: the prediction
    /// to set beside `measured_ns` where the members entered apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_as_entered_ns: Option<f64>,
    /// The measured cost of one call: the largest over the members of the mean time from
    /// the last member's entry to the member's exit (the time split's collective cost),
    /// so that waiting for late members does not count.
    pub measured_ns: Option<f64>,
    pub measured_ns_ci: Option<[f64; 2]>,
    pub calls_matched: u64,
    /// Of the matched calls, those some member entered at least 100 µs after its previous
    /// call of the collective (`CollectiveSplit::after_pause`), and their cost measured as
    /// `measured_ns` is.
    /// `measured_ns` leaves them out where at least 5 others were back to back: the
    /// model's parameters are measured back to back, and a call after a pause costs
    /// more (the note says how much). Null where not known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls_after_pause: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_after_pause_ns: Option<f64>,
    /// The communicator's world ranks in its rank order, as its rows in the time split
    /// have them (`CollectiveSplit::members`): null for every rank in order, on one host,
    /// or where not recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members: Option<Vec<u32>>,
    /// The cheapest algorithm by the model (it may be the one in use).
    pub best: Option<AlgorithmCost>,
    /// Every algorithm the model prices for this collective.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<AlgorithmCost>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
