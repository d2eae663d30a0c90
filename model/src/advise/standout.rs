//! Ranks whose MPI time stands far from the others'.
use crate::stats::median;
use loggp_report::Report;
use serde::Serialize;

/// A rank whose time in MPI stands out from the others'.
#[derive(Clone, Debug, Serialize)]
pub struct Standout {
    pub rank: u32,
    pub host: String,
    pub time_in_mpi_ns: f64,
    pub median_ns: f64,
    /// (time − median) / (1.4826 · MAD): how many robust standard deviations away.
    pub robust_z: f64,
    /// The median absolute deviation it is measured in, and over how many ranks.
    pub mad_ns: f64,
    pub ranks: usize,
}

/// Ranks whose time in MPI lies more than 3.5 robust standard deviations (median
/// absolute deviation, Iglewicz–Hoaglin) and 20 % from the median, in a job of 4 ranks
/// or more; the largest first.
pub fn standout_ranks(r: &Report) -> Vec<Standout> {
    if r.ranks.len() < 4 {
        return vec![];
    }
    let t: Vec<f64> = r.ranks.iter().map(|k| k.time_in_mpi_ns).collect();
    let Some(med) = median(&t) else {
        return vec![];
    };
    let dev: Vec<f64> = t.iter().map(|x| (x - med).abs()).collect();
    let mad = median(&dev).unwrap_or(0.0).max(med * 0.01).max(1.0);
    let mut out: Vec<Standout> = r
        .ranks
        .iter()
        .map(|k| Standout {
            rank: k.rank,
            host: k.host.clone(),
            time_in_mpi_ns: k.time_in_mpi_ns,
            median_ns: med,
            robust_z: (k.time_in_mpi_ns - med) / (1.4826 * mad),
            mad_ns: mad,
            ranks: t.len(),
        })
        .filter(|x| x.robust_z.abs() > 3.5 && (x.time_in_mpi_ns - med).abs() > 0.2 * med)
        .collect();
    out.sort_by(|a, b| b.robust_z.abs().total_cmp(&a.robust_z.abs()));
    out
}
