//! A set of per-rank files (interim snapshots or the partial files of a job that died)
//! read as one job: `loggp show dir/` or `loggp show a.rank0.json a.rank1.json`.
//!
//! The per-rank statistics (calls, time in MPI, calls in progress) combine exactly; the
//! calibration is the one rank 0 measured (its file holds it). Each rank file carries its
//! rank's statistics cells with their histograms, so the job's cells are their sum, and
//! the passive bins, percentiles, envelopes, ranges and brackets are computed from them
//! exactly as the final report computes them at MPI_Finalize (`loggp_model::estimate`).
use loggp_report::Report;

/// The rank files a path names: a directory's `*.rank<N>.json`, or the file itself.
pub fn rank_files(path: &str) -> Result<Vec<String>, String> {
    let p = std::path::Path::new(path);
    if !p.is_dir() {
        return Ok(vec![path.to_string()]);
    }
    let mut v: Vec<String> = std::fs::read_dir(p)
        .map_err(|e| format!("cannot read {path}: {e}"))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|f| {
            let n = f.file_name().unwrap_or_default().to_string_lossy();
            n.ends_with(".json")
                && n.rsplit_once(".rank").is_some_and(|(_, r)| {
                    r.trim_end_matches(".json")
                        .chars()
                        .all(|c| c.is_ascii_digit())
                })
        })
        .map(|f| f.display().to_string())
        .collect();
    v.sort();
    if v.is_empty() {
        return Err(format!(
            "{path}: no rank files (<report>.rank<N>.json) in it"
        ));
    }
    Ok(v)
}

/// One job from its rank files, marked incomplete.
pub fn merge(mut files: Vec<Report>) -> Result<Report, String> {
    if files.is_empty() {
        return Err("no reports given".into());
    }
    files.sort_by_key(|r| r.job.partial_rank.unwrap_or(u32::MAX));
    let jobs: Vec<&str> = files.iter().map(|r| r.job.job_id.as_str()).collect();
    if jobs.iter().any(|j| *j != jobs[0]) {
        return Err(format!(
            "the files are of different jobs ({})",
            jobs.join(", ")
        ));
    }
    if let Some(r) = files.iter().find(|r| r.job.partial_rank.is_none()) {
        return Err(format!(
            "not a rank file: a complete report ({}); show it alone",
            r.job.executable
        ));
    }
    // The calibration and the job's description: from the file that has the calibration
    // (rank 0's), else the first.
    let base = files
        .iter()
        .position(|r| !r.calibration.mpi.is_empty())
        .unwrap_or(0);
    let mut out = files[base].clone();
    let ends: Vec<String> = files
        .iter()
        .map(|r| format!("rank {}: {}", r.job.partial_rank.unwrap_or(0), r.job.end))
        .collect();
    out.job.complete = false;
    out.job.interim = files.iter().any(|r| r.job.interim);
    out.job.partial_rank = None;
    out.job.end = ends.join("; ");
    // The longest-running rank's wall time, and loggp's own time in it.
    if let Some(longest) = files
        .iter()
        .max_by(|a, b| a.job.wall_time_ns.total_cmp(&b.job.wall_time_ns))
    {
        out.job.wall_time_ns = longest.job.wall_time_ns;
        out.job.loggp_time_ns = longest.job.loggp_time_ns;
    }
    out.job.hosts = {
        let mut h: Vec<String> = files.iter().flat_map(|r| r.job.hosts.clone()).collect();
        h.sort();
        h.dedup();
        h
    };
    out.ranks = files.iter().flat_map(|r| r.ranks.clone()).collect();
    out.ranks.sort_by_key(|k| k.rank);
    out.ranks.dedup_by_key(|k| k.rank);
    out.warnings = files
        .iter()
        .flat_map(|r| r.warnings.clone())
        .collect::<Vec<_>>();
    out.warnings.dedup();
    let have = out.ranks.len() as u32;
    if have < out.job.ranks {
        out.warnings.push(format!(
            "rank files of {have} of {} ranks: the others wrote none (yet)",
            out.job.ranks
        ));
    }
    out.cells = loggp_report::merge_cells(files.iter().flat_map(|r| &r.cells));
    out.passive.clear();
    if out.cells.is_empty() {
        out.sections.insert(
            "passive.ranges".into(),
            "not fitted: rank files without statistics cells (written by loggp before they carried them)".into(),
        );
    } else {
        let s = loggp_model::Settings::for_report(&out);
        loggp_model::estimate(&mut out, &s);
        out.sections.insert("passive.ranges".into(), "done".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use loggp_report::{CallStats, Job, RankEntry};

    fn rank_file(rank: u32, calls: u64) -> Report {
        let mut e = RankEntry {
            rank,
            ..Default::default()
        };
        e.calls.insert(
            "MPI_Send".into(),
            CallStats {
                count: calls,
                bytes: 8 * calls,
                time_ns: 100.0,
            },
        );
        Report {
            job: Job {
                ranks: 3,
                job_id: "7".into(),
                partial_rank: Some(rank),
                interim: true,
                end: "interim: SIGUSR1".into(),
                ..Default::default()
            },
            ranks: vec![e],
            ..Default::default()
        }
    }

    #[test]
    fn rank_files_combine_into_one_incomplete_job() {
        let r = merge(vec![rank_file(1, 5), rank_file(0, 3)]).unwrap();
        assert!(!r.job.complete && r.job.interim);
        assert_eq!(r.ranks.iter().map(|k| k.rank).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(r.ranks[1].calls["MPI_Send"].count, 5);
        assert!(r.warnings.iter().any(|w| w.contains("2 of 3 ranks")));
        let mut other = rank_file(2, 1);
        other.job.job_id = "8".into();
        assert!(merge(vec![rank_file(0, 1), other]).is_err());
        let mut complete = rank_file(0, 1);
        complete.job.partial_rank = None;
        assert!(merge(vec![complete]).is_err());
    }
}
