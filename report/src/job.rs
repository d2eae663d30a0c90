//! Who ran, where, and what each rank spent: `job` and `ranks[]`.
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    /// Rank 0's wall time from its entry into MPI_Init to this report.
    pub wall_time_ns: f64,
    /// What of `wall_time_ns` was loggp's own work on rank 0, not the application's: its
    /// set-up and calibration after the MPI's Init returned, and its reduction at
    /// MPI_Finalize before this report (None in reports that predate it). The
    /// application's wall time is the difference; MPI_Init's and MPI_Finalize's own time
    /// stays the application's (and in `ranks[].time_in_mpi_ns`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loggp_time_ns: Option<f64>,
    pub clock: Clock,
    pub settings: BTreeMap<String, String>,
    /// Set in a per-rank partial report: the only rank it holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial_rank: Option<u32>,
    /// A snapshot written while the job runs (SIGUSR1 or LOGGP_INTERVAL); the rank goes on.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interim: bool,
    /// True where this job's processes were started by MPI_Comm_spawn (MPI 4.0 §11.8):
    /// this report is then named beside the spawning job's,
    /// `<its stem>.spawned-<host>-<pid of this world's rank 0>.json`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub spawned: bool,
    /// The spawning job's report, whose name this world inherited (LOGGP_REPORT, or the
    /// batch system's job id in the default name); None where neither was set (the
    /// default name then holds the spawning job's rank 0's pid, which this world cannot
    /// know).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spawned_from_report: Option<String>,
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
    /// This rank's own wall time, from its MPI_Init's entry to its report, less loggp's
    /// own work on it (set-up and calibration after the MPI's Init, Finalize's
    /// reduction): the span its `time_in_mpi_ns` lies in. `job.wall_time_ns` is rank 0's,
    /// and a rank that entered MPI_Init first spent more than that in MPI (MPICH demo:
    /// rank 1 at 100.3 % of it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_wall_time_ns: Option<f64>,
    /// Threads that made intercepted calls.
    pub threads: u32,
    /// The CPUs online on the rank's host (sysconf), where known: more ranks on a host
    /// than these share cores, which the collective model does not price.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_cpus: Option<u32>,
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
    /// Where the application paused profiling with MPI_Pcontrol(0): the calls it made
    /// while paused are in no count, histogram or estimate of this report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paused: Option<Paused>,
    /// This rank's calls of the application's user-defined operations (MPI_Op_create, C;
    /// each call of its function timed through the shim's trampoline): `[calls, elements,
    /// ns]` summed per octave of the element count, the octaves with calls in order (all
    /// such operations together). A reduction's arithmetic runs on the ranks its
    /// algorithm gives it to (a Reduce's root, a tree's inner ranks), so the job's price
    /// of it, `collective_config.user_op_ns`, pools every rank's ([`user_op_ns_of`]).
    /// Empty where none ran, and in older reports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user_op_calls: Vec<[f64; 3]>,
    /// The same calls by their cost per element: `[octave of the element count, bucket,
    /// calls]`, the bucket (`bins::hist_index`) of the call's ns per 1024 elements, in
    /// order. Its median prices the operation (`user_op_ns_of`): one call preempted for a
    /// millisecond moves the mean of a few hundred 5 µs calls by a tenth of it, and the
    /// collective model prices a call, not a preempted one. Empty where none ran, and in
    /// reports before 2026-11-29.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user_op_ns_per_1024_elements: Vec<[u64; 3]>,
}

/// One octave of the element count of the job's user-defined operations' calls, every
/// rank's pooled ([`user_op_octaves`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UserOpOctave {
    /// The octave: its calls had 2^octave to 2^(octave+1) − 1 elements.
    pub octave: i32,
    pub calls: f64,
    pub elements: f64,
    pub ns: f64,
    /// The price of a call of the mean elements: at the median ns per element of the
    /// calls (`user_op_ns_per_1024_elements`, all ranks pooled), or the mean ns where a
    /// rank lacks the histogram (an older rank file).
    pub price_ns: f64,
}

/// Every rank's `user_op_calls` pooled per octave of the element count, in order.
pub fn user_op_octaves(ranks: &[RankEntry]) -> Vec<UserOpOctave> {
    let mut octaves: BTreeMap<i32, [f64; 3]> = BTreeMap::new();
    for c in ranks.iter().flat_map(|r| &r.user_op_calls) {
        if c[0] <= 0.0 || c[1] <= 0.0 {
            continue;
        }
        // The calls' mean element count lies in their octave.
        let o = octaves
            .entry((c[1] / c[0]).log2().floor() as i32)
            .or_default();
        for (sum, x) in o.iter_mut().zip(c) {
            *sum += x;
        }
    }
    let every_rank_has_rates = ranks
        .iter()
        .all(|r| r.user_op_calls.is_empty() || !r.user_op_ns_per_1024_elements.is_empty());
    let mut rates: BTreeMap<i32, BTreeMap<u16, u64>> = BTreeMap::new();
    for &[octave, bucket, calls] in ranks.iter().flat_map(|r| &r.user_op_ns_per_1024_elements) {
        *rates
            .entry(octave as i32)
            .or_default()
            .entry(bucket as u16)
            .or_default() += calls;
    }
    octaves
        .iter()
        .map(|(&octave, &[calls, elements, ns])| {
            let mean_elements = elements / calls;
            let median = rates
                .get(&octave)
                .filter(|_| every_rank_has_rates)
                .and_then(|h| {
                    let h: Vec<(u16, u64)> = h.iter().map(|(&b, &c)| (b, c)).collect();
                    crate::bins::quantile(&h, 0.5)
                });
            UserOpOctave {
                octave,
                calls,
                elements,
                ns,
                price_ns: median.map_or(ns / calls, |per_1024| per_1024 * mean_elements / 1024.0),
            }
        })
        .collect()
}

/// `collective_config.user_op_ns` from every rank's calls ([`user_op_octaves`]): per
/// octave of the element count, the calls' mean elements and their price, in order.
pub fn user_op_ns_of(ranks: &[RankEntry]) -> Vec<[f64; 2]> {
    user_op_octaves(ranks)
        .iter()
        .map(|o| [o.elements / o.calls, o.price_ns])
        .collect()
}

/// The rank's pauses of profiling (MPI_Pcontrol(0) until MPI_Pcontrol with another level,
/// MPI 4.0 §15.2.4).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Paused {
    /// How many times profiling was paused.
    pub times: u64,
    /// The time it was paused, in all, ns (a pause still open at the end counts to the
    /// report's writing; a pause made before MPI_Init is counted, not timed).
    pub for_ns: f64,
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

#[cfg(test)]
mod tests {
    use super::{user_op_ns_of, RankEntry};

    /// Every rank's calls are pooled per octave: a Reduce's arithmetic runs on its root,
    /// which need not be rank 0 (here rank 0 made none), and two ranks' calls of one
    /// octave make one mean.
    #[test]
    fn user_operations_are_priced_from_every_ranks_calls() {
        let rank = |rank: u32, user_op_calls: Vec<[f64; 3]>| RankEntry {
            rank,
            user_op_calls,
            ..Default::default()
        };
        let ranks = [
            rank(0, vec![]),
            rank(
                1,
                vec![
                    [10.0, 2560.0, 25600.0],
                    [2.0, 2.0 * 16384.0, 2.0 * 160_000.0],
                ],
            ),
            rank(2, vec![[30.0, 30.0 * 300.0, 30.0 * 1400.0]]),
        ];
        // 256 and 300 elements share the octave [256, 512): 40 calls, (2560 + 9000) / 40
        // elements, (25600 + 42000) / 40 ns.
        assert_eq!(
            user_op_ns_of(&ranks),
            vec![[289.0, 1690.0], [16384.0, 160_000.0]]
        );
        assert!(user_op_ns_of(&ranks[..1]).is_empty());
    }

    /// With the calls' cost per element, the price is their median's: 100 calls of 512
    /// elements at 10 ns an element on two ranks, one of them preempted for a
    /// millisecond, price 5120 ns (within the bucket's ±3.2 %) where the mean is
    /// 5120 + 1e6 / 200. A rank without the histogram (an older rank file) leaves the mean.
    #[test]
    fn a_preempted_call_does_not_move_the_price() {
        use crate::bins::hist_index;
        let per_1024 = |ns: f64| hist_index((ns * 1024.0 / 512.0) as u64) as u64;
        let rank = |rank: u32, rates: Vec<[u64; 3]>, extra_ns: f64| RankEntry {
            rank,
            user_op_calls: vec![[100.0, 51200.0, 100.0 * 5120.0 + extra_ns]],
            user_op_ns_per_1024_elements: rates,
            ..Default::default()
        };
        let ranks = [
            rank(0, vec![[9, per_1024(5120.0), 100]], 0.0),
            rank(
                1,
                vec![[9, per_1024(5120.0), 99], [9, per_1024(1_005_120.0), 1]],
                1e6,
            ),
        ];
        let [[elements, ns]] = user_op_ns_of(&ranks)[..] else {
            panic!("one octave")
        };
        assert_eq!(elements, 512.0);
        assert!((ns / 5120.0 - 1.0).abs() < 0.032, "{ns}");
        let older = [ranks[0].clone(), rank(1, vec![], 1e6)];
        assert_eq!(user_op_ns_of(&older), vec![[512.0, 5120.0 + 1e6 / 200.0]]);
    }
}
