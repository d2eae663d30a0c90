//! The neighbourhoods of the virtual topologies whose neighbourhood collectives the waits'
//! sample keeps (issue 25). A member of a neighbourhood collective (MPI 4.0 §8.6) waits
//! only for the members it receives from, its in-neighbours: at MPI_Finalize each kept
//! call's entry goes to this rank's out-neighbours, and each rank takes as the last
//! arrival the latest entry among its in-neighbours (`reduce::waits`).
//!
//! A topology is named by its communicator's name (`peers::comm_id`, the same on every
//! member) mixed with what every member of it sees alike (the kind, and a Cartesian
//! topology's dimensions and periods, a graph's node and edge counts): a Cartesian and a
//! distributed graph topology over the same ranks number their calls apart. Each name's
//! lists are kept once, in a fixed table ([`TOPOLOGIES`] names of [`MAX_NEIGHBOURS`]
//! neighbours each way, about 9 KiB), taken when the first call of the name is kept; a
//! topology beyond it, or with more neighbours, keeps no lists, and its calls' samples
//! stay unmatched (counted as sampled, not matched). Two topologies of one name whose
//! lists differ on this rank (two distributed graphs over the same ranks) mark the name
//! ambiguous, and its samples are dropped the same way.
use crate::base::mpi::{self, Handle, MPI_Comm};
use crate::record::peers::classify;
use std::os::raw::c_int;
use std::sync::atomic::{fence, AtomicI32, AtomicU64, AtomicU8, AtomicUsize, Ordering::*};

pub const TOPOLOGIES: usize = 16;
pub const MAX_NEIGHBOURS: usize = 64;

const FREE: u8 = 0;
const FILLING: u8 = 1;
const READY: u8 = 2;
const AMBIGUOUS: u8 = 3;
const TOO_LARGE: u8 = 4;

struct Entry {
    state: AtomicU8,
    name: AtomicU64,
    /// The communicator whose lists these are (its handle's bits).
    handle: AtomicU64,
    n_sources: AtomicUsize,
    n_destinations: AtomicUsize,
    sources: [AtomicI32; MAX_NEIGHBOURS],
    destinations: [AtomicI32; MAX_NEIGHBOURS],
}

static TABLE: [Entry; TOPOLOGIES] = [const {
    Entry {
        state: AtomicU8::new(FREE),
        name: AtomicU64::new(0),
        handle: AtomicU64::new(0),
        n_sources: AtomicUsize::new(0),
        n_destinations: AtomicUsize::new(0),
        sources: [const { AtomicI32::new(-1) }; MAX_NEIGHBOURS],
        destinations: [const { AtomicI32::new(-1) }; MAX_NEIGHBOURS],
    }
}; TOPOLOGIES];

/// This rank's neighbours as world ranks, without MPI_PROC_NULL, itself and repeats.
struct Lists {
    sources: [i32; MAX_NEIGHBOURS],
    n_sources: usize,
    destinations: [i32; MAX_NEIGHBOURS],
    n_destinations: usize,
}

/// FNV-1a step.
fn mix(h: u64, v: i64) -> u64 {
    v.to_le_bytes()
        .iter()
        .fold(h, |h, b| (h ^ *b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// What a neighbourhood collective's hook asks of its communicator's topology: the
/// topology's name ([`name_of`]) and this rank's in- and out-degree (the blocks in its
/// buffers, MPI 4.0 §8.6).
#[derive(Clone, Copy, Default)]
pub(crate) struct Topology {
    pub name: u64,
    pub in_degree: i64,
    pub out_degree: i64,
}

/// The topologies last asked for, by communicator handle, of one `peers::epoch` (a
/// freed communicator's handle can come back for another: tests/c/neighbor.c). Asked
/// anew, the queries cost a neighbourhood call twice (its bytes, then its name): 931
/// instructions of the shim's own in MPI_Neighbor_allgather on a 1-D ring against 497
/// cached (callgrind, Open MPI).
const CACHED: usize = 16;

struct Cached {
    /// The handle's bits + 1 (0: empty, or being written).
    key: AtomicU64,
    epoch: AtomicU64,
    name: AtomicU64,
    degrees: AtomicU64,
}

static CACHE: [Cached; CACHED] = [const {
    Cached {
        key: AtomicU64::new(0),
        epoch: AtomicU64::new(0),
        name: AtomicU64::new(0),
        degrees: AtomicU64::new(0),
    }
}; CACHED];

/// `comm`'s topology (`comm_id`: its communicator's name, asked only when not cached).
/// A cache entry is read as a sequence lock: its key before and after the values.
#[inline]
pub(crate) fn topology(comm: MPI_Comm, comm_id: impl FnOnce() -> u64) -> Topology {
    let key = comm.bits().wrapping_add(1);
    let epoch = crate::record::peers::epoch();
    let e = &CACHE[(key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 60) as usize % CACHED];
    if e.key.load(Acquire) == key {
        let (name, degrees, at) = (
            e.name.load(Relaxed),
            e.degrees.load(Relaxed),
            e.epoch.load(Relaxed),
        );
        fence(Acquire);
        if at == epoch && e.key.load(Relaxed) == key {
            return Topology {
                name,
                in_degree: (degrees >> 32) as i64,
                out_degree: (degrees & 0xffff_ffff) as i64,
            };
        }
    }
    let (in_degree, out_degree) = degrees(comm);
    let t = Topology {
        name: name_of(comm, comm_id()),
        in_degree,
        out_degree,
    };
    let word = |d: i64| d.clamp(0, u32::MAX as i64) as u64;
    e.key.store(0, Relaxed);
    fence(Release);
    e.name.store(t.name, Relaxed);
    e.degrees
        .store(word(in_degree) << 32 | word(out_degree), Relaxed);
    e.epoch.store(epoch, Relaxed);
    e.key.store(key, Release);
    t
}

/// (in-degree, out-degree) of this rank in `comm`'s topology; (0, 0) without one.
fn degrees(comm: MPI_Comm) -> (i64, i64) {
    let mut kind: c_int = mpi::undefined();
    // SAFETY: queries of a valid communicator writing ints.
    unsafe {
        mpi::PMPI_Topo_test(comm, &mut kind);
        if kind == mpi::topo_cart() {
            let mut d: c_int = 0;
            mpi::PMPI_Cartdim_get(comm, &mut d);
            (2 * d as i64, 2 * d as i64)
        } else if kind == mpi::topo_graph() {
            let (mut rank, mut n): (c_int, c_int) = (0, 0);
            mpi::PMPI_Comm_rank(comm, &mut rank);
            mpi::PMPI_Graph_neighbors_count(comm, rank, &mut n);
            (n as i64, n as i64)
        } else if kind == mpi::topo_dist_graph() {
            let (mut i, mut o, mut w): (c_int, c_int, c_int) = (0, 0, 0);
            mpi::PMPI_Dist_graph_neighbors_count(comm, &mut i, &mut o, &mut w);
            (i as i64, o as i64)
        } else {
            (0, 0)
        }
    }
}

/// The name of `comm`'s topology for the waits' sample: its communicator's name
/// (`comm_id`, 0 where unknown) mixed with what every member sees alike; 0 without one.
fn name_of(comm: MPI_Comm, comm_id: u64) -> u64 {
    if comm_id == 0 {
        return 0;
    }
    let mut kind: c_int = mpi::undefined();
    let mut h = mix(0xcbf2_9ce4_8422_2325 ^ comm_id, 0x6e62);
    // SAFETY: queries of a valid communicator, writing into buffers of the sizes given.
    unsafe {
        mpi::PMPI_Topo_test(comm, &mut kind);
        if kind == mpi::topo_cart() {
            let mut d: c_int = 0;
            mpi::PMPI_Cartdim_get(comm, &mut d);
            h = mix(h, 1);
            h = mix(h, d as i64);
            const MAX_DIMS: usize = 16;
            if d >= 0 && d as usize <= MAX_DIMS {
                let (mut dims, mut periods, mut coords) = (
                    [0 as c_int; MAX_DIMS],
                    [0 as c_int; MAX_DIMS],
                    [0 as c_int; MAX_DIMS],
                );
                mpi::PMPI_Cart_get(
                    comm,
                    d,
                    dims.as_mut_ptr(),
                    periods.as_mut_ptr(),
                    coords.as_mut_ptr(),
                );
                for i in 0..d as usize {
                    h = mix(mix(h, dims[i] as i64), periods[i] as i64);
                }
            }
        } else if kind == mpi::topo_graph() {
            let (mut nodes, mut edges): (c_int, c_int) = (0, 0);
            mpi::PMPI_Graphdims_get(comm, &mut nodes, &mut edges);
            h = mix(mix(mix(h, 2), nodes as i64), edges as i64);
        } else if kind == mpi::topo_dist_graph() {
            h = mix(h, 3);
        } else {
            return 0;
        }
    }
    h.max(2)
}

/// Sources and destinations as ranks of the communicator, each with its count.
type RankLists = (
    [c_int; MAX_NEIGHBOURS],
    usize,
    [c_int; MAX_NEIGHBOURS],
    usize,
);

/// This rank's neighbours in `comm`'s topology, as ranks of `comm` (MPI_PROC_NULL
/// among them where a Cartesian dimension is not periodic): (sources, destinations);
/// None where either list has more than [`MAX_NEIGHBOURS`].
fn lists(comm: MPI_Comm) -> Option<RankLists> {
    let mut kind: c_int = mpi::undefined();
    let (mut src, mut dst) = ([0 as c_int; MAX_NEIGHBOURS], [0 as c_int; MAX_NEIGHBOURS]);
    // SAFETY: as in `name_of`.
    unsafe {
        mpi::PMPI_Topo_test(comm, &mut kind);
        if kind == mpi::topo_cart() {
            // MPI 4.0 §8.6: per dimension, the neighbours at −1 and +1 (MPI_Cart_shift's
            // source and destination), each both an in- and an out-neighbour.
            let mut d: c_int = 0;
            mpi::PMPI_Cartdim_get(comm, &mut d);
            let n = 2 * d.max(0) as usize;
            if n > MAX_NEIGHBOURS {
                return None;
            }
            for i in 0..d.max(0) {
                let (mut s, mut t): (c_int, c_int) = (0, 0);
                mpi::PMPI_Cart_shift(comm, i, 1, &mut s, &mut t);
                src[2 * i as usize] = s;
                src[2 * i as usize + 1] = t;
            }
            dst[..n].copy_from_slice(&src[..n]);
            Some((src, n, dst, n))
        } else if kind == mpi::topo_graph() {
            let (mut me, mut n): (c_int, c_int) = (0, 0);
            mpi::PMPI_Comm_rank(comm, &mut me);
            mpi::PMPI_Graph_neighbors_count(comm, me, &mut n);
            let n = n.max(0) as usize;
            if n > MAX_NEIGHBOURS {
                return None;
            }
            mpi::PMPI_Graph_neighbors(comm, me, n as c_int, src.as_mut_ptr());
            dst[..n].copy_from_slice(&src[..n]);
            Some((src, n, dst, n))
        } else if kind == mpi::topo_dist_graph() {
            let (mut i, mut o, mut w): (c_int, c_int, c_int) = (0, 0, 0);
            mpi::PMPI_Dist_graph_neighbors_count(comm, &mut i, &mut o, &mut w);
            let (i, o) = (i.max(0) as usize, o.max(0) as usize);
            if i > MAX_NEIGHBOURS || o > MAX_NEIGHBOURS {
                return None;
            }
            let (mut sw, mut dw) = ([0 as c_int; MAX_NEIGHBOURS], [0 as c_int; MAX_NEIGHBOURS]);
            mpi::PMPI_Dist_graph_neighbors(
                comm,
                i as c_int,
                src.as_mut_ptr(),
                sw.as_mut_ptr(),
                o as c_int,
                dst.as_mut_ptr(),
                dw.as_mut_ptr(),
            );
            Some((src, i, dst, o))
        } else {
            None
        }
    }
}

/// World ranks of `ranks` of `comm` into `out`, without MPI_PROC_NULL, this rank
/// (`me`) and repeats; how many.
fn world_ranks(comm: MPI_Comm, ranks: &[c_int], me: i32, out: &mut [i32; MAX_NEIGHBOURS]) -> usize {
    let mut n = 0;
    for &r in ranks {
        let (_, w) = classify(comm, r);
        if w < 0 || w == me || out[..n].contains(&w) {
            continue;
        }
        out[n] = w;
        n += 1;
    }
    n
}

/// This rank's lists in `comm`'s topology (None: too many neighbours, or none known).
fn local(comm: MPI_Comm) -> Option<Lists> {
    let me = crate::record::peers::world()?.rank;
    let (src, ns, dst, nd) = lists(comm)?;
    let mut l = Lists {
        sources: [-1; MAX_NEIGHBOURS],
        n_sources: 0,
        destinations: [-1; MAX_NEIGHBOURS],
        n_destinations: 0,
    };
    l.n_sources = world_ranks(comm, &src[..ns], me, &mut l.sources);
    l.n_destinations = world_ranks(comm, &dst[..nd], me, &mut l.destinations);
    Some(l)
}

/// Keeps this rank's neighbours in `comm`'s topology under `name` (from [`topology`]), once:
/// called where a neighbourhood collective's call is kept. Another communicator of the
/// same name whose lists differ marks the name ambiguous.
#[inline]
pub(crate) fn note(comm: MPI_Comm, name: u64) {
    if name == 0 {
        return;
    }
    let handle = comm.bits();
    for e in &TABLE {
        let state = e.state.load(Acquire);
        if state == FREE {
            if e.state
                .compare_exchange(FREE, FILLING, AcqRel, Acquire)
                .is_err()
            {
                continue; // another thread took it; its name may not show yet
            }
            e.name.store(name, Relaxed);
            e.handle.store(handle, Relaxed);
            let state = match local(comm) {
                Some(l) => {
                    for (i, &w) in l.sources[..l.n_sources].iter().enumerate() {
                        e.sources[i].store(w, Relaxed);
                    }
                    for (i, &w) in l.destinations[..l.n_destinations].iter().enumerate() {
                        e.destinations[i].store(w, Relaxed);
                    }
                    e.n_sources.store(l.n_sources, Relaxed);
                    e.n_destinations.store(l.n_destinations, Relaxed);
                    READY
                }
                None => TOO_LARGE,
            };
            e.state.store(state, Release);
            return;
        }
        if e.name.load(Relaxed) != name {
            continue;
        }
        if state == READY && e.handle.load(Relaxed) != handle && !holds(e, local(comm)) {
            e.state.store(AMBIGUOUS, Release);
        }
        return;
    }
}

/// Whether `e` holds the lists `l` (as sets).
fn holds(e: &Entry, l: Option<Lists>) -> bool {
    let Some(l) = l else { return false };
    let same = |n: &AtomicUsize, held: &[AtomicI32], v: &[i32]| {
        n.load(Relaxed) == v.len()
            && v.iter()
                .all(|w| held[..v.len()].iter().any(|x| x.load(Relaxed) == *w))
    };
    same(&e.n_sources, &e.sources, &l.sources[..l.n_sources])
        && same(
            &e.n_destinations,
            &e.destinations,
            &l.destinations[..l.n_destinations],
        )
}

/// In- and out-neighbours, world ranks.
pub(crate) type InOut = (Vec<i32>, Vec<i32>);

/// This rank's in- and out-neighbours (world ranks) in the topology whose calls of
/// `func` are numbered on `channel` (`samples::coll_channel`); None where its lists were
/// not kept (the table full, too many neighbours, or two topologies of one name).
/// At MPI_Finalize.
pub(crate) fn of_channel(channel: u64, func: u8) -> Option<InOut> {
    let e = TABLE.iter().find(|e| {
        e.state.load(Acquire) != FREE
            && crate::record::samples::coll_channel(e.name.load(Relaxed), func) == channel
    })?;
    if e.state.load(Acquire) != READY {
        return None;
    }
    let take = |v: &[AtomicI32], n: usize| v[..n].iter().map(|x| x.load(Relaxed)).collect();
    Some((
        take(&e.sources, e.n_sources.load(Relaxed)),
        take(&e.destinations, e.n_destinations.load(Relaxed)),
    ))
}
