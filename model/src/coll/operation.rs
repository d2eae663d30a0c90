//! A reduction's operation as the MPIs choose by it. Open MPI 4.1's fixed rules
//! (`coll_tuned_decision_fixed.c`, v4.1.4) have a branch of their own for a
//! non-commutative operation, and only some algorithms run one: Allreduce basic linear,
//! nonoverlapping and recursive doubling ("ring, segmented ring, and rabenseifner do not
//! support non-commutative operations"), Reduce linear and in-order binary. MPICH 4.0's
//! selection tree (`maint/tuning/coll/mpir/generic.json`) runs recursive doubling
//! (Allreduce) or binomial (Reduce) for an operation that is not built in, and its
//! reduce_scatter_allgather and reduce_scatter_gather are restricted to built-in
//! operations and at least pof2(n) elements (`src/mpi/coll/coll_algorithms.txt`: a forced
//! algorithm whose restriction fails falls back to the default).
use super::select;
use loggp_report::{
    CollectiveSplit, MIXED_OPERATIONS, OP_PREDEFINED, OP_USER_COMMUTATIVE, OP_USER_NONCOMMUTATIVE,
};

/// What the model knows of a row's operation (the shim records it in the waits' sample
/// of MPI_Allreduce and MPI_Reduce: `CollectiveSplit::operation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operation {
    pub builtin: bool,
    pub commutative: bool,
    /// The datatype's size in bytes (MPICH compares the element count with n).
    pub element_bytes: u64,
    /// Whether the row's calls said so; else what the model assumes (`ASSUMED`).
    pub recorded: bool,
}

/// What the model assumes where the report does not say: a built-in operation on 8-byte
/// elements (MPI_SUM of doubles, as MPI_Reduce_local is measured).
pub const ASSUMED: Operation = Operation {
    builtin: true,
    commutative: true,
    element_bytes: 8,
    recorded: false,
};

impl Operation {
    /// The operation of a row from the members' time-split rows, and the row's word for
    /// it: the members' where they agree; as assumed, "mixed", where they differ; as
    /// assumed, none, where none says.
    pub fn of(members: &[&CollectiveSplit]) -> (Operation, Option<String>) {
        let mut seen: Option<(&str, Option<u64>)> = None;
        for c in members {
            let Some(op) = c.operation.as_deref() else {
                continue;
            };
            let this = (op, c.element_bytes);
            match seen {
                Some(s) if s != this => return (ASSUMED, Some(MIXED_OPERATIONS.into())),
                _ => seen = Some(this),
            }
        }
        let Some((op, size)) = seen else {
            return (ASSUMED, None);
        };
        let (builtin, commutative) = match op {
            OP_PREDEFINED => (true, true),
            OP_USER_COMMUTATIVE => (false, true),
            OP_USER_NONCOMMUTATIVE => (false, false),
            _ => return (ASSUMED, Some(op.into())),
        };
        let op_now = Operation {
            builtin,
            commutative,
            element_bytes: size.unwrap_or(ASSUMED.element_bytes).max(1),
            recorded: true,
        };
        (op_now, Some(op.into()))
    }

    /// Whether the MPI (its `decider`) runs `algorithm` (its id) of `coll` as itself for
    /// this operation, so that it may be priced and advised: Open MPI's Rabenseifner falls
    /// back to basic linear for a non-commutative operation, and its ring and the Reduce
    /// trees other than in-order binary do not apply one in order (the result would
    /// differ); MPICH's reduce_scatter_* fall back to the default for an operation that is
    /// not built in. (Below pof2(n) elements MPICH falls back too, and so do the model's
    /// schedules: the operation alone decides here.)
    pub fn supports(&self, decider: &str, coll: &str, algorithm: &str) -> bool {
        match (decider, coll) {
            ("openmpi_tuned", "allreduce") => {
                self.commutative || matches!(algorithm, "1" | "2" | "3")
            }
            ("openmpi_tuned", "reduce") => self.commutative || matches!(algorithm, "1" | "6"),
            ("mpich", "allreduce" | "reduce") => {
                self.builtin
                    || !matches!(
                        algorithm,
                        "reduce_scatter_allgather" | "reduce_scatter_gather"
                    )
            }
            _ => true,
        }
    }
}

/// Open MPI 4.1's fixed decision for this operation: its non-commutative branch where the
/// operation is not commutative (`ompi_coll_tuned_allreduce_intra_dec_fixed` and
/// `…_reduce_intra_dec_fixed`, v4.1.4, every communicator size), else
/// `select::openmpi_fixed`.
pub fn openmpi_fixed(coll: &str, n: u32, m: u64, op: Operation) -> Option<&'static str> {
    if op.commutative || !matches!(coll, "allreduce" | "reduce") {
        return select::openmpi_fixed(coll, n, m);
    }
    Some(match coll {
        "allreduce" if n < 4 && m < 131072 => "3",
        "allreduce" if n < 4 => "1",
        "allreduce" if n < 8 => "3",
        "allreduce" if n < 16 && m < 1048576 => "3",
        "allreduce" if n < 16 => "2",
        "allreduce" if n < 128 => "3",
        // From 128 ranks nonoverlapping (Reduce then Bcast), recursive doubling only
        // between thresholds that move with the communicator's size.
        "allreduce" if n < 256 && (131072..524288).contains(&m) => "3",
        "allreduce" if n < 256 => "2",
        "allreduce" if n < 512 && (4096..524288).contains(&m) => "3",
        "allreduce" if n < 512 => "2",
        "allreduce" if m < 2048 => "2",
        "allreduce" => "3",
        _ if n < 4 && m < 8 => "6",
        _ if n < 4 => "1",
        _ if n < 8 => "1",
        _ if n < 16 => match m {
            m if m < 1024 => "6",
            m if m < 8192 => "1",
            m if m < 16384 => "6",
            m if m < 262144 => "1",
            _ => "6",
        },
        _ if n < 128 => "6",
        _ if n < 256 && (512..1024).contains(&m) => "1",
        _ => "6",
    })
}

/// MPICH 4.0's built-in choice for this operation (`select::mpich_default_for`).
pub fn mpich_default(coll: &str, n: u32, m: u64, op: Operation) -> Option<&'static str> {
    select::mpich_default_for(coll, n, m, op.builtin, op.element_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(kind: &str, size: Option<u64>) -> CollectiveSplit {
        CollectiveSplit {
            operation: Some(kind.into()),
            element_bytes: size,
            ..Default::default()
        }
    }

    /// The row's operation from its members, mixed where they differ, assumed where none
    /// says.
    #[test]
    fn a_rows_operation_is_its_members() {
        let (a, b) = (
            op("user_noncommutative", Some(8)),
            op("user_noncommutative", Some(8)),
        );
        let (o, word) = Operation::of(&[&a, &b]);
        assert!(o.recorded && !o.commutative && !o.builtin);
        assert_eq!(word.as_deref(), Some("user_noncommutative"));
        let c = op("predefined", Some(4));
        assert_eq!(Operation::of(&[&a, &c]), (ASSUMED, Some("mixed".into())));
        assert_eq!(
            Operation::of(&[&CollectiveSplit::default()]),
            (ASSUMED, None)
        );
        let (o, _) = Operation::of(&[&c]);
        assert_eq!((o.builtin, o.element_bytes), (true, 4));
    }

    /// Open MPI's non-commutative branch and MPICH's built-in test, at their bounds; a
    /// commutative or built-in operation gives the rules the model used before.
    #[test]
    fn the_rules_follow_the_operation() {
        let user = Operation {
            builtin: false,
            commutative: false,
            element_bytes: 8,
            recorded: true,
        };
        let user_commutative = Operation {
            commutative: true,
            ..user
        };
        // Open MPI, 2 ranks, 4 KiB: ring for a commutative operation, recursive doubling
        // for a non-commutative one; Reduce of 4 KiB linear.
        assert_eq!(openmpi_fixed("allreduce", 2, 4096, ASSUMED), Some("4"));
        assert_eq!(openmpi_fixed("allreduce", 2, 4096, user), Some("3"));
        assert_eq!(openmpi_fixed("allreduce", 2, 131072, user), Some("1"));
        // From 128 ranks: nonoverlapping, recursive doubling between size thresholds.
        for (n, m, alg) in [
            (128, 8, "2"),
            (200, 131072, "3"),
            (255, 524288, "2"),
            (300, 8, "2"),
            (300, 4096, "3"),
            (511, 524288, "2"),
            (512, 2047, "2"),
            (4096, 2048, "3"),
        ] {
            assert_eq!(openmpi_fixed("allreduce", n, m, user), Some(alg), "{n} {m}");
        }
        assert_eq!(openmpi_fixed("reduce", 2, 4, user), Some("6"));
        assert_eq!(openmpi_fixed("reduce", 2, 4096, user), Some("1"));
        assert_eq!(openmpi_fixed("reduce", 12, 10000, user), Some("6"));
        assert_eq!(
            openmpi_fixed("reduce", 2, 4096, user_commutative),
            select::openmpi_fixed("reduce", 2, 4096)
        );
        // MPICH, 2 ranks: a user operation keeps recursive doubling and binomial; 4-byte
        // elements count twice as many as 8-byte ones.
        assert_eq!(
            mpich_default("allreduce", 2, 1024, ASSUMED),
            Some("reduce_scatter_allgather")
        );
        assert_eq!(
            mpich_default("allreduce", 2, 1024, user_commutative),
            Some("recursive_doubling")
        );
        assert_eq!(mpich_default("reduce", 2, 4096, user), Some("binomial"));
        assert_eq!(
            mpich_default("reduce", 2, 4096, ASSUMED),
            Some("reduce_scatter_gather")
        );
        let ints = Operation {
            element_bytes: 4,
            ..ASSUMED
        };
        assert_eq!(
            mpich_default("allreduce", 4, 24, ASSUMED),
            Some("recursive_doubling")
        );
        assert_eq!(
            mpich_default("allreduce", 4, 24, ints),
            Some("reduce_scatter_allgather")
        );
        assert_eq!(
            mpich_default("bcast", 4, 24, user),
            select::mpich_default("bcast", 4, 24)
        );
        // Which algorithms run the operation at all.
        assert!(!user.supports("openmpi_tuned", "allreduce", "4"));
        assert!(user.supports("openmpi_tuned", "allreduce", "3"));
        assert!(!user.supports("openmpi_tuned", "reduce", "5"));
        assert!(ASSUMED.supports("openmpi_tuned", "reduce", "5"));
        assert!(!user_commutative.supports("mpich", "allreduce", "reduce_scatter_allgather"));
        // Few elements: MPICH falls back, and so does the schedule; still priced.
        assert!(ASSUMED.supports("mpich", "reduce", "reduce_scatter_gather"));
    }
}
