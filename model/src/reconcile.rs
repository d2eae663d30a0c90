//! Where two methods measure the same parameter, say when they disagree beyond their
//! intervals, and why (rule 4 of the house: honest numbers).
use crate::WARNING_PREFIX;
use loggp_report::{Range, Report};

/// What each o_s measures. The cause of their difference on a given machine is not
/// established by loggp (the direct study of MPI_Send under each method's conditions is not
/// in this version); the warning says what differs between the two measurements.
pub const OS_REASON: &str = "they time different conditions: PRTT(n,d,s) derives o_s from bursts of n sends spaced by d while the peer receives them in a loop; the passive figure is the 10th percentile of this application's own calls under its own traffic. The passive figure is what this application paid; which condition causes the difference here is not established";

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
    for set in &r.calibration.mpi {
        let Some(p) = r
            .passive
            .iter()
            .find(|p| p.peer_class == set.peer_class && p.mode == set.mode)
        else {
            continue;
        };
        for a in &set.ranges {
            for b in &p.ranges {
                // The same sizes: the passive range's smallest size (where its o_s is read)
                // inside the active range.
                if !(a.size_lo_bytes..=a.size_hi_bytes).contains(&b.size_lo_bytes) {
                    continue;
                }
                if let Some(w) = compare(&set.peer_class, &set.mode, a, b) {
                    out.push(w);
                }
            }
        }
    }
    for t in &r.thresholds {
        if let (Some(act), Some(lo), Some(hi)) =
            (t.active_bytes, t.passive_lo_bytes, t.passive_hi_bytes)
        {
            if !(lo..hi).contains(&act) {
                out.push(format!(
                    "{WARNING_PREFIX}switch ({}, {}): the calibration places it at {act} B, the traffic's bracket [{lo}, {hi}] does not contain it: the largest jump in the application's calls is another effect there",
                    t.peer_class, t.mode
                ));
            }
        }
    }
    out
}

fn compare(class: &str, mode: &str, a: &Range, b: &Range) -> Option<String> {
    let (av, aci) = (a.send_overhead_ns?, a.send_overhead_ns_ci?);
    let (bv, bci) = (b.send_overhead_ns?, b.send_overhead_ns_ci?);
    if overlap(aci, bci) {
        return None;
    }
    Some(format!(
        "{WARNING_PREFIX}send overhead o_s ({class}, {mode}, {} B): active {} [{}, {}] and passive {} [{}, {}] differ beyond their intervals: {OS_REASON}",
        b.size_lo_bytes,
        ns(av),
        ns(aci[0]),
        ns(aci[1]),
        ns(bv),
        ns(bci[0]),
        ns(bci[1])
    ))
}
