//! Coverage: whether the shim saw every message the application sent, by an independent
//! counter beneath PMPI. Open MPI's monitoring PML (`--mca pml_monitoring_enable 2`)
//! counts the messages and bytes each rank sends to each peer with the application's
//! tags. Open MPI 4.1 cannot hand those counters out through MPI_T (the monitoring PML
//! closes its component to interpose itself, which invalidates its performance variables:
//! open-mpi/ompi#9260), so they are read from the files the PML writes in the MPI's own
//! Finalize (`pml_monitoring_enable_output`, `pml_monitoring_filename`): rank 0 reads them
//! after MPI_Finalize returns and rewrites the report with the comparison. loggp's own
//! messages (calibration, the merge) are counted apart and taken away first.
use crate::base::mpi;
use crate::output::files;
use loggp_report::{compare_counts, parse_monitoring_prof, without_own, PairCounts, Report};
use std::time::{Duration, Instant};

/// How long rank 0 waits after MPI_Finalize for every rank's monitoring file.
const FILES_WAIT: Duration = Duration::from_secs(5);

fn mca(name: &str) -> Option<String> {
    std::env::var(format!("OMPI_MCA_{name}"))
        .ok()
        .filter(|v| !v.is_empty())
}

/// The prefix of the monitoring files to compare after MPI_Finalize, or why there is
/// nothing to compare (the coverage section's status at Finalize).
pub fn plan() -> Result<String, String> {
    if mpi::FLAVOR != "openmpi" {
        return Err("not compared: MPICH has no per-peer message counter beneath PMPI (Open MPI's monitoring PML has one)".into());
    }
    let enable = mca("pml_monitoring_enable").and_then(|v| v.parse::<i64>().ok());
    match enable {
        None | Some(0) => Err("not compared: Open MPI's monitoring PML is off (run with --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename PREFIX)".into()),
        Some(1) => Err("not compared: pml_monitoring_enable=1 counts the collectives' messages with the application's; 2 keeps them apart".into()),
        Some(_) => match (mca("pml_monitoring_enable_output"), mca("pml_monitoring_filename")) {
            (Some(o), Some(prefix)) if o != "0" => Ok(prefix),
            _ => Err("not compared: Open MPI's monitoring PML is on, but its counters cannot be read through MPI_T in Open MPI 4.1 (open-mpi/ompi#9260); add --mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename PREFIX for loggp to read its files".into()),
        },
    }
}

/// Every rank's monitoring file, once all are there and complete: per (from, to) the
/// (messages, bytes) with the application's tags.
fn read_files(prefix: &str, ranks: u32) -> Result<PairCounts, String> {
    let start = Instant::now();
    let read = || -> Option<PairCounts> {
        let mut all = PairCounts::new();
        for r in 0..ranks {
            let text = std::fs::read_to_string(format!("{prefix}.{r}.prof")).ok()?;
            // The PML writes its collectives section last: a file without it is still
            // being written.
            if !text.contains("# COLLECTIVES") {
                return None;
            }
            all.extend(parse_monitoring_prof(&text)?);
        }
        Some(all)
    };
    loop {
        if let Some(a) = read() {
            // Read twice, some time apart: equal reads are complete files.
            std::thread::sleep(Duration::from_millis(50));
            if read().as_ref() == Some(&a) {
                return Ok(a);
            }
        }
        if start.elapsed() > FILES_WAIT {
            return Err(format!(
                "not compared: the monitoring files {prefix}.<rank>.prof of {ranks} ranks were not all there and complete {} s after MPI_Finalize",
                FILES_WAIT.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Fills `report.coverage` from the monitoring files of `prefix`.
pub fn compare(report: &mut Report, prefix: &str) {
    let c = &mut report.coverage;
    match read_files(prefix, report.job.ranks) {
        Err(why) => c.status = why,
        Ok(counter) => {
            // Open MPI 4.1's MPI_Start calls the PML's request directly, past the
            // monitoring layer: messages of persistent requests are not in its counts
            // (the application's, and loggp's own persistent exchange's).
            let v4 = report.job.mpi_library.contains("Open MPI v4.");
            let app = without_own(counter, &c.own_traffic, v4);
            c.differences = compare_counts(&report.matrix, &app, v4);
            c.equal = Some(c.differences.is_empty());
            c.status = format!(
                "compared with Open MPI's monitoring PML ({prefix}.<rank>.prof, user-tag messages per peer, loggp's own messages taken away{}): {}",
                if v4 {
                    "; messages of persistent requests left out, which Open MPI 4.1's monitoring does not count"
                } else {
                    ""
                },
                if c.differences.is_empty() {
                    format!("equal in messages and bytes on all {} pairs", app.len())
                } else {
                    format!("{} pairs differ", c.differences.len())
                }
            );
            for d in c.differences.clone() {
                report.warnings.push(format!(
                    "coverage: {}→{}: loggp saw {} messages ({} B), Open MPI's monitoring counted {} ({} B)",
                    d.from, d.to, d.matrix_messages, d.matrix_bytes, d.counter_messages, d.counter_bytes
                ));
            }
        }
    }
}

/// After the MPI's own Finalize, on rank 0: the monitoring files compared with the
/// report just written, and the report rewritten with the result.
pub fn after_mpi_finalize(path: &str, prefix: &str) {
    let Ok(mut r) = loggp_report::read(path) else {
        return;
    };
    compare(&mut r, prefix);
    files::write_report(path, &r, 0, false);
}
