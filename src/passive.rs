//! The reduce step of passive learning: merged per-(function, mode, class, size bin)
//! histograms in, `passive[].bins` out — each bin with the lower envelope the estimators
//! use and its interval. The estimates themselves (ranges, brackets, model check) are the
//! model's (`loggp_model::passive`), at report time and in `loggp refit`.
use crate::collect::{Cell, CellKey};
use crate::intercept::Func;
use crate::stats::{Class, Mode};
use loggp_report::bins::{quantile, quantile_ci, size_bin_range};
use loggp_report::{Bin, Passive};
use std::collections::BTreeMap;

/// Pseudo record: spacing between the starts of back-to-back sends to one peer.
pub const BURST_GAP: u8 = (crate::stats::MAX_FUNCS - 1) as u8;

/// Functions whose call duration is a sample of a message's mode: the initiating calls.
pub(crate) fn initiates(f: u8) -> bool {
    use Func::*;
    [
        MPI_Send,
        MPI_Ssend,
        MPI_Bsend,
        MPI_Rsend,
        MPI_Isend,
        MPI_Issend,
        MPI_Ibsend,
        MPI_Irsend,
        MPI_Recv,
        MPI_Irecv,
        MPI_Mrecv,
        MPI_Imrecv,
        MPI_Sendrecv,
        MPI_Sendrecv_replace,
        MPI_Start,
    ]
    .iter()
    .chain(crate::intercept::MPI4_INITIATES)
    .any(|&x| x as u8 == f)
}

fn completes(f: u8) -> bool {
    use Func::*;
    [
        MPI_Wait,
        MPI_Test,
        MPI_Waitall,
        MPI_Testall,
        MPI_Waitany,
        MPI_Testany,
        MPI_Waitsome,
        MPI_Testsome,
    ]
    .iter()
    .any(|&x| x as u8 == f)
}

fn blocking(m: Mode) -> bool {
    matches!(
        m,
        Mode::Send | Mode::Ssend | Mode::Bsend | Mode::Rsend | Mode::Recv | Mode::Sendrecv
    )
}

/// The lower envelope: the 10th percentile (a robust low quantile, not the single minimum,
/// which one lucky timer read decides), never below the exact minimum.
const ENVELOPE_Q: f64 = 0.10;

fn low(c: &Cell) -> Option<(f64, [f64; 2])> {
    let q = quantile(&c.hist, ENVELOPE_Q)?.max(c.min_ns);
    let ci = quantile_ci(&c.hist, ENVELOPE_Q)?;
    Some((q, [ci[0].max(c.min_ns).min(q), ci[1].max(q)]))
}

/// `passive[]`: per (peer class, mode) the bins of the initiating calls, with envelopes.
pub fn sets(cells: &BTreeMap<CellKey, Cell>) -> Vec<Passive> {
    let mut init: BTreeMap<(u8, u8), BTreeMap<u16, Cell>> = BTreeMap::new();
    let mut done: BTreeMap<(u8, u8, u16), Cell> = BTreeMap::new();
    let mut gaps: BTreeMap<(u8, u8, u16), Cell> = BTreeMap::new();
    for (&(f, m, cl, bin), c) in cells {
        let class = Class::from_u8(cl);
        if Mode::from_u8(m) == Mode::None
            || !matches!(class, Class::SelfRank | Class::IntraNode | Class::InterNode)
        {
            continue;
        }
        if initiates(f) {
            init.entry((cl, m))
                .or_default()
                .entry(bin)
                .or_default()
                .merge(c);
        } else if completes(f) {
            done.entry((cl, m, bin)).or_default().merge(c);
        } else if f == BURST_GAP {
            gaps.entry((cl, m, bin)).or_default().merge(c);
        }
    }
    init.into_iter()
        .map(|((cl, m), bins)| {
            let mode = Mode::from_u8(m);
            Passive {
                peer_class: Class::from_u8(cl).name().into(),
                mode: mode.name().into(),
                ranges: vec![],
                ranges_status: None,
                bins: bins
                    .into_iter()
                    .map(|(bin, c)| {
                        let (lo, hi) = size_bin_range(bin);
                        let q = |p: f64| quantile(&c.hist, p).map(|v| v.max(c.min_ns));
                        let mut env = low(&c);
                        let mut p50 = q(0.5);
                        if !blocking(mode) {
                            // A nonblocking operation costs its caller the start and the
                            // completion call.
                            if let Some(d) = done.get(&(cl, m, bin)) {
                                if let (Some((e, ci)), Some((de, dci))) = (env, low(d)) {
                                    env = Some((e + de, [ci[0] + dci[0], ci[1] + dci[1]]));
                                }
                                p50 = p50.map(|v| v + quantile(&d.hist, 0.5).unwrap_or(0.0));
                            }
                        }
                        let g = gaps.get(&(cl, m, bin));
                        let gap = g.and_then(low);
                        Bin {
                            size_lo_bytes: lo,
                            size_hi_bytes: hi,
                            smallest_bytes: c.min_size,
                            largest_bytes: c.max_size,
                            count: c.count,
                            min_ns: Some(c.min_ns),
                            p10_ns: q(0.10),
                            p50_ns: q(0.50),
                            p90_ns: q(0.90),
                            mean_ns: Some(c.time_ns / c.count as f64),
                            envelope_ns: env.map(|e| e.0),
                            envelope_ns_ci: env.map(|e| e.1),
                            envelope_p50_ns: p50,
                            burst_gaps: g.map(|g| g.count).unwrap_or(0),
                            burst_gap_ns: gap.map(|e| e.0),
                            burst_gap_ns_ci: gap.map(|e| e.1),
                        }
                    })
                    .collect(),
            }
        })
        .collect()
}
