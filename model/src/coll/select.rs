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
use super::buffers::*;
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

/// Open MPI's nonoverlapping Allreduce: the communicator's own MPI_Reduce to rank 0,
/// then its MPI_Bcast of the result (`ompi_coll_base_allreduce_intra_nonoverlapping`,
/// v4.1.x, through `comm->c_coll`): under coll tuned, the fixed decisions of Reduce and
/// Bcast at this size (for a commutative operation; a non-commutative one's Reduce
/// branch, `operation`, sends the same messages on 2 and 3 ranks), the root rewriting the
/// result it then sends as in basic linear. A binomial reduce and bcast stood here
/// before: on 2 ranks at 256 KiB priced 28.5–29.0 µs where it measured 47–69 µs
/// (2026-11-28), and `advise` told an MPI_SUM job to force it, predicting 0.96 ms saved
/// where the job then ran slower.
fn openmpi_nonoverlapping_allreduce(n: u32, m: u64) -> Option<Schedule> {
    let fixed = |coll: &str| {
        let id = openmpi_fixed(coll, n, m)?;
        let a = openmpi(coll).iter().find(|a| a.id == id)?;
        (a.schedule)(n, m)
    };
    Some(s::reduce_then_bcast(
        fixed("reduce")?,
        root_rewrites(fixed("bcast")?, m),
    ))
}

/// Open MPI coll tuned's algorithms of a collective (by its `coll` name: "allreduce").
pub fn openmpi(coll: &str) -> &'static [Algorithm] {
    static ALLREDUCE: [Algorithm; 6] = [
        alg!("1", "basic_linear", |n, m| Some(openmpi_linear_allreduce(
            n, m
        ))),
        alg!("2", "nonoverlapping", |n, m| {
            openmpi_nonoverlapping_allreduce(n, m)
        }),
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
        // copy's rewrite, of the lines a partner read last (`rabenseifner_again`).
        alg!("6", "rabenseifner", |n, m| Some(
            if elements(m) < pof2(n) as u64 {
                openmpi_linear_allreduce(n, m)
            } else {
                rabenseifner_again(n, m)
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
        alg!("8", "scatter_allgather", |n, m| Some(scatter_bcast_again(
            n, m, false
        ))),
        alg!("9", "scatter_allgather_ring", |n, m| Some(
            scatter_bcast_again(n, m, true)
        )),
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
                rabenseifner_again(n, m)
            })
        ),
    ];
    static BCAST: [Algorithm; 3] = [
        alg!("binomial", "binomial", |n, m| Some(s::binomial_bcast(n, m))),
        alg!(
            "scatter_recursive_doubling_allgather",
            "scatter_recursive_doubling_allgather",
            |n, m| Some(scatter_bcast_again(n, m, false))
        ),
        alg!(
            "scatter_ring_allgather",
            "scatter_ring_allgather",
            |n, m| Some(scatter_bcast_again(n, m, true))
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
    static BARRIER: [Algorithm; 1] = [alg!("dissemination", "dissemination", |n, _m| {
        mpich_barrier(n, "binomial")
    })];
    static REDUCE: [Algorithm; 2] = [
        alg!("binomial", "binomial", |n, m| Some(s::binomial_reduce(
            n, m
        ))),
        // Rabenseifner's reduce (`reduce_intra_reduce_scatter_gather.c`): recursive
        // halving, then the blocks gathered to the root by a binomial tree. MPICH's
        // default above 2048 B (`mpich_default`); below one element per rank of pof2(n)
        // it falls back to its automatic choice, binomial there.
        alg!("reduce_scatter_gather", "reduce_scatter_gather", |n, m| {
            Some(if elements(m) < pof2(n) as u64 {
                s::binomial_reduce(n, m)
            } else {
                s::rabenseifner_reduce(n, m)
            })
        }),
    ];
    by_name(
        coll,
        [&ALLREDUCE, &BCAST, &ALLGATHER, &ALLTOALL, &BARRIER, &REDUCE],
    )
}

/// MPICH's barrier (see `mpich`'s BARRIER) with its node leader's 1-byte Bcast made by
/// `bcast`, one of `mpich("bcast")`'s ids: that Bcast is an MPIR_Bcast on the node's
/// communicator (`MPIR_Barrier_intra_smp`, MPICH 4.0.2), so `MPIR_CVAR_BCAST_INTRA_ALGORITHM`
/// reaches it. On a 16-core VM (4 ranks, MPICH 4.0.2 ch4:ucx, 2026-11-28) the barrier
/// measured 1.9–2.5 µs by default and with the binomial Bcast forced, 2.6–3.1 µs with
/// `scatter_ring_allgather` forced.
pub fn mpich_barrier(n: u32, bcast: &str) -> Option<Schedule> {
    let b = mpich("bcast").iter().find(|a| a.id == bcast)?;
    Some(
        s::bruck_barrier(n)
            .into_iter()
            .chain((b.schedule)(n, 1)?)
            .collect(),
    )
}

pub use super::fixed::openmpi_fixed;

/// MPICH 4.0's choice for `auto`: its built-in selection tree (MPICH 4.0.2's
/// `maint/tuning/coll/mpir/generic.json`, compiled into libmpich and searched by
/// `src/mpi/coll/src/csel.c`; ch4's own tree hands a communicator of one node to it), read
/// for a built-in operation and 8-byte elements (its "count<pow2" compares
/// the element count with the largest power of two ≤ n). It is not the classic
/// thresholds of Thakur et al. 2005 that MPICH 3 used: an Allreduce runs recursive
/// doubling only up to 8 B or below one element per rank of that power of two, else
/// reduce_scatter_allgather (2 ranks, 128 B and 2 KiB, three rounds, 2026-11-28: the
/// default measured 775–1331 ns and 1257–1625 ns, reduce_scatter_allgather forced
/// 742–776 and 1225–1295, recursive doubling forced 394–418 and 755–778), and a Reduce
/// above 2048 B of at least that many elements runs reduce_scatter_gather. The tree's
/// bounds are its own (`<=` or `<`).
pub fn mpich_default(coll: &str, n: u32, m: u64) -> Option<&'static str> {
    mpich_default_for(coll, n, m, true, 8)
}

/// [`mpich_default`] for a reduction's operation (`operation`): whether it is built in
/// (the tree runs recursive doubling or binomial for one that is not) and its elements'
/// size, which the "count<pow2" test counts.
pub fn mpich_default_for(
    coll: &str,
    n: u32,
    m: u64,
    builtin: bool,
    element_bytes: u64,
) -> Option<&'static str> {
    let p2 = n.is_power_of_two();
    let few = !builtin || m / element_bytes.max(1) < pof2(n) as u64;
    let total = m.saturating_mul(n as u64);
    Some(match coll {
        "allreduce" if m <= 8 || few => "recursive_doubling",
        "allreduce" => "reduce_scatter_allgather",
        "bcast" if n < 8 || m <= 12288 => "binomial",
        "bcast" if p2 && m <= 524288 => "scatter_recursive_doubling_allgather",
        "bcast" => "scatter_ring_allgather",
        "allgather" if p2 && total < 524288 => "recursive_doubling",
        "allgather" if p2 => "ring",
        "allgather" if total < 81920 => "brucks",
        "allgather" => "ring",
        "alltoall" if n < 8 && m <= 32768 => "scattered",
        "alltoall" if n < 8 => "pairwise",
        "alltoall" if m <= 256 => "brucks",
        "alltoall" if m <= 32768 => "scattered",
        "alltoall" => "pairwise",
        "barrier" => "dissemination",
        "reduce" if m <= 2048 || few => "binomial",
        "reduce" => "reduce_scatter_gather",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::mpich_default;

    /// MPICH 4.0.2's built-in tree, where it differs from the classic thresholds and at
    /// its bounds (8-byte elements).
    #[test]
    fn mpichs_default_is_its_built_in_tree() {
        let cases = [
            ("allreduce", 2, 8, "recursive_doubling"),
            // Classic: recursive doubling below 2048 B; MPICH 4.0: 2 elements ≥ pof2(2).
            ("allreduce", 2, 16, "reduce_scatter_allgather"),
            ("allreduce", 2, 128, "reduce_scatter_allgather"),
            // 3 elements < pof2(4) = 4.
            ("allreduce", 4, 24, "recursive_doubling"),
            ("allreduce", 4, 32, "reduce_scatter_allgather"),
            ("bcast", 4, 1 << 20, "binomial"),
            ("bcast", 8, 12288, "binomial"),
            ("bcast", 8, 12289, "scatter_recursive_doubling_allgather"),
            ("bcast", 8, 524288, "scatter_recursive_doubling_allgather"),
            ("bcast", 12, 12289, "scatter_ring_allgather"),
            ("allgather", 4, 131071, "recursive_doubling"),
            ("allgather", 4, 131072, "ring"),
            ("allgather", 6, 8192, "brucks"),
            ("alltoall", 4, 8, "scattered"),
            ("alltoall", 8, 256, "brucks"),
            ("alltoall", 4, 32769, "pairwise"),
            ("reduce", 4, 2048, "binomial"),
            ("reduce", 4, 4096, "reduce_scatter_gather"),
            ("barrier", 5, 0, "dissemination"),
        ];
        for (coll, n, m, want) in cases {
            assert_eq!(mpich_default(coll, n, m), Some(want), "{coll} {n} {m}");
        }
    }

    /// Where the default is known: MPICH 4.0 by its version string; another version
    /// assumed; a selection file of the job's own makes it unknown, and said.
    #[test]
    fn mpichs_default_is_known_for_4_0_and_not_under_a_selection_file() {
        use crate::coll::{choice, mpich_default_source, MPICH_ASSUMED, MPICH_BUILT_IN};
        assert_eq!(
            mpich_default_source("MPICH Version:\t4.0.2\nMPICH Device: ch4:ucx"),
            MPICH_BUILT_IN
        );
        assert_eq!(mpich_default_source("MPICH Version:\t4.1.2"), MPICH_ASSUMED);
        let mut r = loggp_report::Report::default();
        r.job.mpi_library = "MPICH Version:\t4.0.2".into();
        r.collective_config.decider = "mpich".into();
        let c = choice(&r, "allreduce", 2, 64);
        assert_eq!(c.in_use, Some(("reduce_scatter_allgather", MPICH_BUILT_IN)));
        let c = choice(&r, "reduce", 4, 4096);
        assert_eq!(c.in_use, Some(("reduce_scatter_gather", MPICH_BUILT_IN)));
        let c = choice(&r, "barrier", 4, 0);
        assert_eq!(c.in_use, Some(("dissemination", MPICH_BUILT_IN)));
        r.collective_config.variables.insert(
            "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE".into(),
            "/tmp/mine.json".into(),
        );
        let c = choice(&r, "allreduce", 2, 64);
        assert_eq!(c.in_use, None);
        assert!(c.note.unwrap().contains("/tmp/mine.json"));
    }
}
