//! The job's tables: time in MPI per rank, ranks still running, the calls, the bins.
use crate::table::*;
use loggp_report::{Mode, Report, Role};
use std::collections::BTreeMap;

/// The families a rank's time in MPI is split into.
const FAMILIES: [&str; 5] = ["point-to-point", "collectives", "one-sided", "I/O", "other"];
pub(crate) const ONE_SIDED: usize = 2;
pub(crate) const IO: usize = 3;
const OTHER: usize = 4;

/// One-sided communication (MPI 4.0 §12: windows, their communication and
/// synchronization) and I/O (§14: `MPI_File_*`), by the standard's names: their cells
/// carry no mode of their own.
pub(crate) fn named_family(f: &str) -> Option<usize> {
    const RMA: [&str; 10] = [
        "MPI_Put",
        "MPI_Get",
        "MPI_Accumulate",
        "MPI_Get_accumulate",
        "MPI_Fetch_and_op",
        "MPI_Compare_and_swap",
        "MPI_Rput",
        "MPI_Rget",
        "MPI_Raccumulate",
        "MPI_Rget_accumulate",
    ];
    if f.starts_with("MPI_File_") {
        Some(IO)
    } else if f.starts_with("MPI_Win_") || RMA.contains(&f) {
        Some(ONE_SIDED)
    } else {
        None
    }
}

/// The family of each function in the report (an index into `FAMILIES`): one-sided and
/// I/O by name, collectives (every cell of mode `collective`: the communicator
/// constructors too), point-to-point (it starts, completes or probes messages: a Wait
/// that completed requests of both families, or of a one-sided or I/O request, counts
/// here), other (MPI_Init, MPI_Finalize). A function without cells (a report before 0.3,
/// which intercepted point-to-point calls only) is point-to-point unless it is one of the
/// lifecycle calls.
pub fn family_of(r: &Report) -> impl Fn(&str) -> usize + '_ {
    let mut seen: BTreeMap<&str, (bool, bool)> = BTreeMap::new();
    for c in &r.cells {
        let e = seen.entry(c.function.as_str()).or_default();
        if c.mode == Mode::Collective {
            e.0 = true;
        } else if matches!(c.role, Role::Initiates | Role::Completes | Role::Probes) {
            e.1 = true;
        }
    }
    move |f: &str| {
        if let Some(family) = named_family(f) {
            return family;
        }
        match seen.get(f) {
            Some((true, false)) => 1,
            Some((_, true)) => 0,
            Some(_) => OTHER,
            None if matches!(
                f,
                "MPI_Init" | "MPI_Init_thread" | "MPI_Finalize" | "MPI_Abort" | "MPI_Comm_free"
            ) =>
            {
                OTHER
            }
            None => 0,
        }
    }
}

/// Rank 0's wall time less loggp's own work in it (`Job::loggp_time_ns`), where known.
pub fn app_wall_ns(j: &loggp_report::Job) -> Option<f64> {
    j.loggp_time_ns
        .filter(|&t| t > 0.0 && t < j.wall_time_ns)
        .map(|t| j.wall_time_ns - t)
}

/// Time in MPI per rank; above 32 ranks the spread and the 8 ranks with the most.
pub fn rank_table(r: &Report) -> Option<Table> {
    if r.ranks.is_empty() {
        return None;
    }
    // The application's wall time: loggp's own work (calibration, reduction) taken out.
    let wall = app_wall_ns(&r.job).unwrap_or(r.job.wall_time_ns);
    let share = |t: f64, wall: f64| {
        if wall > 0.0 {
            format!("{:.1} %", 100.0 * t / wall)
        } else {
            "—".into()
        }
    };
    let pct = |t: f64| share(t, wall);
    // A rank's own wall time where the report has it (a rank that entered MPI_Init before
    // rank 0 spent more than rank 0's wall time in MPI).
    let rank_pct =
        |k: &loggp_report::RankEntry| share(k.time_in_mpi_ns, k.app_wall_time_ns.unwrap_or(wall));
    let calls = |k: &loggp_report::RankEntry| k.calls.values().map(|c| c.count).sum::<u64>();
    let family = family_of(r);
    let split = |k: &loggp_report::RankEntry| {
        let mut t = [0.0f64; FAMILIES.len()];
        for (f, c) in &k.calls {
            t[family(f)] += c.time_ns;
        }
        t
    };
    // One-sided and I/O columns only where a rank made such calls.
    let shown: Vec<usize> = (0..FAMILIES.len())
        .filter(|&i| {
            !matches!(i, ONE_SIDED | IO)
                || r.ranks
                    .iter()
                    .any(|k| k.calls.keys().any(|f| family(f) == i))
        })
        .collect();
    let mut columns = vec![
        "rank",
        "host",
        "time in MPI",
        if app_wall_ns(&r.job).is_some() {
            "of app. wall time"
        } else {
            "of wall time"
        },
    ];
    columns.extend(shown.iter().map(|&i| FAMILIES[i]));
    columns.push("calls");
    let mut t = Table::new("Time in MPI (intercepted calls) per rank", &columns);
    let blanks = shown.len() + 1;
    let mut ranks: Vec<_> = r.ranks.iter().collect();
    if ranks.len() > 32 {
        let mut v: Vec<f64> = ranks.iter().map(|k| k.time_in_mpi_ns).collect();
        v.sort_by(f64::total_cmp);
        for (name, x) in [
            ("min", v[0]),
            ("median", v[v.len() / 2]),
            ("max", v[v.len() - 1]),
        ] {
            let mut row = vec![name.into(), "".into(), fmt_ns(Some(x)), pct(x)];
            row.extend(std::iter::repeat_n(String::new(), blanks));
            t.row(row);
        }
        ranks.sort_by(|a, b| b.time_in_mpi_ns.total_cmp(&a.time_in_mpi_ns));
        ranks.truncate(8);
        t.note = Some(format!(
            "{} ranks: the spread, then the 8 with the most time in MPI",
            r.ranks.len()
        ));
    }
    for k in ranks {
        let by_family = split(k);
        let mut row = vec![
            k.rank.to_string(),
            k.host.clone(),
            fmt_ns(Some(k.time_in_mpi_ns)),
            rank_pct(k),
        ];
        row.extend(shown.iter().map(|&i| fmt_ns(Some(by_family[i]))));
        row.push(calls(k).to_string());
        t.row(row);
    }
    Some(t)
}

/// The intercepted calls that had not returned when the rank files were written: in a
/// hung job, who waits on whom.
pub fn in_progress_table(r: &Report) -> Option<Table> {
    let rows: Vec<_> = r
        .ranks
        .iter()
        .flat_map(|k| k.in_progress.iter().map(move |c| (k.rank, c)))
        .collect();
    if rows.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "In progress when written (calls that had not returned)",
        &["rank", "call", "peer", "size", "requests", "for"],
    );
    for (rank, c) in rows {
        t.row(vec![
            rank.to_string(),
            c.function.clone(),
            c.peer.map(|p| p.to_string()).unwrap_or_else(|| "—".into()),
            c.bytes.map(fmt_bytes).unwrap_or_else(|| "—".into()),
            c.requests.map(|n| n.to_string()).unwrap_or_default(),
            fmt_ns(Some(c.for_ns)),
        ]);
    }
    Some(t)
}

/// Per function, over all ranks: (calls, bytes, time in ns).
pub fn call_totals(r: &Report) -> BTreeMap<&str, (u64, u64, f64)> {
    let mut totals: BTreeMap<&str, (u64, u64, f64)> = BTreeMap::new();
    for rank in &r.ranks {
        for (f, c) in &rank.calls {
            let t = totals.entry(f).or_default();
            t.0 += c.count;
            t.1 += c.bytes;
            t.2 += c.time_ns;
        }
    }
    totals
}

pub fn calls_table(r: &Report) -> Option<Table> {
    let totals = call_totals(r);
    if totals.is_empty() {
        return None;
    }
    let mut rows: Vec<_> = totals.into_iter().collect();
    rows.sort_by(|a, b| b.1 .2.total_cmp(&a.1 .2).then(a.0.cmp(b.0)));
    let mut t = Table::new(
        "Calls (all ranks)",
        &["function", "count", "bytes", "time", "mean"],
    );
    for (f, (c, b, time)) in rows {
        t.row(vec![
            f.into(),
            c.to_string(),
            fmt_bytes(b),
            fmt_ns(Some(time)),
            fmt_ns((c > 0).then(|| time / c as f64)),
        ]);
    }
    Some(t)
}

pub fn bins_tables(r: &Report) -> Vec<Table> {
    r.passive
        .iter()
        .map(|p| {
            let mut t = Table::new(
                format!("Passive bins — {} {}", p.peer_class, p.mode),
                &["size (B)", "count", "min", "p10", "p50", "p90"],
            );
            for b in &p.bins {
                t.row(vec![
                    fmt_span(b.smallest_bytes, b.largest_bytes),
                    b.count.to_string(),
                    fmt_ns(b.min_ns),
                    fmt_ns(b.p10_ns),
                    fmt_ns(b.p50_ns),
                    fmt_ns(b.p90_ns),
                ]);
            }
            t
        })
        .collect()
}
