//! Peer classification: a (communicator, rank) pair becomes a world rank and a class
//! (`self`, `intra_node`, `inter_node`).
//!
//! The node of every world rank is learned once at MPI_Init on the private communicator
//! (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) together with the host name, so that ranks
//! in different network namespaces of one machine count as different hosts). Other
//! communicators are translated to world ranks the first time they are used and cached in
//! a fixed table; MPI_Comm_free clears the entry, because a freed handle can come back for
//! a communicator with other members. Translations live in a fixed, lazily-touched arena.
use crate::base::mpi::{self, Handle, MPI_Comm, MPI_Group};
use loggp_report::PeerClass;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::OnceLock;

/// What the job looks like from this rank; set once at MPI_Init.
pub struct World {
    pub rank: i32,
    pub size: i32,
    /// Node index of each world rank (equal index = same host).
    pub node_of: Vec<u32>,
    pub hosts: Vec<String>,
    pub host_of: Vec<u32>,
    world_group: MPI_Group,
}

// SAFETY: MPI_Group is an opaque handle used only through PMPI calls.
unsafe impl Send for World {}
unsafe impl Sync for World {}

static WORLD: OnceLock<World> = OnceLock::new();

pub fn world() -> Option<&'static World> {
    WORLD.get()
}

/// Changes whenever what a (communicator handle, rank) pair stands for may have changed:
/// when the job's layout becomes known, and when a communicator is freed (its handle can
/// come back for another). What is remembered by handle (`record::memo`) is of one epoch.
static EPOCH: AtomicU64 = AtomicU64::new(1);

#[inline(always)]
pub fn epoch() -> u64 {
    EPOCH.load(Relaxed)
}

/// Records the job's layout (called once, by the Init path).
pub fn set_world(rank: i32, size: i32, node_of: Vec<u32>, hosts: Vec<String>, host_of: Vec<u32>) {
    let mut world_group: MPI_Group = Default::default();
    // SAFETY: MPI is initialised; the out pointer is valid.
    unsafe { mpi::PMPI_Comm_group(mpi::comm_world(), &mut world_group) };
    let _ = WORLD.set(World {
        rank,
        size,
        node_of,
        hosts,
        host_of,
        world_group,
    });
    EPOCH.fetch_add(1, Relaxed);
}

const COMMS: usize = 1024;
const COMM_WINDOW: usize = 16;
/// World-rank entries available for translations of all communicators together.
const ARENA_RANKS: usize = 1 << 22;

struct CommEntry {
    key: AtomicU64,
    /// 0 building, otherwise len + 1 once `ranks` is ready.
    ready_len_plus1: AtomicU32,
    ranks: AtomicPtr<i32>,
    /// Hash of the members' world ranks in communicator order: the same number on every
    /// member, so that two ranks can name a channel of this communicator alike.
    group_hash: AtomicU64,
}

static COMM_TABLE: [CommEntry; COMMS] = [const {
    CommEntry {
        key: AtomicU64::new(0),
        ready_len_plus1: AtomicU32::new(0),
        ranks: AtomicPtr::new(std::ptr::null_mut()),
        group_hash: AtomicU64::new(0),
    }
}; COMMS];
static ARENA: AtomicPtr<i32> = AtomicPtr::new(std::ptr::null_mut());
static ARENA_USED: AtomicUsize = AtomicUsize::new(0);

/// Maps the translation arena (lazily touched).
pub fn setup() -> bool {
    if !ARENA.load(Acquire).is_null() {
        return true;
    }
    // All-zero memory is a valid empty table.
    let Some(p) = crate::base::runtime::map_zeroed(ARENA_RANKS * 4) else {
        return false;
    };
    ARENA.store(p as *mut i32, Release);
    true
}

#[inline(always)]
fn comm_home(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 50) as usize % COMMS
}

/// PeerClass of a world rank relative to this rank.
#[inline(always)]
pub fn class_of_world(w: &World, world_rank: i32) -> PeerClass {
    if world_rank == w.rank {
        PeerClass::SelfRank
    } else if world_rank < 0 || world_rank >= w.size {
        PeerClass::Unknown
    } else if w.node_of[world_rank as usize] == w.node_of[w.rank as usize] {
        PeerClass::IntraNode
    } else {
        PeerClass::InterNode
    }
}

/// Classifies the peer `rank` of `comm`; returns the class and the world rank (-1 if none).
#[inline(always)]
pub fn classify(comm: MPI_Comm, rank: c_int) -> (PeerClass, i32) {
    if rank == mpi::proc_null() {
        return (PeerClass::ProcNull, -1);
    }
    let Some(w) = world() else {
        return (PeerClass::Unknown, -1);
    };
    if rank < 0 {
        return (PeerClass::Unknown, -1);
    }
    if comm == mpi::comm_world() {
        return (class_of_world(w, rank), rank);
    }
    let world_rank = translate(w, comm, rank);
    (class_of_world(w, world_rank), world_rank)
}

#[inline]
fn translate(w: &World, comm: MPI_Comm, rank: c_int) -> i32 {
    let key = comm.bits().wrapping_add(1);
    let h = comm_home(key);
    for i in 0..COMM_WINDOW {
        let e = &COMM_TABLE[(h + i) % COMMS];
        if e.key.load(Acquire) == key {
            let len1 = e.ready_len_plus1.load(Acquire);
            if len1 == 0 || rank as u32 >= len1 - 1 {
                return -1;
            }
            // SAFETY: ready => ranks points to len valid entries in the arena.
            return unsafe { *e.ranks.load(Relaxed).add(rank as usize) };
        }
    }
    // First use of this communicator: claim a free entry and translate it once.
    for i in 0..COMM_WINDOW {
        let e = &COMM_TABLE[(h + i) % COMMS];
        if e.key.load(Relaxed) == 0 && e.key.compare_exchange(0, key, AcqRel, Relaxed).is_ok() {
            return build(w, e, comm, rank);
        }
    }
    -1
}

/// The world ranks of the members of `group` (in its rank order) into `out`; how many,
/// or None where they are more than `out` holds or the job's layout is not known.
pub(crate) fn group_to_world(group: MPI_Group, out: &mut [i32]) -> Option<usize> {
    let w = world()?;
    let mut n: c_int = 0;
    // SAFETY: PMPI group calls on the caller's valid group; buffers sized as passed.
    unsafe {
        if mpi::PMPI_Group_size(group, &mut n) != mpi::success() || n as usize > out.len() {
            return None;
        }
        let n = n.max(0) as usize;
        let mut ranks = [0 as c_int; 256];
        if n > ranks.len() {
            return None;
        }
        for (i, r) in ranks.iter_mut().take(n).enumerate() {
            *r = i as c_int;
        }
        let rc = mpi::PMPI_Group_translate_ranks(
            group,
            n as c_int,
            ranks.as_mut_ptr(),
            w.world_group,
            out.as_mut_ptr(),
        );
        (rc == mpi::success()).then_some(n)
    }
}

/// The name the members of a group (`members`, world ranks) give a call collective over
/// it on the communicator named `comm` with `tag` (MPI_Comm_create_group): the same on
/// every member, never 0.
pub(crate) fn group_name(members: &[i32], comm: u64, tag: i32) -> u64 {
    (group_hash(members) ^ comm.rotate_left(17) ^ (tag as u32 as u64) << 40)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        | 2
}

#[cold]
fn build(w: &World, e: &CommEntry, comm: MPI_Comm, rank: c_int) -> i32 {
    if crate::base::settings::inject("comm_translate") {
        panic!("injected fault (LOGGP_INJECT_FAULT=comm_translate)");
    }
    // SAFETY: PMPI group calls on a valid communicator; buffers sized as passed.
    unsafe {
        let mut inter: c_int = 0;
        mpi::PMPI_Comm_test_inter(comm, &mut inter);
        let mut g: MPI_Group = Default::default();
        let rc = if inter != 0 {
            mpi::PMPI_Comm_remote_group(comm, &mut g)
        } else {
            mpi::PMPI_Comm_group(comm, &mut g)
        };
        if rc != mpi::success() {
            return -1;
        }
        let mut n: c_int = 0;
        mpi::PMPI_Group_size(g, &mut n);
        let n = n.max(0) as usize;
        let start = ARENA_USED.fetch_add(n, Relaxed);
        let arena = ARENA.load(Acquire);
        if arena.is_null() || start + n > ARENA_RANKS {
            mpi::PMPI_Group_free(&mut g);
            return -1; // entry stays "building": this communicator's peers stay unknown
        }
        let out = arena.add(start);
        let mut chunk = [0 as c_int; 256];
        let mut done = 0usize;
        while done < n {
            let m = (n - done).min(chunk.len());
            for (i, c) in chunk.iter_mut().take(m).enumerate() {
                *c = (done + i) as c_int;
            }
            mpi::PMPI_Group_translate_ranks(
                g,
                m as c_int,
                chunk.as_mut_ptr(),
                w.world_group,
                out.add(done),
            );
            done += m;
        }
        mpi::PMPI_Group_free(&mut g);
        let members = std::slice::from_raw_parts(out, n);
        let name = group_hash(members);
        // An intercommunicator's are its remote group's, not the members of its calls.
        if inter == 0 {
            remember_members(name, out, n);
        }
        e.group_hash.store(name, Relaxed);
        e.ranks.store(out, Relaxed);
        e.ready_len_plus1.store(n as u32 + 1, Release);
        if (rank as usize) < n {
            *out.add(rank as usize)
        } else {
            -1
        }
    }
}

/// MPI_COMM_WORLD's name in [`comm_id`].
pub const WORLD_ID: u64 = 1;

/// FNV-1a over the members' world ranks (never 0 or [`WORLD_ID`]).
fn group_hash(members: &[i32]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &r in members {
        for b in r.to_le_bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h.max(2)
}

/// A name for `comm` that every member computes alike: [`WORLD_ID`] for MPI_COMM_WORLD,
/// otherwise the hash of its members' world ranks in order (0 when not known). Two
/// communicators with the same members in the same order (a duplicate) share the name;
/// the waits' matching checks each pair and drops those that do not fit (issue 25).
/// An intercommunicator is named by its remote group, which differs between its sides,
/// so its messages are not matched.
#[inline(always)]
pub fn comm_id(comm: MPI_Comm) -> u64 {
    if comm == mpi::comm_world() {
        return WORLD_ID;
    }
    let key = comm.bits().wrapping_add(1);
    let h = comm_home(key);
    for i in 0..COMM_WINDOW {
        let e = &COMM_TABLE[(h + i) % COMMS];
        if e.key.load(Acquire) == key {
            if e.ready_len_plus1.load(Acquire) == 0 {
                return 0;
            }
            return e.group_hash.load(Relaxed);
        }
    }
    0
}

/// Forgets a communicator about to be freed.
pub fn forget(comm: MPI_Comm) {
    EPOCH.fetch_add(1, Relaxed);
    let key = comm.bits().wrapping_add(1);
    let h = comm_home(key);
    for i in 0..COMM_WINDOW {
        let e = &COMM_TABLE[(h + i) % COMMS];
        if e.key.load(Acquire) == key {
            e.ready_len_plus1.store(0, Release);
            e.key.store(0, Release);
            return;
        }
    }
}

/// Communicators' members by name ([`comm_id`]), kept for the whole job (past
/// MPI_Comm_free: the arena is never reused), so that MPI_Finalize can say which world
/// ranks a collective's communicator held ([`members_of`]): where they sit on several
/// hosts, which of its pairs are inter-node. Filled where an intracommunicator is first
/// translated (`build`, off the hot path), for the first `MEMBER_LISTS` names.
const MEMBER_LISTS: usize = 256;

struct MemberList {
    name: AtomicU64,
    ranks: AtomicPtr<i32>,
    /// 0 building, otherwise len + 1 once `ranks` is set.
    ready_len_plus1: AtomicU32,
}

static MEMBER_TABLE: [MemberList; MEMBER_LISTS] = [const {
    MemberList {
        name: AtomicU64::new(0),
        ranks: AtomicPtr::new(std::ptr::null_mut()),
        ready_len_plus1: AtomicU32::new(0),
    }
}; MEMBER_LISTS];

fn remember_members(name: u64, ranks: *mut i32, len: usize) {
    let h = comm_home(name);
    for i in 0..MEMBER_LISTS {
        let e = &MEMBER_TABLE[(h + i) % MEMBER_LISTS];
        match e.name.compare_exchange(0, name, AcqRel, Acquire) {
            Ok(_) => {
                e.ranks.store(ranks, Relaxed);
                e.ready_len_plus1.store(len as u32 + 1, Release);
                return;
            }
            // Known already (a duplicate has its members, in the same order).
            Err(other) if other == name => return,
            Err(_) => {}
        }
    }
}

/// The world ranks, in communicator order, of the communicator named `name` (see
/// [`comm_id`]), where it was translated and remembered.
pub fn members_of(name: u64) -> Option<&'static [i32]> {
    let h = comm_home(name);
    for i in 0..MEMBER_LISTS {
        let e = &MEMBER_TABLE[(h + i) % MEMBER_LISTS];
        match e.name.load(Acquire) {
            0 => return None,
            x if x == name => {
                let len1 = e.ready_len_plus1.load(Acquire);
                let p = e.ranks.load(Relaxed);
                if len1 == 0 || p.is_null() {
                    return None;
                }
                // SAFETY: set before `ready_len_plus1` (Release/Acquire): len entries of
                // the arena, which lives for the whole process and is never reused.
                return Some(unsafe { std::slice::from_raw_parts(p, len1 as usize - 1) });
            }
            _ => {}
        }
    }
    None
}

/// The names [`members_of`] knows.
pub fn remembered() -> Vec<u64> {
    (MEMBER_TABLE.iter())
        .map(|e| e.name.load(Acquire))
        .filter(|&x| x != 0)
        .collect()
}
