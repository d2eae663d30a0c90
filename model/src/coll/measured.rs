//! What the job measured of each collective, for the model to set its prices beside:
//! the time split's cost (or the fastest decile of the calls without it), and the
//! members' entry pattern.
use super::COLLECTIVES;
use loggp_report::{bins, Mode, Report};

/// The message size m of a call from its send plus receive bytes at one rank (the way
/// loggp counts a collective's bytes): Allreduce m + m, Bcast m, Allgather m + n·m,
/// Alltoall n·m + n·m, Reduce m (2m at the root). MPI_IN_PLACE halves what is counted
/// for Allreduce, Allgather and Alltoall; the model takes the calls as not in place.
pub(super) fn message_bytes(coll: &str, n: u32, bytes: f64) -> u64 {
    let n = n.max(1) as f64;
    (match coll {
        "allreduce" => bytes / 2.0,
        "allgather" => bytes / (n + 1.0),
        "alltoall" => bytes / (2.0 * n),
        "barrier" => 0.0,
        _ => bytes,
    })
    .round() as u64
}

/// A measured collective: function, communicator size, size bin, message size, its
/// cost and interval, the calls behind it, and where the cost comes from.
pub(super) struct Measured {
    pub(super) function: String,
    pub(super) coll: &'static str,
    pub(super) n: u32,
    pub(super) bin: (u64, u64),
    pub(super) m: u64,
    pub(super) cost: Option<(f64, Option<[f64; 2]>)>,
    pub(super) calls: u64,
    pub(super) from: &'static str,
    /// The largest member's mean wait for the last entry (ns; 0 without the time split).
    pub(super) lead_ns: f64,
    /// Each member's median wait for the last entry, by rank (the time split's; none in
    /// reports of earlier versions).
    pub(super) waits: Vec<(u32, f64)>,
}

pub(super) fn measured(r: &Report) -> Vec<Measured> {
    let key = |f: &str| COLLECTIVES.iter().find(|c| c.0 == f).map(|c| c.1);
    let mut out: Vec<Measured> = vec![];
    if r.waits.status == "done" {
        for c in &r.waits.collectives {
            let Some(coll) = key(&c.function) else {
                continue;
            };
            let m = message_bytes(coll, c.comm_size, c.bytes_mean);
            let i = match out.iter().position(|x| {
                x.function == c.function && x.n == c.comm_size && x.bin.0 == c.size_lo_bytes
            }) {
                Some(i) => i,
                None => {
                    out.push(Measured {
                        function: c.function.clone(),
                        coll,
                        n: c.comm_size,
                        bin: (c.size_lo_bytes, c.size_hi_bytes),
                        m,
                        cost: None,
                        calls: 0,
                        lead_ns: 0.0,
                        waits: vec![],
                        from: if c.cost_median_ns.is_some() {
                            "the time split's collective cost: the largest over the members of the median time from the last entry to the member's exit (the model prices a call, not a preempted one; the mean is in waits.collectives)"
                        } else {
                            "the time split's collective cost: the largest over the members of the mean time from the last entry to the member's exit"
                        },
                    });
                    out.len() - 1
                }
            };
            let x = &mut out[i];
            // The root of a Reduce counts 2m: the other members give m.
            x.m = x.m.min(m);
            x.calls = x.calls.max(c.calls_matched);
            x.lead_ns = x.lead_ns.max(c.arrival_wait_ns);
            if let Some(w) = c.arrival_wait_median_ns {
                x.waits.push((c.rank, w));
            }
            // The median where the report has it (see `CollectiveSplit::cost_median_ns`).
            let (cost, ci) = match c.cost_median_ns {
                Some(v) => (v, c.cost_median_ns_ci),
                None => (c.cost_ns, c.cost_ns_ci),
            };
            if x.cost.is_none_or(|(v, _)| cost > v) {
                x.cost = Some((cost, ci));
            }
        }
        return out;
    }
    // Without the time split: the fastest decile of the calls, which waited least.
    for c in &r.cells {
        let (Some(coll), Some(n), Mode::Collective) = (key(&c.function), c.comm_size, c.mode)
        else {
            continue;
        };
        if c.count == 0 {
            continue;
        }
        let hist: Vec<(u16, u64)> = c.hist.iter().map(|x| (x[0] as u16, x[1])).collect();
        let bin = bins::size_bin_range(c.size_bin);
        out.push(Measured {
            function: c.function.clone(),
            coll,
            n,
            bin,
            m: message_bytes(coll, n, c.bytes as f64 / c.count as f64),
            cost: bins::quantile(&hist, 0.1).map(|q| (q, bins::quantile_ci(&hist, 0.1))),
            calls: c.count,
            lead_ns: 0.0,
            waits: vec![],
            from: "the fastest decile of the calls (no time split in this report): waiting is not taken out",
        });
    }
    out
}

/// Each member's entry (ns after the first), from the time split's median wait of each
/// for the last entry: the members' own order and spacing (the median: a member
/// preempted before a few calls moves the mean by far more than the typical lead). Only
/// for a communicator of all the job's ranks with every one of them in the split (the
/// record does not map a smaller communicator's members to ranks, nor name a Bcast's
/// root: rank 0 is taken as it); elsewhere all at 0.
pub(super) fn entry_offsets(x: &Measured, ranks: usize) -> Vec<f64> {
    let n = x.n as usize;
    let mut wait = vec![f64::NAN; n];
    if n == ranks {
        for &(rank, w) in &x.waits {
            if let Some(v) = wait.get_mut(rank as usize) {
                *v = w;
            }
        }
    }
    if wait.iter().any(|w| !w.is_finite()) {
        return vec![0.0; n];
    }
    let most = wait.iter().copied().fold(0.0, f64::max);
    wait.iter().map(|w| most - w).collect()
}
