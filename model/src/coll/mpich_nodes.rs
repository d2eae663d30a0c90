//! MPICH 4.0's collectives on a communicator whose members are on several hosts.
//!
//! MPICH groups a communicator's members by node when it commits it
//! (`MPIR_Comm_create_subcomms`, `src/mpi/comm/commutil.c`, v4.0.2): a node communicator
//! of each node's members in rank order, and a communicator of the node leaders, each
//! node's first member, the nodes in the order of their first member
//! (`MPIR_Find_external`). Where no node holds two members it makes neither, as the
//! leaders' communicator would be the communicator itself, and the communicator stays
//! flat. ch4 then picks a composition per collective from its built-in tree
//! (`maint/tuning/coll/ch4/generic.json`) by that hierarchy, and each part runs an MPIR
//! algorithm chosen by the MPIR tree (`maint/tuning/coll/mpir/generic.json`) at its own
//! communicator's size, or the one `MPIR_CVAR_<COLL>_INTRA_ALGORITHM` forces
//! (`MPIDI_*_intra_composition_*`, `src/mpid/ch4/src/ch4_coll_impl.h`):
//! - Barrier: flat, the dissemination over every member (composition beta); with nodes,
//!   each node's barrier, the leaders' barrier, then each node's 1-byte Bcast from its
//!   leader (alpha).
//! - Bcast from member 0 (a node leader): with nodes, below 12288 B (any size under 8
//!   members; below 524288 B on a power of two) the leaders' Bcast, then each node's
//!   (alpha; beta is the same for a root that leads its node); else, and flat, the Bcast
//!   over every member (gamma).
//! - Allreduce of a commutative operation, with nodes: each node's Reduce to its leader,
//!   the leaders' Allreduce, each node's Bcast (alpha); otherwise over every member (beta).
//! - Allgather and Alltoall: over every member, whatever the hierarchy.
//! - Reduce of a commutative operation to member 0, with nodes: above 2048 B each node's
//!   Reduce, then the leaders' (alpha); up to 2048 B the Reduce on each node but the
//!   root's, the leaders', then the root's node's (beta); otherwise over every member.
//!
//! Each message is then priced by its pair's class (`classes`).
use super::operation::Operation;
use super::schedule::{self as s, Schedule};
use super::select::Algorithm;

/// A communicator's members grouped by host as MPICH groups them: the nodes in the order
/// of their first member, each node's members in rank order (its first is the leader).
pub(super) struct Nodes(Vec<Vec<u32>>);

impl Nodes {
    /// The grouping of members `0..hosts.len()`, member i on `hosts[i]`.
    pub(super) fn of(hosts: &[&str]) -> Nodes {
        let mut nodes: Vec<(&str, Vec<u32>)> = vec![];
        for (i, h) in hosts.iter().enumerate() {
            match nodes.iter_mut().find(|x| x.0 == *h) {
                Some(x) => x.1.push(i as u32),
                None => nodes.push((h, vec![i as u32])),
            }
        }
        Nodes(nodes.into_iter().map(|x| x.1).collect())
    }

    /// No node holds two members: MPICH makes no node or leaders' communicator.
    pub(super) fn flat(&self) -> bool {
        self.0.iter().all(|x| x.len() <= 1)
    }

    fn members(&self) -> u32 {
        self.0.iter().map(|x| x.len() as u32).sum()
    }

    fn leaders(&self) -> Vec<u32> {
        self.0.iter().map(|x| x[0]).collect()
    }

    /// The size of the communicator whose MPIR selection names the algorithm of `coll`'s
    /// own parts: the leaders' where it runs by node, else every member's.
    pub(super) fn selecting_size(&self, coll: &str, m: u64, op: Operation) -> u32 {
        match composition(self, coll, m, op) {
            Composition::Flat => self.members(),
            _ => self.0.len() as u32,
        }
    }

    /// `build(size)` on every node of two members or more (but the first where not
    /// `first`), all at once.
    fn on_nodes(&self, first: bool, build: &dyn Fn(u32) -> Option<Schedule>) -> Option<Schedule> {
        let parts = (self.0.iter())
            .skip(!first as usize)
            .filter(|x| x.len() > 1)
            .map(|x| Some(on(x, build(x.len() as u32)?)))
            .collect::<Option<Vec<_>>>()?;
        Some(together(parts))
    }
}

/// `sch`, made for `members.len()` ranks, run by those members of the communicator.
fn on(members: &[u32], mut sch: Schedule) -> Schedule {
    // A schedule names only its own members; `get` keeps an error from panicking in the
    // shim's MPI_Finalize, where the report is fitted.
    let at = |r: u32| members.get(r as usize).copied().unwrap_or(r);
    for round in &mut sch {
        for m in &mut round.msgs {
            (m.0, m.1) = (at(m.0), at(m.1));
        }
        for x in (round.reduce.iter_mut()).chain(round.copy.iter_mut()) {
            x.0 = at(x.0);
        }
        round.rewrite.iter_mut().for_each(|x| x.0 = at(x.0));
        for x in (round.persistent_requests.iter_mut()).chain(round.datatypes.iter_mut()) {
            x.0 = at(x.0);
        }
    }
    sch
}

/// Schedules of disjoint members run at the same time: round k of each in round k.
fn together(parts: Vec<Schedule>) -> Schedule {
    let rounds = parts.iter().map(Vec::len).max().unwrap_or(0);
    (0..rounds)
        .map(|k| {
            let mut round = s::Round::default();
            for x in parts.iter().filter_map(|p| p.get(k)) {
                round.msgs.extend(&x.msgs);
                round.reduce.extend(&x.reduce);
                round.copy.extend(&x.copy);
                round.rewrite.extend(&x.rewrite);
                round.persistent_requests.extend(&x.persistent_requests);
                round.datatypes.extend(&x.datatypes);
                round.refill |= x.refill;
            }
            round
        })
        .collect()
}

/// Which of ch4's compositions MPICH runs for `coll` of `m` bytes on `nodes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Composition {
    /// Over every member (`beta`/`gamma` of Barrier, Bcast, Allreduce and Reduce, the
    /// only composition of Allgather and Alltoall).
    Flat,
    /// Each node's part, the leaders', each node's part (`alpha` of Barrier, Bcast,
    /// Allreduce; `alpha` of Reduce has no third part).
    Alpha,
    /// The Reduce of 2048 B or less: the nodes but the root's, the leaders', the root's
    /// node (`MPIDI_Reduce_intra_composition_beta`).
    Beta,
}

fn composition(nodes: &Nodes, coll: &str, m: u64, op: Operation) -> Composition {
    let n = nodes.members();
    if nodes.flat() {
        return Composition::Flat;
    }
    match coll {
        "barrier" => Composition::Alpha,
        "bcast" if n < 8 || m < 12288 || (n.is_power_of_two() && m < 524288) => Composition::Alpha,
        "allreduce" if op.commutative => Composition::Alpha,
        "reduce" if op.commutative && m <= 2048 => Composition::Beta,
        "reduce" if op.commutative => Composition::Alpha,
        _ => Composition::Flat,
    }
}

/// The row's note: how MPICH runs `coll` on `nodes`.
pub(super) fn note(nodes: &Nodes, coll: &str, m: u64, op: Operation) -> String {
    let hosts = nodes.0.len();
    match composition(nodes, coll, m, op) {
        Composition::Flat if nodes.flat() => format!("MPICH runs it over every member, as no two of them share a host (no node communicator), its messages between {hosts} hosts"),
        Composition::Flat => "MPICH runs it over every member (ch4's flat composition for this collective and size)".into(),
        Composition::Alpha => {
            let parts = match coll {
                "barrier" => format!("each node's barrier, the {hosts} node leaders' barrier, each node's 1-byte Bcast from its leader"),
                "bcast" => format!("the {hosts} node leaders' Bcast, then each node's"),
                "allreduce" => format!("each node's Reduce to its leader, the {hosts} leaders' Allreduce, each node's Bcast"),
                _ => format!("each node's Reduce to its leader, then the {hosts} leaders' Reduce"),
            };
            format!("MPICH runs it by node (ch4's composition alpha): {parts}")
        }
        Composition::Beta => format!("MPICH runs it by node (ch4's composition beta): the Reduce on each node but the root's, the {hosts} node leaders', then the root's node"),
    }
}

/// What MPICH runs for `coll` of `m` bytes on `nodes` with `algorithm` in the
/// collective's own parts (as `MPIR_CVAR_<COLL>_INTRA_ALGORITHM` would force it in each);
/// `part(coll, size, bytes)` is the algorithm another collective's part runs (the forced
/// one, else MPICH's default at that communicator's size). Where the default is in use,
/// the collective's own parts are taken to run the algorithm the leaders' communicator
/// selects (`Nodes::selecting_size`; each node's may select another at its own size).
pub(super) fn schedule(
    nodes: &Nodes,
    coll: &str,
    algorithm: &Algorithm,
    m: u64,
    op: Operation,
    part: &dyn Fn(&'static str, u32, u64) -> Option<&'static Algorithm>,
) -> Option<Schedule> {
    let n = nodes.members();
    let own = |k: u32| (algorithm.schedule)(k, m);
    let leaders = nodes.leaders();
    let k = leaders.len() as u32;
    let then = |mut a: Schedule, b: Schedule| {
        a.extend(b);
        a
    };
    let reduce_on = |x: u32| (part("reduce", x, m)?.schedule)(x, m);
    match (composition(nodes, coll, m, op), coll) {
        // The MPIR barrier over every member is the dissemination alone (no node
        // leader's Bcast: `mpich_barrier` is the one-node case).
        (Composition::Flat, "barrier") => Some(s::bruck_barrier(n)),
        (Composition::Flat, _) => own(n),
        (_, "barrier") => {
            let node_bcast = nodes.on_nodes(true, &|x| (part("bcast", x, 1)?.schedule)(x, 1))?;
            let node = nodes.on_nodes(true, &|x| Some(s::bruck_barrier(x)))?;
            Some(then(
                then(node, on(&leaders, s::bruck_barrier(k))),
                node_bcast,
            ))
        }
        (_, "bcast") => Some(then(on(&leaders, own(k)?), nodes.on_nodes(true, &own)?)),
        (_, "allreduce") => {
            let reduce = nodes.on_nodes(true, &reduce_on)?;
            let bcast = nodes.on_nodes(true, &|x| (part("bcast", x, m)?.schedule)(x, m))?;
            Some(then(then(reduce, on(&leaders, own(k)?)), bcast))
        }
        // The root (member 0) leads the first node: its node's Reduce comes last.
        (Composition::Beta, _) => {
            let others = nodes.on_nodes(false, &own)?;
            let first = Nodes(nodes.0[..1].to_vec()).on_nodes(true, &own)?;
            Some(then(then(others, on(&leaders, own(k)?)), first))
        }
        (_, _) => Some(then(nodes.on_nodes(true, &own)?, on(&leaders, own(k)?))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coll::operation::ASSUMED;
    use crate::coll::select::mpich;

    fn alg(coll: &str, id: &str) -> &'static Algorithm {
        mpich(coll).iter().find(|a| a.id == id).unwrap()
    }

    fn part(coll: &'static str, _n: u32, _m: u64) -> Option<&'static Algorithm> {
        Some(alg(coll, "binomial"))
    }

    /// Messages `(from, to)` of each round that sends any (MPICH's Allreduce opens with
    /// a round of local work alone).
    fn pairs(sch: &Schedule) -> Vec<Vec<(u32, u32)>> {
        (sch.iter())
            .filter(|r| !r.msgs.is_empty())
            .map(|r| r.msgs.iter().map(|m| (m.0, m.1)).collect())
            .collect()
    }

    /// One member a host: the barrier is the dissemination alone, with no leader's Bcast
    /// (2 ranks on two namespace hosts, MPICH 4.0.2 ch4:ucx over TCP, 2026-11-29: the
    /// one-node barrier with its Bcast was priced 1.95–2.58 × the measured 3.7 µs).
    #[test]
    fn one_member_a_host_runs_flat() {
        let nodes = Nodes::of(&["a", "b"]);
        let d = alg("barrier", "dissemination");
        let sch = schedule(&nodes, "barrier", d, 0, ASSUMED, &part).unwrap();
        assert_eq!(pairs(&sch), vec![vec![(0, 1), (1, 0)]]);
        let b = alg("bcast", "binomial");
        let sch = schedule(&nodes, "bcast", b, 8, ASSUMED, &part).unwrap();
        assert_eq!(pairs(&sch), vec![vec![(0, 1)]]);
    }

    /// Hosts a, b, a, b: nodes {0, 2} and {1, 3}, leaders 0 and 1. The Allreduce is each
    /// node's Reduce, the leaders' Allreduce, each node's Bcast; a non-commutative one,
    /// and the Bcast from 12288 B on 9 members, run over every member.
    #[test]
    fn shared_hosts_run_ch4s_compositions() {
        let nodes = Nodes::of(&["a", "b", "a", "b"]);
        let rd = alg("allreduce", "recursive_doubling");
        let sch = schedule(&nodes, "allreduce", rd, 8, ASSUMED, &part).unwrap();
        assert_eq!(
            pairs(&sch),
            vec![
                vec![(2, 0), (3, 1)],
                vec![(0, 1), (1, 0)],
                vec![(0, 2), (1, 3)]
            ]
        );
        let d = alg("barrier", "dissemination");
        let sch = schedule(&nodes, "barrier", d, 0, ASSUMED, &part).unwrap();
        assert_eq!(
            pairs(&sch),
            vec![
                vec![(0, 2), (2, 0), (1, 3), (3, 1)],
                vec![(0, 1), (1, 0)],
                vec![(0, 2), (1, 3)]
            ]
        );
        let op = Operation {
            commutative: false,
            ..ASSUMED
        };
        let sch = schedule(&nodes, "allreduce", rd, 8, op, &part).unwrap();
        assert_eq!(
            pairs(&sch),
            vec![
                vec![(0, 1), (1, 0), (2, 3), (3, 2)],
                vec![(0, 2), (1, 3), (2, 0), (3, 1)]
            ],
            "recursive doubling over all four"
        );
        let nine = Nodes::of(&["a", "a", "a", "a", "a", "b", "b", "b", "b"]);
        let b = alg("bcast", "binomial");
        let sch = schedule(&nine, "bcast", b, 8, ASSUMED, &part).unwrap();
        assert_eq!(pairs(&sch)[0], vec![(0, 5)], "the leaders first");
        let sch = schedule(&nine, "bcast", b, 12288, ASSUMED, &part).unwrap();
        assert_eq!(pairs(&sch)[0], vec![(0, 1)], "binomial over all nine");
        // MPICH selects the leaders' Allreduce at their size: 2 doubles on 2 leaders
        // run reduce_scatter_allgather (count ≥ pof2), on all 4 recursive doubling.
        assert_eq!(nodes.selecting_size("allreduce", 16, ASSUMED), 2);
        assert_eq!(
            Nodes::of(&["a", "b", "c", "d"]).selecting_size("allreduce", 16, ASSUMED),
            4
        );
        let b = alg("reduce", "binomial");
        let sch = schedule(&nodes, "reduce", b, 4096, ASSUMED, &part).unwrap();
        assert_eq!(
            pairs(&sch),
            vec![vec![(2, 0), (3, 1)], vec![(1, 0)]],
            "alpha"
        );
        let sch = schedule(&nodes, "reduce", b, 8, ASSUMED, &part).unwrap();
        assert_eq!(
            pairs(&sch),
            vec![vec![(3, 1)], vec![(1, 0)], vec![(2, 0)]],
            "beta"
        );
    }

    /// A 4-rank job on hosts a, b, a, b with an MPI_Allreduce of 2 doubles: MPICH runs it
    /// by node, and its leaders' communicator of 2 selects reduce_scatter_allgather (2
    /// elements ≥ pof2(2)); on one host, all 4 select recursive doubling (2 < pof2(4)).
    #[test]
    fn the_row_names_the_algorithm_the_leaders_select() {
        use loggp_report::{bins, Cell, Mode, RankEntry, Report};
        let mut r = Report::default();
        r.collective_config.decider = "mpich".into();
        r.job.mpi_library = "MPICH Version:\t4.0.2".into();
        r.cells.push(Cell {
            function: "MPI_Allreduce".into(),
            mode: Mode::Collective,
            comm_size: Some(4),
            size_bin: bins::size_bin(16),
            count: 10,
            bytes: 320,
            time_ns: 10_000.0,
            min_ns: 900.0,
            hist: vec![[bins::hist_index(1000) as u64, 10]],
            ..Default::default()
        });
        r.ranks = (["a", "b", "a", "b"].iter().enumerate())
            .map(|(k, h)| RankEntry {
                rank: k as u32,
                host: h.to_string(),
                ..Default::default()
            })
            .collect();
        let row = |r: &Report| crate::coll::rows(r).remove(0);
        let by_node = row(&r);
        assert_eq!(
            by_node.algorithm.as_deref(),
            Some("reduce_scatter_allgather")
        );
        assert!(by_node.note.unwrap().contains("composition alpha"));
        r.ranks.iter_mut().for_each(|k| k.host = "a".into());
        assert_eq!(row(&r).algorithm.as_deref(), Some("recursive_doubling"));
    }
}
