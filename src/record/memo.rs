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
//! An entry also holds what its calls add to the statistics cell, the call site and the
//! peer's row of the matrix (calls, bytes, ticks, smallest duration), in its own hot
//! cache line, rather than adding each call to those three places: per call, only the
//! duration goes to the cell's histogram. The entry gives what it holds to the three
//! places when it is taken for another call ([`Entry::fill`]), and the reduce step adds
//! what the entries still hold ([`held`]) to what it reads from them. An interim report
//! read while the owning thread gives an entry up may miss or count twice that entry's
//! calls; a final report, read when the threads have left MPI, cannot.
//!
//! Memory: [`ENTRIES`] entries of 192 bytes per thread slot, in one mapping made at
//! MPI_Init, touched only by threads that call.
use super::hooks::common::msg_bytes;
use super::matrix;
use super::peers::{self, classify, comm_id, world};
use super::samples;
use super::sites::{self, Site};
use super::stats::{self, slot_index, SlotHeader, StatCell};
use crate::base::mpi::{self, Handle, MPI_Comm, MPI_Datatype};
use loggp_report::{Mode, PeerClass};
use std::collections::HashMap;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering::*};

/// A word written only by its own thread (a plain load and store) and read by the reduce
/// step, possibly from another thread.
type Word = AtomicU64;

#[inline(always)]
fn get(w: &Word) -> u64 {
    w.load(Relaxed)
}

#[inline(always)]
fn set(w: &Word, v: u64) {
    w.store(v, Relaxed)
}

#[inline(always)]
fn bump(w: &Word, v: u64) {
    w.store(w.load(Relaxed).wrapping_add(v), Relaxed)
}

/// Entries per thread (a power of two): calls that differ in peer, tag, size or call site
/// each keep their own, up to collisions of the hash.
pub const ENTRIES: usize = 64;

/// One remembered call, written only by its own thread. Three cache lines: what the
/// call looked like; what a call uses and adds to (eight words: the bytes held are the
/// calls held × the entry's size, so that they fit); what is read only when the entry
/// is taken or reduced.
#[repr(C, align(64))]
pub struct Entry {
    /// What the call looked like (see [`Call::key`]); all 0: empty.
    key: [Word; 6],
    /// Bytes of the call, and whether its datatype is predefined (1: no need to ask
    /// MPI_Type_size again).
    size: Word,
    predefined: Word,
    /// The peer's world rank (low 32 bits) and class (above).
    peer_class: Word,
    /// The statistics cell (its histogram takes each call's duration).
    cell: Word,
    /// The channel's counter (0: the message is not numbered) and the channel.
    counter: Word,
    channel: Word,
    header: Word,
    /// What the calls since the entry was filled add to the cell, the call site and the
    /// row: calls (of `size` bytes each), ticks and the smallest duration + 1 (0: none).
    held_calls: Word,
    held_ticks: Word,
    held_min_ticks_plus1: AtomicU64,
    /// The call-site entry (0: the call site is not known).
    site_entry: Word,
    /// The peer's row of the communication matrix (0: none).
    row: Word,
    /// 1: the calls send (messages, bytes and send time in the row); 0: they receive
    /// (receive time).
    sends: Word,
}

// What every call reads or writes lies in the entry's first two cache lines.
const _: () = assert!(
    std::mem::offset_of!(Entry, predefined) < 64
        && std::mem::offset_of!(Entry, held_min_ticks_plus1) < 128
);

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
    if e.key.iter().zip(key).all(|(k, v)| get(k) == v) {
        if get(&e.predefined) != 0 {
            return Some(e);
        }
        let size = msg_bytes(call.count, call.datatype);
        if size == get(&e.size) {
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
        set(&self.key[0], 0);
        self.give_up_held();
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
        cell.note_size(size);
        set(&self.peer_class, peer as u32 as u64 | (class as u64) << 32);
        set(&self.cell, cell as *const StatCell as u64);
        set(
            &self.site_entry,
            site.map_or(0, |s| s as *const Site as u64),
        );
        set(
            &self.counter,
            counter.map_or(0, |(c, _)| c as *const AtomicU64 as u64),
        );
        set(&self.channel, counter.map_or(0, |(_, ch)| ch));
        set(&self.header, header as *const SlotHeader as u64);
        set(
            &self.row,
            matrix::own_row(peer).map_or(0, |row| row.as_ptr() as u64),
        );
        set(&self.sends, (side == samples::SIDE_SEND) as u64);
        set(&self.size, size);
        // SAFETY: a plain comparison of handles in C.
        let predefined = unsafe { mpi::loggp_is_predefined_type(call.datatype) } != 0;
        set(&self.predefined, predefined as u64);
        for (k, v) in self.key.iter().zip(key) {
            set(k, v);
        }
        Some(self)
    }

    /// Gives what the entry holds to its cell, call site and row, and holds nothing.
    fn give_up_held(&self) {
        let calls = get(&self.held_calls);
        if calls == 0 {
            return;
        }
        let (bytes, ticks) = (calls * get(&self.size), get(&self.held_ticks));
        let min = get(&self.held_min_ticks_plus1);
        for w in [
            &self.held_calls,
            &self.held_ticks,
            &self.held_min_ticks_plus1,
        ] {
            set(w, 0);
        }
        // SAFETY (here and in the methods below): references stored by `fill` into
        // mappings that are never unmapped.
        unsafe { &*(get(&self.cell) as *const StatCell) }.add_held(calls, bytes, ticks, min);
        if get(&self.site_entry) != 0 {
            unsafe { &*(get(&self.site_entry) as *const Site) }.add_calls(calls, bytes, ticks);
        }
        if let Some(row) = self.row() {
            matrix::add_held(row, get(&self.sends) != 0, calls, bytes, ticks);
        }
    }

    /// The call's bytes.
    #[inline(always)]
    pub fn size(&self) -> u64 {
        get(&self.size)
    }

    /// The peer's class.
    #[inline(always)]
    pub fn class(&self) -> PeerClass {
        PeerClass::from_u8((get(&self.peer_class) >> 32) as u8)
    }

    /// The peer's world rank (-1: none or not known).
    #[inline(always)]
    pub fn peer(&self) -> i32 {
        get(&self.peer_class) as u32 as i32
    }

    /// One call of the entry's size lasting `ticks`: what `stats::record`, `sites::add`
    /// and `matrix::sent` or `matrix::recv_time` do for it, held in the entry but for
    /// the duration's histogram bin.
    #[inline(always)]
    pub fn record(&self, ticks: u64) {
        unsafe { &*(get(&self.header) as *const SlotHeader) }.count_record();
        bump(&self.held_calls, 1);
        bump(&self.held_ticks, ticks);
        let m = get(&self.held_min_ticks_plus1);
        if m == 0 || ticks + 1 < m {
            set(&self.held_min_ticks_plus1, ticks + 1);
        }
        unsafe { &*(get(&self.cell) as *const StatCell) }.add_to_histogram(ticks);
    }

    #[inline(always)]
    fn row(&self) -> Option<&[AtomicU64]> {
        let p = get(&self.row) as *const AtomicU64;
        (!p.is_null()).then(|| unsafe { std::slice::from_raw_parts(p, matrix::WORDS) })
    }

    /// A send just recorded: LOGGP_INJECT_FAULT=hide_send takes its message out of the
    /// matrix again (`matrix::sent`).
    #[inline(always)]
    pub fn sent(&self, ticks: u64) {
        if matrix::hide_this_send() {
            if let Some(row) = self.row() {
                let (one, bytes) = (1u64.wrapping_neg(), get(&self.size).wrapping_neg());
                matrix::add_held(row, true, one, bytes, ticks.wrapping_neg());
            }
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
        unsafe { &*(get(&self.header) as *const SlotHeader) }.burst_spacing(peer, mode, t0, t1)
    }

    /// Numbers the message on its channel; (channel, k, stride) when it is kept.
    #[inline(always)]
    pub fn number(&self) -> Option<(u64, u64, u64)> {
        let p = get(&self.counter) as *const AtomicU64;
        if p.is_null() {
            return None;
        }
        let channel = get(&self.channel);
        let k = samples::next_at(unsafe { &*p });
        Some((channel, k, samples::kept(channel, k)?))
    }
}

/// What the memo entries of the first `slots` threads hold, by where it belongs: per
/// statistics cell (calls, bytes, ticks, smallest duration + 1), per call-site entry
/// (calls, bytes, ticks) and per row of the matrix (messages, bytes, send ticks, receive
/// ticks), each keyed by its address. For the reduce step, which adds it to what it
/// reads there.
#[derive(Default)]
pub struct Held {
    pub cells: HashMap<usize, [u64; 4]>,
    pub sites: HashMap<usize, [u64; 3]>,
    pub rows: HashMap<usize, [u64; 4]>,
}

pub fn held(slots: usize) -> Held {
    let mut out = Held::default();
    let base = BASE.load(Acquire);
    if base.is_null() {
        return out;
    }
    for i in 0..slots.min(SLOTS.load(Relaxed)) * ENTRIES {
        // SAFETY: inside the mapping, which is never unmapped.
        let e = unsafe { &*base.add(i) };
        let calls = get(&e.held_calls);
        if calls == 0 {
            continue;
        }
        let (bytes, ticks) = (calls * get(&e.size), get(&e.held_ticks));
        let c = out.cells.entry(get(&e.cell) as usize).or_default();
        let min = get(&e.held_min_ticks_plus1);
        *c = [
            c[0] + calls,
            c[1] + bytes,
            c[2] + ticks,
            min_plus1(c[3], min),
        ];
        if get(&e.site_entry) != 0 {
            let s = out.sites.entry(get(&e.site_entry) as usize).or_default();
            *s = [s[0] + calls, s[1] + bytes, s[2] + ticks];
        }
        if get(&e.row) != 0 {
            let r = out.rows.entry(get(&e.row) as usize).or_default();
            if get(&e.sends) != 0 {
                *r = [r[0] + calls, r[1] + bytes, r[2] + ticks, r[3]];
            } else {
                r[3] += ticks;
            }
        }
    }
    out
}

/// The smaller of two "smallest + 1" values, 0 meaning none.
pub fn min_plus1(a: u64, b: u64) -> u64 {
    match (a, b) {
        (0, x) | (x, 0) => x,
        (a, b) => a.min(b),
    }
}
