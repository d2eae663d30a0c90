//! loggp's estimators, without MPI: the shim calls [`estimate`] on the report it has just
//! reduced (points, bins, switches) at MPI_Finalize, and `loggp refit` calls the same on a
//! stored report with other settings. The runtime records; the model estimates.
//!
//! * [`active`] — LogGP ranges of the calibration (hoefler2007 §3) with bootstrap
//!   intervals over the PRTT repetitions;
//! * [`segment`] — protocol ranges by optimal segmentation with a BIC penalty;
//! * [`passive`] — ranges, brackets and the model check from the application's calls;
//! * [`overhead`] — MPI minus the raw transport (bell2003 Fig. 3);
//! * [`fit`], [`stats`] — constrained lines, medians, the bootstrap's generator.
pub mod active;
pub mod advise;
pub mod causes;
pub mod cells;
pub mod check;
pub mod coll;
pub mod fit;
pub mod model_check;
pub mod overhead;
pub mod passive;
pub mod segment;
pub mod stats;

use loggp_report::{Mode, Report};
use std::collections::BTreeMap;

/// The passive counterpart (same peer class and mode) of a calibration set, if the job
/// had such traffic.
pub fn passive_of<'a>(
    r: &'a Report,
    set: &loggp_report::CalibrationSet,
) -> Option<&'a loggp_report::Passive> {
    r.passive
        .iter()
        .find(|p| p.peer_class == set.peer_class && p.mode == set.mode)
}

/// The MPI calibration set (blocking send) a raw transport's set is compared with: same
/// pair's peer class (bell2003 §5 sets MPI beside the raw layer of the same hardware).
pub fn mpi_send_set_of<'a>(
    r: &'a Report,
    raw: &loggp_report::RawSet,
) -> Option<&'a loggp_report::CalibrationSet> {
    r.calibration
        .mpi
        .iter()
        .find(|m| m.peer_class == raw.peer_class && m.mode == Mode::Send)
}

/// How far this machine moved between runs, beyond one run's passes (1σ of the log of a
/// run's estimate, o_s, o_r, g, G, L): see `Settings::between_run`. Two batches of ten
/// MPICH runs taken late in CI runs, with the ranges at the switches alone (one of them
/// refitted so), measured (medians over ranges) o_s 0.11–0.15, o_r 0.11–0.17, g
/// 0.14–0.16, G 0.13–0.14, L 0.13–0.14; calm batches 0.005–0.09. At 0.09 for
/// o_s, o_r and g and 0.07 for L, one of those batches had `diff` call 10 of 160
/// parameters of identical runs changed, and Open MPI vader's same-level coverage fell to
/// 70.5 %; refitted at these values, 5 of 160 and 76.4 %, with the median half-width at
/// most 33.7 % (0.12 would reach 35 %).
pub const BETWEEN_RUN: [f64; 5] = [0.11, 0.11, 0.11, 0.13, 0.09];

/// The estimators' settings. Defaults are what the shim uses.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Bootstrap replicates per interval.
    pub bootstrap: usize,
    /// Seed of the bootstrap's generator (a report refits to the same intervals).
    pub seed: u64,
    /// Absolute noise floor of one point, ns: two reads of the job's timer.
    pub abs_floor_ns: f64,
    /// Relative noise floor of one point: the drift between runs of a probe on a shared
    /// machine that a few repetitions in a row cannot show. Measured here (10 quick
    /// calibrations, Open MPI vader, per size the robust CV across runs): median 15 % for
    /// G_all, 18 % for o_s.
    pub rel_floor: f64,
    /// Multiplies the BIC price of a range (1: the criterion as it is).
    pub penalty_scale: f64,
    /// How far a run's estimates move with the machine between runs, beyond what the
    /// passes of one run show: 1σ on the log scale, per parameter (o_s, o_r, g, G, L).
    /// The repeat-run intervals include it (see `active::repeat_interval`). Measured on
    /// the 2-core VM loggp is tested on (`loggp repeat` over ten quick calibrations).
    pub between_run: [f64; 5],
    /// The probability a repeat-run interval is built to cover.
    pub repeat_level: f64,
    /// Segment a calibration set's points anew even where the calibration located its
    /// switches (and the level changes that did not repeat) itself: `loggp refit` with
    /// another price of a range or noise floor. Otherwise the ranges end where the
    /// calibration's own probes said (reports of 0.3 on).
    pub resegment: bool,
    /// Fewest sizes a calibration range may have.
    pub min_range_points: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            bootstrap: 200,
            seed: 0x5eed,
            abs_floor_ns: 20.0,
            rel_floor: 0.15,
            penalty_scale: 1.0,
            between_run: BETWEEN_RUN,
            repeat_level: 0.90,
            resegment: false,
            min_range_points: 3,
        }
    }
}

impl Settings {
    /// The defaults, with the timer floor of the job that wrote `r`.
    pub fn for_report(r: &Report) -> Settings {
        let mut s = Settings::default();
        if let Some(f) = r.job.clock.read_floor_ns.filter(|f| *f > 0.0) {
            s.abs_floor_ns = 2.0 * f;
        }
        // The job's own price of a range, as the shim used it at MPI_Finalize.
        if let Some(p) = r
            .job
            .settings
            .get("LOGGP_MODEL_PENALTY")
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|p| p.is_finite() && *p > 0.0)
        {
            s.penalty_scale = p;
        }
        s
    }

    pub fn describe(&self) -> BTreeMap<String, String> {
        [
            ("segmentation", "optimal partitioning, modified BIC penalty (2·series + 3)·ln N per range (Zhang & Siegmund 2007), Huber loss, σ per point from the repetitions' bootstrap spread with floors".to_string()),
            ("bootstrap", self.bootstrap.to_string()),
            ("seed", self.seed.to_string()),
            ("abs_floor_ns", format!("{}", self.abs_floor_ns)),
            ("rel_floor", format!("{}", self.rel_floor)),
            ("penalty_scale", format!("{}", self.penalty_scale)),
            ("between_run_log_sd", format!("{:?}", self.between_run)),
            ("repeat_level", format!("{}", self.repeat_level)),
            ("min_range_points", self.min_range_points.to_string()),
            ("version", env!("CARGO_PKG_VERSION").to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// Prefix of the warnings the model writes (a refit replaces them).
pub const WARNING_PREFIX: &str = "estimates: ";

/// Fills every estimate of a report from its measurements: calibration and raw ranges,
/// MPI − raw, passive ranges, brackets and the model check, and the warnings where two
/// methods disagree beyond their intervals.
pub fn estimate(r: &mut Report, s: &Settings) {
    // Reports before `switches_bytes` stored each bisected switch as a range's last size.
    // A boundary that did not repeat (not_repeated_bytes, 0.2 on) is no switch.
    let switches = |sw: &[u64], not: &[[u64; 2]], ranges: &[loggp_report::Range]| -> Vec<u64> {
        if !sw.is_empty() || !not.is_empty() || ranges.len() < 2 {
            return sw.to_vec();
        }
        ranges[..ranges.len() - 1]
            .iter()
            .map(|x| x.size_hi_bytes)
            .collect()
    };
    let mut mpi_fits = vec![];
    for set in &mut r.calibration.mpi {
        let sw = switches(&set.switches_bytes, &set.not_repeated_bytes, &set.ranges);
        // Where the calibration probed its boundaries itself (0.3 on), the ranges end
        // there: at each switch it located to the byte. Segmenting anew could place a
        // boundary one schedule size away from the switch the probes found.
        //
        // A level change that did not repeat when both sizes were probed again,
        // interleaved, is no boundary within a host: there it is the machine's level
        // moving, and ten runs of one job then have the same ranges (in CI, 3 of 10 MPICH
        // runs split their rendezvous range at 131072, 185364 or 220436 B, and the runs'
        // ranges no longer described the same sizes); the range's note names it. Between
        // hosts it stays a boundary: a link's state depends on what was sent before (a
        // token bucket's burst, a TCP window), so probing the two sizes interleaved
        // changes what it tests (a 200 Mbit/s `tc tbf` link steps ×2.7 past its burst at
        // 27554–32768 B, and that step did not repeat interleaved).
        let link = set.peer_class != "intra_node";
        let own: Option<Vec<u64>> = (set.passes.is_some() && !s.resegment).then(|| {
            let mut b: Vec<u64> = sw
                .iter()
                .copied()
                .chain(set.not_repeated_bytes.iter().filter(|_| link).map(|x| x[0]))
                .collect();
            b.sort_unstable();
            b.dedup();
            b
        });
        let f = active::fit_set(
            &active::SetInput {
                points: &set.points,
                n: set.n,
                by_pass: set.passes.is_some(),
                switches: &sw,
                not_repeated: &set.not_repeated_bytes,
                bounds: own.as_deref(),
            },
            s,
        );
        set.ranges = f.ranges.clone();
        mpi_fits.push(f);
    }
    let mut raw_fits = vec![];
    for set in &mut r.calibration.raw {
        let n = if set.n > 1 { set.n } else { 16 };
        let sw = switches(&set.switches_bytes, &set.not_repeated_bytes, &set.ranges);
        // Measured in the same passes as MPI (0.3 on), a raw transport's set takes the
        // ranges of MPI's blocking send of its peer class: each MPI range is compared with
        // the raw layer over the same sizes (bell2003 §5), and the raw layer's own bends
        // (a cache filling up in a burst) are not protocol switches to locate.
        let bounds: Option<Vec<u64>> = set.passes.and_then(|_| {
            let m = r
                .calibration
                .mpi
                .iter()
                .find(|m| m.peer_class == set.peer_class && m.mode == Mode::Send)?;
            Some(m.ranges.iter().map(|x| x.size_hi_bytes).collect())
        });
        let mut f = active::fit_set(
            &active::SetInput {
                points: &set.points,
                n,
                by_pass: set.passes.is_some(),
                switches: &sw,
                not_repeated: &set.not_repeated_bytes,
                bounds: bounds.as_deref(),
            },
            s,
        );
        if bounds.is_some() {
            for x in &mut f.ranges {
                x.method = x.method.take().map(|m| {
                    format!("{m}; ranges: those of MPI's blocking send of this peer class, each compared with the raw layer over the same sizes (bell2003 §5)")
                });
            }
        }
        set.ranges = f.ranges.clone();
        raw_fits.push(f);
    }
    r.mpi_overhead.clear();
    for (raw, rf) in r.calibration.raw.iter().zip(&raw_fits) {
        if raw.ranges.is_empty() {
            continue;
        }
        if let Some((m, mf)) = r
            .calibration
            .mpi
            .iter()
            .zip(&mpi_fits)
            .find(|(m, _)| m.peer_class == raw.peer_class && m.mode == Mode::Send)
        {
            // Named with the UCT transport where there is one: a job can hold two.
            let transport = match &raw.tl {
                Some(tl) => format!("{}:{tl}", raw.transport),
                None => raw.transport.clone(),
            };
            r.mpi_overhead.extend(overhead::overhead(
                raw.peer_class,
                &transport,
                (mf, &m.points),
                (rf, &raw.points),
                s,
            ));
        }
    }
    // The passive bins from the statistics cells where the report carries them (every
    // report of this version; older ones keep the bins they were written with).
    if !r.cells.is_empty() {
        r.passive = cells::passive(&r.cells);
    }
    let mut learned = BTreeMap::new();
    for p in &mut r.passive {
        let l = passive::learn(p.mode, &p.bins, s);
        p.ranges = l.ranges.clone();
        passive::waited_for_partner(p.peer_class, p.mode, &mut p.ranges, &r.waits.call_waits);
        p.ranges_status = p
            .ranges
            .is_empty()
            .then(|| "no bins with durations".to_string());
        learned.insert((p.peer_class, p.mode), l);
    }
    for t in &mut r.thresholds {
        t.passive_lo_bytes = None;
        t.passive_hi_bytes = None;
        t.passive_note = None;
    }
    for ((class, mode), l) in &learned {
        if !mode.is_send() {
            continue;
        }
        let i = match r
            .thresholds
            .iter()
            .position(|t| t.peer_class == *class && t.mode == *mode)
        {
            Some(i) => i,
            None if l.main_bracket.is_some() => {
                r.thresholds.push(loggp_report::Threshold {
                    peer_class: *class,
                    mode: *mode,
                    ..Default::default()
                });
                r.thresholds.len() - 1
            }
            None => continue,
        };
        let t = &mut r.thresholds[i];
        let (bracket, note) = passive::bracket_for(l, t);
        t.passive_lo_bytes = bracket.map(|b| b.0);
        t.passive_hi_bytes = bracket.map(|b| b.1);
        t.passive_note = note;
    }
    r.model_check = learned
        .iter()
        .filter_map(|((c, m), l)| {
            let (calls, _) = l.model_check?;
            let p = r
                .passive
                .iter()
                .find(|p| p.peer_class == *c && p.mode == *m)?;
            Some(model_check::check(
                (*c, *m),
                calls,
                &l.predictions,
                &p.ranges,
                &r.time_split,
            ))
        })
        .collect();
    causes::name_switches(r);
    r.collective_model = coll::rows(r);
    r.warnings.retain(|w| !w.starts_with(WARNING_PREFIX));
    let w = reconcile::warnings(r);
    r.warnings.extend(w);
    r.model = s.describe();
}

pub mod reconcile;
