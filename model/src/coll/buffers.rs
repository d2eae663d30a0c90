//! Schedules as each MPI's code runs them on its buffers, called again on the same
//! buffers as an iterative code does: which copy or reduction writes lines a partner has
//! just read (`Round::rewrite`), which exchange receives into them (`Round::refill`),
//! which rank copies its result back, and the requests and datatypes a step sets up.
//! The algorithms' plain schedules are in `schedule`; `select` lists them per MPI.
use super::schedule::{self as s, Schedule};

/// The elements of a reduction's vector of `m` bytes. The record holds bytes, not the
/// datatype: 8-byte elements (MPI_DOUBLE, the common reduction type) are assumed. It
/// matters only where an algorithm falls back below one element per rank.
pub(super) fn elements(m: u64) -> u64 {
    m / 8
}

/// Whether every message of `r` is one half of an exchange between two ranks that reduce
/// what they receive (a recursive doubling step, not a fold of the extra ranks).
pub(super) fn pairwise_step(r: &s::Round) -> bool {
    !r.msgs.is_empty()
        && r.reduce.len() == r.msgs.len()
        && (r.msgs.iter()).all(|&(a, b, _)| r.msgs.iter().any(|&(c, d, _)| c == b && d == a))
}

pub(super) fn pof2(n: u32) -> u32 {
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
pub(super) fn rewritten(n: u32, m: u64, sch: Schedule) -> Schedule {
    rewritten_by(n, |_| m, sch)
}

/// `sch` after each rank `r`'s rewrite of `bytes(r)` (none where 0), as in `rewritten`.
fn rewritten_by(n: u32, bytes: impl Fn(u32) -> u64, sch: Schedule) -> Schedule {
    let first = s::Round {
        rewrite: (0..n).map(|r| (r, bytes(r))).filter(|x| x.1 > 0).collect(),
        ..Default::default()
    };
    std::iter::once(first).chain(sch).collect()
}

/// Rabenseifner's Allreduce as both MPIs run it on their buffers (Open MPI's
/// `ompi_coll_base_allreduce_intra_redscat_allgather`, MPICH's
/// `allreduce_intra_reduce_scatter_allgather.c`): the input is copied into the receive
/// buffer, which every step sends from. Called again on the same buffers, that copy takes
/// back only the lines a partner read last: the half the rank sent in the allgather's
/// last step (the half it sent in the reduce-scatter's first step it has received into
/// since). All of the buffer where a rank sent the whole result to an extra rank of a
/// size that is not a power of two, none on that extra rank, which received it.
/// Priced as a rewrite of the whole buffer on every rank (the plain `rewritten`), the
/// 2-rank 256 KiB row ran 1.09–1.39 × its measured cost in nine jobs here and 1.37–1.39 ×
/// in three in CI; priced so, 0.89–1.19 × over the same nine (2026-11-28).
pub(super) fn rabenseifner_again(n: u32, m: u64) -> Schedule {
    let p = pof2(n);
    let taken_back = |r: u32| match r {
        r if r >= p => 0,
        r if r + p < n => m,
        _ => m.div_ceil(2),
    };
    rewritten_by(n, taken_back, s::rabenseifner_allreduce(n, m))
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
/// calls, medians): the upper rank's reduction 32–36 µs against 8.9–11.3 µs for one
/// into lines of its own, the lower rank's 16–17 µs; the lower rank's copy 16.6–18.2
/// µs, the upper's 9 µs. The extra ranks of a size that is not a power of two (`fold_in`) send T
/// and receive their result into R.
pub(super) fn openmpi_recursive_doubling_allreduce(n: u32, m: u64) -> Schedule {
    let p = pof2(n);
    // Per rank: whether its send buffer is T, and whether a partner read T last.
    let mut send_is_t = vec![true; n as usize];
    let mut read_t = vec![false; n as usize];
    let mut rounds: Schedule = vec![];
    for r in s::recursive_doubling_allreduce(n, m) {
        let step = pairwise_step(&r);
        let inside = |&&(from, to, _): &&(u32, u32, u64)| from < n && to < n;
        // The receiver reads the sender's send buffer and writes its own receive buffer.
        for &(from, to, _) in r.msgs.iter().filter(inside) {
            let (f, t) = (from as usize, to as usize);
            read_t[f] |= send_is_t[f];
            read_t[t] &= send_is_t[t];
        }
        // Then each reduces: the upper rank into its send buffer (taking back what the
        // partner read), the lower one into its receive buffer, which becomes its send
        // buffer.
        let mut after = vec![];
        for &(from, to, bytes) in r.msgs.iter().filter(inside).filter(|_| step) {
            let f = from as usize;
            if from > to {
                after.push((from, bytes));
                read_t[f] &= !send_is_t[f];
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

/// A Bcast by a binomial scatter and an allgather, as both MPIs make it (MPICH's
/// `bcast_intra_scatter_*_allgather.c`, Open MPI's
/// `ompi_coll_base_bcast_intra_scatter_allgather` and `…_scatter_allgather_ring`), called
/// again on one buffer, as an iterative code does: from the second call on, each scatter
/// message lands in lines the receiver sent in the call before's allgather (which the
/// partner's single copy read) and sends lines its sender wrote then (the root's blocks
/// came back to it in the allgather, every other rank forwards blocks it received), and
/// each allgather exchange receives into the blocks the scatter sent. The scatter's sends
/// are priced with the rewrite excess (`Round::rewrite`), the allgather's exchanges as
/// refills. Two ranks, MPICH ch4:ucx, 256 KiB, by hand without loggp (2026-11-26): the
/// scatter's send 9.4 µs and the exchange 10.5 µs alone, 36.9–40.5 µs together in one
/// buffer as the algorithm runs them (the forced Bcast 38.6–42.3 µs); the refill exchange
/// of 128 KiB 20.3–21.8 µs against 9.6–11.0 plain. Open MPI vader, 2 ranks, 256 KiB,
/// by hand (2026-11-28): the scatter's 128 KiB into the buffer as the algorithm reuses it
/// 17.7–18.6 µs, against 6.9–7.5 µs into lines of the receiver's own; the forced Bcast
/// 34.9–35.8 µs. The test's forced rows, refitted (five jobs): priced 27–36 µs with the
/// allgather's refill alone (0.71–0.94 × measured), 37–50 µs now (0.98–1.31 ×).
pub(super) fn scatter_bcast_again(n: u32, m: u64, ring: bool) -> Schedule {
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

/// Open MPI's linear Alltoall (`ompi_coll_base_alltoall_intra_basic_linear`): its
/// 2(n−1) requests are persistent (`irecv_init`, `isend_init`, one start), set up and
/// freed in every call.
pub(super) fn openmpi_linear_alltoall(n: u32, m: u64) -> Schedule {
    let mut sch = s::linear_alltoall(n, m);
    if let Some(first) = sch.first_mut() {
        first.persistent_requests = (0..n).map(|r| (r, 2 * (n - 1))).collect();
    }
    sch
}

/// Bruck's Alltoall as both MPIs make it: each step sends its blocks through an indexed
/// datatype built, committed and freed in that step (Open MPI's
/// `ompi_coll_base_alltoall_intra_bruck`, MPICH's `MPIR_Alltoall_intra_brucks`), then
/// copies the blocks it received into the temporary buffer, over the blocks it has just
/// sent. Where those blocks lie together (every step on 2 ranks, the last step on any
/// number), the datatype is contiguous, and a rendezvous message of it is read by the
/// receiver's single copy: the copy back then writes lines the partner has just read
/// (`Round::rewrite`, after the step). Blocks apart are packed by their sender, whose
/// lines stay its own. Two ranks, Open MPI vader, 4 KiB blocks, without loggp
/// (2026-11-27, three batches of 2000 calls, medians): forced Bruck 5.1–5.8 µs against
/// pairwise 3.1–3.9; a memcpy into the send buffer before an MPI_Sendrecv of that
/// one-block indexed type added 1.1–1.8 µs, and 1.0–1.3 µs before a contiguous one.
pub(super) fn typed_bruck_alltoall(n: u32, m: u64) -> Schedule {
    let mut k = 0;
    s::bruck_alltoall(n, m)
        .into_iter()
        .flat_map(|r| {
            if r.msgs.is_empty() {
                return vec![r];
            }
            let bit = 1u32 << k;
            k += 1;
            let blocks: Vec<u32> = (1..n).filter(|i| i & bit != 0).collect();
            let together = blocks.windows(2).all(|w| w[1] == w[0] + 1);
            let sent = m * blocks.len() as u64;
            let step = s::Round {
                datatypes: (0..n).map(|k| (k, 1)).collect(),
                ..r
            };
            let after = s::Round {
                rewrite: (0..n).map(|r| (r, sent)).collect(),
                ..Default::default()
            };
            if together {
                vec![step, after]
            } else {
                vec![step]
            }
        })
        .collect()
}

/// Open MPI's linear Allgather (`ompi_coll_base_allgather_intra_basic_linear`): a
/// gather to rank 0, then a broadcast of the n blocks from its receive buffer, which the
/// gather has just written there (`Round::rewrite`).
pub(super) fn openmpi_linear_allgather(n: u32, m: u64) -> Schedule {
    let bcast = root_rewrites(s::binomial_bcast(n, m * n as u64), m * n as u64);
    s::reduce_then_bcast(s::linear_gather(n, m), bcast)
}

/// `bcast` after its root (rank 0) has written the `bytes` it sends into lines the other
/// ranks read in the call before (`Round::rewrite`, on its first round).
pub(super) fn root_rewrites(mut bcast: Schedule, bytes: u64) -> Schedule {
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
pub(super) fn openmpi_linear_allreduce(n: u32, m: u64) -> Schedule {
    s::reduce_then_bcast(
        s::linear_reduce(n, m),
        root_rewrites(s::linear_bcast(n, m), m),
    )
}

/// Open MPI's ring Allreduce (`ompi_coll_base_allreduce_intra_ring`, v4.1.x): like
/// Rabenseifner's it copies the input into the receive buffer and sends every block from
/// there, and in its allgather phase each rank's neighbour reads n − 1 of its n blocks,
/// which the next call's copy takes back (`rabenseifner_again`). Priced without that
/// rewrite, the 2-rank 256 KiB ring (the same exchanges as Rabenseifner's on 2 ranks)
/// came to 29–30 µs against 40–42 µs measured, forced, in two jobs (2026-11-28), and the
/// model put it 9–12 µs below the Rabenseifner in use, which measured the same.
pub(super) fn openmpi_ring_allreduce(n: u32, m: u64) -> Schedule {
    if elements(m) < n as u64 {
        openmpi_recursive_doubling_allreduce(n, m)
    } else {
        let read = m * (n as u64 - 1) / n as u64;
        rewritten_by(n, |_| read, s::ring_allreduce(n, m))
    }
}

#[cfg(test)]
mod tests {
    use super::super::schedule as s;
    use super::super::select;
    use super::super::tests::{local, nothing, openmpi_algorithm, refill_price};

    /// Open MPI's recursive doubling Allreduce, its buffers followed: on 4 ranks the upper
    /// rank of each pair reduces into what its partner has just read (ranks 1 and 3 in
    /// the first step, 2 and 3 in the second), ranks 0 and 3 end in the temporary buffer
    /// and copy it back, and rank 1 alone, whose temporary buffer a partner read last
    /// (rank 0 received into its own in the second step), takes it back in the next
    /// call's copy. On 2 ranks the upper rank's rewrite lies after the exchange: the
    /// lower's copy (400 ns over the plain one) delays the exchange, and the upper's
    /// reduction adds as much after it.
    #[test]
    fn recursive_doubling_rewrites_where_open_mpi_writes_what_the_partner_read() {
        let a = openmpi_algorithm("allreduce", "recursive_doubling");
        let sch = (a.schedule)(4, 262144).unwrap();
        let ranks = |v: &[(u32, u64)]| v.iter().map(|x| x.0).collect::<Vec<_>>();
        let rewrites: Vec<Vec<u32>> = (sch.iter())
            .filter(|r| !r.rewrite.is_empty())
            .map(|r| ranks(&r.rewrite))
            .collect();
        assert_eq!(rewrites, [vec![1], vec![1, 3], vec![2, 3]]);
        assert_eq!(ranks(&sch.last().unwrap().copy), [0, 3]);
        let sch = (a.schedule)(2, 262144).unwrap();
        let members =
            |refill| s::simulate_members(2, &sch, &refill_price(refill), &local(&nothing));
        assert_eq!(members(None), [1000.0, 1000.0]);
        assert_eq!(members(Some(1400.0)), [1400.0, 1800.0]);
    }

    /// Bruck's Alltoall: a step whose blocks lie together sends a contiguous datatype, which
    /// the receiver's single copy reads, and the copy back over those blocks takes their
    /// lines back (a rewrite after the step); blocks apart are packed by their sender. On 2
    /// ranks its one step; on 4 ranks the second step (blocks 2 and 3), not the first (1, 3);
    /// on 8 ranks the third (4–7).
    #[test]
    fn bruck_rewrites_after_the_steps_whose_blocks_lie_together() {
        let a = openmpi_algorithm("alltoall", "modified_bruck");
        let rewritten = |n: u32| -> Vec<u64> {
            let sch = (a.schedule)(n, 4096).unwrap();
            (sch.iter().skip(1))
                .zip(&sch)
                .filter(|(r, _)| !r.rewrite.is_empty())
                .map(|(r, step)| {
                    assert!(!step.msgs.is_empty(), "a rewrite follows its step");
                    r.rewrite[0].1
                })
                .collect()
        };
        assert_eq!(rewritten(2), [4096]);
        assert_eq!(rewritten(4), [8192]);
        assert_eq!(rewritten(8), [16384]);
    }

    /// Rabenseifner's copy takes back the half each rank sent last, all of it where the
    /// rank sent the result to an extra rank, none on that extra rank; in both MPIs.
    #[test]
    fn rabenseifner_takes_back_the_half_its_partner_read_last() {
        let m = 262144;
        for table in [select::openmpi("allreduce"), select::mpich("allreduce")] {
            let a = (table.iter())
                .find(|a| a.name.contains("rabenseifner") || a.name.contains("reduce_scatter"));
            let sch = (a.unwrap().schedule)(2, m).unwrap();
            assert_eq!(sch[0].rewrite, [(0, m / 2), (1, m / 2)]);
            assert_eq!(sch[0].msgs, []);
            let sch = (a.unwrap().schedule)(3, m).unwrap();
            assert_eq!(sch[0].rewrite, [(0, m), (1, m / 2)]);
            assert_eq!(sch[1].msgs, [(2, 0, m)], "the extra rank folds in next");
        }
    }

    /// Open MPI's ring takes back the n − 1 blocks its neighbour read in the allgather
    /// (on 2 ranks the half, as Rabenseifner's, whose exchanges it then matches), and its
    /// nonoverlapping Allreduce is the fixed rules' Reduce then Bcast: on 2 ranks, at 2 KiB
    /// and 256 KiB, the messages and rewrite of basic linear (linear, or a pipeline of
    /// one message, then a linear Bcast).
    #[test]
    fn ring_and_nonoverlapping_follow_open_mpis_buffers_and_rules() {
        let m = 262144;
        let ring = openmpi_algorithm("allreduce", "ring");
        let raben = openmpi_algorithm("allreduce", "rabenseifner");
        let (r, b) = (
            (ring.schedule)(2, m).unwrap(),
            (raben.schedule)(2, m).unwrap(),
        );
        assert_eq!(r[0].rewrite, [(0, m / 2), (1, m / 2)]);
        assert_eq!(r[0].rewrite, b[0].rewrite);
        let four = (ring.schedule)(4, m).unwrap();
        assert_eq!(
            four[0].rewrite,
            [
                (0, 3 * m / 4),
                (1, 3 * m / 4),
                (2, 3 * m / 4),
                (3, 3 * m / 4)
            ]
        );
        let linear = openmpi_algorithm("allreduce", "basic_linear");
        let non = openmpi_algorithm("allreduce", "nonoverlapping");
        for m in [2048, 262144] {
            let (a, b) = (
                (linear.schedule)(2, m).unwrap(),
                (non.schedule)(2, m).unwrap(),
            );
            let msgs =
                |s: &s::Schedule| -> Vec<_> { s.iter().flat_map(|r| r.msgs.clone()).collect() };
            let rewrites =
                |s: &s::Schedule| -> Vec<_> { s.iter().flat_map(|r| r.rewrite.clone()).collect() };
            assert_eq!(msgs(&a), msgs(&b), "{m} B");
            assert_eq!(rewrites(&a), rewrites(&b), "{m} B");
        }
    }

    /// Open MPI's scatter-allgather Bcast as MPICH's: on 2 ranks the root's half to rank 1
    /// lands in lines rank 1 sent in the call before (a rewrite on the scatter's send),
    /// and the halves' exchange is a refill.
    #[test]
    fn a_scatter_allgather_bcast_scatters_into_what_the_allgather_sent() {
        for table in [select::openmpi("bcast"), select::mpich("bcast")] {
            let a = (table.iter())
                .find(|a| a.name.starts_with("scatter") && !a.name.contains("ring"))
                .unwrap();
            let sch = (a.schedule)(2, 262144).unwrap();
            assert_eq!(sch[0].msgs, [(0, 1, 131072)]);
            assert_eq!(sch[0].rewrite, [(0, 131072)], "{}", a.name);
            assert!(!sch[0].refill && sch[1].refill && sch[1].msgs.len() == 2);
        }
    }
}
