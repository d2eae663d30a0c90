//! Which calibration prices each message of a collective: its pair's class (hoefler2007
//! measures LogGP per class of peer; a step across hosts costs what a message across
//! costs). On one host every pair is intra-node. On several, each member's host comes
//! from the communicator's members as the time split records them
//! (`CollectiveSplit::members`: any communicator but every rank in rank order), else,
//! for a communicator of every rank, from the job's rank order (MPI_COMM_WORLD and its
//! duplicates); each pair is priced by the calibration of its class. MPICH on several
//! hosts runs its node-aware compositions, built in `mpich_nodes`.
use super::mpich_nodes::Nodes;
use super::prices::Prices;
use super::sim::Price;
use loggp_report::{Mode, PeerClass, Report};

/// A row's prices: the intra-node calibration's (or the one every pair shares), and,
/// where members are on several hosts, the inter-node one with each member's host.
pub(super) type PairPrices<'a, 'r> = (&'a Prices<'r>, Option<(&'a Prices<'r>, Vec<&'r str>)>);

/// The job's prices per class and where its ranks are.
pub(super) struct Classes<'r> {
    intra: Option<Prices<'r>>,
    inter: Option<Prices<'r>>,
    /// Distinct hosts.
    hosts: usize,
    /// Each rank's host, in rank order (empty where a rank's is missing).
    host_of: Vec<&'r str>,
    mpich: bool,
}

impl<'r> Classes<'r> {
    pub(super) fn of(r: &'r Report) -> Classes<'r> {
        let set_of = |class: PeerClass| {
            (r.calibration.mpi.iter()).find(|s| s.peer_class == class && s.mode == Mode::Send)
        };
        let mut v: Vec<(u32, &str)> = r.ranks.iter().map(|k| (k.rank, k.host.as_str())).collect();
        v.sort();
        let complete = v.iter().enumerate().all(|(i, (k, _))| *k as usize == i);
        let hosts: std::collections::BTreeSet<&str> = v.iter().map(|x| x.1).collect();
        Classes {
            intra: set_of(PeerClass::IntraNode)
                .and_then(Prices::of)
                .map(|p| p.with_concurrent(&r.calibration.concurrent_exchanges)),
            inter: set_of(PeerClass::InterNode).and_then(Prices::of),
            hosts: hosts.len(),
            host_of: if complete {
                v.into_iter().map(|(_, h)| h).collect()
            } else {
                vec![]
            },
            mpich: r.collective_config.decider == "mpich",
        }
    }

    /// The host of each member of a row of `n` members, in the communicator's rank
    /// order: by its recorded `members` (world ranks), else where the communicator is
    /// every rank of the job, taken in rank order. None where not known.
    fn member_hosts(&self, n: u32, members: Option<&[u32]>) -> Option<Vec<&'r str>> {
        match members {
            Some(m) if m.len() == n as usize => (m.iter())
                .map(|&w| self.host_of.get(w as usize).copied())
                .collect(),
            Some(_) => None,
            None => (n as usize == self.host_of.len()).then(|| self.host_of.clone()),
        }
    }

    /// How MPICH groups a row of `n` members (`members`: see [`Classes::for_row`]) by
    /// host, where the job's ranks are on several hosts and the members' are known.
    pub(super) fn mpich_nodes(&self, n: u32, members: Option<&[u32]>) -> Option<Nodes> {
        if !self.mpich || self.hosts <= 1 {
            return None;
        }
        self.member_hosts(n, members).map(|h| Nodes::of(&h))
    }

    /// The prices of a row of `n` members, or None with the reason in `notes`.
    /// `members`: the communicator's world ranks in its rank order, where the report
    /// records them (`CollectiveSplit::members`); none for every rank in rank order.
    pub(super) fn for_row(
        &self,
        n: u32,
        members: Option<&[u32]>,
        notes: &mut Vec<String>,
    ) -> Option<PairPrices<'_, 'r>> {
        let mut no = |why: &str| {
            notes.push(why.into());
            None
        };
        if self.hosts <= 1 {
            return match &self.intra {
                Some(p) => Some((p, None)),
                None => no("no intra-node calibration to price the messages"),
            };
        }
        let Some(hosts) = self.member_hosts(n, members) else {
            return no("members on several hosts: which pairs are inter-node is known only for a communicator of every rank of the job (its members in rank order) or one whose members the report records, not for this one");
        };
        let taken = if members.is_some() {
            "the communicator's members as recorded"
        } else {
            "the communicator holds every rank of the job, taken in rank order"
        };
        let distinct: std::collections::BTreeSet<&str> = hosts.iter().copied().collect();
        match (&self.intra, &self.inter) {
            (Some(p), _) if distinct.len() == 1 => {
                notes.push(format!("every member on one host ({taken}): every pair priced by the intra-node calibration"));
                Some((p, None))
            }
            (None, _) if distinct.len() == 1 => no("every member on one host, and no intra-node calibration to price their pairs"),
            (_, None) => no("members on several hosts, and no inter-node calibration to price the pairs across them"),
            (Some(p), Some(q)) => {
                notes.push(format!("members on several hosts: each pair priced by its class's calibration ({taken})"));
                Some((p, Some((q, hosts))))
            }
            (None, Some(q)) if distinct.len() == hosts.len() => {
                notes.push(format!("members on several hosts, one a host ({taken}): every pair priced by the inter-node calibration"));
                Some((q, None))
            }
            (None, Some(_)) => no("members on several hosts, some sharing one, and no intra-node calibration to price their pairs"),
        }
    }
}

/// The price of a message from member `from` to member `to` of `bytes`: by the
/// inter-node calibration (`inter`) where `hosts` puts the two members on different
/// hosts, else by the intra-node one.
pub(super) fn pair_price(
    intra: &dyn Fn(u64) -> Price,
    inter: Option<&dyn Fn(u64) -> Price>,
    hosts: &[&str],
    from: u32,
    to: u32,
    bytes: u64,
) -> Price {
    match inter {
        Some(q) if hosts.get(from as usize) != hosts.get(to as usize) => q(bytes),
        _ => intra(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loggp_report::{CalibrationSet, Point, RankEntry};

    /// A calibration set of `class` whose every size takes `one_way_ns` end to end.
    fn set(class: PeerClass, one_way_ns: f64) -> CalibrationSet {
        CalibrationSet {
            peer_class: class,
            mode: Mode::Send,
            points: [8, 1024, 65536]
                .map(|s| Point {
                    size_bytes: s,
                    prtt_1_0_ns: Some(2.0 * one_way_ns),
                    ..Default::default()
                })
                .to_vec(),
            ..Default::default()
        }
    }

    /// Four ranks on hosts a, a, b, b: a communicator's recorded members say which of its
    /// pairs cross hosts. {0, 2} crosses, {0, 1} stays on host a, a communicator of two
    /// without recorded members is not known, every rank in order is taken in rank
    /// order, and a split of every rank that reorders them by its members.
    #[test]
    fn a_communicators_members_say_which_pairs_cross_hosts() {
        let mut r = Report {
            ranks: (["a", "a", "b", "b"].iter().enumerate())
                .map(|(k, h)| RankEntry {
                    rank: k as u32,
                    host: h.to_string(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        r.calibration.mpi = vec![
            set(PeerClass::IntraNode, 300.0),
            set(PeerClass::InterNode, 20_000.0),
        ];
        let c = Classes::of(&r);
        let mut notes = vec![];
        let hosts = |n: u32, m: Option<&[u32]>, notes: &mut Vec<String>| {
            let (p, across) = c.for_row(n, m, notes)?;
            Some((p.at(8, 0).end_to_end_ns, across.map(|a| a.1)))
        };
        assert_eq!(
            hosts(2, Some(&[0, 2]), &mut notes),
            Some((300.0, Some(vec!["a", "b"])))
        );
        assert_eq!(hosts(2, Some(&[0, 1]), &mut notes), Some((300.0, None)));
        assert!(notes
            .last()
            .unwrap()
            .starts_with("every member on one host"));
        assert_eq!(hosts(2, None, &mut notes), None);
        assert!(notes.last().unwrap().contains("not for this one"));
        assert_eq!(
            hosts(4, None, &mut notes).and_then(|x| x.1),
            Some(vec!["a", "a", "b", "b"])
        );
        assert_eq!(
            hosts(4, Some(&[0, 2, 1, 3]), &mut notes).and_then(|x| x.1),
            Some(vec!["a", "b", "a", "b"])
        );
        // MPICH groups them alike: {0, 2} has one member a host and runs flat.
        let mpich = Classes {
            mpich: true,
            ..Classes::of(&r)
        };
        assert!(mpich.mpich_nodes(2, Some(&[0, 2])).unwrap().flat());
        assert!(!mpich.mpich_nodes(4, None).unwrap().flat());
    }
}
