//! `loggp advise --measure <report> -- <launcher> <2-rank command>` (issue 26 §5): the
//! switch advice priced by measurement instead of extrapolation.
//!
//! `loggp advise` prices a message the advice would turn eager with the eager line
//! extrapolated past the switch in use, to at most twice the largest eager size the
//! calibration measured: the calibration cannot send eagerly above the switch in use, and
//! a job whose messages lie further (LAMMPS melt: 61–70 KB against vader's 4040 B) gets
//! no price. Here the given 2-rank command is run twice with the shim preloaded and a
//! quick calibration up to twice the job's largest message: once as the job ran (A), once
//! with the knob set so that every message of the job is eager (B), one after the other.
//! As in `loggp advise`, a message the pair waits on costs it PRTT(1,0,s). On this VM the
//! cost of the same call changes level over seconds, by up to 2.7× between runs, and
//! every cost of a run moves together: the same 12000-byte ping-pong cost the pair 12.4
//! µs per message in one job and 7.3 µs in three others, and two calibrations seconds
//! apart can sit at different levels too. So each run's PRTT(1,0,s) is brought to the
//! job's level: divided by the run's own level (the geometric mean of its PRTT(1,0,s) at
//! the sizes the knob does not touch, up to the switch in use) and multiplied by the
//! job's (the same, from the job's calibration at MPI_Init; A's where it has none). Per
//! message: now, the job's own MPI_Send + MPI_Recv time for it where its passive bins
//! have it, else A's PRTT at the job's level; eager, B's PRTT at the job's level; the
//! saving, now − eager, interpolated between measured sizes, never extrapolated, summed
//! over the job's passive bins above the switch. A first version took the saving as a
//! share (now × (1 − PRTT_B/PRTT_A)) and fell short by 1.35–1.73× in 8 pairs: the
//! job's own rendezvous messages cost more than the calibration's (7.3 against 6.2 µs)
//! while its eager ones did not. Interval: the same
//! saving per calibration pass (each point's `prtt_1_0_reps_ns` hold one value per
//! pass), from the second smallest to the second largest (with five passes or more). The
//! change is advised, with its command, only where that interval lies above zero.
use crate::run::{self, Flavor, Launcher};
use loggp_model::advise::{advise, Advice};
use loggp_report::{CalibrationSet, Mode, PeerClass, Report};
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct Measured {
    pub peer_class: PeerClass,
    pub mode: Mode,
    pub knob: String,
    pub value: i64,
    pub current_switch_bytes: u64,
    /// The switch the calibration found under the advised value (B's run).
    pub measured_switch_bytes: Option<u64>,
    pub messages: u64,
    pub messages_priced: u64,
    pub predicted_saving_ns: Option<f64>,
    pub predicted_saving_ns_ci: Option<[f64; 2]>,
    /// Whether the change is advised: a saving whose interval lies above zero, as
    /// `loggp advise` asks of its own. Otherwise a note says why, and no command is given.
    pub advised: bool,
    pub commands: Vec<String>,
    pub notes: Vec<String>,
}

/// The blocking-send calibration of `class` in a report.
fn send_set(r: &Report, class: PeerClass) -> Option<&CalibrationSet> {
    r.calibration
        .mpi
        .iter()
        .find(|s| s.peer_class == class && s.mode == Mode::Send)
}

/// PRTT(1,0,s) at `x` bytes, interpolated linearly between the measured sizes around
/// it, from `value(point)`; None outside the sizes measured.
fn at(
    set: &CalibrationSet,
    x: f64,
    value: &dyn Fn(&loggp_report::Point) -> Option<f64>,
) -> Option<f64> {
    let pts: Vec<(f64, f64)> = set
        .points
        .iter()
        .filter_map(|p| Some((p.size_bytes as f64, value(p)?)))
        .collect();
    let i = pts.iter().position(|p| p.0 >= x)?;
    if pts[i].0 == x || i == 0 {
        return (pts[i].0 == x).then_some(pts[i].1);
    }
    let (a, b) = (pts[i - 1], pts[i]);
    Some(a.1 + (b.1 - a.1) * (x - a.0) / (b.0 - a.0))
}

fn median(v: &[f64]) -> Option<f64> {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    (!v.is_empty()).then(|| v[v.len() / 2])
}

/// Runs `cmd` with the shim, a quick calibration up to `max_bytes` and `extra`
/// settings; returns its report.
fn calibrate(
    cmd: &[String],
    flavor: Flavor,
    launcher: Launcher,
    max_bytes: u64,
    extra: &[(String, String)],
    out: &std::path::Path,
) -> Result<Report, String> {
    let shim = run::shim_for(flavor)?;
    let mut env: Vec<(String, String)> = vec![
        ("LD_PRELOAD".into(), shim.display().to_string()),
        ("LOGGP_REPORT".into(), out.display().to_string()),
        ("LOGGP_CALIBRATE".into(), "quick".into()),
        ("LOGGP_CALIBRATE_MAX_BYTES".into(), max_bytes.to_string()),
        ("LOGGP_RAW".into(), "off".into()),
    ];
    env.extend(extra.iter().cloned());
    let line = run::command_line(launcher, cmd, &env);
    let o = std::process::Command::new(&line[0])
        .args(&line[1..])
        .output()
        .map_err(|e| format!("cannot start {}: {e}", line[0]))?;
    if !o.status.success() {
        return Err(format!(
            "the measuring job failed ({}): {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    loggp_report::read(&out.display().to_string()).map_err(|e| e.to_string())
}

/// The environment that sets `knob` to `value` for this MPI.
fn knob_env(knob: &str, value: i64) -> (String, String) {
    if knob.starts_with("UCX_") || knob.starts_with("MPIR_CVAR_") {
        (knob.to_string(), value.to_string())
    } else {
        (format!("OMPI_MCA_{knob}"), value.to_string())
    }
}

/// Measures the advice for each (class, blocking send) of `r` with messages above its
/// switch, with `cmd` (a 2-rank launch command).
pub fn measure(r: &Report, cmd: &[String]) -> Result<Vec<Measured>, String> {
    if cmd.is_empty() {
        return Err("usage: loggp advise --measure <report> -- <launcher> -np 2 <app…>".into());
    }
    let launcher = run::launcher_kind(&cmd[0]);
    let flavor = run::app_of(cmd)
        .and_then(|a| run::linked_flavor(a))
        .or(match launcher {
            Some(Launcher::OpenMpi) => Some(Flavor::OpenMpi),
            Some(Launcher::Hydra) => Some(Flavor::Mpich),
            _ => None,
        })
        .or(match r.job.mpi_flavor.as_str() {
            "openmpi" => Some(Flavor::OpenMpi),
            "mpich" => Some(Flavor::Mpich),
            _ => None,
        })
        .ok_or("cannot tell which MPI the command uses")?;
    let launcher = launcher.unwrap_or(match flavor {
        Flavor::OpenMpi => Launcher::OpenMpi,
        Flavor::Mpich => Launcher::Hydra,
    });
    let dir = std::env::temp_dir().join(format!("loggp-measure-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let (advice, _) = advise(r, &loggp_model::Settings::for_report(r));
    let mut out = vec![];
    for a in advice.iter().filter(|a| a.mode == Mode::Send) {
        if let Some(m) = one(r, a, cmd, flavor, launcher, &dir)? {
            out.push(m);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(out)
}

fn one(
    r: &Report,
    a: &Advice,
    cmd: &[String],
    flavor: Flavor,
    launcher: Launcher,
    dir: &std::path::Path,
) -> Result<Option<Measured>, String> {
    let (Some(switch), Some(setting)) = (a.current_switch_bytes, a.setting.as_ref()) else {
        return Ok(None);
    };
    let Some(p) = r
        .passive
        .iter()
        .find(|p| p.peer_class == a.peer_class && p.mode == a.mode)
    else {
        return Ok(None);
    };
    let above: Vec<&loggp_report::Bin> = p
        .bins
        .iter()
        .filter(|b| b.smallest_bytes > switch)
        .collect();
    let Some(largest) = above.iter().map(|b| b.largest_bytes).max() else {
        return Ok(None);
    };
    // The knob's value for "eager up to `largest`": what it counts beyond the payload,
    // as the advice derives it (ob1's header; UCX: the first rendezvous size).
    let offset = match setting.value {
        Some(v) if v > switch as i64 => v - switch as i64,
        _ if setting.name.starts_with("UCX_") => 1,
        _ => return Ok(None),
    };
    let value = largest as i64 + offset;
    let max_bytes = (2 * largest).next_power_of_two();
    let mut m = Measured {
        peer_class: a.peer_class,
        mode: a.mode,
        knob: setting.name.clone(),
        value,
        current_switch_bytes: switch,
        measured_switch_bytes: None,
        messages: above.iter().map(|b| b.count).sum(),
        messages_priced: 0,
        predicted_saving_ns: None,
        predicted_saving_ns_ci: None,
        advised: false,
        commands: vec![],
        notes: vec![],
    };
    let now = calibrate(cmd, flavor, launcher, max_bytes, &[], &dir.join("a.json"))?;
    let moved = calibrate(
        cmd,
        flavor,
        launcher,
        max_bytes,
        &[knob_env(&setting.name, value)],
        &dir.join("b.json"),
    )?;
    let (Some(sa), Some(sb)) = (send_set(&now, a.peer_class), send_set(&moved, a.peer_class))
    else {
        m.notes.push("a measuring job has no calibration of this class (a 2-rank command on one host is needed for intra_node)".into());
        return Ok(Some(m));
    };
    m.measured_switch_bytes = moved
        .thresholds
        .iter()
        .find(|t| t.peer_class == a.peer_class && t.mode == a.mode)
        .and_then(|t| t.active_bytes);
    if m.measured_switch_bytes.is_some_and(|s| s < largest) {
        m.notes.push(format!(
            "with {} = {value} the switch was found at {} B, below the job's largest message ({largest} B): the knob does not move it that far here, no change advised",
            setting.name,
            m.measured_switch_bytes.unwrap_or(0)
        ));
        return Ok(Some(m));
    }
    // Each run's level: the geometric mean of its PRTT(1,0,s) at the sizes the knob does
    // not touch (at most the switch in use), per pass and over all (median per size).
    let level = |s: &CalibrationSet, k: Option<usize>| -> Option<f64> {
        let v: Vec<f64> = s
            .points
            .iter()
            .filter(|p| p.size_bytes <= switch)
            .filter_map(|p| match k {
                Some(k) => p.prtt_1_0_reps_ns.get(k).copied(),
                None => median(&p.prtt_1_0_reps_ns).or(p.prtt_1_0_ns),
            })
            .filter(|&x| x > 0.0)
            .collect();
        (!v.is_empty()).then(|| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp())
    };
    let (Some(la), Some(lb)) = (level(sa, None), level(sb, None)) else {
        m.notes.push(
            "a measuring run has no calibrated size below the switch to set its level by".into(),
        );
        return Ok(Some(m));
    };
    // The job's own level, from its calibration at MPI_Init where it has one.
    let lj = send_set(r, a.peer_class)
        .and_then(|s| level(s, None))
        .unwrap_or(la);
    let passes = sa.passes.unwrap_or(0).min(sb.passes.unwrap_or(0)) as usize;
    let (mut saving, mut per_pass) = (0.0, vec![0.0; passes]);
    // Whether each pass priced a message at all (its saving is then a sum, not a default).
    let mut pass_priced = vec![false; passes];
    // Per priced message, summed: the job's own cost, A's and B's round trips at the job's
    // level (see `protocol_alone`).
    let mut sums = Sums::default();
    let own = loggp_model::advise::pair_ns_per_message(r, a.peer_class, a.mode, &above);
    for (i, b) in above.iter().enumerate() {
        let x = (b.smallest_bytes + b.largest_bytes) as f64 / 2.0;
        let med = |s: &CalibrationSet| at(s, x, &|p| median(&p.prtt_1_0_reps_ns).or(p.prtt_1_0_ns));
        let (Some(pa), Some(pb)) = (med(sa), med(sb)) else {
            continue;
        };
        let now = own.as_ref().map_or(pa * lj / la, |v| v[i]);
        m.messages_priced += b.count;
        saving += b.count as f64 * (now - pb * lj / lb);
        let c = b.count as f64;
        sums.now += c * now;
        sums.a += c * pa * lj / la;
        sums.b += c * pb * lj / lb;
        for (k, v) in per_pass.iter_mut().enumerate() {
            let rep = |s: &CalibrationSet| at(s, x, &|p| p.prtt_1_0_reps_ns.get(k).copied());
            if let (Some(ra), Some(rb), Some(lka), Some(lkb)) =
                (rep(sa), rep(sb), level(sa, Some(k)), level(sb, Some(k)))
            {
                let now = own.as_ref().map_or(ra * lj / lka, |v| v[i]);
                *v += b.count as f64 * (now - rb * lj / lkb);
                pass_priced[k] = true;
            }
        }
    }
    if m.messages_priced < m.messages {
        m.notes.push(format!(
            "{} of {} messages lie outside the sizes both measuring runs calibrated, and are not priced",
            m.messages - m.messages_priced,
            m.messages
        ));
    }
    if m.messages_priced == 0 {
        return Ok(Some(m));
    }
    let refill = loggp_model::advise::refill_over_plain(&now, a.peer_class, &above);
    if let Some(n) = protocol_alone(&sums, refill) {
        m.notes.push(n);
    }
    // The saving: the median of the passes' savings, each pass's round trips brought to
    // the job's level by that pass's own level, where every pass priced a message. The
    // machine's level moves over seconds, within one measuring run too, and a pass's round
    // trips move with its level: taken apart (each size's median over the passes, over the
    // median level), the saving sat at the low end of its own interval in four of six
    // MPICH pairs of one fresh-clone run (90.9 ms in [90.9 … 283.0]) while their reruns
    // saved 325–411 ms.
    per_pass.sort_by(f64::total_cmp);
    if pass_priced.iter().all(|&p| p) {
        saving = median(&per_pass).unwrap_or(saving);
    }
    m.predicted_saving_ns = Some(saving);
    // One pass each way left out where there are five or more: a pass the machine
    // disturbed (once, a lower bound of −153 ms beside a saving of 153 ms).
    let cut = usize::from(per_pass.len() >= 5);
    if let (Some(lo), Some(hi)) = (
        per_pass.get(cut),
        per_pass
            .len()
            .checked_sub(1 + cut)
            .and_then(|i| per_pass.get(i)),
    ) {
        m.predicted_saving_ns_ci = Some([lo.min(saving), hi.max(saving)]);
    }
    // As `loggp advise`: no change where the saving's interval reaches zero (a 64 KiB
    // ping-pong measured [−155, 270] ms once, and its rerun saved −57 ms).
    if let Some(why) = declined(m.predicted_saving_ns_ci) {
        m.notes.push(why);
        return Ok(Some(m));
    }
    m.advised = true;
    let (k, v) = knob_env(&setting.name, value);
    m.commands = match flavor {
        Flavor::OpenMpi => vec![
            format!("mpirun --mca {} {value} …", setting.name),
            format!("{k}={v} srun …"),
        ],
        Flavor::Mpich => vec![
            format!("mpiexec -genv {k} {v} …"),
            format!("{k}={v} srun …"),
        ],
    };
    Ok(Some(m))
}

/// Why no change is advised for a saving with this interval (ns), if it is not: the
/// interval reaches zero (the measuring runs' passes disagree), lies below it (the larger
/// setting costs the job more: LAMMPS melt, 2 ranks, Open MPI vader, 24010 messages of
/// 26–32 KiB priced at −120 ms [−177 … −87] with `btl_vader_eager_limit = 70040`), or
/// is missing.
fn declined(ci: Option<[f64; 2]>) -> Option<String> {
    match ci {
        Some([lo, hi]) if hi <= 0.0 => Some(format!(
            "no change advised: the larger setting costs these messages more: the saving's interval [{:.3} … {:.3}] ms lies below zero",
            lo / 1e6,
            hi / 1e6
        )),
        Some([lo, hi]) if lo <= 0.0 => Some(format!(
            "no change advised: the saving's interval [{:.3} … {:.3}] ms reaches zero (the measuring runs' passes disagree)",
            lo / 1e6,
            hi / 1e6
        )),
        None => Some("no change advised: too few calibration passes for the saving's interval".into()),
        Some(_) => None,
    }
}

/// Sums over the priced messages (ns), each weighted by its count.
#[derive(Default)]
struct Sums {
    now: f64,
    a: f64,
    b: f64,
}

/// Where the measuring runs' own round trips show no saving (B's eager ones at least A's),
/// the saving rests wholly on the job's cost above A's round trips, and the note says so,
/// with A's refill exchange over its plain one where A measured it
/// (`loggp_model::advise::refill_over_plain`).
/// Seen on every job `tests/advise.rs` measures (2026-11-27): B over A 1.2–1.5 × for
/// Open MPI at 12000 B, 1.3–1.5 × for MPICH at 64 KiB, 1.7–2.1 × for Open MPI at 64 KiB
/// (8 of 9 pairs of runs; 0.65 × once, B in the machine's fast phase), while the
/// ping-pong, which sends back the buffer it received into, cost up to 3 × A's round
/// trips; its rendezvous reads lines the partner has just written, as A's refill
/// exchange does (2 × its plain exchange at 64 KiB), its eager messages not. Reruns saved
/// what was priced at 12000 B and under MPICH, and half of it for Open MPI at 64 KiB.
/// Where the job's own time is no more than B's round trips there is no saving to explain
/// (LAMMPS melt: the job at 1.00 × A's round trips, B at 1.66 ×).
fn protocol_alone(s: &Sums, refill_over_plain: Option<f64>) -> Option<String> {
    if s.a <= 0.0 || s.b < s.a || s.now <= s.b {
        return None;
    }
    let refill = refill_over_plain
        .map(|x| format!(" (A's exchange that sends back what it received took {x:.2} × its plain one at these sizes)"))
        .unwrap_or_default();
    Some(format!(
        "the measuring runs' ping-pong, from one buffer into another, is no faster eager: B's round trips are {:.2} × A's at these sizes; the saving comes from the job's own time, {:.2} × A's round trips, as in a job that sends what it has just received{refill}, and whether its eager messages cost what B's did is not measured",
        s.b / s.a,
        s.now / s.a
    ))
}

/// The measured advice as text.
pub fn text(v: &[Measured]) -> String {
    let mut o = String::from("== advice on protocol switches, measured (advise --measure)\n");
    if v.is_empty() {
        o += "no (class, send) with messages above its switch and a knob that governs it\n";
    }
    for m in v {
        o += &format!(
            "{} {}: {} messages above the switch at {} B; {} = {} (every one eager), switch then found at {}\n",
            m.peer_class,
            m.mode,
            m.messages,
            m.current_switch_bytes,
            m.knob,
            m.value,
            m.measured_switch_bytes.map_or("?".into(), |s| format!("{s} B"))
        );
        if let Some(s) = m.predicted_saving_ns {
            o += &format!(
                "  measured saving {:.3} ms{} over {} messages priced\n",
                s / 1e6,
                m.predicted_saving_ns_ci
                    .map(|[a, b]| format!(" [{:.3} … {:.3}]", a / 1e6, b / 1e6))
                    .unwrap_or_default(),
                m.messages_priced
            );
            for c in &m.commands {
                o += &format!("    {c}\n");
            }
        }
        for n in &m.notes {
            o += &format!("  note: {n}\n");
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saving_the_measuring_runs_do_not_show_is_said_to_rest_on_the_job() {
        let eager_faster = Sums {
            now: 30.0,
            a: 12.0,
            b: 10.0,
        };
        assert_eq!(protocol_alone(&eager_faster, Some(2.0)), None);
        let eager_slower = Sums {
            now: 30.0,
            a: 12.0,
            b: 24.0,
        };
        assert!(!protocol_alone(&eager_slower, None)
            .expect("a note")
            .contains("plain one"));
        let n = protocol_alone(&eager_slower, Some(2.0)).expect("a note");
        assert!(n.contains("2.00 × A's at these sizes"), "{n}");
        assert!(n.contains("2.50 × A's round trips"), "{n}");
        assert!(n.contains("took 2.00 × its plain one"), "{n}");
        // No saving to explain: the job's own time below B's round trips.
        let no_saving = Sums {
            now: 12.0,
            a: 12.0,
            b: 20.0,
        };
        assert_eq!(protocol_alone(&no_saving, Some(2.0)), None);
    }

    /// An interval below zero says the change costs more; one across zero that the
    /// passes disagree; one above zero advises.
    #[test]
    fn a_saving_below_zero_is_a_cost_not_a_disagreement() {
        let below = declined(Some([-176.8e6, -86.5e6])).expect("declined");
        assert!(below.contains("costs these messages more"), "{below}");
        assert!(
            below.contains("[-176.800 … -86.500] ms lies below zero"),
            "{below}"
        );
        let across = declined(Some([-155e6, 270e6])).expect("declined");
        assert!(across.contains("reaches zero"), "{across}");
        assert!(declined(None).is_some());
        assert_eq!(declined(Some([90e6, 150e6])), None);
    }
}
