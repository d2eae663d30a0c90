//! Where two methods measure the same parameter, say when they disagree beyond their
//! intervals, and why (rule 4 of the house: honest numbers).
use crate::WARNING_PREFIX;
use loggp_report::{Mode, PeerClass, Range, Report};

/// What each o_s measures, as the o_s study established (tests/c/os_study.c; the test
/// `active_o_s_is_the_send_calls_own_duration`): MPI_Send's own duration hardly depends on
/// whether sends are isolated, back to back or spaced by d, and the PRTT formula's o_s
/// equals the calls' own duration within the probes (each calibration point carries both,
/// `send_overhead_ns` and `send_call_ns`), except where the protocol leaves a send's work
/// to later calls (rendezvous under UCX). What remains between active and passive is
/// when and under what the calls ran: the calibration's seconds at MPI_Init against the
/// application's calls over its run (on a shared or virtual machine the cost of the same
/// call changes level over seconds), and the application's own state (caches, other
/// threads, messages in flight).
pub const OS_REASON: &str = "both time MPI_Send's own duration (the calibration's formula agrees with its timed calls, see send_call_ns), at different times and under different conditions: the calibration's probes at MPI_Init against this application's calls over its run (caches, other threads, messages in flight; on a shared or virtual machine the cost of the same call also changes level over seconds). The passive figure is what this application paid";

/// Each cause of a reconciliation warning, once: the warning's opening words (how
/// `loggp show --explain` finds it), a name, and the long explanation. The warnings
/// themselves are one line per cause (issue 27: one warning per cause, the explanation
/// once).
pub const EXPLANATIONS: &[(&str, &str, &str)] = &[
    (
        "estimates: active and passive send overhead o_s differ beyond their intervals",
        "active and passive o_s differ",
        OS_REASON,
    ),
    (
        "estimates: raw ",
        "a raw transport slower than MPI",
        "A raw transport is the floor MPI is compared with (Bell et al. 2003, §5): the same bytes moved with no MPI above them. Where its round trip is longer than MPI's at the same size, the baseline is at fault there (another path than MPI's: a copy through a ring where MPI maps the peer's memory, or the probe disturbed), so MPI − raw says nothing at those sizes and is left out of the overhead table.",
    ),
    (
        "estimates: switches placed by the calibration",
        "a switch outside the traffic's bracket",
        "The calibration places a protocol switch by its probes; the passive bracket is the largest jump in the application's own call times. Where the bracket does not contain the calibrated switch, the largest jump in the application's calls is another effect (a cache size, a change of the job's phase, or the receiver always waiting), not the protocol switch.",
    ),
];

fn overlap(a: [f64; 2], b: [f64; 2]) -> bool {
    a[0] <= b[1] && b[0] <= a[1]
}

fn ns(v: f64) -> String {
    if v >= 1000.0 {
        format!("{:.2} µs", v / 1000.0)
    } else {
        format!("{v:.0} ns")
    }
}

pub fn warnings(r: &Report) -> Vec<String> {
    let mut out = vec![];
    let mut os = vec![];
    for set in &r.calibration.mpi {
        let Some(p) = crate::passive_of(r, set) else {
            continue;
        };
        for a in &set.ranges {
            for b in &p.ranges {
                // The same sizes: the passive range's smallest size (where its o_s is read)
                // inside the active range.
                if !(a.size_lo_bytes..=a.size_hi_bytes).contains(&b.size_lo_bytes) {
                    continue;
                }
                os.extend(compare(set.peer_class, set.mode, a, b));
            }
        }
    }
    if !os.is_empty() {
        out.push(format!(
            "{}: {} — the two time the same calls at other times and under other conditions; the passive one is what this application paid (`loggp show --explain`)",
            EXPLANATIONS[0].0,
            os.join("; ")
        ));
    }
    // A raw transport is the floor MPI is compared with (bell2003 §5): where it is slower
    // than MPI, the baseline is at fault, and MPI − raw says nothing there.
    let slow = crate::check::floor_violations(r);
    let mut names: Vec<&String> = slow.iter().map(|x| &x.0).collect();
    names.dedup();
    for name in names {
        let v: Vec<&(String, u64, f64)> = slow.iter().filter(|x| &x.0 == name).collect();
        let worst = v.iter().map(|x| x.2).fold(0.0, f64::max);
        let sizes: Vec<String> = v.iter().map(|x| x.1.to_string()).collect();
        out.push(format!(
            "{WARNING_PREFIX}raw {name} is slower than MPI's blocking send at {} size(s) ({} B; up to {worst:.2} × MPI's round trip): no floor there, MPI − raw left out (`loggp show --explain`)",
            v.len(),
            sizes.join(", ")
        ));
    }
    let outside: Vec<String> = r
        .thresholds
        .iter()
        .filter_map(|t| {
            let (act, lo, hi) = (t.active_bytes?, t.passive_lo_bytes?, t.passive_hi_bytes?);
            (!(lo..hi).contains(&act)).then(|| {
                format!(
                    "({}, {}) at {act} B, the traffic's bracket [{lo}, {hi}]",
                    t.peer_class, t.mode
                )
            })
        })
        .collect();
    if !outside.is_empty() {
        out.push(format!(
            "{} lie outside the traffic's bracket: {} — the largest jump in the application's calls is another effect there (`loggp show --explain`)",
            EXPLANATIONS[2].0,
            outside.join("; ")
        ));
    }
    out
}

/// The long explanations of the causes among `warnings`, each once.
pub fn explanations(warnings: &[String]) -> Vec<(&'static str, &'static str)> {
    EXPLANATIONS
        .iter()
        .filter(|(stem, _, _)| warnings.iter().any(|w| w.starts_with(stem)))
        .map(|&(_, name, text)| (name, text))
        .collect()
}

fn compare(class: PeerClass, mode: Mode, a: &Range, b: &Range) -> Option<String> {
    let (av, aci) = (a.send_overhead_ns?, a.send_overhead_ns_ci?);
    let (bv, bci) = (b.send_overhead_ns?, b.send_overhead_ns_ci?);
    if overlap(aci, bci) {
        return None;
    }
    Some(format!(
        "({class}, {mode}, {} B) active {} [{}, {}], passive {} [{}, {}]",
        b.size_lo_bytes,
        ns(av),
        ns(aci[0]),
        ns(aci[1]),
        ns(bv),
        ns(bci[0]),
        ns(bci[1])
    ))
}
