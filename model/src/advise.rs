//! What moving a protocol switch would save this job (issue 14): the job's own messages
//! (the passive bins: per size, how many) priced by the calibration's round trips.
//!
//! Model. A message of s bytes that two ranks wait on costs the pair PRTT(1,0,s) of time
//! inside MPI (a ping-pong round trip is one message each way with the other side
//! waiting: each message keeps both ranks in MPI for half the round trip). Moving the
//! switch from T to T' turns the job's messages in (T, T'] from rendezvous to eager, and
//! saves per message PRTT_rendezvous(1,0,s) − PRTT_eager(1,0,s). That is the saving where
//! the receiver waits for the message (exchanges, ping-pongs, pipelines); where it never
//! waits, only the sender's part is saved, so the figure is an upper bound there.
//!
//! Rendezvous: the calibration's points above T, interpolated linearly between measured
//! sizes, never past the largest. Eager: the line g + (s−1)·G (non-negative) through the
//! PRTT(1,0,s) of the eager range's three largest sizes, extrapolated past T to at most twice the
//! largest eager size measured — the calibration cannot measure eager sends above the
//! switch in use; what lies further is not predicted and the note says so. Interval: the
//! bootstrap over each point's repetitions (as for the ranges), 95 %.
use crate::fit::gap_line;
use crate::stats::{median, percentile_ci, Rng};
use crate::Settings;
use loggp_report::{Bin, CalibrationSet, Point, Report, Threshold};
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
    pub peer_class: String,
    pub mode: String,
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

/// Advice for every (class, mode) of the calibration that has traffic.
pub fn advise(r: &Report, s: &Settings) -> (Vec<Advice>, Vec<String>) {
    let mut out = vec![];
    let mut notes = vec![];
    if r.calibration.mpi.is_empty() {
        notes.push(format!(
            "no calibration in this report ({}): nothing to price the job's messages with; run with LOGGP_CALIBRATE=quick or full",
            r.calibration.status
        ));
    }
    if r.calibration.disturbance.is_some() {
        notes.push("the calibration was disturbed (see calibration.disturbance): its round trips include waits for the CPU, and the predictions inherit them".into());
    }
    for set in &r.calibration.mpi {
        let Some(p) = crate::passive_of(r, set) else {
            continue;
        };
        let bins: Vec<&Bin> = p.bins.iter().filter(|b| b.count > 0).collect();
        if bins.is_empty() {
            continue;
        }
        let t = r
            .thresholds
            .iter()
            .find(|t| t.peer_class == set.peer_class && t.mode == set.mode);
        let mut a = one(r, set, t, &bins, s);
        unpriced_modes(r, &mut a);
        out.push(a);
    }
    if out.is_empty() && !r.calibration.mpi.is_empty() {
        notes.push("no calibrated (class, mode) has traffic in this report".into());
    }
    (out, notes)
}

fn one(
    r: &Report,
    set: &CalibrationSet,
    t: Option<&Threshold>,
    bins: &[&Bin],
    s: &Settings,
) -> Advice {
    let time = |b: &Bin| b.count as f64 * b.mean_ns.unwrap_or(0.0);
    let mut a = Advice {
        peer_class: set.peer_class.clone(),
        mode: set.mode.clone(),
        setting: None,
        current: None,
        current_text: None,
        current_switch_bytes: None,
        observed_ns: bins.iter().map(|b| time(b)).sum(),
        observed_messages: bins.iter().map(|b| b.count).sum(),
        rendezvous_messages: 0,
        rendezvous_observed_ns: 0.0,
        advised: false,
        predicted_saving_ns: None,
        predicted_saving_ns_ci: None,
        predicted_saving_per_message_ns: None,
        messages: 0,
        rendezvous_pair_observed_ns: None,
        rendezvous_pair_predicted_ns: None,
        observed_over_model: None,
        command: None,
        commands: vec![],
        candidates: vec![],
        notes: vec![],
    };
    let Some(switch) = t.and_then(|t| t.active_bytes) else {
        a.notes.push("no change advised: the calibration located no eager-to-rendezvous switch for this mode".into());
        return a;
    };
    a.current_switch_bytes = Some(switch);
    let setting = t.and_then(|t| t.setting.as_ref());
    a.current = setting.and_then(|x| x.value);
    a.current_text = setting.map(|x| x.text.clone()).filter(|t| !t.is_empty());
    a.setting = setting.map(|x| SettingValue {
        name: x.name.clone(),
        value: x.value,
    });
    if t.and_then(|t| t.active_exact) == Some(false) {
        a.notes.push("the switch is not exact (disturbed calibration): which messages are eager is uncertain near it".into());
    }
    let above: Vec<&Bin> = bins
        .iter()
        .copied()
        .filter(|b| b.smallest_bytes > switch)
        .collect();
    a.rendezvous_messages = above.iter().map(|b| b.count).sum();
    a.rendezvous_observed_ns = above.iter().map(|b| time(b)).sum();
    if above.is_empty() {
        a.notes.push(format!(
            "no change advised: every message of this mode was at most {switch} B, already eager"
        ));
        return a;
    }
    let Some(setting) = setting else {
        a.notes.push("no change advised: the knob that governs this switch could not be read (see thresholds[].setting)".into());
        return a;
    };
    // The knob's value for "eager up to s bytes": s + what the knob counts beyond the
    // payload (ob1's header: 4096 − 4040 = 56; UCX: the first size sent with rendezvous).
    let offset = match setting.value {
        Some(v) if v as i128 > switch as i128 => v as i128 - switch as i128,
        _ if setting.name.starts_with("UCX_") => 1,
        _ => {
            a.notes.push(format!(
                "no change advised: the value of {} is not known as a number ({}), so the value for a given size cannot be derived",
                setting.name, setting.text
            ));
            return a;
        }
    } as i64;
    // The eager range: the calibration points between the switch below T (if any) and T.
    let below = set
        .switches_bytes
        .iter()
        .copied()
        .filter(|&x| x < switch)
        .max()
        .unwrap_or(0);
    let eager: Vec<&Point> = set
        .points
        .iter()
        .filter(|p| {
            p.size_bytes > below && p.size_bytes <= switch && !p.prtt_1_0_reps_ns.is_empty()
        })
        .collect();
    let rdv: Vec<&Point> = set
        .points
        .iter()
        .filter(|p| p.size_bytes > switch && !p.prtt_1_0_reps_ns.is_empty())
        .collect();
    if eager.len() < 3 || rdv.is_empty() {
        a.notes.push(format!(
            "no change advised: the calibration has {} eager sizes above {below} B and {} rendezvous sizes (at least 3 and 1 needed); calibrate with LOGGP_CALIBRATE=full",
            eager.len(),
            rdv.len()
        ));
        return a;
    }
    let eager_max = eager.iter().map(|p| p.size_bytes).max().unwrap_or(switch);
    // The line past T is drawn through the eager range's top two octaves (at least its
    // three largest sizes): what continues past the switch once it moves is the regime
    // next to it, and an eager range may hold a level change the switch finder did not
    // resolve (MPICH over UCX shared memory, before the calibration's scouting pass: PRTT
    // 6.6 µs at 4871 B, 1.5 µs at 5793 B). Three sizes alone, each a median of a few
    // passes, made the line's slope, extrapolated to twice the last eager size, so
    // uncertain that the saving's interval reached zero in 7 of 10 halo jobs under MPICH.
    let mut eager = eager;
    eager.sort_by_key(|p| p.size_bytes);
    let top = eager
        .iter()
        .filter(|p| p.size_bytes >= eager_max / 4)
        .count()
        .max(3);
    let eager = &eager[eager.len() - top..];
    let rdv_max = rdv.iter().map(|p| p.size_bytes).max().unwrap_or(switch);
    let reach = (2 * eager_max).min(rdv_max);
    let size_of = |b: &Bin| (b.smallest_bytes + b.largest_bytes) as f64 / 2.0;
    let (priced, beyond): (Vec<&Bin>, Vec<&Bin>) = above
        .iter()
        .copied()
        .partition(|b| b.largest_bytes <= reach);
    if !beyond.is_empty() {
        let n: u64 = beyond.iter().map(|b| b.count).sum();
        a.notes.push(format!(
            "{n} messages above {reach} B are not priced: the eager line is measured to {eager_max} B and extrapolated to twice that at most{}",
            if rdv_max < 2 * eager_max { format!(", the rendezvous points reach {rdv_max} B") } else { String::new() }
        ));
    }
    if priced.is_empty() {
        a.notes.push(
            "no change advised: no message of the job lies where both protocols can be priced"
                .into(),
        );
        return a;
    }
    // Per-bin saving per message, from one set of per-point round trips.
    let saving = |e: &[(f64, f64)], d: &[(f64, f64)]| -> Option<Vec<f64>> {
        let line = gap_line(
            &e.iter()
                .map(|&(x, y)| (x, y, 1.0 / (y * y).max(1.0)))
                .collect::<Vec<_>>(),
        )?;
        priced
            .iter()
            .map(|b| {
                let x = size_of(b);
                let e = line.0 + line.1 * (x - 1.0);
                Some(interpolate(d, x)? - e)
            })
            .collect()
    };
    // Each point's round trip per replicate from the calibration's own bootstrap (over its
    // passes, both directions weighed alike: `active::bootstrap`), so a replicate holds
    // the eager and the rendezvous sizes of the same moments.
    let boot = crate::active::bootstrap(
        &set.points,
        set.n,
        s.bootstrap,
        s.seed,
        set.passes.is_some(),
    );
    let index = |p: &Point| set.points.iter().position(|q| q.size_bytes == p.size_bytes);
    let at = |pts: &[&Point], r: usize| -> Vec<(f64, f64)> {
        pts.iter()
            .filter_map(|p| {
                let y = 2.0 * boot.reps.get(r)?[index(p)?][crate::active::LAT];
                y.is_finite().then_some((p.size_bytes as f64, y))
            })
            .collect()
    };
    let e0 = at(eager, 0);
    let d0 = at(&rdv, 0);
    let Some(per0) = saving(&e0, &d0) else {
        a.notes
            .push("no change advised: the eager line could not be fitted".into());
        return a;
    };
    model_check(r, &mut a, &priced, &d0);
    let mut reps: Vec<Vec<f64>> = vec![];
    for k in 1..boot.reps.len() {
        let e = at(eager, k);
        let d = at(&rdv, k);
        if let Some(v) = saving(&e, &d) {
            reps.push(v);
        }
    }
    // Candidates: eager up to each priced bin's largest size, in increasing order.
    let mut ends: Vec<u64> = priced.iter().map(|b| b.largest_bytes).collect();
    ends.sort_unstable();
    ends.dedup();
    for end in ends {
        let take = |per: &[f64]| -> f64 {
            priced
                .iter()
                .zip(per)
                .filter(|(b, _)| b.largest_bytes <= end)
                .map(|(b, d)| b.count as f64 * d)
                .sum()
        };
        let est = take(&per0);
        let boot: Vec<f64> = reps.iter().map(|v| take(v)).collect();
        // The bootstrap's own interval, not stretched to the estimate (rule 4: a biased
        // estimate must be visible; `check` finds it).
        let ci = percentile_ci(&boot);
        a.candidates.push(Candidate {
            value: end as i64 + offset,
            eager_up_to_bytes: end,
            messages: priced
                .iter()
                .filter(|b| b.largest_bytes <= end)
                .map(|b| b.count)
                .sum(),
            predicted_saving_ns: est,
            predicted_saving_ns_ci: ci,
        });
    }
    // The advice: among candidates whose interval excludes zero, the smallest value that
    // gets 95 % of the largest saving (a larger eager limit costs buffer memory).
    let sure: Vec<&Candidate> = a
        .candidates
        .iter()
        .filter(|c| c.predicted_saving_ns_ci.is_some_and(|[lo, _]| lo > 0.0))
        .collect();
    let best = sure
        .iter()
        .map(|c| c.predicted_saving_ns)
        .fold(f64::NEG_INFINITY, f64::max);
    let Some(pick) = sure
        .iter()
        .find(|c| c.predicted_saving_ns >= 0.95 * best)
        .copied()
    else {
        a.notes.push(
            "no change advised: no candidate's predicted saving has an interval above zero".into(),
        );
        return a;
    };
    a.advised = true;
    a.setting = Some(SettingValue {
        name: setting.name.clone(),
        value: Some(pick.value),
    });
    a.predicted_saving_ns = Some(pick.predicted_saving_ns);
    a.predicted_saving_ns_ci = pick.predicted_saving_ns_ci;
    a.messages = pick.messages;
    a.predicted_saving_per_message_ns =
        Some(pick.predicted_saving_ns / pick.messages.max(1) as f64);
    a.commands = commands(&r.job.mpi_flavor, &setting.name, pick.value);
    a.command = a.commands.first().cloned();
    if eager_max < pick.eager_up_to_bytes {
        a.notes.push(format!(
            "the eager cost above {eager_max} B is extrapolated from the eager range's line (the calibration cannot send eagerly above the switch in use); rerun with the new value to measure it"
        ));
    }
    a.notes.push(memory_note(&setting.name));
    a.notes.push("the saving assumes the receiver waits for these messages (as in exchanges and ping-pongs); where it never waits only the sender's part is saved".into());
    a
}

/// Messages of the class's other eager-capable send modes (no calibration of their own)
/// in the sizes the advised value turns eager: the knob may move their switch too (it
/// does for vader's eager limit and for UCX_RNDV_THRESH under MPICH), but nothing prices
/// them, so the saving leaves them out and a note says how many.
fn unpriced_modes(r: &Report, a: &mut Advice) {
    let advised = a.setting.as_ref().and_then(|x| x.value);
    let end = a
        .candidates
        .iter()
        .find(|c| a.advised && Some(c.value) == advised)
        .map(|c| c.eager_up_to_bytes);
    let (Some(lo), Some(hi)) = (a.current_switch_bytes, end) else {
        return;
    };
    let calibrated = |mode: &str| {
        r.calibration
            .mpi
            .iter()
            .any(|c| c.peer_class == a.peer_class && c.mode == mode)
    };
    for p in &r.passive {
        let eager_capable = crate::passive::is_send(&p.mode) && !p.mode.contains("ssend");
        if p.peer_class != a.peer_class || !eager_capable || calibrated(&p.mode) {
            continue;
        }
        let n: u64 = p
            .bins
            .iter()
            .filter(|b| b.count > 0 && b.smallest_bytes > lo && b.largest_bytes <= hi)
            .map(|b| b.count)
            .sum();
        if n > 0 {
            a.notes.push(format!(
                "{n} messages of {}–{hi} B were sent in mode {} (not calibrated; LOGGP_CALIBRATE=full measures isend): the setting may make them eager too, and the saving leaves them out",
                lo + 1,
                p.mode
            ));
        }
    }
}

/// The job against the calibration for the messages the advice prices: their pair time
/// at the rendezvous round trips, and, for MPI_Send where blocking receives of the same
/// sizes were seen, the time the job spent in both calls for them. A ratio far from 1
/// means the job's exchanges do not run as the calibration's ping-pong did (other traffic,
/// other buffers, a receiver that does not wait), and the saving is off by about as much.
fn model_check(r: &Report, a: &mut Advice, priced: &[&Bin], rdv: &[(f64, f64)]) {
    let size_of = |b: &Bin| (b.smallest_bytes + b.largest_bytes) as f64 / 2.0;
    let predicted: Option<f64> = priced
        .iter()
        .map(|b| Some(b.count as f64 * interpolate(rdv, size_of(b))?))
        .sum();
    a.rendezvous_pair_predicted_ns = predicted;
    if a.mode != "send" {
        return;
    }
    let Some(recv) = r
        .passive
        .iter()
        .find(|p| p.peer_class == a.peer_class && p.mode == "recv")
    else {
        return;
    };
    let time = |b: &Bin| b.count as f64 * b.mean_ns.unwrap_or(0.0);
    let mut observed = 0.0;
    for b in priced {
        let same: Vec<&Bin> = recv
            .bins
            .iter()
            .filter(|x| {
                x.count > 0
                    && x.smallest_bytes >= b.smallest_bytes
                    && x.largest_bytes <= b.largest_bytes
            })
            .collect();
        // Only where every message of the bin was received by MPI_Recv.
        if same.iter().map(|x| x.count).sum::<u64>() != b.count {
            return;
        }
        observed += time(b) + same.iter().map(|x| time(x)).sum::<f64>();
    }
    let Some(model) = predicted.filter(|&m| m > 0.0) else {
        return;
    };
    let ratio = observed / model;
    a.rendezvous_pair_observed_ns = Some(observed);
    a.observed_over_model = Some(ratio);
    if !(0.67..=1.5).contains(&ratio) {
        a.notes.push(format!(
            "check: the job spent {ratio:.2} × the calibration's round trips in MPI_Send + MPI_Recv for these messages; its exchanges do not run as the calibration's ping-pong did, and the saving may be off by about as much"
        ));
    }
}

/// Linear interpolation in size between measured points; None outside them.
fn interpolate(pts: &[(f64, f64)], x: f64) -> Option<f64> {
    let mut v: Vec<(f64, f64)> = pts.to_vec();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    if x <= v.first()?.0 {
        // Below the first rendezvous point (between the switch and it): its value.
        return Some(v[0].1);
    }
    for w in v.windows(2) {
        if x <= w[1].0 {
            let f = (x - w[0].0) / (w[1].0 - w[0].0);
            return Some(w[0].1 + f * (w[1].1 - w[0].1));
        }
    }
    None
}

fn commands(flavor: &str, name: &str, value: i64) -> Vec<String> {
    if name.starts_with("UCX_") {
        match flavor {
            "openmpi" => vec![
                format!("mpirun -x {name}={value} …"),
                format!("export {name}={value}; srun --export=ALL …"),
            ],
            _ => vec![
                format!("mpiexec -genv {name} {value} …"),
                format!("srun --export=ALL,{name}={value} …"),
            ],
        }
    } else {
        vec![
            format!("mpirun --mca {name} {value} …"),
            format!("mpirun -x OMPI_MCA_{name}={value} …"),
            format!("srun --export=ALL,OMPI_MCA_{name}={value} …"),
        ]
    }
}

fn memory_note(name: &str) -> String {
    if name.starts_with("UCX_") {
        format!("memory: below {name} UCX copies messages through its bounce buffers, and a receiver keeps unexpected eager messages buffered until their receive is posted; a larger threshold lets more data wait there")
    } else {
        format!("memory: Open MPI keeps eager fragments of {name} bytes in each local peer's free lists, and buffers unexpected eager messages until their receive is posted; a larger limit grows both")
    }
}

/// What the job's messages of one peer class would cost at the raw transport's round
/// trips instead of MPI's: the share of that time MPI adds (issue 14). Priced as the
/// advice is: each message PRTT(1,0,s) of the pair's time, both sides interpolated between
/// the sizes both measured (no extrapolation), over the send modes' passive bins.
#[derive(Clone, Debug, Serialize)]
pub struct RawShare {
    pub peer_class: String,
    pub transport: String,
    /// Messages priced, and those outside the sizes both calibrations measured.
    pub messages: u64,
    pub messages_not_priced: u64,
    pub observed_ns: f64,
    pub predicted_mpi_ns: f64,
    pub predicted_raw_ns: f64,
    /// 1 − raw / MPI over the priced messages: the part of the time MPI adds. Null where
    /// the raw transport's round trips are the longer (the note says so).
    pub mpi_share: Option<f64>,
    /// 95 % interval: the bootstrap over both calibrations' repetitions per size.
    pub mpi_share_ci: Option<[f64; 2]>,
    pub method: String,
    pub note: Option<String>,
}

/// One raw-share line per (peer class, raw transport with points).
pub fn raw_share(r: &Report, s: &Settings) -> Vec<RawShare> {
    let mut out = vec![];
    let mut rng = Rng::new(s.seed);
    for raw in &r.calibration.raw {
        let Some(mpi) = crate::mpi_send_set_of(r, raw) else {
            continue;
        };
        let pts = |p: &[Point]| -> Vec<(f64, f64)> {
            p.iter()
                .filter_map(|q| Some((q.size_bytes as f64, q.prtt_1_0_ns?)))
                .collect()
        };
        let (mp, rp) = (pts(&mpi.points), pts(&raw.points));
        if mp.len() < 2 || rp.len() < 2 {
            continue;
        }
        let top = |v: &[(f64, f64)]| v.iter().map(|x| x.0).fold(0.0, f64::max);
        let hi = top(&mp).min(top(&rp));
        let mut line = RawShare {
            peer_class: raw.peer_class.clone(),
            transport: match &raw.tl {
                Some(tl) => format!("{}:{tl}", raw.transport),
                None => raw.transport.clone(),
            },
            messages: 0,
            messages_not_priced: 0,
            observed_ns: 0.0,
            predicted_mpi_ns: 0.0,
            predicted_raw_ns: 0.0,
            mpi_share: None,
            mpi_share_ci: None,
            method: "PRTT(1,0,s) per message, interpolated in size; bootstrap over the repetitions per size".into(),
            note: None,
        };
        // The priced messages: (size, count).
        let mut priced: Vec<(f64, f64)> = vec![];
        for p in r
            .passive
            .iter()
            .filter(|p| p.peer_class == raw.peer_class && crate::passive::is_send(&p.mode))
        {
            for b in p.bins.iter().filter(|b| b.count > 0) {
                let s = (b.smallest_bytes as f64 * b.largest_bytes.max(1) as f64).sqrt();
                match (s <= hi)
                    .then(|| Some((interpolate(&mp, s)?, interpolate(&rp, s)?)))
                    .flatten()
                {
                    Some((m, w)) => {
                        line.messages += b.count;
                        line.predicted_mpi_ns += m * b.count as f64;
                        line.predicted_raw_ns += w * b.count as f64;
                        line.observed_ns += b.mean_ns.unwrap_or(0.0) * b.count as f64;
                        priced.push((s, b.count as f64));
                    }
                    None => line.messages_not_priced += b.count,
                }
            }
        }
        if line.messages == 0 || line.predicted_mpi_ns <= 0.0 {
            continue;
        }
        let share = 1.0 - line.predicted_raw_ns / line.predicted_mpi_ns;
        let reps = |p: &[Point]| p.iter().any(|q| !q.prtt_1_0_reps_ns.is_empty());
        if share >= 0.0 && !(reps(&mpi.points) || reps(&raw.points)) {
            line.mpi_share = Some(share);
            line.method = "PRTT(1,0,s) per message, interpolated in size; no interval: the report holds no repetitions per size (before 0.2)".into();
        } else if share >= 0.0 {
            line.mpi_share = Some(share);
            // Each point's round trip redrawn as the median of its repetitions resampled
            // (a point without repetitions keeps its value).
            let mut draw = |p: &[Point]| -> Vec<(f64, f64)> {
                p.iter()
                    .filter_map(|q| {
                        let v = &q.prtt_1_0_reps_ns;
                        if v.is_empty() {
                            return Some((q.size_bytes as f64, q.prtt_1_0_ns?));
                        }
                        let r: Vec<f64> = (0..v.len()).map(|_| v[rng.below(v.len())]).collect();
                        Some((q.size_bytes as f64, median(&r)?))
                    })
                    .collect()
            };
            let boot: Vec<f64> = (0..s.bootstrap)
                .filter_map(|_| {
                    let (m, w) = (draw(&mpi.points), draw(&raw.points));
                    let (mut tm, mut tw) = (0.0, 0.0);
                    for &(x, n) in &priced {
                        tm += interpolate(&m, x)? * n;
                        tw += interpolate(&w, x)? * n;
                    }
                    (tm > 0.0).then(|| 1.0 - tw / tm)
                })
                .collect();
            line.mpi_share_ci = percentile_ci(&boot);
        } else {
            line.note = Some(format!(
                "the raw transport's round trips are {:.0} % longer than MPI's for these messages: it is no floor at their sizes, so the baseline is at fault and no share is given",
                -100.0 * share
            ));
        }
        out.push(line);
    }
    out
}

/// A rank whose time in MPI stands out from the others'.
#[derive(Clone, Debug, Serialize)]
pub struct Standout {
    pub rank: u32,
    pub host: String,
    pub time_in_mpi_ns: f64,
    pub median_ns: f64,
    /// (time − median) / (1.4826 · MAD): how many robust standard deviations away.
    pub robust_z: f64,
    /// The median absolute deviation it is measured in, and over how many ranks.
    pub mad_ns: f64,
    pub ranks: usize,
}

/// Ranks whose time in MPI lies more than 3.5 robust standard deviations (median
/// absolute deviation, Iglewicz–Hoaglin) and 20 % from the median, in a job of 4 ranks
/// or more; the largest first.
pub fn standout_ranks(r: &Report) -> Vec<Standout> {
    if r.ranks.len() < 4 {
        return vec![];
    }
    let t: Vec<f64> = r.ranks.iter().map(|k| k.time_in_mpi_ns).collect();
    let Some(med) = median(&t) else {
        return vec![];
    };
    let dev: Vec<f64> = t.iter().map(|x| (x - med).abs()).collect();
    let mad = median(&dev).unwrap_or(0.0).max(med * 0.01).max(1.0);
    let mut out: Vec<Standout> = r
        .ranks
        .iter()
        .map(|k| Standout {
            rank: k.rank,
            host: k.host.clone(),
            time_in_mpi_ns: k.time_in_mpi_ns,
            median_ns: med,
            robust_z: (k.time_in_mpi_ns - med) / (1.4826 * mad),
            mad_ns: mad,
            ranks: t.len(),
        })
        .filter(|x| x.robust_z.abs() > 3.5 && (x.time_in_mpi_ns - med).abs() > 0.2 * med)
        .collect();
    out.sort_by(|a, b| b.robust_z.abs().total_cmp(&a.robust_z.abs()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use loggp_report::{Passive, RawSet, Setting};

    /// A calibration with eager PRTT(1,0,s) = 800 + 0.1 s up to 4040 and rendezvous
    /// 5000 + 0.1 s above (ground truth §3 style), 5 repetitions with ±2 % jitter.
    fn report(sizes_sent: &[(u64, u64)]) -> Report {
        let mut rng = Rng::new(9);
        let mut points = vec![];
        let mut s = 1.0f64;
        while s <= 65536.0 {
            let size = s.round() as u64;
            let truth = if size <= 4040 { 800.0 } else { 5000.0 } + 0.1 * size as f64;
            let reps: Vec<f64> = (0..5).map(|_| truth * (1.0 + 0.02 * rng.sym())).collect();
            points.push(Point {
                size_bytes: size,
                prtt_1_0_reps_ns: reps,
                ..Default::default()
            });
            s *= 2f64.powf(0.25);
        }
        let mut r = Report::default();
        r.job.mpi_flavor = "openmpi".into();
        r.calibration.mpi.push(CalibrationSet {
            peer_class: "intra_node".into(),
            mode: "send".into(),
            switches_bytes: vec![256, 4040],
            points,
            ..Default::default()
        });
        r.thresholds.push(Threshold {
            peer_class: "intra_node".into(),
            mode: "send".into(),
            active_bytes: Some(4040),
            setting: Some(Setting {
                name: "btl_vader_eager_limit".into(),
                value: Some(4096),
                text: "4096".into(),
                ..Default::default()
            }),
            ..Default::default()
        });
        r.passive.push(Passive {
            peer_class: "intra_node".into(),
            mode: "send".into(),
            bins: sizes_sent
                .iter()
                .map(|&(size, count)| Bin {
                    smallest_bytes: size,
                    largest_bytes: size,
                    count,
                    mean_ns: Some(1000.0),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        });
        r
    }

    /// The raw transport's round trips are half MPI's at every size: MPI's share is 50 %,
    /// inside its interval, and the interval is a proper one.
    #[test]
    fn raw_share_at_half_the_round_trip_is_half_with_its_interval() {
        let mut r = report(&[(100, 500), (2000, 500)]);
        for p in &mut r.calibration.mpi[0].points {
            p.prtt_1_0_ns = median(&p.prtt_1_0_reps_ns);
        }
        let mut raw = RawSet {
            transport: "shm".into(),
            peer_class: "intra_node".into(),
            status: "done".into(),
            points: r.calibration.mpi[0].points.clone(),
            ..Default::default()
        };
        for p in &mut raw.points {
            p.prtt_1_0_reps_ns.iter_mut().for_each(|v| *v /= 2.0);
            p.prtt_1_0_ns = median(&p.prtt_1_0_reps_ns);
        }
        r.calibration.raw.push(raw);
        let share = raw_share(&r, &Settings::default());
        assert_eq!(share.len(), 1);
        let x = &share[0];
        assert_eq!((x.messages, x.messages_not_priced), (1000, 0));
        let v = x.mpi_share.unwrap();
        assert!((v - 0.5).abs() < 0.02, "{v}");
        let [lo, hi] = x.mpi_share_ci.unwrap();
        assert!(lo <= v && v <= hi && lo < hi && hi - lo < 0.1, "{lo} {hi}");
    }

    #[test]
    fn advises_the_value_that_makes_the_jobs_messages_eager_and_prices_it() {
        let (a, _) = advise(&report(&[(6000, 1000), (100, 50)]), &Settings::default());
        let a = &a[0];
        assert!(a.advised, "{a:?}");
        let v = a.setting.as_ref().unwrap().value.unwrap();
        assert_eq!(v, 6056);
        // The truth: 1000 × (5000 − 800) = 4.2 ms.
        let est = a.predicted_saving_ns.unwrap();
        assert!((est - 4.2e6).abs() < 0.1 * 4.2e6, "{est}");
        let [lo, hi] = a.predicted_saving_ns_ci.unwrap();
        assert!(lo <= est && est <= hi && lo > 0.0);
        assert!(a
            .command
            .as_ref()
            .unwrap()
            .contains("btl_vader_eager_limit 6056"));
    }

    /// The halo's MPI_Isend messages of the advised sizes: not priced, and said so.
    #[test]
    fn isend_messages_the_advice_also_turns_eager_are_named() {
        let mut r = report(&[(6000, 1000), (2000, 1000)]);
        let mut isend = r.passive[0].clone();
        isend.mode = "isend".into();
        r.passive.push(isend);
        let (a, _) = advise(&r, &Settings::default());
        assert!(a[0].advised, "{:#?}", a[0]);
        let note = a[0].notes.iter().find(|n| n.contains("mode isend"));
        assert!(
            note.is_some_and(|n| n.starts_with("1000 messages of 4041–6000 B")),
            "{:?}",
            a[0].notes
        );
    }

    #[test]
    fn no_change_where_everything_is_eager_or_beyond_what_was_measured() {
        let (a, _) = advise(&report(&[(2000, 1000)]), &Settings::default());
        assert!(!a[0].advised);
        assert!(a[0].notes[0].contains("already eager"), "{:?}", a[0].notes);
        // 40000 B: more than twice the largest eager size measured — not priced.
        let (a, _) = advise(&report(&[(40000, 1000)]), &Settings::default());
        assert!(!a[0].advised);
        assert!(
            a[0].notes.iter().any(|n| n.contains("not priced")),
            "{:?}",
            a[0].notes
        );
    }

    #[test]
    fn a_rank_far_from_the_others_stands_out_and_noise_does_not() {
        let mut r = Report::default();
        for (k, t) in [100.0, 104.0, 98.0, 101.0, 99.0, 103.0, 102.0, 300.0]
            .iter()
            .enumerate()
        {
            r.ranks.push(loggp_report::RankEntry {
                rank: k as u32,
                time_in_mpi_ns: t * 1e6,
                ..Default::default()
            });
        }
        let s = standout_ranks(&r);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(s[0].rank, 7);
        r.ranks[7].time_in_mpi_ns = 106e6;
        assert!(standout_ranks(&r).is_empty());
        r.ranks.truncate(3);
        assert!(standout_ranks(&r).is_empty(), "too few ranks to say");
    }
}
