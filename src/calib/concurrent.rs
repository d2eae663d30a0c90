//! The concurrent exchange, after the pairs' probes: every rank of a host sends to the
//! next rank of the host and receives from the one before, all at once, on buffers larger
//! than a core's cache (`loggp_report::ConcurrentExchange`).
//!
//! Why: the pairs' exchange probe measures two copies at once, on buffers that stay in
//! cache. A collective's round where every rank of a host copies at once, over the large
//! buffers such a collective has, costs more. Measured on a 16-core VM (Intel Xeon,
//! 2 MiB L2 a core; Open MPI 4.1.6 vader, a core per rank, 2026-11-29,
//! `bench/concurrent_copies.c`): a 256 KiB exchange of one pair took 50 µs; with all 16
//! ranks exchanging so at once, each from the next block of a 4 MiB buffer, 99 µs on the
//! mean rank and 121 µs on the slowest (8 ranks: 69 and 74 µs). The 16-rank linear
//! Alltoall of 256 KiB, priced from the pair's probe, measured 2.1 × its price, the
//! recursive-doubling Allgather 1.4 ×, MPICH's ring Allgather 4 ×.
use crate::base::mpi::{self, MPI_Comm};
use crate::base::settings;
use crate::record::peers::World;
use std::os::raw::c_int;

/// The sizes measured, up to the calibration's largest: from 16 KiB, where the MPIs
/// measured here move a message by a copy of the receiver's (Open MPI vader's CMA get
/// beyond 4 KiB, UCX's rendezvous beyond 8 KiB).
const SIZES: [usize; 4] = [16 << 10, 64 << 10, 256 << 10, 1 << 20];
/// Each buffer: beyond a core's cache (1–2 MiB of L2 on the x86 servers seen), the
/// repetitions walk through it a block at a time.
pub const BUFFER_BYTES: usize = 4 << 20;
const WARM_UP: usize = 2;
pub const REPS: usize = 8;
/// Its own tag on the private communicator, apart from the pairs' probes.
const TAG: c_int = 0x1069;

/// This rank's concurrent exchange: its host's ranks (the copies at once) and, per size,
/// each repetition (ns).
#[derive(Clone, Debug, Default)]
pub struct Measured {
    pub host_ranks: u32,
    pub points: Vec<(usize, Vec<f64>)>,
}

/// Runs the concurrent exchange where some host holds three ranks or more, each on a core
/// of its own (the machine's online CPUs; `LOGGP_INJECT_FAULT=cores_per_rank` takes
/// every rank to have one and a host of two to take part, for tests on fewer cores),
/// and it fits before `end_ns`
/// (CLOCK_MONOTONIC_RAW). Every rank of the job calls it (a collective on `comm`);
/// ranks of the other hosts only take part in the barriers. Returns this rank's part,
/// None where it did not exchange, and a note where the exchange was left out for time.
pub(super) fn run(
    comm: MPI_Comm,
    world: &World,
    max_size: usize,
    end_ns: u64,
) -> (Option<Measured>, Option<String>) {
    let me = world.rank as usize;
    let Some(&host) = world.node_of.get(me) else {
        return (None, None);
    };
    let ranks: Vec<c_int> = (world.node_of.iter().enumerate())
        .filter(|(_, &h)| h == host)
        .map(|(r, _)| r as c_int)
        .collect();
    // SAFETY: sysconf has no preconditions.
    let cores = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.max(1) as usize;
    // Two ranks of a host copy at once in the pairs' exchange probe already; a test may
    // ask for the exchange there too, to compare it with a program's own (on a host of
    // two ranks it is the pair's exchange, from buffers beyond the cache).
    let forced = settings::inject("cores_per_rank");
    let mine = (ranks.len() >= 3 && ranks.len() <= cores) || (forced && ranks.len() >= 2);
    let sizes: Vec<usize> = SIZES.into_iter().filter(|&m| m <= max_size).collect();
    // What it may take: each repetition's copies at 250 MB/s (a slow, shared memory
    // system), and a barrier's few µs.
    let bytes: usize = sizes.iter().sum();
    let need_ns = ((WARM_UP + REPS) * (bytes * 4 + 20_000)) as u64;
    let late = crate::base::clock::monotonic_raw_ns() + need_ns > end_ns;
    let flags: [c_int; 2] = [mine as c_int, late as c_int];
    let mut agreed: [c_int; 2] = [0; 2];
    // SAFETY: two ints, MAX, on the private communicator every rank reaches here.
    unsafe {
        mpi::PMPI_Allreduce(
            flags.as_ptr() as *const _,
            agreed.as_mut_ptr() as *mut _,
            2,
            mpi::dt_int(),
            mpi::op_max(),
            comm,
        )
    };
    if agreed[0] == 0 || sizes.is_empty() {
        return (None, None);
    }
    if agreed[1] == 1 {
        return (
            None,
            Some(format!("the concurrent exchange (every rank of a host at once) was left out: the calibration's budget had less than the {} ms it may take", need_ns.div_ceil(1_000_000))),
        );
    }
    // Written, not only allocated: a zeroed allocation maps its pages lazily.
    let (send, mut recv) = if mine {
        (vec![0x5Au8; BUFFER_BYTES], vec![0xA5u8; BUFFER_BYTES])
    } else {
        (vec![], vec![])
    };
    let at = ranks.iter().position(|&r| r as usize == me).unwrap_or(0);
    let next = ranks[(at + 1) % ranks.len()];
    let prev = ranks[(at + ranks.len() - 1) % ranks.len()];
    let mut points = vec![];
    for &m in &sizes {
        let blocks = (BUFFER_BYTES / m).max(1);
        let mut reps = Vec::with_capacity(REPS);
        for r in 0..WARM_UP + REPS {
            // SAFETY: the private communicator; every rank runs the same loop.
            unsafe { mpi::PMPI_Barrier(comm) };
            if !mine {
                continue;
            }
            let offset = (r % blocks) * m;
            crate::record::matrix::own_sent(next, m as u64);
            let t0 = crate::base::clock::monotonic_raw_ns();
            // SAFETY: both buffers hold BUFFER_BYTES ≥ offset + m; private communicator.
            let ok = unsafe {
                mpi::PMPI_Sendrecv(
                    send.as_ptr().add(offset) as *const _,
                    m as c_int,
                    mpi::dt_byte(),
                    next,
                    TAG,
                    recv.as_mut_ptr().add(offset) as *mut _,
                    m as c_int,
                    mpi::dt_byte(),
                    prev,
                    TAG,
                    comm,
                    mpi::status_ignore(),
                ) == mpi::success()
            };
            let dt = crate::base::clock::monotonic_raw_ns().saturating_sub(t0);
            if ok && r >= WARM_UP {
                reps.push(dt as f64);
            }
        }
        if mine && !reps.is_empty() {
            points.push((m, reps));
        }
    }
    let measured = mine.then_some(Measured {
        host_ranks: ranks.len() as u32,
        points,
    });
    (measured, None)
}

/// This rank's part of the report.
pub fn report(m: &Measured, rank: u32) -> loggp_report::ConcurrentExchange {
    loggp_report::ConcurrentExchange {
        rank,
        host_ranks: m.host_ranks,
        buffer_bytes: BUFFER_BYTES as u64,
        points: (m.points.iter())
            .map(|(size, reps)| loggp_report::ConcurrentPoint {
                size_bytes: *size as u64,
                exchange_ns: loggp_model::stats::median(reps).unwrap_or(0.0),
                exchange_reps_ns: reps.clone(),
            })
            .collect(),
    }
}
