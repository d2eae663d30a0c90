//! A thread's memory of its recent blocking point-to-point calls, for the hot-path
//! budget (house rule 3: at most 2 × one clock read + 15 ns per intercepted call).
//!
//! A blocking send or receive with a named peer does the same lookups each time it is
//! repeated with the same arguments: the peer's world rank and class, its statistics
//! cell, its call-site entry and its channel counter for the waits' sample. Most jobs
//! repeat a few such calls many times (a halo exchange, a ping-pong), so each thread
//! keeps what the last calls resolved to, keyed by everything the lookups depend on:
//! function, communicator handle, peer and tag as passed, count, datatype handle and
//! call site. A call that matches reuses the references; one that does not resolves
//! them and takes the entry. The bytes are remembered only for a predefined datatype,
//! which is never freed; for any other the entry holds the bytes too, taken from
//! MPI_Type_size on every call, so that a datatype freed and created again at the same
//! handle with another size is still counted right.
//!
//! What the references point into never moves (cells, call-site entries and counters
//! are claimed for the life of the process). A communicator handle can come back for
//! another communicator after MPI_Comm_free: `peers::epoch` changes then (and when the
//! job's layout is first known), and entries of an older epoch do not match.
//!
//! Memory: [`ENTRIES`] entries of 128 bytes per thread slot, in one mapping made at
//! MPI_Init, touched only by threads that call.
use super::hooks::common::msg_bytes;
use super::matrix;
use super::peers::{self, classify, comm_id, world};
use super::samples;
use super::sites::{self, Site};
use super::stats::{self, slot_index, SlotHeader, StatCell};
use crate::base::mpi::{self, Handle, MPI_Comm, MPI_Datatype};
use loggp_report::{Mode, PeerClass};
use std::cell::Cell;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering::*};

/// Entries per thread (a power of two): calls that differ in peer, tag, size or call site
/// each keep their own, up to collisions of the hash.
pub const ENTRIES: usize = 64;

/// One remembered call. Written and read only by its own thread.
#[repr(C, align(64))]
pub struct Entry {
    /// What the call looked like (see [`Call::key`]); all 0: empty.
    key: [Cell<u64>; 6],
    /// Bytes of the call, and whether its datatype is predefined (1: no need to ask
    /// MPI_Type_size again).
    size: Cell<u64>,
    predefined: Cell<u64>,
    /// The peer's world rank (low 32 bits) and class (above).
    peer_class: Cell<u64>,
    cell: Cell<usize>,
    /// The call-site entry (0: the call site is not known).
    site_entry: Cell<usize>,
    /// The channel's counter (0: the message is not numbered) and the channel.
    counter: Cell<usize>,
    channel: Cell<u64>,
    header: Cell<usize>,
    /// The peer's row of the communication matrix (0: none).
    row: Cell<usize>,
}

static BASE: AtomicPtr<Entry> = AtomicPtr::new(std::ptr::null_mut());
static SLOTS: AtomicUsize = AtomicUsize::new(0);

/// Maps the entries of `max_threads` slots (lazily touched); false if it could not be.
/// Without them every call resolves its references anew, as before.
pub fn setup(max_threads: usize) -> bool {
    if !BASE.load(Acquire).is_null() {
        return true;
    }
    let bytes = max_threads * ENTRIES * std::mem::size_of::<Entry>();
    // All-zero memory is a table of empty entries.
    let Some(p) = crate::base::runtime::map_zeroed(bytes) else {
        return false;
    };
    SLOTS.store(max_threads, Relaxed);
    BASE.store(p as *mut Entry, Release);
    true
}

/// A send or receive with a named peer and tag, as passed (see [`resolve`]).
#[derive(Clone, Copy)]
pub(crate) struct Call {
    pub func: u8,
    pub mode: Mode,
    /// Which end of the message this rank is (`samples::SIDE_SEND`, `SIDE_RECV`).
    pub side: u64,
    pub comm: MPI_Comm,
    pub peer: c_int,
    pub tag: c_int,
    pub count: i64,
    pub datatype: MPI_Datatype,
}

impl Call {
    /// Everything the entry's references depend on: function and `peers::epoch`,
    /// communicator, peer and tag, count, datatype, and this thread's current call site.
    #[inline(always)]
    fn key(&self) -> [u64; 6] {
        [
            (self.func as u64 + 1) | peers::epoch() << 8,
            self.comm.bits(),
            self.peer as u32 as u64 | (self.tag as u32 as u64) << 32,
            self.count as u64,
            self.datatype.bits(),
            crate::base::runtime::call_site() as u64,
        ]
    }
}

/// The thread's entry for `call`, filled now unless it matched. None without a memo, a
/// slot, or room for a reference: the caller then records the usual way, which counts
/// what was lost.
#[inline(always)]
pub(crate) fn resolve(call: &Call) -> Option<&'static Entry> {
    let key = call.key();
    let slot = slot_index()?;
    let base = BASE.load(Relaxed);
    if base.is_null() || slot >= SLOTS.load(Relaxed) {
        return None;
    }
    let h = ((key[0] ^ key[1] ^ key[2].rotate_left(23) ^ key[3] ^ key[4].rotate_left(41) ^ key[5])
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        >> 58) as usize;
    // SAFETY: slot < SLOTS and h < ENTRIES: inside the mapping, which is never unmapped.
    let e = unsafe { &*base.add(slot * ENTRIES + (h & (ENTRIES - 1))) };
    if e.key.iter().zip(key).all(|(k, v)| k.get() == v) {
        if e.predefined.get() != 0 {
            return Some(e);
        }
        let size = msg_bytes(call.count, call.datatype);
        if size == e.size.get() {
            return Some(e);
        }
        // The same handle with another size: a datatype freed and created anew.
        return e.fill(call, key, size);
    }
    e.fill(call, key, msg_bytes(call.count, call.datatype))
}

impl Entry {
    /// Resolves the references of `call` anew and keys the entry with `key`; None, the
    /// entry left empty, where one has no room.
    #[cold]
    fn fill(&'static self, call: &Call, key: [u64; 6], size: u64) -> Option<&'static Entry> {
        self.key[0].set(0);
        let Call {
            func,
            mode,
            side,
            comm,
            peer: dest,
            tag,
            ..
        } = *call;
        let site = key[5];
        let (class, peer) = classify(comm, dest);
        let header = stats::header()?;
        let cell = stats::cell_for(func, mode, class, size)?;
        let site = if crate::base::funcs::is_function(func) && site != 0 {
            Some(sites::entry(slot_index(), func, site as usize)?)
        } else {
            None
        };
        let counter = match world()
            .and_then(|w| samples::p2p_channel_of(side, w.rank, peer, comm_id(comm), tag))
        {
            Some(channel) => Some((samples::counter(channel)?, channel)),
            None => None,
        };
        self.peer_class
            .set(peer as u32 as u64 | (class as u64) << 32);
        self.cell.set(cell as *const StatCell as usize);
        self.site_entry
            .set(site.map_or(0, |s| s as *const Site as usize));
        self.counter
            .set(counter.map_or(0, |(c, _)| c as *const AtomicU64 as usize));
        self.channel.set(counter.map_or(0, |(_, ch)| ch));
        self.header.set(header as *const SlotHeader as usize);
        self.row
            .set(matrix::own_row(peer).map_or(0, |row| row.as_ptr() as usize));
        self.size.set(size);
        // SAFETY: a plain comparison of handles in C.
        let predefined = unsafe { mpi::loggp_is_predefined_type(call.datatype) } != 0;
        self.predefined.set(predefined as u64);
        for (k, v) in self.key.iter().zip(key) {
            k.set(v);
        }
        Some(self)
    }

    /// The call's bytes.
    #[inline(always)]
    pub fn size(&self) -> u64 {
        self.size.get()
    }

    /// The peer's class.
    #[inline(always)]
    pub fn class(&self) -> PeerClass {
        PeerClass::from_u8((self.peer_class.get() >> 32) as u8)
    }

    /// The peer's world rank (-1: none or not known).
    #[inline(always)]
    pub fn peer(&self) -> i32 {
        self.peer_class.get() as u32 as i32
    }

    /// One call binned by `size`, moving `bytes`, lasting `ticks`: what `stats::record`
    /// does for it, through the kept references.
    #[inline(always)]
    pub fn record(&self, size: u64, bytes: u64, ticks: u64) {
        // SAFETY (here and below): references stored by `fill` into mappings that are
        // never unmapped.
        unsafe { &*(self.header.get() as *const SlotHeader) }.count_record();
        if self.site_entry.get() != 0 {
            unsafe { &*(self.site_entry.get() as *const Site) }.add(bytes, ticks);
        }
        unsafe { &*(self.cell.get() as *const StatCell) }.add(size, bytes, ticks);
    }

    #[inline(always)]
    fn row(&self) -> Option<&[AtomicU64]> {
        let p = self.row.get() as *const AtomicU64;
        (!p.is_null()).then(|| unsafe { std::slice::from_raw_parts(p, matrix::WORDS) })
    }

    /// A message of `bytes` sent to the peer by a call of `ticks` (`matrix::sent`).
    #[inline(always)]
    pub fn sent(&self, bytes: u64, ticks: u64) {
        if let Some(row) = self.row() {
            matrix::sent_in(row, bytes, ticks);
        }
    }

    /// Time receiving from the peer (`matrix::recv_time`).
    #[inline(always)]
    pub fn recv_time(&self, ticks: u64) {
        if let Some(row) = self.row() {
            matrix::recv_time_in(row, ticks);
        }
    }

    /// The spacing from the previous send's start when the two were back to back (see
    /// `SlotHeader::burst_spacing`).
    #[inline(always)]
    pub fn burst_spacing(&self, mode: Mode, t0: u64, t1: u64) -> Option<u64> {
        let peer = self.peer();
        if peer < 0 || mode == Mode::Irecv {
            return None;
        }
        unsafe { &*(self.header.get() as *const SlotHeader) }.burst_spacing(peer, mode, t0, t1)
    }

    /// Numbers the message on its channel; (channel, k, stride) when it is kept.
    #[inline(always)]
    pub fn number(&self) -> Option<(u64, u64, u64)> {
        let p = self.counter.get() as *const AtomicU64;
        if p.is_null() {
            return None;
        }
        let channel = self.channel.get();
        let k = samples::next_at(unsafe { &*p });
        Some((channel, k, samples::kept(channel, k)?))
    }
}
