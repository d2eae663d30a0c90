//! Which algorithms an MPI offers per collective, and which one it picks.
//!
//! Open MPI 4.1, coll tuned: the algorithm numbers of `coll_tuned_<coll>_algorithm`
//! (`ompi_info --param coll tuned --level 9`), and the fixed decision rules of
//! `coll_tuned_decision_fixed.c` (v4.1.x, "generated based off of results gathered using
//! the ompi-collectives-tuning package") for every communicator size and commutative
//! operations (`fixed.rs`). MPICH 4.0: the values of `MPIR_CVAR_<COLL>_INTRA_ALGORITHM`, and for
//! `auto` the classic size thresholds of Thakur et al. (2005), which MPICH's defaults
//! (`MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE` = 2048, `MPIR_CVAR_BCAST_SHORT_MSG_SIZE` =
//! 12288, …) still carry; its JSON tuning may choose otherwise, so that is marked an
//! assumption.
use super::schedule::{self as s, Schedule};

/// One algorithm: the MPI's name, the value that forces it, and its schedule for n ranks
/// and message size m.
pub struct Algorithm {
    pub name: &'static str,
    pub id: &'static str,
    pub schedule: fn(u32, u64) -> Option<Schedule>,
}

macro_rules! alg {
    ($id:expr, $name:expr, |$n:ident, $m:ident| $body:expr) => {
        Algorithm {
            name: $name,
            id: $id,
            schedule: |$n, $m| $body,
        }
    };
}

/// The collectives modelled, by the MPIs' short names (Open MPI's `coll_tuned_<name>_…`,
/// MPICH's `MPIR_CVAR_<NAME>_…`).
pub const COLLECTIVES: [&str; 6] = [
    "allreduce",
    "bcast",
    "allgather",
    "alltoall",
    "barrier",
    "reduce",
];

/// One MPI's algorithm table of a collective, the tables given in `COLLECTIVES`' order.
fn by_name(coll: &str, tables: [&'static [Algorithm]; 6]) -> &'static [Algorithm] {
    COLLECTIVES
        .iter()
        .position(|c| *c == coll)
        .map_or(&[], |i| tables[i])
}

fn two(n: u32, sch: Schedule) -> Option<Schedule> {
    (n == 2).then_some(sch)
}

/// The elements of a reduction's vector of `m` bytes. The record holds bytes, not the
/// datatype: 8-byte elements (MPI_DOUBLE, the common reduction type) are assumed. It
/// matters only where an algorithm falls back below one element per rank.
fn elements(m: u64) -> u64 {
    m / 8
}

/// Whether every message of `r` is one half of an exchange between two ranks that reduce
/// what they receive (a recursive doubling step, not a fold of the extra ranks).
fn pairwise_step(r: &s::Round) -> bool {
    !r.msgs.is_empty()
        && r.reduce.len() == r.msgs.len()
        && (r.msgs.iter()).all(|&(a, b, _)| r.msgs.iter().any(|&(c, d, _)| c == b && d == a))
}

fn pof2(n: u32) -> u32 {
    if n == 0 {
        0
    } else {
        1 << (31 - n.leading_zeros())
    }
}

/// `sch` after each rank's copy of its m-byte input into a buffer that it then sends
/// from, so that the partner read it in the call before (called again on the same
/// buffers, as an iterative code does): the copy's write takes the lines back from the
/// partner's cache (`Round::rewrite`). Two ranks, Open MPI vader, 256 KiB (2026-11-25):
/// that copy took 24 µs where a copy into lines of its own takes 4.7 µs; the refill
/// exchange's excess over the plain one at that size is about as much.
fn rewritten(n: u32, m: u64, sch: Schedule) -> Schedule {
    let first = s::Round {
        rewrite: (0..n).map(|r| (r, m)).collect(),
        ..Default::default()
    };
    std::iter::once(first).chain(sch).collect()
}

/// Open MPI's recursive doubling (`coll_base_allreduce.c`), its buffers followed rank by
/// rank. The input is copied into a temporary buffer T, which the first exchange sends
/// from, receiving into the receive buffer R. In each step the partner reads the send
/// buffer (a single copy at rendezvous sizes); the lower rank of a pair then reduces into
/// its receive buffer and swaps the two, the upper one reduces into its send buffer
/// (`ompi_op_reduce(op, tmprecv, tmpsend, …)` where `rank > remote`), whose lines its
/// partner has just read: that reduction takes them back (`Round::rewrite`), after the
/// exchange and so on the step's critical path. A rank whose result ends in T copies it
/// into R (those with an even number of lower steps: on 2 ranks the upper one; on 4
/// ranks 0 and 3). Called again on the same buffers, a rank whose T its partner read last
/// takes its lines back in the next call's copy (the rewrite before the first round).
/// Two ranks, Open MPI vader, 256 KiB, without loggp (2026-11-27, three batches of 300
/// calls, medians): the upper rank's reduction 32–36 µs against 9–10 µs for one into
/// lines of its own, the lower rank's 16–17 µs; the lower rank's copy 17–18 µs, the
/// upper's 9 µs. The extra ranks of a size that is not a power of two (`fold_in`) send T
/// and receive their result into R.
fn openmpi_recursive_doubling_allreduce(n: u32, m: u64) -> Schedule {
    let p = pof2(n);
    // Per rank: whether its send buffer is T, and whether the partner read T, R last.
    let mut send_is_t = vec![true; n as usize];
    let mut read_t = vec![false; n as usize];
    let mut read_r = vec![false; n as usize];
    let mut rounds: Schedule = vec![];
    for r in s::recursive_doubling_allreduce(n, m) {
        let step = pairwise_step(&r);
        let inside = |&&(from, to, _): &&(u32, u32, u64)| from < n && to < n;
        // The receiver reads the sender's send buffer and writes its own receive buffer.
        for &(from, to, _) in r.msgs.iter().filter(inside) {
            let (f, t) = (from as usize, to as usize);
            *(if send_is_t[f] {
                &mut read_t[f]
            } else {
                &mut read_r[f]
            }) = true;
            *(if send_is_t[t] {
                &mut read_r[t]
            } else {
                &mut read_t[t]
            }) = false;
        }
        // Then each reduces: the upper rank into its send buffer, the lower one into its
        // receive buffer, which becomes its send buffer.
        let mut after = vec![];
        for &(from, to, bytes) in r.msgs.iter().filter(inside).filter(|_| step) {
            let f = from as usize;
            if from > to {
                after.push((from, bytes));
                *(if send_is_t[f] {
                    &mut read_t[f]
                } else {
                    &mut read_r[f]
                }) = false;
            } else {
                send_is_t[f] = !send_is_t[f];
            }
        }
        rounds.push(r);
        if !after.is_empty() {
            rounds.push(s::Round {
                rewrite: after,
                ..Default::default()
            });
        }
    }
    let mut sch: Schedule = vec![];
    let first: Vec<(u32, u64)> = (0..n)
        .filter(|&r| read_t[r as usize])
        .map(|r| (r, m))
        .collect();
    if !first.is_empty() {
        sch.push(s::Round {
            rewrite: first,
            ..Default::default()
        });
    }
    sch.extend(rounds);
    // The extra ranks receive their result into R; the others copy T into R.
    sch.push(s::Round {
        copy: (0..p.min(n))
            .filter(|&r| send_is_t[r as usize])
            .map(|r| (r, m))
            .collect(),
        ..Default::default()
    });
    sch
}

/// MPICH's Bcast by a binomial scatter and an allgather (`bcast_intra_scatter_*_allgather.c`)
/// called again on one buffer, as an iterative code does: from the second call on, each
/// message sends lines its sender wrote in the call before (the root's blocks came back to
/// it in the allgather, every other rank forwards blocks it received), which the
/// receiver's single copy then takes from the sender's cache. The scatter's sends are
/// priced with the rewrite excess (`Round::rewrite`), the allgather's exchanges as
/// refills. Two ranks, MPICH ch4:ucx, 256 KiB, by hand without loggp (2026-11-26): the
/// scatter's send 9.4 µs and the exchange 10.5 µs alone, 36.9–40.5 µs together in one
/// buffer as the algorithm runs them (the forced Bcast 38.6–42.3 µs); the refill exchange
/// of 128 KiB 20.3–21.8 µs against 9.6–11.0 plain.
fn mpich_scatter_bcast(n: u32, m: u64, ring: bool) -> Schedule {
    let scatter = s::log2_ceil(n) as usize;
    s::scatter_bcast(n, m, ring)
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            if i < scatter {
                s::Round {
                    rewrite: r.msgs.iter().map(|&(from, _, b)| (from, b)).collect(),
                    ..r
                }
            } else {
                s::Round { refill: true, ..r }
            }
        })
        .collect()
}

/// Every round of `sch` priced as a refill where it is an exchange (`Round::refill`).
fn refilled(sch: Schedule) -> Schedule {
    sch.into_iter()
        .map(|r| s::Round { refill: true, ..r })
        .collect()
}

/// Open MPI's linear Alltoall (`ompi_coll_base_alltoall_intra_basic_linear`): its
/// 2(n−1) requests are persistent (`irecv_init`, `isend_init`, one start), set up and
/// freed in every call.
fn openmpi_linear_alltoall(n: u32, m: u64) -> Schedule {
    let mut sch = s::linear_alltoall(n, m);
    if let Some(first) = sch.first_mut() {
        first.persistent_requests = (0..n).map(|r| (r, 2 * (n - 1))).collect();
    }
    sch
}

/// Bruck's Alltoall as both MPIs make it: each step sends its blocks through an indexed
/// datatype built, committed and freed in that step (Open MPI's
/// `ompi_coll_base_alltoall_intra_bruck`, MPICH's `MPIR_Alltoall_intra_brucks`). The
/// temporary buffer it sends from was just written (the rotation), but a message of a
/// derived datatype is packed by its sender, not read by the receiver's single copy, so
/// no line is taken back from the partner's cache (priced so, the 256 KiB step was
/// 1.3–1.5 × its measured cost on 2 ranks, Open MPI vader, 2026-11-26).
fn typed_bruck_alltoall(n: u32, m: u64) -> Schedule {
    s::bruck_alltoall(n, m)
        .into_iter()
        .map(|r| s::Round {
            datatypes: if r.msgs.is_empty() {
                vec![]
            } else {
                (0..n).map(|k| (k, 1)).collect()
            },
            ..r
        })
        .collect()
}

/// Open MPI's linear Allgather (`ompi_coll_base_allgather_intra_basic_linear`): a
/// gather to rank 0, then a broadcast of the n blocks from its receive buffer, which the
/// gather has just written there (`Round::rewrite`).
fn openmpi_linear_allgather(n: u32, m: u64) -> Schedule {
    let bcast = root_rewrites(s::binomial_bcast(n, m * n as u64), m * n as u64);
    s::reduce_then_bcast(s::linear_gather(n, m), bcast)
}

/// `bcast` after its root (rank 0) has written the `bytes` it sends into lines the other
/// ranks read in the call before (`Round::rewrite`, on its first round).
fn root_rewrites(mut bcast: Schedule, bytes: u64) -> Schedule {
    if let Some(first) = bcast.first_mut() {
        first.rewrite = vec![(0, bytes)];
    }
    bcast
}

/// Open MPI's basic linear Allreduce (`ompi_coll_base_allreduce_intra_basic_linear`): a
/// linear reduce into rank 0's receive buffer, then a linear Bcast from it. Called again
/// on the same buffers, the root receives and reduces into lines every other rank read
/// in the Bcast before (`Round::rewrite`), as the linear Allgather's root does. Two
/// ranks, Open MPI vader, 256 KiB, forced, five jobs (2026-11-27): priced 51–66 µs
/// without it, measured 71–97 µs in four (40 µs in one).
fn openmpi_linear_allreduce(n: u32, m: u64) -> Schedule {
    s::reduce_then_bcast(
        s::linear_reduce(n, m),
        root_rewrites(s::linear_bcast(n, m), m),
    )
}

fn openmpi_ring_allreduce(n: u32, m: u64) -> Schedule {
    if elements(m) < n as u64 {
        openmpi_recursive_doubling_allreduce(n, m)
    } else {
        s::ring_allreduce(n, m)
    }
}

/// Open MPI coll tuned's algorithms of a collective (by its `coll` name: "allreduce").
pub fn openmpi(coll: &str) -> &'static [Algorithm] {
    static ALLREDUCE: [Algorithm; 6] = [
        alg!("1", "basic_linear", |n, m| Some(openmpi_linear_allreduce(
            n, m
        ))),
        alg!("2", "nonoverlapping", |n, m| Some(s::reduce_then_bcast(
            s::binomial_reduce(n, m),
            s::binomial_bcast(n, m)
        ))),
        alg!("3", "recursive_doubling", |n, m| Some(
            openmpi_recursive_doubling_allreduce(n, m)
        )),
        // The ring falls back to recursive doubling below one element per rank, and
        // the segmented ring without a segment size is the ring
        // (`coll_base_allreduce.c`, v4.1.x).
        alg!("4", "ring", |n, m| Some(openmpi_ring_allreduce(n, m))),
        alg!("5", "segmented_ring", |n, m| Some(openmpi_ring_allreduce(
            n, m
        ))),
        // Below one element per rank of the largest power of two, basic linear. The
        // input is copied into the receive buffer and the reduce-scatter sends from
        // there (`ompi_coll_base_allreduce_intra_redscat_allgather`, v4.1.x): the
        // copy's rewrite, as for recursive doubling (2 ranks, 256 KiB, 57 rows of one
        // full run: measured over price median 1.28, 31 within ±30 %; with it 1.19, 36).
        alg!("6", "rabenseifner", |n, m| Some(
            if elements(m) < pof2(n) as u64 {
                openmpi_linear_allreduce(n, m)
            } else {
                rewritten(n, m, s::rabenseifner_allreduce(n, m))
            }
        )),
    ];
    static BCAST: [Algorithm; 9] = [
        alg!("1", "basic_linear", |n, m| Some(s::linear_bcast(n, m))),
        alg!("2", "chain", |n, m| Some(s::chains_bcast(n, m, 4))),
        alg!("3", "pipeline", |n, m| Some(s::chain_bcast(n, m))),
        alg!("4", "split_binary_tree", |n, m| Some(if n <= 2 {
            s::linear_bcast(n, m)
        } else {
            s::binary_bcast(n, m.div_ceil(2))
                .into_iter()
                .chain(s::exchange_halves(n, m.div_ceil(2)))
                .collect()
        })),
        alg!("5", "binary_tree", |n, m| Some(s::binary_bcast(n, m))),
        alg!("6", "binomial", |n, m| Some(s::binomial_bcast(n, m))),
        alg!("7", "knomial", |n, m| Some(s::knomial_bcast(n, m, 4))),
        // The allgather receives into the blocks the scatter sent (so the partner read
        // them), and the next call's scatter into those the allgather sent: refills.
        alg!("8", "scatter_allgather", |n, m| Some(refilled(
            s::scatter_bcast(n, m, false)
        ))),
        alg!("9", "scatter_allgather_ring", |n, m| Some(refilled(
            s::scatter_bcast(n, m, true)
        ))),
    ];
    static ALLGATHER: [Algorithm; 6] = [
        alg!("1", "linear", |n, m| Some(openmpi_linear_allgather(n, m))),
        alg!("2", "bruck", |n, m| Some(s::bruck_allgather(n, m))),
        // Both copy the rank's block into the receive buffer and send it from there.
        alg!("3", "recursive_doubling", |n, m| Some(rewritten(
            n,
            m,
            s::recursive_doubling_allgather(n, m)
        ))),
        alg!("4", "ring", |n, m| Some(rewritten(
            n,
            m,
            s::ring_allgather(n, m)
        ))),
        alg!("5", "neighbor", |n, m| Some(s::neighbor_allgather(n, m))),
        alg!("6", "two_proc", |n, m| two(n, s::exchange(m))),
    ];
    static ALLTOALL: [Algorithm; 5] = [
        alg!("1", "linear", |n, m| Some(openmpi_linear_alltoall(n, m))),
        alg!("2", "pairwise", |n, m| Some(s::pairwise_alltoall(n, m))),
        alg!("3", "modified_bruck", |n, m| Some(typed_bruck_alltoall(
            n, m
        ))),
        alg!("4", "linear_sync", |n, m| Some(s::linear_alltoall(n, m))),
        alg!("5", "two_proc", |n, m| two(n, s::exchange(m))),
    ];
    static BARRIER: [Algorithm; 6] = [
        alg!("1", "linear", |n, _m| Some(s::linear_barrier(n))),
        alg!("2", "double_ring", |n, _m| Some(s::double_ring_barrier(n))),
        alg!("3", "recursive_doubling", |n, _m| Some(
            s::recursive_doubling_barrier(n)
        )),
        alg!("4", "bruck", |n, _m| Some(s::bruck_barrier(n))),
        alg!("5", "two_proc", |n, _m| two(n, s::exchange(0))),
        alg!("6", "tree", |n, _m| Some(s::tree_barrier(n))),
    ];
    static REDUCE: [Algorithm; 7] = [
        alg!("1", "linear", |n, m| Some(s::linear_reduce(n, m))),
        alg!("2", "chain", |n, m| Some(s::chain_reduce(n, m))),
        alg!("3", "pipeline", |n, m| Some(s::chain_reduce(n, m))),
        alg!("4", "binary", |n, m| Some(s::binary_reduce(n, m))),
        alg!("5", "binomial", |n, m| Some(s::binomial_reduce(n, m))),
        alg!("6", "in-order_binary", |n, m| Some(s::binary_reduce(n, m))),
        alg!("7", "rabenseifner", |n, m| Some(s::rabenseifner_reduce(
            n, m
        ))),
    ];
    by_name(
        coll,
        [&ALLREDUCE, &BCAST, &ALLGATHER, &ALLTOALL, &BARRIER, &REDUCE],
    )
}

/// MPICH's algorithms of a collective, by the values of its CVAR.
pub fn mpich(coll: &str) -> &'static [Algorithm] {
    // MPICH 4.0.2 refuses `ring` for Allreduce ("Invalid MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM
    // value") at MPI_Init.
    static ALLREDUCE: [Algorithm; 2] = [
        // MPICH copies the input into the receive buffer and exchanges from there.
        alg!("recursive_doubling", "recursive_doubling", |n, m| Some(
            rewritten(n, m, s::recursive_doubling_allreduce(n, m))
        )),
        // MPICH applies it only where count ≥ the largest power of two ≤ n
        // (`MPII_COLLECTIVE_FALLBACK_CHECK` in `mpir_coll.c`); else it falls back to
        // its automatic choice, recursive doubling at such sizes. Like its recursive
        // doubling, it copies the input into the receive buffer and sends from there
        // (`allreduce_intra_reduce_scatter_allgather.c`: "copy local data into recvbuf",
        // "Send data from recvbuf"), lines the partner read in the call before. Two
        // ranks, 256 KiB, by hand in C (2026-11-27): the copy took 13–15 µs and the
        // first exchange 19–23 µs in the algorithm's order, against 7 µs and 9 µs alone;
        // the sequence 72–86 µs, MPI_Allreduce 75–91 µs. Priced without the rewrite, the
        // default's 256 KiB rows were 1.2–1.4 × under their measured cost.
        alg!(
            "reduce_scatter_allgather",
            "reduce_scatter_allgather",
            |n, m| Some(if elements(m) < pof2(n) as u64 {
                rewritten(n, m, s::recursive_doubling_allreduce(n, m))
            } else {
                rewritten(n, m, s::rabenseifner_allreduce(n, m))
            })
        ),
    ];
    static BCAST: [Algorithm; 3] = [
        alg!("binomial", "binomial", |n, m| Some(s::binomial_bcast(n, m))),
        alg!(
            "scatter_recursive_doubling_allgather",
            "scatter_recursive_doubling_allgather",
            |n, m| Some(mpich_scatter_bcast(n, m, false))
        ),
        alg!(
            "scatter_ring_allgather",
            "scatter_ring_allgather",
            |n, m| Some(mpich_scatter_bcast(n, m, true))
        ),
    ];
    static ALLGATHER: [Algorithm; 3] = [
        alg!("brucks", "brucks", |n, m| Some(s::bruck_allgather(n, m))),
        alg!("recursive_doubling", "recursive_doubling", |n, m| Some(
            s::recursive_doubling_allgather(n, m)
        )),
        alg!("ring", "ring", |n, m| Some(s::ring_allgather(n, m))),
    ];
    static ALLTOALL: [Algorithm; 3] = [
        alg!("brucks", "brucks", |n, m| Some(typed_bruck_alltoall(n, m))),
        alg!("scattered", "scattered", |n, m| Some(s::linear_alltoall(
            n, m
        ))),
        alg!("pairwise", "pairwise", |n, m| Some(s::pairwise_alltoall(
            n, m
        ))),
    ];
    // MPICH 4.0.2 refuses `k_dissemination` and `recexch` (MPICH 4.1's names) at MPI_Init,
    // so advice to force them would end the job; `dissemination` (Hensgen, Finkel and
    // Manber 1988: in round k, rank i sends to i + 2^k and receives from i − 2^k, as
    // `barrier_intra_dissemination.c` does) it accepts. Its `smp` and `nb` are not
    // modelled.
    //
    // Whatever the algorithm, MPICH 4.0's ch4 device runs a communicator whose members
    // share a node as its SMP composition: the algorithm among the node's ranks, then the
    // node leader's 1-byte Bcast (binomial) to them (`MPIR_Barrier_intra_smp`, ch4's
    // `MPIDI_Barrier_intra_composition_alpha`). Measured on 2 ranks (ch4:ucx, no shim,
    // 2026-11-26): the default barrier 1.29–1.42 µs and the forced dissemination
    // 1.10–1.36 µs, against 0.49–0.67 µs for a 0-byte MPI_Sendrecv; the dissemination
    // alone (`MPIR_CVAR_DEVICE_COLLECTIVES=none` and the composition set to 2) 0.60 µs.
    // Across nodes it is each node's barrier, the leaders' and each node's Bcast, which
    // the model prices as one barrier and one Bcast over all members (one price for all
    // messages: as many rounds where nodes and ranks per node are powers of 2).
    static BARRIER: [Algorithm; 1] = [alg!("dissemination", "dissemination", |n, _m| Some(
        s::bruck_barrier(n)
            .into_iter()
            .chain(s::binomial_bcast(n, 1))
            .collect()
    ))];
    static REDUCE: [Algorithm; 1] = [alg!("binomial", "binomial", |n, m| Some(
        s::binomial_reduce(n, m)
    ))];
    by_name(
        coll,
        [&ALLREDUCE, &BCAST, &ALLGATHER, &ALLTOALL, &BARRIER, &REDUCE],
    )
}

pub use super::fixed::openmpi_fixed;

/// MPICH's classic choice for `auto` (Thakur et al. 2005, MPICH's default thresholds).
pub fn mpich_default(coll: &str, n: u32, m: u64) -> Option<&'static str> {
    let p2 = n.is_power_of_two();
    Some(match coll {
        "allreduce" if m < 2048 => "recursive_doubling",
        "allreduce" => "reduce_scatter_allgather",
        "bcast" if m < 12288 || n < 8 => "binomial",
        "bcast" if m < 524288 && p2 => "scatter_recursive_doubling_allgather",
        "bcast" => "scatter_ring_allgather",
        "allgather" if m * n as u64 <= 524288 && p2 => "recursive_doubling",
        "allgather" if m * (n as u64) < 81920 => "brucks",
        "allgather" => "ring",
        "alltoall" if m <= 256 && n >= 8 => "brucks",
        "alltoall" if m <= 32768 => "scattered",
        "alltoall" => "pairwise",
        "barrier" => "dissemination",
        "reduce" => "binomial",
        _ => return None,
    })
}
