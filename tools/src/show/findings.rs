//! Findings first (issue 27): up to five lines a reader sees before any table, ranked by
//! the time at stake — what, how much (with its interval), the evidence, and what to do.
//! Each comes from a section the report already carries: the time split and its largest
//! waits (issue 25), the switch advice (`loggp advise`), the calibration's disturbance
//! and the coverage check.
use super::*;
use loggp_report::{TimeSplit, WaitEntry};
use serde::Serialize;

#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Finding {
    pub title: String,
    /// The time at stake over the job, where there is one.
    pub time_ns: Option<f64>,
    pub time_ns_ci: Option<[f64; 2]>,
    pub evidence: String,
    pub action: String,
}

fn sizes(lo: u64, hi: u64) -> String {
    fmt_span(lo, hi)
}

/// "1 message", "5 messages".
fn counted(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// Where a wait was: function, sizes, and call site where it is known.
fn at(w: &WaitEntry) -> String {
    let site = match (&w.object, w.address) {
        (Some(p), Some(a)) => format!(
            " at {}",
            super::sites::symbolize(p, w.build_id.as_deref(), a)
        ),
        _ => String::new(),
    };
    format!(
        "{} of {} B{site}, {} sampled",
        w.function,
        sizes(w.size_lo_bytes, w.size_hi_bytes),
        counted(w.messages_matched, "message")
    )
}

/// A rank's waits of one kind, with the largest entry of that kind as evidence.
fn wait_finding(r: &Report, t: &TimeSplit, kind: &str) -> Option<Finding> {
    let (ns, ci) = match kind {
        "late_sender" => (t.late_sender_ns, t.late_sender_ns_ci),
        _ => (t.late_receiver_ns, t.late_receiver_ns_ci),
    };
    if ns <= 0.0 {
        return None;
    }
    let top = r
        .waits
        .largest
        .iter()
        .filter(|w| w.rank == t.rank && w.kind == kind)
        .max_by(|a, b| a.wait_ns.total_cmp(&b.wait_ns))?;
    let (title, action) = if kind == "late_sender" {
        (
            format!(
                "rank {} waits for rank {}'s sends (late sender): {} of its {} in MPI",
                t.rank,
                top.peer,
                fmt_ns(Some(ns)),
                fmt_ns(Some(t.time_in_mpi_ns))
            ),
            format!(
                "rank {} starts these sends late: balance its work before them, or let rank {} compute while it waits (post MPI_Irecv early, complete it later)",
                top.peer, t.rank
            ),
        )
    } else {
        (
            format!(
                "rank {} waits for rank {} to post its receives (late receiver): {} of its {} in MPI",
                t.rank,
                top.peer,
                fmt_ns(Some(ns)),
                fmt_ns(Some(t.time_in_mpi_ns))
            ),
            format!(
                "rank {} posts these receives late: post them earlier (MPI_Irecv before its work), or send with MPI_Isend and compute while the message waits",
                top.peer
            ),
        )
    };
    Some(Finding {
        title,
        time_ns: Some(ns),
        time_ns_ci: ci,
        evidence: format!(
            "the largest: {} waiting in {}",
            fmt_ns(Some(top.wait_ns)),
            at(top)
        ),
        action,
    })
}

fn collective_finding(r: &Report, t: &TimeSplit) -> Option<Finding> {
    if t.collective_wait_ns <= 0.0 {
        return None;
    }
    let top = r
        .waits
        .collectives
        .iter()
        .filter(|c| c.rank == t.rank)
        .max_by(|a, b| {
            (a.arrival_wait_ns * a.calls_matched as f64)
                .total_cmp(&(b.arrival_wait_ns * b.calls_matched as f64))
        })?;
    Some(Finding {
        title: format!(
            "rank {} waits at collectives for the last member to arrive: {} of its {} in MPI",
            t.rank,
            fmt_ns(Some(t.collective_wait_ns)),
            fmt_ns(Some(t.time_in_mpi_ns))
        ),
        time_ns: Some(t.collective_wait_ns),
        time_ns_ci: t.collective_wait_ns_ci,
        evidence: format!(
            "the most: {} on {} ranks, {} B, {} per call over {} sampled",
            top.function,
            top.comm_size,
            sizes(top.size_lo_bytes, top.size_hi_bytes),
            fmt_ns(Some(top.arrival_wait_ns)),
            counted(top.calls_matched, "call")
        ),
        action: if top.function.contains("eighbor_") {
            format!(
                "the ranks this one receives from in {} (its in-neighbours) arrive after it: balance the work before it among neighbours (`loggp show` lists each rank's arrival wait)",
                top.function
            )
        } else {
            format!(
                "the members arrive at {} at different times: balance the work before it (`loggp show` lists each rank's arrival wait)",
                top.function
            )
        },
    })
}

/// The findings, ranked: those with a time at stake first, largest first; at most five.
pub fn findings(r: &Report) -> Vec<Finding> {
    let mut v: Vec<Finding> = vec![];
    for t in &r.time_split {
        v.extend(wait_finding(r, t, "late_sender"));
        v.extend(wait_finding(r, t, "late_receiver"));
        v.extend(collective_finding(r, t));
    }
    let (advice, _) = loggp_model::advise::advise(r, &loggp_model::Settings::for_report(r));
    for a in advice.iter().filter(|a| a.advised) {
        let (Some(save), Some(s)) = (a.predicted_saving_ns, &a.setting) else {
            continue;
        };
        v.push(Finding {
            title: format!(
                "{} = {} would save {} of the {} {} messages' time",
                s.name,
                s.value.map_or("?".into(), |x| x.to_string()),
                fmt_ns(Some(save)),
                a.peer_class,
                a.mode
            ),
            time_ns: Some(save),
            time_ns_ci: a.predicted_saving_ns_ci,
            evidence: format!(
                "{} messages, {} in MPI; priced by the calibration",
                a.observed_messages,
                fmt_ns(Some(a.observed_ns))
            ),
            action: a
                .command
                .clone()
                .unwrap_or_else(|| "see `loggp advise`".into()),
        });
    }
    for a in loggp_model::advise::algorithm_advice(r)
        .iter()
        .filter(|a| a.advised)
    {
        let (Some(save), Some(name)) = (a.predicted_saving_ns, &a.algorithm) else {
            continue;
        };
        v.push(Finding {
            title: format!(
                "forcing {name} for {} on {} ranks would save {} of each member's time",
                a.function,
                a.comm_size,
                fmt_ns(Some(save))
            ),
            time_ns: Some(save),
            time_ns_ci: a.predicted_saving_ns_ci,
            evidence: format!(
                "{} calls; in use: {}; priced by the collective model, which holds for the algorithm in use",
                a.calls,
                a.in_use.join("; ")
            ),
            action: a
                .command
                .clone()
                .unwrap_or_else(|| "see `loggp advise`".into()),
        });
    }
    if let Some(d) = &r.calibration.disturbance {
        v.push(Finding {
            title: "the calibration was disturbed: its parameters may not be the MPI's".into(),
            time_ns: None,
            time_ns_ci: None,
            evidence: d.clone(),
            action: "calibrate again on an idle node (`loggp run` or LOGGP_CALIBRATE=full)".into(),
        });
    }
    if r.coverage.equal == Some(false) {
        v.push(Finding {
            title: "the counts of messages disagree with the MPI's own counters".into(),
            time_ns: None,
            time_ns_ci: None,
            evidence: format!("{} pairs differ", r.coverage.differences.len()),
            action: "see the coverage line at the end of `loggp show`".into(),
        });
    }
    ranked(v)
}

/// The first five findings: those with a time at stake first, largest first. A time
/// whose interval reaches 0 keeps its place (a wide interval around a large wait is
/// still the largest thing the data shows: `tests/waits.rs`, a late sender polled with
/// MPI_Test, 198.97 ms [0, 407.82 ms] against the program's own 200 ms), and its title
/// says that the data cannot tell it from nothing.
fn ranked(mut v: Vec<Finding>) -> Vec<Finding> {
    for f in v.iter_mut() {
        if f.time_ns.is_some() && f.time_ns_ci.is_some_and(|[lo, _]| lo <= 0.0) {
            f.title.push_str(UNCERTAIN);
        }
    }
    v.sort_by(|a, b| match (a.time_ns, b.time_ns) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    v.truncate(5);
    v
}

/// Appended to the title of a finding whose time's interval reaches 0.
pub const UNCERTAIN: &str = " (its interval reaches 0: it may be nothing)";

/// The findings as the first table of `show` and `html`.
pub fn table(r: &Report) -> Option<Table> {
    let f = findings(r);
    if f.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Findings",
        &["#", "finding", "time at stake", "evidence", "what to do"],
    );
    for (i, x) in f.iter().enumerate() {
        t.row(vec![
            (i + 1).to_string(),
            x.title.clone(),
            fmt_ns_ci(x.time_ns, x.time_ns_ci),
            x.evidence.clone(),
            x.action.clone(),
        ]);
    }
    t.note = Some("ranked by the time at stake; the tables below hold the details".into());
    t.blocks = true;
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(title: &str, time_ns: Option<f64>, ci: Option<[f64; 2]>) -> Finding {
        Finding {
            title: title.into(),
            time_ns,
            time_ns_ci: ci,
            evidence: String::new(),
            action: String::new(),
        }
    }

    /// Ranked by the time at stake; a time whose interval reaches 0 keeps its place
    /// and says so in its title (LAMMPS rank 0's late receiver before the strata:
    /// 87.95 ms [0, 188.16 ms]).
    #[test]
    fn a_time_whose_interval_reaches_zero_says_so() {
        let v = ranked(vec![
            f("disturbed", None, None),
            f("sure small", Some(1.0e6), Some([0.8e6, 1.2e6])),
            f("uncertain", Some(87.95e6), Some([0.0, 188.16e6])),
            f("sure narrow", Some(40.0e6), Some([39.0e6, 41.0e6])),
            f("no interval", Some(2.0e6), None),
        ]);
        let titles: Vec<&str> = v.iter().map(|x| x.title.as_str()).collect();
        let uncertain = format!("uncertain{UNCERTAIN}");
        assert_eq!(
            titles,
            [
                uncertain.as_str(),
                "sure narrow",
                "no interval",
                "sure small",
                "disturbed"
            ]
        );
    }
}
