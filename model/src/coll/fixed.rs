//! Open MPI 4.1's fixed decision rules (coll tuned, `coll_tuned_decision_fixed.c`,
//! v4.1.x: "generated based off of results gathered using" OSU's benchmarks): which
//! algorithm the tuned component picks for a communicator size and message size when no
//! algorithm is forced. The numbers are those `select::openmpi` lists.

/// Open MPI 4.1's fixed decision (coll tuned) for a commutative operation on a
/// communicator of n ranks and message size m (count × type size; per block for
/// Allgather and Alltoall): the algorithm number, or None where the rules are not
/// encoded here.
pub fn openmpi_fixed(coll: &str, n: u32, m: u64) -> Option<&'static str> {
    let pick = |steps: &[(u64, &'static str)], last: &'static str| {
        steps
            .iter()
            .find(|(below, _)| m < *below)
            .map(|x| x.1)
            .unwrap_or(last)
    };
    if n >= 8 {
        return openmpi_fixed_large(coll, n, m);
    }
    if n < 2 {
        return None;
    }
    Some(match (coll, n < 4) {
        ("allreduce", true) => pick(
            &[
                (8, "4"),
                (4096, "3"),
                (8192, "4"),
                (16384, "3"),
                (65536, "4"),
                (262144, "5"),
            ],
            "6",
        ),
        ("allreduce", false) => pick(&[(16, "4"), (8192, "3")], "6"),
        ("bcast", true) => pick(
            &[
                (32, "3"),
                (256, "5"),
                (512, "3"),
                (1024, "7"),
                (32768, "1"),
                (131072, "5"),
                (262144, "2"),
                (524288, "1"),
                (1048576, "6"),
            ],
            "5",
        ),
        ("bcast", false) => pick(
            &[
                (64, "5"),
                (128, "6"),
                (2048, "5"),
                (8192, "6"),
                (1048576, "1"),
            ],
            "2",
        ),
        ("allgather", _) if n == 2 => "6",
        ("allgather", _) => "3",
        ("alltoall", _) if n == 2 => pick(
            &[
                (2, "2"),
                (4, "5"),
                (16, "2"),
                (64, "5"),
                (256, "2"),
                (4096, "5"),
                (32768, "2"),
                (262144, "4"),
                (1048576, "5"),
            ],
            "2",
        ),
        ("alltoall", _) => pick(
            &[
                (8192, "4"),
                (16384, "1"),
                (65536, "4"),
                (524288, "1"),
                (1048576, "2"),
            ],
            "1",
        ),
        ("barrier", true) => "3",
        ("barrier", false) => "1",
        ("reduce", true) => pick(
            &[
                (8, "7"),
                (16, "4"),
                (32, "3"),
                (262144, "1"),
                (524288, "3"),
                (1048576, "2"),
            ],
            "3",
        ),
        ("reduce", false) => pick(
            &[
                (4096, "4"),
                (65536, "2"),
                (262144, "5"),
                (524288, "1"),
                (1048576, "5"),
            ],
            "1",
        ),
        _ => return None,
    })
}

/// Rows of a fixed decision: for communicators below `.0` ranks, the first `(below, alg)`
/// with m < below, else `.2`.
type Rows = &'static [(u32, &'static [(u64, &'static str)], &'static str)];

/// The same for 8 ranks and more: the `*_intra_dec_fixed` rules of v4.1.4's
/// `coll_tuned_decision_fixed.c` (read in Debian's openmpi_4.1.4 source), every
/// collective the model prices.
fn openmpi_fixed_large(coll: &str, n: u32, m: u64) -> Option<&'static str> {
    const ALLREDUCE: Rows = &[
        (16, &[(8192, "3")], "6"),
        (32, &[(64, "5"), (4096, "3")], "6"),
        (64, &[(128, "5")], "6"),
        (128, &[(262144, "3")], "6"),
        (256, &[(131072, "2"), (262144, "3")], "6"),
        (512, &[(4096, "2")], "6"),
        (2048, &[(2048, "2"), (16384, "3")], "6"),
        (4096, &[(2048, "2"), (4096, "5"), (16384, "3")], "6"),
        (u32::MAX, &[(2048, "2"), (16384, "5"), (32768, "3")], "6"),
    ];
    const ALLTOALL: Rows = &[
        (16, &[(262144, "4")], "1"),
        (
            32,
            &[
                (4, "4"),
                (512, "3"),
                (8192, "4"),
                (32768, "1"),
                (262144, "4"),
                (524288, "1"),
            ],
            "4",
        ),
        (64, &[(512, "3"), (524288, "1")], "4"),
        (
            128,
            &[(1024, "3"), (2048, "1"), (4096, "4"), (262144, "1")],
            "2",
        ),
        (256, &[(1024, "3"), (2048, "4"), (262144, "1")], "2"),
        (512, &[(1024, "3"), (8192, "4"), (32768, "1")], "2"),
        (
            1024,
            &[
                (512, "3"),
                (8192, "4"),
                (16384, "1"),
                (131072, "4"),
                (262144, "1"),
            ],
            "2",
        ),
        (
            2048,
            &[
                (512, "3"),
                (1024, "4"),
                (2048, "1"),
                (16384, "4"),
                (262144, "1"),
            ],
            "4",
        ),
        (
            4096,
            &[(1024, "3"), (4096, "4"), (8192, "1"), (131072, "4")],
            "1",
        ),
        (
            u32::MAX,
            &[
                (2048, "3"),
                (8192, "4"),
                (16384, "1"),
                (32768, "4"),
                (65536, "1"),
            ],
            "4",
        ),
    ];
    const BARRIER: Rows = &[
        (64, &[], "3"),
        (256, &[], "4"),
        (512, &[], "6"),
        (1024, &[], "4"),
        (4096, &[], "6"),
        (u32::MAX, &[], "4"),
    ];
    const BCAST: Rows = &[
        (
            16,
            &[(8, "7"), (64, "5"), (4096, "7"), (16384, "5"), (32768, "6")],
            "1",
        ),
        (32, &[(4096, "7"), (1048576, "6")], "8"),
        (64, &[(2048, "6")], "7"),
        (128, &[], "7"),
        (
            256,
            &[(2, "6"), (16384, "5"), (32768, "1"), (65536, "5")],
            "7",
        ),
        (1024, &[(16384, "7"), (32768, "4")], "7"),
        (2048, &[(524288, "7")], "8"),
        (4096, &[(262144, "7")], "8"),
        (u32::MAX, &[(8192, "7"), (16384, "5"), (262144, "7")], "8"),
    ];
    const ALLGATHER: Rows = &[
        (32, &[], "3"),
        (64, &[(1024, "3"), (65536, "5")], "4"),
        (128, &[(512, "3"), (65536, "5")], "4"),
        (
            256,
            &[(512, "3"), (131072, "5"), (524288, "4"), (1048576, "5")],
            "4",
        ),
        (
            512,
            &[
                (32, "3"),
                (128, "2"),
                (1024, "3"),
                (131072, "5"),
                (524288, "4"),
                (1048576, "5"),
            ],
            "4",
        ),
        (1024, &[(64, "3"), (256, "2"), (2048, "3")], "5"),
        (
            2048,
            &[
                (4, "3"),
                (8, "2"),
                (16, "3"),
                (32, "2"),
                (256, "3"),
                (512, "2"),
                (4096, "3"),
            ],
            "5",
        ),
        (4096, &[(32, "2"), (128, "3"), (512, "2"), (4096, "3")], "5"),
        (
            u32::MAX,
            &[(2, "3"), (8, "2"), (16, "3"), (512, "2"), (4096, "3")],
            "5",
        ),
    ];
    const REDUCE: Rows = &[
        (16, &[(8192, "4")], "5"),
        (32, &[(4096, "4")], "5"),
        (256, &[], "5"),
        (512, &[(8192, "5"), (16384, "6")], "5"),
        (2048, &[], "5"),
        (
            4096,
            &[(512, "5"), (1024, "6"), (8192, "5"), (16384, "6")],
            "5",
        ),
        (
            u32::MAX,
            &[
                (16, "5"),
                (32, "6"),
                (1024, "5"),
                (2048, "6"),
                (8192, "5"),
                (16384, "6"),
            ],
            "5",
        ),
    ];
    let rows = match coll {
        "allgather" => ALLGATHER,
        "reduce" => REDUCE,
        "allreduce" => ALLREDUCE,
        "alltoall" => ALLTOALL,
        "barrier" => BARRIER,
        "bcast" => BCAST,
        _ => return None,
    };
    let (_, steps, last) = rows.iter().find(|r| n < r.0)?;
    Some(
        steps
            .iter()
            .find(|(below, _)| m < *below)
            .map_or(*last, |x| x.1),
    )
}
