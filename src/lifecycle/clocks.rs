//! Clock offsets to rank 0 (issue 25 §2): at MPI_Init and at MPI_Finalize rank 0 plays a
//! short ping-pong with every other rank on the private communicator. In each exchange
//! rank 0 reads its counter (t_a), sends, the rank answers with its own reading (t_r),
//! and rank 0 reads again (t_b); the rank's offset is t_r − (t_a + t_b)/2, and the true
//! offset lies within half the round trip of it (Cristian's bound). Of the exchanges, the
//! one with the shortest round trip is kept. The offset is in counter ticks, converted
//! with rank 0's rate; drift is the change of offset between the two ends over the time
//! between them. A rank shares rank 0's counter when it runs on rank 0's host, the
//! counter is invariant, and both offsets are within their uncertainty of 0: established
//! by measurement, not assumed.
use crate::base::mpi::{self, MPI_Comm};
use crate::base::{clock, settings};
use crate::record::matrix;
use crate::reduce::waits::ToRank0;
use loggp_report::{ClockOffset, ClockSync, RankClock};
use std::os::raw::c_int;
use std::sync::OnceLock;

const CLOCK_TAG: c_int = 0x10_67;

/// One end's measurement on rank 0: per rank 1..N, (offset ticks, round trip ticks,
/// exchanges), and rank 0's counter when it was taken.
#[derive(Clone, Debug)]
pub struct Sync {
    pub at_ticks: u64,
    pub ranks: Vec<(i64, u64, u32)>,
}

static AT_INIT: OnceLock<Sync> = OnceLock::new();
static AT_FIN: OnceLock<Sync> = OnceLock::new();

/// Exchanges per rank: 16 up to 256 ranks, fewer beyond so that the sync stays about
/// 4096 round trips (at least 4 each).
fn exchanges(size: i32) -> u32 {
    (4096 / size.max(1) as u32).clamp(4, 16)
}

/// LOGGP_INJECT_FAULT=clock_skew: rank 1's counter reads 5 ms ahead and rank 2's 5 ms
/// behind (in the sync and in the waits' samples), so that a test can check the offsets
/// and the split against a known truth.
pub(crate) fn injected_skew_ticks(rank: i32) -> i64 {
    let sign = match rank {
        1 => 1.0,
        2 => -1.0,
        _ => return 0,
    };
    if !settings::inject("clock_skew") {
        return 0;
    }
    (sign * 5e6 / clock::ns_per_tick(clock::hz())) as i64
}

/// The ping-pong; every rank calls it. Rank 0 gets the measurement.
pub(crate) fn sync(comm: MPI_Comm, rank: i32, size: i32) -> Option<Sync> {
    let n = exchanges(size);
    let skew = injected_skew_ticks(rank);
    let send = |v: u64, to: c_int| {
        matrix::own_sent(to, 8);
        // SAFETY: one u64 on the private communicator.
        unsafe {
            mpi::PMPI_Send(
                &v as *const u64 as *const _,
                1,
                mpi::dt_u64(),
                to,
                CLOCK_TAG,
                comm,
            )
        };
    };
    let recv = |from: c_int| -> u64 {
        let mut v: u64 = 0;
        // SAFETY: room for one u64; private communicator.
        unsafe {
            mpi::PMPI_Recv(
                &mut v as *mut u64 as *mut _,
                1,
                mpi::dt_u64(),
                from,
                CLOCK_TAG,
                comm,
                mpi::status_ignore(),
            )
        };
        v
    };
    if rank != 0 {
        for _ in 0..n {
            recv(0);
            send(clock::now().wrapping_add_signed(skew), 0);
        }
        return None;
    }
    let at_ticks = clock::now();
    let mut ranks = Vec::with_capacity(size.max(1) as usize - 1);
    for r in 1..size {
        let mut best: Option<(i64, u64)> = None;
        for _ in 0..n {
            let ta = clock::now();
            send(ta, r);
            let tr = recv(r);
            let tb = clock::now();
            let rtt = tb.wrapping_sub(ta);
            let mid = ta as i128 + rtt as i128 / 2;
            let off = (tr as i128 - mid) as i64;
            if best.is_none_or(|(_, b)| rtt < b) {
                best = Some((off, rtt));
            }
        }
        let (off, rtt) = best.unwrap_or((0, 0));
        ranks.push((off, rtt, n));
    }
    Some(Sync { at_ticks, ranks })
}

/// At MPI_Init (every rank): measured and kept on rank 0.
pub(crate) fn at_init(comm: MPI_Comm, rank: i32, size: i32) {
    if let Some(s) = sync(comm, rank, size) {
        let _ = AT_INIT.set(s);
    }
}

/// At MPI_Finalize (every rank): rank 0 returns the report's section.
pub(crate) fn at_finalize(
    comm: MPI_Comm,
    rank: i32,
    size: i32,
    node_of: &[u32],
) -> Option<ClockSync> {
    let fin = sync(comm, rank, size)?;
    let _ = AT_FIN.set(fin.clone());
    let ns = clock::ns_per_tick(clock::hz());
    let init = AT_INIT.get();
    let offset = |(off, rtt, n): (i64, u64, u32)| ClockOffset {
        offset_ns: off as f64 * ns,
        uncertainty_ns: rtt as f64 * ns / 2.0,
        exchanges: n,
    };
    let within = |o: &ClockOffset| o.offset_ns.abs() <= o.uncertainty_ns;
    let ranks = (1..size as usize)
        .map(|r| {
            let f = fin.ranks.get(r - 1).copied().map(offset);
            let i = init.and_then(|s| s.ranks.get(r - 1).copied()).map(offset);
            let elapsed_ns = init.map(|s| fin.at_ticks.wrapping_sub(s.at_ticks) as f64 * ns);
            let (drift_ppm, drift_ppm_uncertainty) = match (&i, &f, elapsed_ns) {
                (Some(i), Some(f), Some(e)) if e > 0.0 => (
                    Some((f.offset_ns - i.offset_ns) / e * 1e6),
                    Some((f.uncertainty_ns + i.uncertainty_ns) / e * 1e6),
                ),
                _ => (None, None),
            };
            let same_host = node_of.get(r) == node_of.first();
            RankClock {
                rank: r as u32,
                same_counter_as_rank0: same_host
                    && clock::invariant()
                    && i.as_ref().is_none_or(within)
                    && f.as_ref().is_some_and(within),
                at_init: i,
                at_finalize: f,
                drift_ppm,
                drift_ppm_uncertainty,
            }
        })
        .collect();
    Some(ClockSync {
        status: if init.is_some() {
            "done".into()
        } else {
            "at MPI_Finalize only: MPI_Init's measurement is missing".into()
        },
        method: "ping-pong with rank 0 on loggp's private communicator at MPI_Init and MPI_Finalize; per rank the exchange with the shortest round trip; offset = t_rank − (t_send + t_receive)/2 in rank 0's counter ticks at rank 0's rate, ± half that round trip (Cristian)".into(),
        ranks,
    })
}

/// Every rank learns its own conversion from rank 0 (after `at_finalize`; a scatter on
/// the private communicator, collective on all ranks).
pub(crate) fn conversions(comm: MPI_Comm, rank: i32, size: i32, node_of: &[u32]) -> ToRank0 {
    const W: usize = 5;
    let mut all: Vec<u64> = Vec::new();
    if rank == 0 {
        all = vec![0; W * size.max(1) as usize];
        if let (Some(i), Some(f)) = (AT_INIT.get(), AT_FIN.get()) {
            for r in 1..size as usize {
                let (Some(&(oi, ri, _)), Some(&(of, rf, _))) =
                    (i.ranks.get(r - 1), f.ranks.get(r - 1))
                else {
                    continue;
                };
                let (ui, uf) = (ri / 2, rf / 2);
                let shared = node_of.get(r) == node_of.first()
                    && clock::invariant()
                    && oi.unsigned_abs() <= ui
                    && of.unsigned_abs() <= uf;
                if !shared {
                    all[r * W..r * W + W].copy_from_slice(&[
                        oi as u64,
                        i.at_ticks,
                        of as u64,
                        f.at_ticks,
                        ui.max(uf),
                    ]);
                }
            }
        }
    }
    let mut mine = [0u64; W];
    // SAFETY: rank 0's buffer holds W words per rank; each receives W.
    unsafe {
        mpi::PMPI_Scatter(
            all.as_ptr() as *const _,
            W as c_int,
            mpi::dt_u64(),
            mine.as_mut_ptr() as *mut _,
            W as c_int,
            mpi::dt_u64(),
            0,
            comm,
        )
    };
    ToRank0 {
        off_init: mine[0] as i64,
        at_init: mine[1],
        off_fin: mine[2] as i64,
        at_fin: mine[3],
        uncertainty_ticks: mine[4],
    }
}
