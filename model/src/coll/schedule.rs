//! Collective algorithms as schedules of point-to-point rounds, the way LogGOPSim's
//! schedule generator builds them (Hoefler, Schneider, Lumsdaine, "LogGOPSim", HPDC 2010),
//! and a LogGP simulation of a schedule.
//!
//! The algorithms follow their published forms: binomial and binary trees, recursive
//! doubling and halving, ring and Rabenseifner's reduce-scatter + allgather (Thakur,
//! Rabenseifner, Gropp, "Optimization of collective communication operations in MPICH",
//! IJHPCA 2005), Bruck's concatenation and index algorithms (Bruck et al., IEEE TPDS
//! 1997), and the pairwise exchange. Segmentation (pipelining a message in pieces) is
//! not modelled: Open MPI's fixed rules and a forced algorithm without
//! `coll_tuned_<coll>_algorithm_segmentsize` both use segment size 0.

pub use super::sim::{simulate, simulate_members, Local, Price, Round, Schedule};

fn round(msgs: Vec<(u32, u32, u64)>) -> Round {
    Round {
        msgs,
        ..Default::default()
    }
}

/// A round whose messages are each reduced on arrival.
fn reduced(msgs: Vec<(u32, u32, u64)>, reduce: Vec<(u32, u64)>) -> Round {
    Round {
        msgs,
        reduce,
        ..Default::default()
    }
}

/// The largest power of two ≤ n.
fn pof2(n: u32) -> u32 {
    if n == 0 {
        0
    } else {
        1 << (31 - n.leading_zeros())
    }
}

pub(super) fn log2_ceil(n: u32) -> u32 {
    32 - n.saturating_sub(1).leading_zeros()
}

/// The root sends to every other rank, one after another.
pub fn linear_bcast(n: u32, m: u64) -> Schedule {
    vec![round((1..n).map(|i| (0, i, m)).collect())]
}

/// Binomial tree from rank 0: in round k every rank below 2^k passes the data 2^k on.
pub fn binomial_bcast(n: u32, m: u64) -> Schedule {
    (0..log2_ceil(n))
        .map(|k| {
            let step = 1 << k;
            round(
                (0..step)
                    .filter(|r| r + step < n)
                    .map(|r| (r, r + step, m))
                    .collect(),
            )
        })
        .collect()
}

/// Binary tree from rank 0 (children 2r+1 and 2r+2), one depth per round.
pub fn binary_bcast(n: u32, m: u64) -> Schedule {
    let mut out = vec![];
    let mut level: Vec<u32> = vec![0];
    while !level.is_empty() {
        let mut msgs = vec![];
        let mut next = vec![];
        for &r in &level {
            for c in [2 * r + 1, 2 * r + 2] {
                if c < n {
                    msgs.push((r, c, m));
                    next.push(c);
                }
            }
        }
        if !msgs.is_empty() {
            out.push(round(msgs));
        }
        level = next;
    }
    out
}

/// A chain 0 → 1 → … → n−1 (Open MPI's pipeline without segments).
pub fn chain_bcast(n: u32, m: u64) -> Schedule {
    (1..n).map(|i| round(vec![(i - 1, i, m)])).collect()
}

/// `fanout` chains from the root (Open MPI's chain bcast, default fanout 4).
pub fn chains_bcast(n: u32, m: u64, fanout: u32) -> Schedule {
    let f = fanout.max(1).min(n.saturating_sub(1).max(1));
    let rest = n.saturating_sub(1);
    let len = rest.div_ceil(f);
    let mut out = vec![round(
        (0..f)
            .filter(|c| 1 + c * len < n)
            .map(|c| (0, 1 + c * len, m))
            .collect(),
    )];
    for step in 1..len {
        out.push(round(
            (0..f)
                .filter_map(|c| {
                    let a = 1 + c * len + step - 1;
                    let b = a + 1;
                    (b < n && b < 1 + (c + 1) * len).then_some((a, b, m))
                })
                .collect(),
        ));
    }
    out
}

/// k-nomial tree of radix `radix` from rank 0.
pub fn knomial_bcast(n: u32, m: u64, radix: u32) -> Schedule {
    let radix = radix.max(2);
    let mut span = 1;
    while span < n {
        span *= radix;
    }
    let mut out = vec![];
    let mut have: Vec<u32> = vec![0];
    let mut s = span / radix;
    while s >= 1 {
        let mut msgs = vec![];
        let mut got = vec![];
        for &r in &have {
            for j in 1..radix {
                let c = r + j * s;
                if c < n {
                    msgs.push((r, c, m));
                    got.push(c);
                }
            }
        }
        have.extend(got);
        if !msgs.is_empty() {
            out.push(round(msgs));
        }
        s /= radix;
    }
    out
}

/// Binomial scatter of m from rank 0 (each rank ends with its m/n block, where it exists:
/// `a_scatter_sends_only_the_bytes_that_exist`), then an allgather of the blocks.
pub fn scatter_bcast(n: u32, m: u64, ring: bool) -> Schedule {
    let block = m.div_ceil(n.max(1) as u64);
    let mut out = vec![];
    let mut k = log2_ceil(n);
    while k > 0 {
        k -= 1;
        let step = 1u32 << k;
        let msgs = (0..n)
            .step_by((2 * step) as usize)
            .filter(|r| r + step < n)
            .map(|r| (r, r + step, block * step.min(n - r - step) as u64))
            .map(|(r, to, b)| (r, to, b.min(m.saturating_sub(block * to as u64))))
            .filter(|&(_, _, bytes)| bytes > 0)
            .collect();
        out.push(round(msgs));
    }
    out.extend(if ring || n != pof2(n) {
        ring_allgather(n, block)
    } else {
        recursive_doubling_allgather(n, block)
    });
    out
}

/// Each rank sends its block to rank 0 (a linear gather).
pub fn linear_gather(n: u32, m: u64) -> Schedule {
    vec![round((1..n).map(|i| (i, 0, m)).collect())]
}

/// Linear reduce: every rank sends m to rank 0, which reduces n−1 times.
pub fn linear_reduce(n: u32, m: u64) -> Schedule {
    let mut r = round((1..n).map(|i| (i, 0, m)).collect());
    r.reduce = (1..n).map(|_| (0, m)).collect();
    vec![r]
}

/// Binomial reduce to rank 0: the binomial bcast reversed, a reduction at each receipt.
pub fn binomial_reduce(n: u32, m: u64) -> Schedule {
    let mut s: Schedule = binomial_bcast(n, m)
        .into_iter()
        .rev()
        .map(|mut r| {
            r.msgs = r.msgs.iter().map(|&(a, b, x)| (b, a, x)).collect();
            r.reduce = r.msgs.iter().map(|&(_, to, x)| (to, x)).collect();
            r
        })
        .collect();
    s.retain(|r| !r.msgs.is_empty());
    s
}

/// Binary-tree reduce to rank 0.
pub fn binary_reduce(n: u32, m: u64) -> Schedule {
    binary_bcast(n, m)
        .into_iter()
        .rev()
        .map(|mut r| {
            r.msgs = r.msgs.iter().map(|&(a, b, x)| (b, a, x)).collect();
            r.reduce = r.msgs.iter().map(|&(_, to, x)| (to, x)).collect();
            r
        })
        .collect()
}

/// Chain reduce n−1 → … → 0.
pub fn chain_reduce(n: u32, m: u64) -> Schedule {
    (1..n)
        .rev()
        .map(|i| reduced(vec![(i, i - 1, m)], vec![(i - 1, m)]))
        .collect()
}

/// The ranks beyond the largest power of two p fold into partners first (rank p+i into
/// rank i), as recursive doubling and Rabenseifner's algorithm do for any n.
fn fold_in(n: u32, m: u64) -> Option<Round> {
    let p = pof2(n);
    (n > p).then(|| {
        reduced(
            (p..n).map(|r| (r, r - p, m)).collect(),
            (p..n).map(|r| (r - p, m)).collect(),
        )
    })
}

fn fold_out(n: u32, m: u64) -> Option<Round> {
    let p = pof2(n);
    (n > p).then(|| round((p..n).map(|r| (r - p, r, m)).collect()))
}

/// Recursive doubling: log2 p exchanges of the whole vector with rank XOR 2^k, each
/// reduced.
pub fn recursive_doubling_allreduce(n: u32, m: u64) -> Schedule {
    let p = pof2(n);
    let mut out: Schedule = fold_in(n, m).into_iter().collect();
    let mut k = 1;
    while k < p {
        out.push(reduced(
            (0..p).map(|r| (r, r ^ k, m)).collect(),
            (0..p).map(|r| (r, m)).collect(),
        ));
        k <<= 1;
    }
    out.extend(fold_out(n, m));
    out
}

/// Ring: a reduce-scatter of n−1 steps of m/n to the next rank, each reduced, then an
/// allgather of n−1 steps of m/n.
pub fn ring_allreduce(n: u32, m: u64) -> Schedule {
    let b = m.div_ceil(n.max(1) as u64);
    let mut out: Schedule = (1..n)
        .map(|_| {
            reduced(
                (0..n).map(|r| (r, (r + 1) % n, b)).collect(),
                (0..n).map(|r| (r, b)).collect(),
            )
        })
        .collect();
    // The allgather receives into the blocks the next rank read in the reduce-scatter.
    out.extend(
        ring_allgather(n, b)
            .into_iter()
            .map(|r| Round { refill: true, ..r }),
    );
    out
}

/// Rabenseifner: reduce-scatter by recursive halving, allgather by recursive doubling.
pub fn rabenseifner_allreduce(n: u32, m: u64) -> Schedule {
    let p = pof2(n);
    let mut out: Schedule = fold_in(n, m).into_iter().collect();
    let mut size = m;
    let mut k = p / 2;
    let mut sizes = vec![];
    while k >= 1 {
        size = size.div_ceil(2);
        sizes.push(size);
        out.push(reduced(
            (0..p).map(|r| (r, r ^ k, size)).collect(),
            (0..p).map(|r| (r, size)).collect(),
        ));
        k /= 2;
    }
    // The allgather receives into the halves the partner read in the reduce-scatter.
    let mut k = 1;
    for &s in sizes.iter().rev() {
        out.push(Round {
            refill: true,
            ..round((0..p).map(|r| (r, r ^ k, s)).collect())
        });
        k <<= 1;
    }
    out.extend(fold_out(n, m));
    out
}

/// Reduce to rank 0 then bcast from it, with the given halves.
pub fn reduce_then_bcast(reduce: Schedule, bcast: Schedule) -> Schedule {
    reduce.into_iter().chain(bcast).collect()
}

/// Ring allgather: n−1 steps, each rank passing one block of m to the next.
pub fn ring_allgather(n: u32, m: u64) -> Schedule {
    (1..n)
        .map(|_| round((0..n).map(|r| (r, (r + 1) % n, m)).collect()))
        .collect()
}

/// Recursive doubling allgather (a power of two; else Bruck's): exchange 2^k blocks with
/// rank XOR 2^k.
pub fn recursive_doubling_allgather(n: u32, m: u64) -> Schedule {
    if n != pof2(n) {
        return bruck_allgather(n, m);
    }
    let mut out = vec![];
    let mut k = 1;
    while k < n {
        out.push(round((0..n).map(|r| (r, r ^ k, m * k as u64)).collect()));
        k <<= 1;
    }
    out
}

/// Bruck's concatenation: ⌈log2 n⌉ steps, in step k sending min(2^k, n−2^k) blocks to
/// rank − 2^k; then every rank but 0 rotates its n blocks into place through a temporary
/// buffer (Open MPI's `ompi_coll_base_allgather_intra_bruck`: the first n − r blocks out
/// to the buffer and back, the last r moved up: (2(n − r) + r)·m bytes copied).
pub fn bruck_allgather(n: u32, m: u64) -> Schedule {
    let mut out: Schedule = (0..log2_ceil(n))
        .map(|k| {
            let s = 1u32 << k;
            let blocks = s.min(n - s) as u64;
            round((0..n).map(|r| (r, (r + n - s) % n, m * blocks)).collect())
        })
        .collect();
    out.push(Round {
        copy: (1..n).map(|r| (r, m * (2 * (n - r) + r) as u64)).collect(),
        ..Default::default()
    });
    out
}

/// Neighbour exchange (Chen et al. 2005): n/2 steps with alternating neighbours, the
/// first of one block, the others of two; odd n falls back to the ring.
pub fn neighbor_allgather(n: u32, m: u64) -> Schedule {
    if n % 2 == 1 {
        return ring_allgather(n, m);
    }
    (0..n / 2)
        .map(|k| {
            let blocks = if k == 0 { 1 } else { 2 };
            round(
                (0..n)
                    .map(|r| {
                        let right = (r % 2 == 0) == (k % 2 == 0);
                        let peer = if right { (r + 1) % n } else { (r + n - 1) % n };
                        (r, peer, m * blocks)
                    })
                    .collect(),
            )
        })
        .collect()
}

/// Every rank sends a block to every other at once.
pub fn linear_alltoall(n: u32, m: u64) -> Schedule {
    vec![round(
        (0..n)
            .flat_map(|r| (1..n).map(move |k| (r, (r + k) % n, m)))
            .collect(),
    )]
}

/// Pairwise exchange: n−1 steps, in step k sending to rank + k.
pub fn pairwise_alltoall(n: u32, m: u64) -> Schedule {
    (1..n)
        .map(|k| round((0..n).map(|r| (r, (r + k) % n, m)).collect()))
        .collect()
}

/// Bruck's index algorithm: ⌈log2 n⌉ steps, each sending the blocks whose index has bit k
/// set (about n/2 of them) to rank + 2^k. Its local copies, as Open MPI's
/// `ompi_coll_base_alltoall_intra_bruck` makes them: the n blocks rotated into a
/// temporary buffer first, each step's received blocks copied back into it, and the n
/// blocks rotated and inverted into the receive buffer last.
pub fn bruck_alltoall(n: u32, m: u64) -> Schedule {
    let all = |bytes: u64| Round {
        copy: (0..n).map(|r| (r, bytes)).collect(),
        ..Default::default()
    };
    let mut out = vec![all(m * n as u64)];
    for k in 0..log2_ceil(n) {
        let s = 1u32 << k;
        let blocks = (0..n).filter(|i| i & s != 0).count() as u64;
        let mut step = round((0..n).map(|r| (r, (r + s) % n, m * blocks)).collect());
        step.copy = (0..n).map(|r| (r, m * blocks)).collect();
        out.push(step);
    }
    out.push(all(m * n as u64));
    out
}

/// Barriers: zero-byte messages.
pub fn linear_barrier(n: u32) -> Schedule {
    vec![
        round((1..n).map(|i| (i, 0, 0)).collect()),
        round((1..n).map(|i| (0, i, 0)).collect()),
    ]
}

pub fn double_ring_barrier(n: u32) -> Schedule {
    (0..2 * n)
        .map(|i| round(vec![(i % n, (i + 1) % n, 0)]))
        .collect()
}

pub fn recursive_doubling_barrier(n: u32) -> Schedule {
    recursive_doubling_allreduce(n, 0)
        .into_iter()
        .map(|mut r| {
            r.reduce.clear();
            r
        })
        .collect()
}

pub fn bruck_barrier(n: u32) -> Schedule {
    (0..log2_ceil(n))
        .map(|k| {
            let s = 1u32 << k;
            round((0..n).map(|r| (r, (r + s) % n, 0)).collect())
        })
        .collect()
}

pub fn tree_barrier(n: u32) -> Schedule {
    let mut s = binomial_reduce(n, 0);
    for r in &mut s {
        r.reduce.clear();
    }
    s.extend(binomial_bcast(n, 0));
    s
}

/// Two processes exchange their data at once.
pub fn exchange(m: u64) -> Schedule {
    vec![round(vec![(0, 1, m), (1, 0, m)])]
}

/// The last step of a split binary tree: each rank of one half swaps its half of the
/// message with its partner in the other.
pub fn exchange_halves(n: u32, half: u64) -> Schedule {
    let k = n / 2;
    vec![round(
        (1..n)
            .filter_map(|r| {
                let p = if r <= k { r + k } else { r - k };
                (p >= 1 && p < n && p != r).then_some((r, p, half))
            })
            .collect(),
    )]
}

/// Rabenseifner's reduce: the reduce-scatter by recursive halving, then the blocks
/// gathered to rank 0 by a binomial tree (Thakur et al. 2005 §4.3).
pub fn rabenseifner_reduce(n: u32, m: u64) -> Schedule {
    let p = pof2(n);
    let mut out: Schedule = fold_in(n, m).into_iter().collect();
    let mut size = m;
    let mut k = p / 2;
    while k >= 1 {
        size = size.div_ceil(2);
        out.push(reduced(
            (0..p).map(|r| (r, r ^ k, size)).collect(),
            (0..p).map(|r| (r, size)).collect(),
        ));
        k /= 2;
    }
    let mut k = 1;
    while k < p {
        let held = size * k as u64;
        out.push(round(
            (0..p)
                .filter(|r| r % (2 * k) == k)
                .map(|r| (r, r - k, held))
                .collect(),
        ));
        k <<= 1;
    }
    out
}
