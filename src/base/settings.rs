//! LOGGP_* settings, read once when the library is loaded and never on the hot path.
//!
//! A value that does not parse produces one message naming the variable, the value and
//! what is accepted; the default is used and the application is not affected. Messages
//! are kept until MPI_Init so that only rank 0 prints them.
use std::sync::OnceLock;

#[derive(Clone, Debug)]
pub struct Settings {
    /// Pure pass-through: every wrapper calls PMPI_ and nothing else.
    pub disable: bool,
    /// Report path; None means `loggp-<executable>-<job id or pid>.json` in rank 0's cwd.
    pub report: Option<String>,
    /// 0 silent, 1 one line at start and end, 2 per-rank details.
    pub verbose: u8,
    /// Rank 0 prints the effective settings at MPI_Init.
    pub dump_config: bool,
    /// Threads per rank with their own statistics; later threads share exact counters.
    pub max_threads: usize,
    /// Statistics cells (function, peer class, size bin) per thread.
    pub cells_per_thread: usize,
    /// Nonblocking requests tracked at once per rank.
    pub max_requests: usize,
    /// Write each rank's own statistics when the job dies before MPI_Finalize.
    pub partial: bool,
    /// Every this many seconds each rank writes an interim rank file (0: never).
    pub interval_s: u64,
    /// Active calibration at MPI_Init: off, quick or full.
    pub calibrate: Calibrate,
    /// Wall-time cap of the calibration, ms (None: the mode's default).
    pub calibrate_budget_ms: Option<u64>,
    /// Send modes calibrated (None: the mode's default).
    pub calibrate_modes: Option<Vec<String>>,
    /// Change detection: points looked ahead and growth factor (hoefler2007 §3.5).
    /// Scales the segmentation's price of a protocol range (1: the criterion as it is).
    pub model_penalty: f64,
    /// Largest message size probed (None: 1 MiB quick, 16 MiB full).
    pub calibrate_max_bytes: Option<usize>,
    /// Raw transports calibrated beneath MPI: None = auto (UCT where the MPI runs over
    /// UCX; else shm inside a node, and across nodes verbs through UCT where an RDMA
    /// device exists, else tcp); Some(empty) = off.
    pub raw: Option<Vec<String>>,
    /// Testing aid: make the shim fail on purpose at one place (`comm_translate`,
    /// `finalize`), to check that a fault stops profiling and nothing else.
    pub inject_fault: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            disable: false,
            report: None,
            verbose: 0,
            dump_config: false,
            max_threads: 64,
            cells_per_thread: 1024,
            max_requests: 1 << 16,
            partial: true,
            interval_s: 0,
            inject_fault: None,
            calibrate: Calibrate::Quick,
            calibrate_budget_ms: None,
            calibrate_modes: None,
            model_penalty: 1.0,
            calibrate_max_bytes: None,
            raw: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Calibrate {
    Off,
    Quick,
    Full,
}

impl Calibrate {
    pub fn name(self) -> &'static str {
        match self {
            Calibrate::Off => "off",
            Calibrate::Quick => "quick",
            Calibrate::Full => "full",
        }
    }
}

/// The raw transports `LOGGP_RAW` accepts.
pub const RAW_TRANSPORTS: [&str; 4] = ["shm", "tcp", "ucx", "verbs"];

/// One `LOGGP_RAW` entry: a transport, or `ucx:<tl>` with a UCT transport name.
fn raw_entry_ok(m: &str) -> bool {
    RAW_TRANSPORTS.contains(&m)
        || m.strip_prefix("ucx:").is_some_and(|tl| {
            !tl.is_empty()
                && tl.len() <= 16
                && tl.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        })
}

impl Settings {
    pub fn budget_ms(&self) -> u64 {
        self.calibrate_budget_ms.unwrap_or(match self.calibrate {
            Calibrate::Full => 60_000,
            _ => 2000,
        })
    }
    pub fn max_bytes(&self) -> usize {
        self.calibrate_max_bytes
            .unwrap_or(if self.calibrate == Calibrate::Full {
                16 << 20
            } else {
                // Quick: to 512 KiB. The top octave (to 1 MiB) doubled the quick
                // calibration's time here (0.83–1.7 s against 0.53–0.57 s, 2 ranks, MPI
                // and raw shm) and holds no switch of the MPIs tested (the largest is
                // pml ucx's 256 KiB); `full` goes to 16 MiB.
                512 << 10
            })
    }
    pub fn modes(&self) -> Vec<String> {
        self.calibrate_modes
            .clone()
            .unwrap_or_else(|| match self.calibrate {
                Calibrate::Full => vec!["send".into(), "isend".into(), "ssend".into()],
                _ => vec!["send".into()],
            })
    }
}

/// One setting: its name, what it accepts, its default, and its effective value.
pub struct Described {
    pub name: &'static str,
    pub accepts: &'static str,
    pub default: String,
    pub value: String,
    pub what: &'static str,
}

static SETTINGS: OnceLock<(Settings, Vec<String>)> = OnceLock::new();

fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "yes" | "true" | "on" => Some(true),
        "0" | "no" | "false" | "off" | "" => Some(false),
        _ => None,
    }
}

fn parse_range(v: &str, lo: usize, hi: usize) -> Option<usize> {
    v.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| (lo..=hi).contains(n))
}

/// Reads the environment through `get` (the real environment, or a map in tests).
pub fn parse(get: impl Fn(&str) -> Option<String>) -> (Settings, Vec<String>) {
    let mut s = Settings::default();
    let mut errors = Vec::new();
    let mut bad = |name: &str, value: &str, accepts: &str, default: String| {
        errors.push(format!(
            "loggp: {name}={value:?} is not valid (accepted: {accepts}); using the default {default}"
        ));
    };
    if let Some(v) = get("LOGGP_DISABLE") {
        match parse_bool(&v) {
            Some(b) => s.disable = b,
            None => bad(
                "LOGGP_DISABLE",
                &v,
                "0, 1, yes, no, true, false, on, off",
                "0".into(),
            ),
        }
    }
    if let Some(v) = get("LOGGP_REPORT") {
        if v.is_empty() || v.ends_with('/') {
            bad(
                "LOGGP_REPORT",
                &v,
                "a file path",
                "loggp-<executable>-<job>.json".into(),
            );
        } else {
            s.report = Some(v);
        }
    }
    if let Some(v) = get("LOGGP_VERBOSE") {
        match parse_range(&v, 0, 2) {
            Some(n) => s.verbose = n as u8,
            None => bad("LOGGP_VERBOSE", &v, "0, 1 or 2", "0".into()),
        }
    }
    if let Some(v) = get("LOGGP_DUMP_CONFIG") {
        match parse_bool(&v) {
            Some(b) => s.dump_config = b,
            None => bad("LOGGP_DUMP_CONFIG", &v, "0 or 1", "0".into()),
        }
    }
    if let Some(v) = get("LOGGP_MAX_THREADS") {
        match parse_range(&v, 1, 4096) {
            Some(n) => s.max_threads = n,
            None => bad(
                "LOGGP_MAX_THREADS",
                &v,
                "an integer from 1 to 4096",
                "64".into(),
            ),
        }
    }
    if let Some(v) = get("LOGGP_CELLS_PER_THREAD") {
        match parse_range(&v, 64, 1 << 20) {
            Some(n) => s.cells_per_thread = n.next_power_of_two(),
            None => bad(
                "LOGGP_CELLS_PER_THREAD",
                &v,
                "an integer from 64 to 1048576",
                "1024".into(),
            ),
        }
    }
    if let Some(v) = get("LOGGP_MAX_REQUESTS") {
        match parse_range(&v, 256, 1 << 24) {
            Some(n) => s.max_requests = n.next_power_of_two(),
            None => bad(
                "LOGGP_MAX_REQUESTS",
                &v,
                "an integer from 256 to 16777216",
                "65536".into(),
            ),
        }
    }
    if let Some(v) = get("LOGGP_PARTIAL") {
        match parse_bool(&v) {
            Some(b) => s.partial = b,
            None => bad("LOGGP_PARTIAL", &v, "0 or 1", "1".into()),
        }
    }
    if let Some(v) = get("LOGGP_INTERVAL") {
        match parse_range(&v, 0, 86_400) {
            Some(n) => s.interval_s = n as u64,
            None => bad(
                "LOGGP_INTERVAL",
                &v,
                "seconds from 0 (never) to 86400",
                "0".into(),
            ),
        }
    }
    if let Some(v) = get("LOGGP_CALIBRATE") {
        match v.trim() {
            "off" | "0" => s.calibrate = Calibrate::Off,
            "quick" => s.calibrate = Calibrate::Quick,
            "full" => s.calibrate = Calibrate::Full,
            _ => bad("LOGGP_CALIBRATE", &v, "off, quick, full", "quick".into()),
        }
    }
    if let Some(v) = get("LOGGP_CALIBRATE_BUDGET_MS") {
        match parse_range(&v, 10, 3_600_000) {
            Some(n) => s.calibrate_budget_ms = Some(n as u64),
            None => bad(
                "LOGGP_CALIBRATE_BUDGET_MS",
                &v,
                "milliseconds from 10 to 3600000",
                "2000 (quick), 60000 (full)".into(),
            ),
        }
    }
    if let Some(v) = get("LOGGP_CALIBRATE_MODES") {
        let modes: Vec<String> = v
            .split(',')
            .map(|m| m.trim().to_string())
            .filter(|m| !m.is_empty())
            .collect();
        if !modes.is_empty()
            && modes
                .iter()
                .all(|m| ["send", "isend", "ssend"].contains(&m.as_str()))
        {
            s.calibrate_modes = Some(modes);
        } else {
            bad(
                "LOGGP_CALIBRATE_MODES",
                &v,
                "a comma list of send, isend, ssend",
                "send (quick), send,isend,ssend (full)".into(),
            );
        }
    }
    if let Some(v) = get("LOGGP_RAW") {
        let list: Vec<String> = v
            .split(',')
            .map(|m| m.trim().to_ascii_lowercase())
            .filter(|m| !m.is_empty())
            .collect();
        match list.iter().map(String::as_str).collect::<Vec<_>>()[..] {
            ["auto"] => s.raw = None,
            ["off"] => s.raw = Some(vec![]),
            ref l if !l.is_empty() && l.iter().all(|m| raw_entry_ok(m)) => {
                s.raw = Some(list.clone())
            }
            _ => bad(
                "LOGGP_RAW",
                &v,
                "auto, off, or a comma list of shm, tcp, ucx, ucx:<UCT transport> (e.g. ucx:posix, ucx:tcp, ucx:rc_verbs), verbs",
                "auto".into(),
            ),
        }
    }
    let mut retired = vec![];
    for old in ["LOGGP_CALIBRATE_LOOKAHEAD", "LOGGP_CALIBRATE_PFACT"] {
        if let Some(v) = get(old) {
            retired.push(format!(
                "loggp: {old}={v:?} is no longer used (the look-ahead change detection was replaced by an optimal segmentation); ignored — LOGGP_MODEL_PENALTY scales its price of a range"
            ));
        }
    }
    if let Some(v) = get("LOGGP_MODEL_PENALTY") {
        match v
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|f| (0.25..=10.0).contains(f))
        {
            Some(f) => s.model_penalty = f,
            None => bad(
                "LOGGP_MODEL_PENALTY",
                &v,
                "a number from 0.25 to 10",
                "1".into(),
            ),
        }
    }
    if let Some(v) = get("LOGGP_CALIBRATE_MAX_BYTES") {
        match parse_range(&v, 64, 1 << 30) {
            Some(n) => s.calibrate_max_bytes = Some(n),
            None => bad(
                "LOGGP_CALIBRATE_MAX_BYTES",
                &v,
                "bytes from 64 to 1073741824",
                "524288 (quick), 16777216 (full)".into(),
            ),
        }
    }
    if let Some(v) = get("LOGGP_INJECT_FAULT") {
        const PLACES: &str =
            "comm_translate, finalize, fortran_missing, hide_send, clock_skew, cores_per_rank, mca_registry";
        match PLACES.split(", ").any(|p| p == v) {
            true => s.inject_fault = Some(v),
            false => bad("LOGGP_INJECT_FAULT", &v, PLACES, "none".into()),
        }
    }
    errors.extend(retired);
    (s, errors)
}

/// True when LOGGP_INJECT_FAULT names this place.
pub fn inject(place: &str) -> bool {
    get().inject_fault.as_deref() == Some(place)
}

/// Reads the real environment once (at library load).
pub fn load() {
    SETTINGS.get_or_init(|| parse(|k| std::env::var(k).ok()));
}

pub fn get() -> &'static Settings {
    static FALLBACK: OnceLock<Settings> = OnceLock::new();
    match SETTINGS.get() {
        Some((s, _)) => s,
        None => FALLBACK.get_or_init(Settings::default),
    }
}

/// Messages about bad values, to be printed once (by rank 0).
pub fn errors() -> &'static [String] {
    SETTINGS.get().map(|(_, e)| e.as_slice()).unwrap_or(&[])
}

/// Every setting with its effective value, for LOGGP_DUMP_CONFIG and the report.
pub fn describe(s: &Settings) -> Vec<Described> {
    let b = |v: bool| if v { "1".to_string() } else { "0".to_string() };
    vec![
        Described {
            name: "LOGGP_DISABLE",
            accepts: "0|1",
            default: "0".into(),
            value: b(s.disable),
            what: "pure pass-through, no profiling",
        },
        Described {
            name: "LOGGP_REPORT",
            accepts: "path",
            default: "loggp-<executable>-<job>.json".into(),
            value: s
                .report
                .clone()
                .unwrap_or_else(|| "loggp-<executable>-<job>.json".into()),
            what: "where rank 0 writes the job's report",
        },
        Described {
            name: "LOGGP_VERBOSE",
            accepts: "0|1|2",
            default: "0".into(),
            value: s.verbose.to_string(),
            what: "0 silent, 1 start/end lines, 2 details",
        },
        Described {
            name: "LOGGP_DUMP_CONFIG",
            accepts: "0|1",
            default: "0".into(),
            value: b(s.dump_config),
            what: "rank 0 prints these settings at MPI_Init",
        },
        Described {
            name: "LOGGP_MAX_THREADS",
            accepts: "1..4096",
            default: "64".into(),
            value: s.max_threads.to_string(),
            what: "threads per rank with their own statistics",
        },
        Described {
            name: "LOGGP_CELLS_PER_THREAD",
            accepts: "64..1048576",
            default: "1024".into(),
            value: s.cells_per_thread.to_string(),
            what: "(function, peer class, size bin) cells per thread",
        },
        Described {
            name: "LOGGP_MAX_REQUESTS",
            accepts: "256..16777216",
            default: "65536".into(),
            value: s.max_requests.to_string(),
            what: "nonblocking requests tracked at once",
        },
        Described {
            name: "LOGGP_CALIBRATE",
            accepts: "off|quick|full",
            default: "quick".into(),
            value: s.calibrate.name().into(),
            what: "active PRTT calibration at MPI_Init",
        },
        Described {
            name: "LOGGP_CALIBRATE_BUDGET_MS",
            accepts: "10..3600000",
            default: "2000 (quick), 60000 (full)".into(),
            value: s.budget_ms().to_string(),
            what: "wall-time cap of the calibration",
        },
        Described {
            name: "LOGGP_CALIBRATE_MODES",
            accepts: "send,isend,ssend",
            default: "send (quick), all (full)".into(),
            value: s.modes().join(","),
            what: "send modes the calibration measures",
        },
        Described {
            name: "LOGGP_CALIBRATE_MAX_BYTES",
            accepts: "64..1073741824",
            default: "524288 (quick), 16777216 (full)".into(),
            value: s.max_bytes().to_string(),
            what: "largest message size the calibration probes",
        },
        Described {
            name: "LOGGP_RAW",
            accepts: "auto|off|shm,tcp,ucx,ucx:<tl>,verbs",
            default: "auto".into(),
            value: match &s.raw {
                None => "auto".into(),
                Some(l) if l.is_empty() => "off".into(),
                Some(l) => l.join(","),
            },
            what: "raw transports calibrated beneath MPI",
        },
        Described {
            name: "LOGGP_MODEL_PENALTY",
            accepts: "0.25..10",
            default: "1".into(),
            value: s.model_penalty.to_string(),
            what: "scales the segmentation's price of a protocol range (higher: fewer ranges)",
        },
        Described {
            name: "LOGGP_PARTIAL",
            accepts: "0|1",
            default: "1".into(),
            value: b(s.partial),
            what: "per-rank partial report if the job dies early",
        },
        Described {
            name: "LOGGP_INTERVAL",
            accepts: "seconds, 0 = never",
            default: "0".into(),
            value: s.interval_s.to_string(),
            what: "each rank writes an interim rank file this often (also on SIGUSR1)",
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn with(pairs: &[(&str, &str)]) -> (Settings, Vec<String>) {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        parse(|k| m.get(k).cloned())
    }

    #[test]
    fn garbage_values_name_variable_value_and_accepted_and_keep_default() {
        let (s, e) = with(&[("LOGGP_VERBOSE", "loud"), ("LOGGP_MAX_THREADS", "-3")]);
        assert_eq!(s.verbose, 0);
        assert_eq!(s.max_threads, 64);
        assert_eq!(e.len(), 2);
        assert!(
            e[0].contains("LOGGP_VERBOSE")
                && e[0].contains("\"loud\"")
                && e[0].contains("0, 1 or 2")
        );
        assert!(e[1].contains("LOGGP_MAX_THREADS") && e[1].contains("\"-3\""));
    }

    #[test]
    fn good_values_are_taken() {
        let (s, e) = with(&[
            ("LOGGP_DISABLE", "yes"),
            ("LOGGP_REPORT", "/tmp/x.json"),
            ("LOGGP_MAX_REQUESTS", "1000"),
        ]);
        assert!(e.is_empty());
        assert!(s.disable);
        assert_eq!(s.report.as_deref(), Some("/tmp/x.json"));
        assert_eq!(s.max_requests, 1024);
    }
}
