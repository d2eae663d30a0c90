//! The loggp report, schema `loggp/1`: the contract between the preloaded shim that writes
//! it, the `loggp` command that reads it, and users' scripts. See
//! `shared/docs/report-schema.md`; fields may be added, but renaming or removing one needs
//! a new schema version.
//!
//! Units are in the names (`_ns` nanoseconds, `_bytes` bytes). A value that could not be
//! determined is `None` (JSON `null`), never 0, and the entry says why in `note`.
pub mod bins;
mod calibration;
mod cells;
mod clocks;
mod collectives;
mod job;
mod matrix;
mod passive;
mod sites;
mod vocab;
mod waits;

pub use calibration::*;
pub use cells::*;
pub use clocks::*;
pub use collectives::*;
pub use job::*;
pub use matrix::*;
pub use passive::*;
pub use sites::*;
pub use vocab::*;
pub use waits::*;

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
    /// The statistics every estimate of the application's calls comes from: per
    /// (function, mode, peer class, size bin) the calls with their duration histogram,
    /// summed over the ranks (a rank file: that rank's own). `passive[]` is computed from
    /// them (`loggp_model::passive::bins`), so rank files recombine exactly and
    /// `loggp refit` redoes the passive section.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<Cell>,
    /// Point-to-point messages and time per ordered pair of world ranks, sparse (a pair
    /// that exchanged nothing is absent).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub matrix: Vec<MatrixEntry>,
    /// Whether every message was seen, by an independent counter where there is one.
    pub coverage: Coverage,
    /// Each rank's clock against rank 0's, at MPI_Init and MPI_Finalize.
    pub clocks: ClockSync,
    /// Where in the application the MPI calls were made (addresses; `loggp show`
    /// symbolizes them).
    pub call_sites: CallSites,
    /// Each rank's time in MPI split into cost and waiting (issue 25).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub time_split: Vec<TimeSplit>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub passive_latency: Vec<PassiveLatency>,
    pub waits: Waits,
    /// What decides the MPI's collective algorithms (issue 26).
    pub collective_config: CollectiveConfig,
    /// Each collective priced by the LogGP model per algorithm, beside its measured cost.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub collective_model: Vec<CollectiveModel>,
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
            peer_class: PeerClass::IntraNode,
            mode: Mode::Send,
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
