//! Findings first (issue 27): up to five lines a reader sees before any table, ranked by
//! the time at stake — what, how much (with its interval), the evidence, and what to do.
//! Each comes from a section the report already carries: the time split and its largest
//! waits (issue 25), the switch advice (`loggp advise`), the calibration's disturbance
//! and the coverage check.
use super::*;
use loggp_report::{CollectiveSplit, Mode, PeerClass, TimeSplit, WaitEntry};
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
        } else if top.function == "MPI_Win_wait" {
            "the origins of this rank's exposure epochs reach MPI_Win_complete after it reaches MPI_Win_wait (an early wait): balance the work of the epoch, or do this rank's own work before its MPI_Win_wait".to_string()
        } else if matches!(top.function.as_str(), "MPI_Win_start" | "MPI_Win_complete") {
            format!(
                "the targets of this rank's access epochs post them (MPI_Win_post) after it reaches {} (a late post): post earlier, or balance the work before the post",
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

/// A rank's collective calls after a pause (`CollectiveSplit::after_pause`): what they
/// cost beyond the same calls back to back, over its rows that have both kinds, each row's
/// sampled calls scaled to all its calls (the cell's count over the members' samples).
/// The interval takes each row's two medians at their far and near ends.
fn pause_finding(r: &Report, t: &TimeSplit) -> Option<Finding> {
    let scale = |c: &CollectiveSplit| {
        let sampled: u64 = r
            .waits
            .collectives
            .iter()
            .filter(|o| {
                (&o.function, o.comm_size, o.size_lo_bytes)
                    == (&c.function, c.comm_size, c.size_lo_bytes)
            })
            .map(|o| o.calls_matched)
            .sum();
        let all = r
            .cells
            .iter()
            .find(|x| {
                x.function == c.function
                    && x.comm_size == Some(c.comm_size)
                    && x.size_bin == loggp_report::bins::size_bin(c.size_lo_bytes)
            })
            .map_or(0, |x| x.count);
        if sampled == 0 || all < sampled {
            1.0
        } else {
            all as f64 / sampled as f64
        }
    };
    let mut rows = vec![];
    for c in r.waits.collectives.iter().filter(|c| c.rank == t.rank) {
        let Some(a) = &c.after_pause else { continue };
        let (Some(after), Some(back)) = (a.cost_median_ns, a.back_to_back_cost_median_ns) else {
            continue;
        };
        if a.calls == 0 || after <= back {
            continue;
        }
        let n = a.calls as f64 * scale(c);
        let [a_lo, a_hi] = a.cost_median_ns_ci.unwrap_or([after, after]);
        let [b_lo, b_hi] = a.back_to_back_cost_median_ns_ci.unwrap_or([back, back]);
        let more = [
            n * (a_lo - b_hi).max(0.0),
            n * (after - back),
            n * (a_hi - b_lo),
        ];
        rows.push((c, a, after, back, more));
    }
    let total = |k: usize| rows.iter().map(|x| x.4[k]).sum::<f64>();
    let (ns, ci) = (total(1), [total(0), total(2)]);
    let (c, a, after, back, _) = rows.iter().max_by(|x, y| x.4[1].total_cmp(&y.4[1]))?;
    // What a pause alone costs this MPI (`Point::exchange_after_pause`): the rest of the
    // calls' excess is what the application's work in the pause did to the caches.
    let probe = (r.calibration.mpi.iter())
        .find(|s| s.peer_class == PeerClass::IntraNode && s.mode == Mode::Send)
        .and_then(loggp_model::coll::after_pause_probe)
        .map_or(String::new(), |p| format!("; {p}"));
    Some(Finding {
        title: format!(
            "rank {} pays for collective calls after a pause: {} more than the same calls back to back, of its {} in MPI",
            t.rank,
            fmt_ns(Some(ns)),
            fmt_ns(Some(t.time_in_mpi_ns))
        ),
        time_ns: Some(ns),
        time_ns_ci: Some(ci),
        evidence: format!(
            "the most: {} on {} ranks, {} B, {} of {} sampled came at least {:.0} µs after a member's previous call of it{}, at {} each against {} back to back",
            c.function,
            c.comm_size,
            sizes(c.size_lo_bytes, c.size_hi_bytes),
            a.calls,
            counted(a.calls + a.calls_back_to_back, "call"),
            a.pause_ns / 1e3,
            a.pause_median_ns
                .map_or(String::new(), |p| format!(" (the median pause {})", fmt_ns(Some(p)))),
            fmt_ns(Some(*after)),
            fmt_ns(Some(*back)),
        ) + &probe,
        action: "an MPI call whose code has not run for a while costs more, whatever the MPI's settings (`bench/after_pause.c`): fewer such calls pay it less often (e.g. a convergence check every few steps rather than every step)".into(),
    })
}

/// The findings, ranked: those with a time at stake first, largest first; at most five.
pub fn findings(r: &Report) -> Vec<Finding> {
    let mut v: Vec<Finding> = vec![];
    for t in &r.time_split {
        v.extend(wait_finding(r, t, "late_sender"));
        v.extend(wait_finding(r, t, "late_receiver"));
        v.extend(collective_finding(r, t));
        v.extend(pause_finding(r, t));
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
                "{} call{}; in use: {}; priced by the collective model, which holds for the algorithm in use",
                a.calls,
                if a.calls == 1 { "" } else { "s" },
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

    /// A one-sided epoch's wait is named by its pattern: a rank waiting in MPI_Win_wait
    /// is told its origins complete late, one waiting in MPI_Win_start its targets post
    /// late.
    #[test]
    fn an_epochs_wait_is_named_by_its_pattern() {
        use loggp_report::{CollectiveSplit, Report, TimeSplit};
        for (function, says) in [
            ("MPI_Win_wait", "an early wait"),
            ("MPI_Win_start", "a late post"),
            ("MPI_Win_complete", "a late post"),
            ("MPI_Allreduce", "the members arrive at MPI_Allreduce"),
        ] {
            let mut r = Report::default();
            r.time_split.push(TimeSplit {
                rank: 0,
                time_in_mpi_ns: 2e6,
                collective_wait_ns: 1e6,
                ..Default::default()
            });
            r.waits.collectives.push(CollectiveSplit {
                function: function.into(),
                comm_size: 2,
                calls_matched: 10,
                arrival_wait_ns: 1e5,
                ..Default::default()
            });
            let f = collective_finding(&r, &r.time_split[0]).expect("a finding");
            assert!(f.action.contains(says), "{function}: {}", f.action);
        }
    }

    /// Calls after a pause: their median over the back-to-back median, times the calls,
    /// scaled from the samples to the cell's calls; the interval from the medians' ends.
    #[test]
    fn calls_after_a_pause_are_priced_over_back_to_back() {
        use loggp_report::{AfterPause, Cell, CollectiveSplit, Report, TimeSplit};
        let mut r = Report::default();
        r.time_split.push(TimeSplit {
            rank: 0,
            time_in_mpi_ns: 1e6,
            ..Default::default()
        });
        for rank in [0, 1] {
            r.waits.collectives.push(CollectiveSplit {
                rank,
                function: "MPI_Allreduce".into(),
                comm_size: 2,
                size_lo_bytes: 16,
                size_hi_bytes: 17,
                calls_matched: 60,
                after_pause: Some(AfterPause {
                    pause_ns: loggp_report::PAUSE_NS,
                    calls: 20,
                    pause_median_ns: Some(1.2e6),
                    cost_median_ns: Some(4000.0),
                    cost_median_ns_ci: Some([3500.0, 4500.0]),
                    calls_back_to_back: 40,
                    back_to_back_cost_median_ns: Some(900.0),
                    back_to_back_cost_median_ns_ci: Some([800.0, 1000.0]),
                }),
                ..Default::default()
            });
        }
        // Both ranks' 120 samples stand for 240 calls: each sample for 2.
        r.cells.push(Cell {
            function: "MPI_Allreduce".into(),
            comm_size: Some(2),
            size_bin: loggp_report::bins::size_bin(16),
            count: 240,
            ..Default::default()
        });
        let f = super::pause_finding(&r, &r.time_split[0]).expect("a finding");
        assert_eq!(f.time_ns, Some(40.0 * 3100.0));
        assert_eq!(f.time_ns_ci, Some([40.0 * 2500.0, 40.0 * 3700.0]));
        assert!(f
            .title
            .starts_with("rank 0 pays for collective calls after a pause"));
        assert!(!f.evidence.contains("the calibration's"), "{}", f.evidence);
        assert!(
            f.evidence.contains("(the median pause 1.20 ms)"),
            "{}",
            f.evidence
        );
        // The calibration's exchange after a pause, where it was measured: what a pause
        // alone costs this MPI, beside the calls.
        r.calibration.mpi.push(loggp_report::CalibrationSet {
            peer_class: loggp_report::PeerClass::IntraNode,
            mode: loggp_report::Mode::Send,
            points: vec![loggp_report::Point {
                size_bytes: 8,
                exchange_isolated_ns: Some(250.0),
                exchange_after_pause: vec![loggp_report::ExchangeAfterPause {
                    pause_ns: 1e6,
                    exchange_ns: 1300.0,
                    exchange_reps_ns: vec![1300.0],
                }],
                ..Default::default()
            }],
            ..Default::default()
        });
        let f = super::pause_finding(&r, &r.time_split[0]).expect("a finding");
        assert!(
            f.evidence.ends_with("; the calibration's 8-byte exchange took 250 ns back to back, 1.30 µs after 1 ms away from MPI"),
            "{}",
            f.evidence
        );
        // Calls after a pause that cost no more than the others are not a finding.
        r.waits.collectives[0]
            .after_pause
            .as_mut()
            .unwrap()
            .cost_median_ns = Some(850.0);
        assert!(super::pause_finding(&r, &r.time_split[0]).is_none());
    }
}
