//! Where the job's MPI time goes, on one page (mpiP's "MPI time" and "aggregate time",
//! IPM's banner): the time split of every rank summed into its parts, the MPI's start-up
//! apart (in a short job MPI_Init holds most of the time in MPI, and a reader of the
//! findings' microseconds of waiting asks where the rest went), the heaviest calls, and
//! the rank with the most time in MPI beside the one with the least, part by part (two
//! ranks of one job spending very different times in MPI, the question LAMMPS's report
//! could not answer in issue 25).
use crate::table::*;
use loggp_report::{Report, TimeSplit};
use serde::Serialize;

/// One part of the time in MPI: over all ranks, and for the two ranks compared.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Part {
    pub part: &'static str,
    pub ns: f64,
    /// The sum of the ranks' 95 % intervals: it covers at least 95 %.
    pub ns_ci: Option<[f64; 2]>,
    pub most_rank_ns: f64,
    pub least_rank_ns: f64,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Overview {
    pub ranks: usize,
    pub time_in_mpi_ns: f64,
    /// The ranks' own wall time less loggp's work, summed, where every rank has it.
    pub app_wall_time_ns: Option<f64>,
    pub parts: Vec<Part>,
    /// The rank with the most time in MPI and the one with the least.
    pub most_rank: u32,
    pub least_rank: u32,
    /// The functions with the most time over all ranks: (function, ns), at most three.
    pub heaviest_calls: Vec<(String, f64)>,
}

/// What MPI_Init (or MPI_Init_thread) took on a rank: the MPI's own start-up.
pub fn start_up_ns(r: &Report, rank: u32) -> f64 {
    (r.ranks.iter())
        .filter(|k| k.rank == rank)
        .flat_map(|k| ["MPI_Init", "MPI_Init_thread"].map(|f| k.calls.get(f)))
        .flatten()
        .map(|c| c.time_ns)
        .sum()
}

/// The parts of one-sided and I/O calls (`other_ns` holds them: no message model prices
/// them), shown only where a rank made such calls. The calls the split divides as
/// collectives (`loggp_report::SPLIT_AS_COLLECTIVES`: fences, the epochs' start,
/// complete, post and wait, collective I/O; and the nonblocking collective I/O calls,
/// `SPLIT_AS_NONBLOCKING_COLLECTIVES`, whose completing calls hold their time): their
/// arrival wait stays with the collectives', their cost (the one-sided communication,
/// the I/O) goes to its family.
const ONE_SIDED: &str = "in one-sided calls (synchronization's arrival waits: at collectives)";
const IO: &str = "in MPI-IO calls (collective ones' arrival waits: at collectives)";

/// A rank's time (ns) in one family of calls: those not split (`apart`), and those the
/// split divides as collectives (`split`) with their arrival wait (`wait`): each
/// function's measured time times the share of arrival wait in its matched calls
/// (`CollectiveSplit` rows; none matched: no wait known).
#[derive(Default)]
struct Family {
    apart: f64,
    split: f64,
    wait: f64,
}

impl Family {
    /// The split calls' cost, taken out of the collectives' cost.
    fn cost(&self) -> f64 {
        (self.split - self.wait).max(0.0)
    }
}

/// A rank's one-sided and I/O families.
fn one_sided_and_io_ns(r: &Report, rank: u32) -> [Family; 2] {
    use super::job::{named_family, IO as IO_FAMILY, ONE_SIDED as ONE_SIDED_FAMILY};
    let mut t: [Family; 2] = Default::default();
    for k in r.ranks.iter().filter(|k| k.rank == rank) {
        for (f, c) in &k.calls {
            let x = match named_family(f) {
                Some(ONE_SIDED_FAMILY) => &mut t[0],
                Some(IO_FAMILY) => &mut t[1],
                _ => continue,
            };
            // The matched calls: their count, summed arrival wait and summed time.
            let (n, wait, all) = (r.waits.collectives.iter())
                .filter(|x| x.rank == rank && x.function == *f)
                .fold((0.0, 0.0, 0.0), |(n, w, a), x| {
                    let m = x.calls_matched as f64;
                    (
                        n + m,
                        w + m * x.arrival_wait_ns,
                        a + m * (x.arrival_wait_ns + x.cost_ns),
                    )
                });
            if loggp_report::SPLIT_AS_NONBLOCKING_COLLECTIVES.contains(&f.as_str()) {
                // The start is apart (in other_ns); the completing calls' time, in the
                // collectives' parts, is the matched calls' mean times the calls started.
                x.apart += c.time_ns;
                if n > 0.0 {
                    x.split += c.count as f64 * all / n;
                    x.wait += c.count as f64 * wait / n;
                }
            } else if !loggp_report::SPLIT_AS_COLLECTIVES.contains(&f.as_str()) {
                x.apart += c.time_ns;
            } else {
                x.split += c.time_ns;
                if all > 0.0 {
                    x.wait += c.time_ns * (wait / all).clamp(0.0, 1.0);
                }
            }
        }
    }
    t
}

/// A rank's parts: (name, value, interval), the start-up, one-sided and I/O calls taken
/// out of `other_ns`, the split ones' cost out of the collectives' cost (its interval
/// moved with it).
fn parts_of(r: &Report, t: &TimeSplit) -> [(&'static str, f64, Option<[f64; 2]>); 9] {
    let init = start_up_ns(r, t.rank).min(t.other_ns.max(0.0));
    let [os, io] = one_sided_and_io_ns(r, t.rank);
    let os_apart = os.apart.min((t.other_ns - init).max(0.0));
    let io_apart = io.apart.min((t.other_ns - init - os_apart).max(0.0));
    let split_cost = (os.cost() + io.cost()).clamp(0.0, t.collective_cost_ns.max(0.0));
    let os_cost = os.cost().min(split_cost);
    let io_cost = split_cost - os_cost;
    let coll_cost_ci = (t.collective_cost_ns_ci)
        .map(|[lo, hi]| [(lo - split_cost).max(0.0), (hi - split_cost).max(0.0)]);
    [
        ("in MPI_Init (the MPI's start-up)", init, None),
        ("in the transfer cost of messages", t.cost_ns, t.cost_ns_ci),
        (
            "waiting for a late sender",
            t.late_sender_ns,
            t.late_sender_ns_ci,
        ),
        (
            "waiting for a late receiver",
            t.late_receiver_ns,
            t.late_receiver_ns_ci,
        ),
        (
            "waiting at collectives for the last member",
            t.collective_wait_ns,
            t.collective_wait_ns_ci,
        ),
        (
            "in the collectives' cost",
            t.collective_cost_ns - split_cost,
            coll_cost_ci,
        ),
        (ONE_SIDED, os_apart + os_cost, None),
        (IO, io_apart + io_cost, None),
        (
            "in other calls (nonblocking starts, the rest)",
            t.other_ns - init - os_apart - io_apart,
            None,
        ),
    ]
}

/// The job's overview, where the report has the time split.
pub fn overview(r: &Report) -> Option<Overview> {
    let split = &r.time_split;
    let most = split
        .iter()
        .max_by(|a, b| a.time_in_mpi_ns.total_cmp(&b.time_in_mpi_ns))?;
    let least = split
        .iter()
        .min_by(|a, b| a.time_in_mpi_ns.total_cmp(&b.time_in_mpi_ns))?;
    let (most_parts, least_parts) = (parts_of(r, most), parts_of(r, least));
    let mut parts: Vec<Part> = most_parts
        .iter()
        .zip(&least_parts)
        .map(|(m, l)| Part {
            part: m.0,
            ns: 0.0,
            ns_ci: Some([0.0, 0.0]),
            most_rank_ns: m.1,
            least_rank_ns: l.1,
        })
        .collect();
    for t in split {
        for (p, (_, ns, ci)) in parts.iter_mut().zip(parts_of(r, t)) {
            p.ns += ns;
            // A part without an interval is measured for every call: its own value.
            let [lo, hi] = ci.unwrap_or([ns, ns]);
            p.ns_ci = p.ns_ci.map(|[a, b]| [a + lo, b + hi]);
        }
    }
    for p in &mut parts {
        if p.ns_ci == Some([p.ns, p.ns]) {
            p.ns_ci = None;
        }
    }
    parts.retain(|p| !matches!(p.part, ONE_SIDED | IO) || p.ns != 0.0);
    let mut heaviest: Vec<(String, f64)> = (super::job::call_totals(r).into_iter())
        .map(|(f, t)| (f.into(), t.2))
        .collect();
    heaviest.sort_by(|a, b| b.1.total_cmp(&a.1));
    heaviest.truncate(3);
    let walls: Option<Vec<f64>> = split
        .iter()
        .map(|t| {
            (r.ranks.iter())
                .find(|k| k.rank == t.rank)
                .and_then(|k| k.app_wall_time_ns)
        })
        .collect();
    Some(Overview {
        ranks: split.len(),
        time_in_mpi_ns: split.iter().map(|t| t.time_in_mpi_ns).sum(),
        app_wall_time_ns: walls.map(|w| w.iter().sum()),
        parts,
        most_rank: most.rank,
        least_rank: least.rank,
        heaviest_calls: heaviest,
    })
}

fn share(x: f64, of: f64) -> String {
    if of > 0.0 {
        format!("{:.1} %", 100.0 * x / of)
    } else {
        "—".into()
    }
}

/// The overview as the table `show` and `html` print after the findings.
pub fn table(r: &Report) -> Option<Table> {
    let o = overview(r)?;
    let two = o.most_rank != o.least_rank;
    let (most, least) = (
        format!("rank {} (most)", o.most_rank),
        format!("rank {} (least)", o.least_rank),
    );
    let mut header = vec!["part", "all ranks", "of the time in MPI"];
    if two {
        header.extend([most.as_str(), least.as_str(), "difference"]);
    }
    let mut t = Table::new("Where the job's MPI time goes", &header);
    // A part that is nothing on every rank (no collectives in the job) is left out.
    for p in o.parts.iter().filter(|p| p.ns != 0.0 || p.ns_ci.is_some()) {
        let mut row = vec![
            p.part.to_string(),
            fmt_ns_ci(Some(p.ns), p.ns_ci),
            share(p.ns, o.time_in_mpi_ns),
        ];
        if two {
            row.extend([
                fmt_ns(Some(p.most_rank_ns)),
                fmt_ns(Some(p.least_rank_ns)),
                fmt_ns(Some(p.most_rank_ns - p.least_rank_ns)),
            ]);
        }
        t.row(row);
    }
    let mut total = vec![
        "time in MPI".to_string(),
        fmt_ns(Some(o.time_in_mpi_ns)),
        "100 %".into(),
    ];
    let of_rank = |rank: u32| {
        (r.time_split.iter())
            .find(|t| t.rank == rank)
            .map_or(0.0, |t| t.time_in_mpi_ns)
    };
    let gap = of_rank(o.most_rank) - of_rank(o.least_rank);
    if two {
        total.extend([
            fmt_ns(Some(of_rank(o.most_rank))),
            fmt_ns(Some(of_rank(o.least_rank))),
            fmt_ns(Some(gap)),
        ]);
    }
    t.row(total);
    let mut note = format!(
        "{} rank{}: {} in MPI{}",
        o.ranks,
        if o.ranks == 1 { "" } else { "s" },
        fmt_ns(Some(o.time_in_mpi_ns)),
        o.app_wall_time_ns.map_or(String::new(), |w| format!(
            ", {} of their {} of wall time (loggp's own work taken out)",
            share(o.time_in_mpi_ns, w),
            fmt_ns(Some(w))
        ))
    );
    // A short job's time in MPI is mostly the MPI's start-up, which a longer run of the
    // same job spends a smaller share on: said before a reader weighs the other parts.
    if let Some(init) = o.parts.first().filter(|p| 2.0 * p.ns > o.time_in_mpi_ns) {
        note += &format!(
            "; the MPI's start-up (MPI_Init) holds {} of it, a share that shrinks as the job runs longer",
            share(init.ns, o.time_in_mpi_ns)
        );
    }
    if !o.heaviest_calls.is_empty() {
        let calls: Vec<String> = (o.heaviest_calls.iter())
            .map(|(f, ns)| format!("{f} {}", share(*ns, o.time_in_mpi_ns)))
            .collect();
        note += &format!("; the heaviest calls: {}", calls.join(", "));
    }
    // The part that sets the two ranks apart, the largest of the differences, where
    // the two differ by a tenth of the lesser or more.
    if two && gap > 0.0 && gap >= 0.1 * of_rank(o.least_rank) {
        if let Some(p) = (o.parts.iter()).max_by(|a, b| {
            (a.most_rank_ns - a.least_rank_ns).total_cmp(&(b.most_rank_ns - b.least_rank_ns))
        }) {
            note += &format!(
                "; rank {} spent {} more in MPI than rank {}, the most of it {} ({} more)",
                o.most_rank,
                fmt_ns(Some(gap)),
                o.least_rank,
                p.part.split(" (").next().unwrap_or(p.part),
                fmt_ns(Some(p.most_rank_ns - p.least_rank_ns))
            );
        }
    }
    note += "; each part as in `Where each rank's MPI time goes`, summed over the ranks (an interval: the sum of theirs, so at least 95 %; none where every call is measured)";
    t.note = Some(note);
    Some(t)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use loggp_report::{CallStats, CollectiveSplit, RankEntry};

    /// Two ranks, each 100 ms in MPI_Init, 50 ms of transfer cost [45, 55], 5 ms of
    /// other calls, and a late-sender wait (±10 %) of `late_sender_ns[rank]`.
    pub(crate) fn two_ranks(late_sender_ns: [f64; 2]) -> Report {
        let mut r = Report::default();
        for (rank, late_sender) in [(0u32, late_sender_ns[0]), (1, late_sender_ns[1])] {
            r.time_split.push(TimeSplit {
                rank,
                time_in_mpi_ns: 100e6 + 50e6 + late_sender + 5e6,
                cost_ns: 50e6,
                cost_ns_ci: Some([45e6, 55e6]),
                late_sender_ns: late_sender,
                late_sender_ns_ci: Some([0.9 * late_sender, 1.1 * late_sender]),
                other_ns: 105e6,
                ..Default::default()
            });
            let mut k = RankEntry {
                rank,
                ..Default::default()
            };
            k.calls.insert(
                "MPI_Init".into(),
                CallStats {
                    count: 1,
                    time_ns: 100e6,
                    ..Default::default()
                },
            );
            k.calls.insert(
                "MPI_Recv".into(),
                CallStats {
                    count: 10,
                    time_ns: 50e6 + late_sender,
                    ..Default::default()
                },
            );
            r.ranks.push(k);
        }
        r
    }

    /// Two ranks with known parts: the start-up is taken out of other, the parts sum to
    /// the time in MPI, the intervals add, and the part that sets the ranks apart is
    /// named (LAMMPS's shape: one rank waiting for the other's sends).
    #[test]
    fn the_parts_add_up_and_the_rank_gap_is_named() {
        let r = two_ranks([400e6, 10e6]);
        let o = overview(&r).unwrap();
        let total: f64 = o.parts.iter().map(|p| p.ns).sum();
        assert!((total - o.time_in_mpi_ns).abs() < 1.0, "{total} {o:?}");
        let part = |name: &str| o.parts.iter().find(|p| p.part.starts_with(name)).unwrap();
        assert_eq!(part("in MPI_Init").ns, 200e6);
        assert_eq!(part("in other").ns, 10e6);
        let [lo, hi] = part("waiting for a late sender").ns_ci.unwrap();
        assert!(
            (lo - 369e6).abs() < 1.0 && (hi - 451e6).abs() < 1.0,
            "{lo} {hi}"
        );
        assert_eq!(part("in MPI_Init").ns_ci, None);
        assert_eq!((o.most_rank, o.least_rank), (0, 1));
        assert_eq!(o.heaviest_calls[0].0, "MPI_Recv");
        let note = table(&r).unwrap().note.unwrap();
        assert!(
            note.contains("rank 0 spent 390.00 ms more in MPI than rank 1, the most of it waiting for a late sender (390.00 ms more)"),
            "{note}"
        );
        // No one-sided or I/O calls: no such parts.
        assert!(!o.parts.iter().any(|p| matches!(p.part, ONE_SIDED | IO)));
    }

    /// One-sided and I/O calls are parts of their own, taken out of the other calls; the
    /// arrival wait of those the split divides as collectives (MPI_Win_fence, a
    /// collective I/O call) stays with the collectives, their cost goes to their part.
    #[test]
    fn a_nonblocking_collective_io_calls_cost_is_the_io_calls() {
        // Ten MPI_File_iwrite_all a rank, their starts 0.1 ms in all (in other_ns); the
        // Waits that completed them, 5 ms, split as collectives: of the 8 matched calls,
        // 0.3 ms of arrival wait and 0.2 ms of cost each.
        let mut r = two_ranks([1e6, 1e6]);
        for k in &mut r.ranks {
            k.calls.insert(
                "MPI_File_iwrite_all".into(),
                CallStats {
                    count: 10,
                    time_ns: 0.1e6,
                    ..Default::default()
                },
            );
            r.waits.collectives.push(CollectiveSplit {
                rank: k.rank,
                function: "MPI_File_iwrite_all".into(),
                calls_matched: 8,
                arrival_wait_ns: 0.3e6,
                cost_ns: 0.2e6,
                ..Default::default()
            });
        }
        for t in &mut r.time_split {
            t.other_ns += 0.1e6;
            t.collective_wait_ns += 3e6;
            t.collective_cost_ns += 2e6;
            t.collective_cost_ns_ci = Some([1.5e6, 2.5e6]);
            t.time_in_mpi_ns += 5.1e6;
        }
        let o = overview(&r).unwrap();
        let part = |name: &str| o.parts.iter().find(|p| p.part == name).unwrap();
        // Each rank: the starts and the ten calls' cost (2 ms) are I/O.
        assert!((part(IO).ns - 4.2e6).abs() < 1.0, "{o:?}");
        assert_eq!(part("waiting at collectives for the last member").ns, 6e6);
        let cost = part("in the collectives' cost");
        assert!(cost.ns.abs() < 1.0, "{cost:?}");
        let total: f64 = o.parts.iter().map(|p| p.ns).sum();
        assert!((total - o.time_in_mpi_ns).abs() < 1.0, "{total} {o:?}");
    }

    #[test]
    fn one_sided_and_io_calls_are_parts_of_their_own() {
        let mut r = two_ranks([1e6, 1e6]);
        for k in &mut r.ranks {
            for (f, ns) in [
                ("MPI_File_write_at_all", 2e6),
                ("MPI_File_write_at", 1e6),
                ("MPI_Put", 1e6),
                ("MPI_Win_fence", 0.5e6),
            ] {
                k.calls.insert(
                    f.into(),
                    CallStats {
                        count: 1,
                        time_ns: ns,
                        ..Default::default()
                    },
                );
            }
            // Matched write_at_all calls waited a quarter of their time for the last.
            r.waits.collectives.push(CollectiveSplit {
                rank: k.rank,
                function: "MPI_File_write_at_all".into(),
                calls_matched: 4,
                arrival_wait_ns: 0.25e6,
                cost_ns: 0.75e6,
                ..Default::default()
            });
        }
        for t in &mut r.time_split {
            t.other_ns += 2e6;
            t.collective_wait_ns += 0.5e6;
            t.collective_cost_ns += 2e6;
            t.collective_cost_ns_ci = Some([1.8e6, 2.2e6]);
            t.time_in_mpi_ns += 4.5e6;
        }
        let o = overview(&r).unwrap();
        let part = |name: &str| o.parts.iter().find(|p| p.part == name).unwrap();
        assert_eq!(part(IO).ns, 5e6);
        // The fence matched no call: its time, all cost, is the one-sided calls'.
        assert_eq!(part(ONE_SIDED).ns, 3e6);
        assert_eq!(
            part("in other calls (nonblocking starts, the rest)").ns,
            10e6
        );
        assert_eq!(part("waiting at collectives for the last member").ns, 1e6);
        let cost = part("in the collectives' cost");
        assert_eq!(cost.ns, 0.0);
        assert_eq!(cost.ns_ci, Some([0.0, 0.4e6]));
        let total: f64 = o.parts.iter().map(|p| p.ns).sum();
        assert!((total - o.time_in_mpi_ns).abs() < 1.0, "{total} {o:?}");
    }
}
