//! Which calibration prices each message of a collective: its pair's class (hoefler2007
//! measures LogGP per class of peer; a step across hosts costs what a message across
//! costs). On one host every pair is intra-node. On several, a communicator of every
//! rank of the job is taken with its members in the job's rank order (MPI_COMM_WORLD
//! and its duplicates; a split that reorders them is not told apart), each pair by the
//! calibration of its class; which ranks another communicator holds is not recorded.
//! MPICH on several hosts runs its node-aware compositions, built in `mpich_nodes`.
use super::mpich_nodes::Nodes;
use super::prices::Prices;
use super::sim::Price;
use loggp_report::{Mode, PeerClass, Report};

/// A row's prices: the intra-node calibration's (or the one every pair shares), and,
/// where members are on several hosts, the inter-node one with each member's host.
pub(super) type PairPrices<'a, 'r> = (&'a Prices<'r>, Option<(&'a Prices<'r>, &'a [&'r str])>);

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
            intra: set_of(PeerClass::IntraNode).and_then(Prices::of),
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

    /// How MPICH groups a row of `n` members by host, where they are on several hosts
    /// and it is known (a communicator of every rank, in rank order).
    pub(super) fn mpich_nodes(&self, n: u32) -> Option<Nodes> {
        (self.mpich && self.hosts > 1 && n as usize == self.host_of.len())
            .then(|| Nodes::of(&self.host_of))
    }

    /// The prices of a row of `n` members, or None with the reason in `notes`.
    pub(super) fn for_row(&self, n: u32, notes: &mut Vec<String>) -> Option<PairPrices<'_, 'r>> {
        let one_host = self.hosts <= 1;
        let mut no = |why: &str| {
            notes.push(why.into());
            None
        };
        match (&self.intra, &self.inter) {
            (Some(p), _) if one_host => Some((p, None)),
            (None, _) if one_host => no("no intra-node calibration to price the messages"),
            _ if n as usize != self.host_of.len() => no("members on several hosts: which pairs are inter-node is known only for a communicator of every rank of the job (its members in rank order), not for this one"),
            (_, None) => no("members on several hosts, and no inter-node calibration to price the pairs across them"),
            (Some(p), Some(q)) => {
                notes.push("members on several hosts: each pair priced by its class's calibration (the communicator holds every rank of the job, taken in rank order)".into());
                Some((p, Some((q, self.host_of.as_slice()))))
            }
            (None, Some(q)) if self.hosts == self.host_of.len() => {
                notes.push("members on several hosts, one a host: every pair priced by the inter-node calibration".into());
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
