//! The communication matrix: per peer world rank, the point-to-point messages this rank
//! sent (count, bytes) and the time its sending and receiving calls took (IPM's and
//! Open MPI monitoring's per-peer counts, with time added).
//!
//! Like the cell tables, it is one anonymous mapping made at MPI_Init once the world's
//! size is known: a row of [`WORDS`] counters per world rank for each thread slot, plus
//! one shared row set for threads without a slot (updated atomically). A slot's row is
//! written only by its own thread, so the hot path does plain loads and stores. Memory:
//! (LOGGP_MAX_THREADS + 1) × world size × 48 bytes of address space; pages no thread
//! touches cost nothing.
//!
//! Only messages the application passes through the intercepted point-to-point calls
//! are here. The messages a collective makes run beneath PMPI and are not.
use crate::record::stats::slot_index;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering::*};

/// Counters per (slot, peer): messages sent, bytes sent, ticks in sending calls, ticks
/// in receiving calls, and of the messages those a persistent request started.
pub const WORDS: usize = 6;
const MESSAGES: usize = 0;
const BYTES: usize = 1;
const SEND_TICKS: usize = 2;
const RECV_TICKS: usize = 3;
const PERSISTENT_MESSAGES: usize = 4;
const PERSISTENT_BYTES: usize = 5;

static BASE: AtomicPtr<AtomicU64> = AtomicPtr::new(std::ptr::null_mut());
static PEERS: AtomicUsize = AtomicUsize::new(0);
static SLOTS: AtomicUsize = AtomicUsize::new(0);
/// LOGGP_INJECT_FAULT=hide_send: the next send is left out of the matrix, so that a
/// test can see the cross-check against Open MPI's monitoring report the difference.
static HIDE_NEXT_SEND: AtomicBool = AtomicBool::new(false);

/// Maps the matrix for `world_size` peers and `max_threads` slots. False if it could not
/// be mapped (the report then has no matrix, and says so).
pub fn setup(world_size: usize, max_threads: usize, hide_first_send: bool) -> bool {
    if !BASE.load(Acquire).is_null() {
        return true;
    }
    let words = (max_threads + 1) * world_size * WORDS;
    let Some(p) = crate::base::runtime::map_zeroed(words * 8) else {
        return false;
    };
    HIDE_NEXT_SEND.store(hide_first_send, Relaxed);
    PEERS.store(world_size, Relaxed);
    SLOTS.store(max_threads, Relaxed);
    BASE.store(p as *mut AtomicU64, Release);
    true
}

/// The counters of `peer` in this thread's row, and whether they are shared (no slot).
#[inline(always)]
fn row(peer: i32) -> Option<(&'static [AtomicU64], bool)> {
    let base = BASE.load(Relaxed);
    let peers = PEERS.load(Relaxed);
    if base.is_null() || peer < 0 || peer as usize >= peers {
        return None;
    }
    let slots = SLOTS.load(Relaxed);
    let (slot, shared) = match slot_index() {
        Some(i) if i < slots => (i, false),
        _ => (slots, true),
    };
    // SAFETY: slot <= slots and peer < peers: inside the mapping, which is never unmapped.
    let p = unsafe { base.add((slot * peers + peer as usize) * WORDS) };
    Some((unsafe { std::slice::from_raw_parts(p, WORDS) }, shared))
}

#[inline(always)]
fn add(row: &[AtomicU64], shared: bool, word: usize, v: u64) {
    if shared {
        row[word].fetch_add(v, Relaxed);
    } else {
        row[word].store(row[word].load(Relaxed).wrapping_add(v), Relaxed);
    }
}

/// A message to world rank `peer` of `bytes`, sent or started by a call of `ticks`.
#[inline(always)]
pub fn sent(peer: i32, bytes: u64, ticks: u64) {
    if HIDE_NEXT_SEND.load(Relaxed) && HIDE_NEXT_SEND.swap(false, Relaxed) {
        return;
    }
    if let Some((r, shared)) = row(peer) {
        add(r, shared, MESSAGES, 1);
        add(r, shared, BYTES, bytes);
        add(r, shared, SEND_TICKS, ticks);
    }
}

/// This thread's own counters of `peer` (None without them: no slot, no mapping, no
/// such peer). They never move, so the reference can be kept (`record::memo`).
#[inline(always)]
pub fn own_row(peer: i32) -> Option<&'static [AtomicU64]> {
    row(peer).and_then(|(r, shared)| (!shared).then_some(r))
}

/// Whether this send is the one LOGGP_INJECT_FAULT=hide_send leaves out (true once).
#[inline(always)]
pub fn hide_this_send() -> bool {
    HIDE_NEXT_SEND.load(Relaxed) && HIDE_NEXT_SEND.swap(false, Relaxed)
}

/// Calls held by a memo entry (`record::memo`), added to a row from [`own_row`]: as
/// `calls` messages sent (`sends`), or as time receiving.
pub fn add_held(row: &[AtomicU64], sends: bool, calls: u64, bytes: u64, ticks: u64) {
    if sends {
        add(row, false, MESSAGES, calls);
        add(row, false, BYTES, bytes);
        add(row, false, SEND_TICKS, ticks);
    } else {
        add(row, false, RECV_TICKS, ticks);
    }
}

/// A message a persistent request started (MPI_Start, MPI_Startall): counted as any
/// other, and apart, because Open MPI 4.1's monitoring does not see it (its MPI_Start
/// reaches the PML's request directly, past the monitoring layer).
#[inline(always)]
pub fn sent_persistent(peer: i32, bytes: u64, ticks: u64) {
    sent(peer, bytes, ticks);
    if let Some((r, shared)) = row(peer) {
        add(r, shared, PERSISTENT_MESSAGES, 1);
        add(r, shared, PERSISTENT_BYTES, bytes);
    }
}

/// Time in a sending call that sent no new message (a completion of a send request).
#[inline(always)]
pub fn send_time(peer: i32, ticks: u64) {
    if let Some((r, shared)) = row(peer) {
        add(r, shared, SEND_TICKS, ticks);
    }
}

/// Time in a receiving call from world rank `peer`.
#[inline(always)]
pub fn recv_time(peer: i32, ticks: u64) {
    if let Some((r, shared)) = row(peer) {
        add(r, shared, RECV_TICKS, ticks);
    }
}

/// What this rank recorded for one peer, summed over its threads.
pub struct PeerTotals {
    pub peer: u32,
    pub messages: u64,
    pub bytes: u64,
    pub send_ticks: u64,
    pub recv_ticks: u64,
    pub persistent_messages: u64,
    pub persistent_bytes: u64,
}

/// Per peer with anything recorded, summed over the slots, with what memo entries still
/// hold for a row (`record::memo::held`: messages, bytes, send ticks, receive ticks, by
/// the row's address).
pub fn totals(held: &HashMap<usize, [u64; 4]>) -> Vec<PeerTotals> {
    let base = BASE.load(Acquire);
    if base.is_null() {
        return Vec::new();
    }
    let (peers, slots) = (PEERS.load(Relaxed), SLOTS.load(Relaxed));
    let mut out = Vec::new();
    for peer in 0..peers {
        let mut t = [0u64; WORDS];
        for slot in 0..=slots {
            // SAFETY: inside the mapping (see `row`).
            let p = unsafe {
                &*base
                    .add((slot * peers + peer) * WORDS)
                    .cast::<[AtomicU64; WORDS]>()
            };
            for (acc, w) in t.iter_mut().zip(p) {
                *acc = acc.wrapping_add(w.load(Relaxed));
            }
            if let Some(h) = held.get(&(p.as_ptr() as usize)) {
                for (acc, v) in t[..4].iter_mut().zip(h) {
                    *acc = acc.wrapping_add(*v);
                }
            }
        }
        if t.iter().any(|&v| v != 0) {
            out.push(PeerTotals {
                peer: peer as u32,
                messages: t[MESSAGES],
                bytes: t[BYTES],
                send_ticks: t[SEND_TICKS],
                recv_ticks: t[RECV_TICKS],
                persistent_messages: t[PERSISTENT_MESSAGES],
                persistent_bytes: t[PERSISTENT_BYTES],
            });
        }
    }
    out
}

/// Whether the matrix was mapped (MPI_Init seen and memory available).
pub fn mapped() -> bool {
    !BASE.load(Relaxed).is_null()
}

/// loggp's own point-to-point messages on its private communicator (calibration), per
/// peer world rank: counted so that a per-peer counter beneath PMPI (Open MPI's
/// monitoring) can be compared with the application's matrix. Not on the hot path.
static OWN: AtomicPtr<AtomicU64> = AtomicPtr::new(std::ptr::null_mut());

/// Words per peer of the own-traffic counters: messages, bytes, and of them those sent
/// through persistent requests.
const OWN_WORDS: usize = 4;

/// Maps the own-traffic counters, at MPI_Init.
pub fn setup_own(world_size: usize) {
    if OWN.load(Acquire).is_null() {
        if let Some(p) = crate::base::runtime::map_zeroed(world_size * OWN_WORDS * 8) {
            OWN.store(p as *mut AtomicU64, Release);
        }
    }
}

/// One message of loggp's own to world rank `peer` (the private communicator is a
/// duplicate of MPI_COMM_WORLD: its ranks are world ranks).
pub fn own_sent(peer: i32, bytes: u64) {
    own_add(peer, bytes, false);
}

/// As [`own_sent`], through a persistent request (which Open MPI 4.1's monitoring does
/// not count).
pub fn own_sent_persistent(peer: i32, bytes: u64) {
    own_add(peer, bytes, true);
}

fn own_add(peer: i32, bytes: u64, persistent: bool) {
    let p = OWN.load(Acquire);
    if p.is_null() || peer < 0 || peer as usize >= PEERS.load(Relaxed) {
        return;
    }
    let at = peer as usize * OWN_WORDS;
    // SAFETY: peer < world size: inside the mapping.
    unsafe {
        (*p.add(at)).fetch_add(1, Relaxed);
        (*p.add(at + 1)).fetch_add(bytes, Relaxed);
        if persistent {
            (*p.add(at + 2)).fetch_add(1, Relaxed);
            (*p.add(at + 3)).fetch_add(bytes, Relaxed);
        }
    }
}

/// Per peer: (peer, [messages, bytes, persistent messages, persistent bytes]) of
/// loggp's own traffic.
pub fn own_totals() -> Vec<(u32, [u64; OWN_WORDS])> {
    let p = OWN.load(Acquire);
    if p.is_null() {
        return Vec::new();
    }
    (0..PEERS.load(Relaxed))
        .filter_map(|peer| {
            // SAFETY: inside the mapping.
            let w: [u64; OWN_WORDS] =
                std::array::from_fn(|k| unsafe { (*p.add(peer * OWN_WORDS + k)).load(Relaxed) });
            (w[0] != 0).then_some((peer as u32, w))
        })
        .collect()
}
