//! The advice on one switch: which value, and what it saves with its interval.
use super::pricing::*;
use super::types::*;
use crate::fit::gap_line;
use crate::stats::percentile_ci;
use crate::Settings;
use loggp_report::{Bin, CalibrationSet, Point, Report, Threshold};

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

/// The round trips (size, ns) of the given points in one bootstrap replicate.
type RoundTrips<'f> = dyn Fn(usize, &[&Point]) -> Vec<(f64, f64)> + 'f;

/// What one switch's advice works on, once the calibration and the job allow it.
struct Scope<'a> {
    switch: u64,
    setting_name: String,
    /// The knob's value minus the largest eager size it gives.
    offset: i64,
    /// The eager range's top two octaves (at least its three largest sizes), by size.
    eager: Vec<&'a Point>,
    eager_max: u64,
    rdv: Vec<&'a Point>,
    /// The job's rendezvous bins the model can price, and its eager bins in the sizes the
    /// eager line is drawn through.
    priced: Vec<&'a Bin>,
    eager_bins: Vec<&'a Bin>,
}

pub(super) fn one(
    r: &Report,
    set: &CalibrationSet,
    t: Option<&Threshold>,
    bins: &[&Bin],
    s: &Settings,
) -> Advice {
    let mut a = blank(set, bins);
    if let Some(d) = &r.calibration.disturbance {
        a.saving_warning = Some(format!(
            "the calibration was disturbed ({d}): the prices the saving takes from it include waits for the CPU"
        ));
    }
    match scope(r, set, t, bins, &mut a) {
        Ok(sc) => {
            if let Err(why) = price(r, set, &sc, s, &mut a) {
                a.notes.push(why);
            }
        }
        Err(why) => a.notes.push(why),
    }
    a
}

fn time(b: &Bin) -> f64 {
    b.count as f64 * b.mean_ns.unwrap_or(0.0)
}

fn size_of(b: &Bin) -> f64 {
    (b.smallest_bytes + b.largest_bytes) as f64 / 2.0
}

fn blank(set: &CalibrationSet, bins: &[&Bin]) -> Advice {
    Advice {
        peer_class: set.peer_class,
        mode: set.mode,
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
        eager_observed_over_model: None,
        saving_warning: None,
        command: None,
        commands: vec![],
        candidates: vec![],
        notes: vec![],
    }
}

/// The switch, the knob, the calibration's eager and rendezvous points and the job's bins
/// around the switch; Err: why no change can be advised.
fn scope<'a>(
    r: &Report,
    set: &'a CalibrationSet,
    t: Option<&Threshold>,
    bins: &[&'a Bin],
    a: &mut Advice,
) -> Result<Scope<'a>, String> {
    let Some(switch) = t.and_then(|t| t.active_bytes) else {
        return Err("no change advised: the calibration located no eager-to-rendezvous switch for this mode".into());
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
        let why = "the switch is not exact (disturbed calibration): which messages are eager is uncertain near it";
        a.notes.push(why.into());
        a.saving_warning.get_or_insert_with(|| why.into());
    }
    let above: Vec<&Bin> = bins
        .iter()
        .copied()
        .filter(|b| b.smallest_bytes > switch)
        .collect();
    a.rendezvous_messages = above.iter().map(|b| b.count).sum();
    a.rendezvous_observed_ns = above.iter().map(|b| time(b)).sum();
    if above.is_empty() {
        return Err(format!(
            "no change advised: every message of this mode was at most {switch} B, already eager"
        ));
    }
    let Some(setting) = setting else {
        return Err("no change advised: the knob that governs this switch could not be read (see thresholds[].setting)".into());
    };
    // The knob's value for "eager up to s bytes": s + what the knob counts beyond the
    // payload (ob1's header: 4096 − 4040 = 56; UCX: the first size sent with rendezvous).
    let offset = match setting.value {
        Some(v) if v as i128 > switch as i128 => v as i128 - switch as i128,
        _ if setting.name.starts_with("UCX_") => 1,
        _ => {
            return Err(format!(
                "no change advised: the value of {} is not known as a number ({}), so the value for a given size cannot be derived",
                setting.name, setting.text
            ))
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
    let mut eager: Vec<&Point> = set
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
        return Err(format!(
            "no change advised: the calibration has {} eager sizes above {below} B and {} rendezvous sizes (at least 3 and 1 needed); calibrate with LOGGP_CALIBRATE=full",
            eager.len(),
            rdv.len()
        ));
    }
    let eager_max = eager.iter().map(|p| p.size_bytes).max().unwrap_or(switch);
    // The line past T is drawn through the eager range's top two octaves (at least its
    // three largest sizes): what continues past the switch once it moves is the regime
    // next to it, and an eager range may hold a level change the switch finder did not
    // resolve (MPICH over UCX shared memory, before the calibration's scouting pass: PRTT
    // 6.6 µs at 4871 B, 1.5 µs at 5793 B). Three sizes alone, each a median of a few
    // passes, made the line's slope, extrapolated to twice the last eager size, so
    // uncertain that the saving's interval reached zero in 7 of 10 halo jobs under MPICH.
    eager.sort_by_key(|p| p.size_bytes);
    let top = eager
        .iter()
        .filter(|p| p.size_bytes >= eager_max / 4)
        .count()
        .max(3);
    let eager = eager.split_off(eager.len() - top);
    let rdv_max = rdv.iter().map(|p| p.size_bytes).max().unwrap_or(switch);
    let mut reach = (2 * eager_max).min(rdv_max);
    // A limit the layer beneath names between the last eager size measured and the reach
    // (UCT posix: "am_bcopy to 8248 B, then am_bcopy fragments"): past it that layer
    // carries an eager message another way, which the line through the sizes below does
    // not describe. MPICH over UCX, advised UCX_RNDV_THRESH past 8248 B: in the reruns
    // the saving on the halo's 16 KiB messages was 0.46–0.60 ms in some and none in
    // others (−0.08 ms), and on a 12000-byte ping-pong 240–340 ms or none (1 ms) — the
    // fragmented eager path is bimodal here, so nothing measured before can price it.
    let layer = layer_limits(r, set.peer_class)
        .into_iter()
        .filter(|&(_, x)| x >= eager_max && x < reach)
        .min_by_key(|&(_, x)| x);
    if let Some((_, x)) = layer {
        reach = x;
    }
    let (priced, beyond): (Vec<&Bin>, Vec<&Bin>) = above
        .iter()
        .copied()
        .partition(|b| b.largest_bytes <= reach);
    if !beyond.is_empty() {
        let n: u64 = beyond.iter().map(|b| b.count).sum();
        // What prices them: a calibration run under the larger setting (issue 26 §5).
        let measure = "; `loggp advise --measure <report> -- <launcher> -np 2 <program> <args>` calibrates under the larger setting and prices them";
        a.notes.push(match layer {
            Some((what, x)) => format!(
                "{n} messages above {x} B are not priced: the layer beneath names {x} B as a limit ({what}); past it an eager message goes another way, which the eager line below does not describe{measure}"
            ),
            None => format!(
                "{n} messages above {reach} B are not priced: the eager line is measured to {eager_max} B and extrapolated to twice that at most{}{measure}",
                if rdv_max < 2 * eager_max { format!(", the rendezvous points reach {rdv_max} B") } else { String::new() }
            ),
        });
    }
    if priced.is_empty() {
        return Err(
            "no change advised: no message of the job lies where both protocols can be priced"
                .into(),
        );
    }
    let line_from = eager[0].size_bytes;
    let eager_bins = bins
        .iter()
        .copied()
        .filter(|b| b.smallest_bytes >= line_from && b.largest_bytes <= switch)
        .collect();
    Ok(Scope {
        switch,
        setting_name: setting.name.clone(),
        offset,
        eager,
        eager_max,
        rdv,
        priced,
        eager_bins,
    })
}

/// The saving per message of each priced bin: what the job's messages cost the pair now
/// minus what they would cost eager, per bootstrap replicate of the calibration.
///
/// Now: the job's own time in MPI_Send + MPI_Recv for them where it has it (send mode,
/// every message received by MPI_Recv: `pair_ns_per_message`), else the calibration's
/// rendezvous round trip. Eager: the eager line extrapolated, times what the job's own
/// eager messages in the line's sizes cost the pair over what the line says. The model
/// alone (a message keeps the pair in MPI for its whole round trip) held for rendezvous
/// messages in the halo exchange of examples/demo.c (observed / model 0.90 at 16 KiB under
/// MPICH) but not for eager ones, which both ranks' sends overlap there (0.48 at 8 KiB):
/// priced by the line alone, the saving was half the measured one in 4 of 4 MPICH pairs.
fn per_message_savings(
    r: &Report,
    sc: &Scope,
    line_of: &RoundTrips,
    k: usize,
    a: &Advice,
) -> Option<(Vec<f64>, Option<f64>)> {
    let e = line_of(k, &sc.eager);
    let line = gap_line(
        &e.iter()
            .map(|&(x, y)| (x, y, 1.0 / (y * y).max(1.0)))
            .collect::<Vec<_>>(),
    )?;
    let eager_at = |x: f64| line.0 + line.1 * (x - 1.0);
    let scale = pair_ns_per_message(r, a.peer_class, a.mode, &sc.eager_bins)
        .filter(|v| !v.is_empty())
        .and_then(|seen| {
            let model: f64 = sc
                .eager_bins
                .iter()
                .map(|b| b.count as f64 * eager_at(size_of(b)))
                .sum();
            let seen: f64 = sc
                .eager_bins
                .iter()
                .zip(&seen)
                .map(|(b, o)| b.count as f64 * o)
                .sum();
            // Priced at most 1 × (below): costing less than the line (both ranks' sends
            // overlapping, MPICH's 0.48 above) carries to larger messages; costing more, at
            // a few sizes, did not (an Intel Xeon VM, 2026-11-28, Open MPI vader, the halo
            // of examples/demo.c: 1–2 KiB at 0.9–1.6 × the line, 4096 B turned eager at
            // 0.93–1.04 ×; scaled up, 3–4 of 14 jobs were advised, each with a tenth to two
            // thirds of the measured saving; see `halo_advice_holds_in_the_median`).
            (model > 0.0).then_some(seen / model)
        });
    let now = pair_ns_per_message(r, a.peer_class, a.mode, &sc.priced);
    let d = line_of(k, &sc.rdv);
    let per = sc
        .priced
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let x = size_of(b);
            let before = match &now {
                Some(v) => v[i],
                None => interpolate(&d, x)?,
            };
            Some(before - scale.unwrap_or(1.0).min(1.0) * eager_at(x))
        })
        .collect::<Option<Vec<f64>>>()?;
    Some((per, scale))
}

/// Prices every candidate value over the calibration's bootstrap and picks the advice;
/// Err: why no change is advised.
fn price(
    r: &Report,
    set: &CalibrationSet,
    sc: &Scope,
    s: &Settings,
    a: &mut Advice,
) -> Result<(), String> {
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
    let at = |k: usize, pts: &[&Point]| -> Vec<(f64, f64)> {
        pts.iter()
            .filter_map(|p| {
                let y = 2.0 * boot.reps.get(k)?[index(p)?][crate::active::LAT];
                y.is_finite().then_some((p.size_bytes as f64, y))
            })
            .collect()
    };
    let Some((per0, scale)) = per_message_savings(r, sc, &at, 0, a) else {
        return Err("no change advised: the eager line could not be fitted".into());
    };
    model_check(r, a, &sc.priced, &at(0, &sc.rdv));
    a.eager_observed_over_model = scale;
    let reps: Vec<Vec<f64>> = (1..boot.reps.len())
        .filter_map(|k| per_message_savings(r, sc, &at, k, a).map(|(v, _)| v))
        .collect();
    candidates(sc, &per0, &reps, a);
    pick(r, sc, a)?;
    if let Some(x) = scale {
        a.notes.push(format!(
            "the eager cost is the calibration's eager line times {:.2}: what the job's own eager messages of {}–{} B cost the pair in MPI_Send + MPI_Recv over what the line says ({x:.2}), at most 1 (a cost above the line at a few sizes did not carry to larger messages)",
            x.min(1.0), sc.eager[0].size_bytes, sc.switch
        ));
        if !(0.67..=1.5).contains(&x) {
            a.saving_warning.get_or_insert_with(|| format!(
                "the job's eager messages cost the pair {x:.2} × the calibration's eager line: the eager side of the saving rests on that correction, extrapolated past the switch"
            ));
        }
    }
    if let Some(w) = &a.saving_warning {
        a.notes.push(format!(
            "warning: {w}; the saving may be off by more than its interval says"
        ));
    }
    if a.rendezvous_pair_observed_ns.is_some() {
        a.notes.push(
            "the cost now is the job's own time in MPI_Send + MPI_Recv for these messages".into(),
        );
    } else {
        a.notes.push("the saving assumes the receiver waits for these messages (as in exchanges and ping-pongs); where it never waits only the sender's part is saved".into());
    }
    Ok(())
}

/// Candidates: eager up to each priced bin's largest size, in increasing order, each with
/// the bootstrap's own interval (not stretched to the estimate: rule 4, a biased estimate
/// must be visible; `check` finds it).
fn candidates(sc: &Scope, per0: &[f64], reps: &[Vec<f64>], a: &mut Advice) {
    let mut ends: Vec<u64> = sc.priced.iter().map(|b| b.largest_bytes).collect();
    ends.sort_unstable();
    ends.dedup();
    for end in ends {
        let take = |per: &[f64]| -> f64 {
            sc.priced
                .iter()
                .zip(per)
                .filter(|(b, _)| b.largest_bytes <= end)
                .map(|(b, d)| b.count as f64 * d)
                .sum()
        };
        let boot: Vec<f64> = reps.iter().map(|v| take(v)).collect();
        a.candidates.push(Candidate {
            value: end as i64 + sc.offset,
            eager_up_to_bytes: end,
            messages: sc
                .priced
                .iter()
                .filter(|b| b.largest_bytes <= end)
                .map(|b| b.count)
                .sum(),
            predicted_saving_ns: take(per0),
            predicted_saving_ns_ci: percentile_ci(&boot),
        });
    }
}

/// The advice: among candidates whose interval excludes zero, the smallest value that
/// gets 95 % of the largest saving (a larger eager limit costs buffer memory).
fn pick(r: &Report, sc: &Scope, a: &mut Advice) -> Result<(), String> {
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
        .cloned()
    else {
        return Err(
            "no change advised: no candidate's predicted saving has an interval above zero".into(),
        );
    };
    a.advised = true;
    a.setting = Some(SettingValue {
        name: sc.setting_name.clone(),
        value: Some(pick.value),
    });
    a.predicted_saving_ns = Some(pick.predicted_saving_ns);
    a.predicted_saving_ns_ci = pick.predicted_saving_ns_ci;
    a.messages = pick.messages;
    a.predicted_saving_per_message_ns =
        Some(pick.predicted_saving_ns / pick.messages.max(1) as f64);
    a.commands = commands(&r.job.mpi_flavor, &sc.setting_name, pick.value);
    a.command = a.commands.first().cloned();
    if sc.eager_max < pick.eager_up_to_bytes {
        a.notes.push(format!(
            "the eager cost above {} B is extrapolated from the eager range's line (the calibration cannot send eagerly above the switch in use); rerun with the new value to measure it",
            sc.eager_max
        ));
    }
    a.notes.push(memory_note(&sc.setting_name));
    Ok(())
}

/// The limits the raw layer beneath MPI names for this peer class, from its set's note
/// (UCT: "am_short to 92 B, am_bcopy to 8248 B, …"): (the phrase, bytes).
fn layer_limits(r: &Report, class: loggp_report::PeerClass) -> Vec<(String, u64)> {
    r.calibration
        .raw
        .iter()
        .filter(|s| s.peer_class == class)
        .filter_map(|s| s.note.as_deref())
        .flat_map(|n| n.split(','))
        .filter_map(|part| {
            let part = part.trim();
            let (op, rest) = part.split_once(" to ")?;
            let bytes = rest.strip_suffix(" B")?.trim().parse().ok()?;
            let op = op.rsplit(": ").next().unwrap_or(op).trim();
            Some((format!("{op} up to {bytes} B"), bytes))
        })
        .collect()
}
