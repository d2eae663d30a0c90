//! Per-thread, fixed-size statistics: the only thing the hot path writes.
//!
//! Each thread that makes an intercepted call claims a slot once (one atomic increment
//! in its life) and from then on writes only to its own slot, so counts are exact under
//! MPI_THREAD_MULTIPLE without a lock or a read-modify-write. A slot is an open-addressed
//! table of cells keyed by (function, mode, peer class, size bin); each cell holds count,
//! bytes, time, extremes and a log-scale duration histogram (see `loggp_report::bins`).
//!
//! All slots live in one anonymous mapping made before the first call: the memory of a
//! rank is bounded by LOGGP_MAX_THREADS × LOGGP_CELLS_PER_THREAD cells whatever the number
//! of messages, and pages nobody touches cost nothing. A thread beyond the last slot, or a
//! record whose table is full, still counts exactly (count, bytes, time per function) in
//! fixed overflow counters; only its histogram is lost, and the report says how many.
use crate::base::funcs::{BURST_GAP, MAX_FUNCS};
use loggp_report::bins::{hist_index, size_bin, HIST_BUCKETS};
use loggp_report::{Mode, PeerClass};
use std::cell::Cell as StdCell;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering::*};

/// Request handles a Wait/Test variant can remember per call (arrays longer than this
/// have their tail completions counted as untracked).
pub const SCRATCH_HANDLES: usize = 4096;
/// Longest probe sequence in a cell table before a record counts as overflow.
const MAX_PROBE: usize = 16;

/// Communicator sizes a cell key holds (24 bits); larger ones share the last value.
pub const MAX_COMM_SIZE: u32 = (1 << 24) - 1;

/// Packs a cell key; bit 63 is always set so that 0 means "empty". The communicator
/// size (0: not a collective) sits above the 32 bits of function, mode, class and bin.
#[inline(always)]
pub fn make_key(func: u8, mode: Mode, class: PeerClass, bin: u16, comm_size: u32) -> u64 {
    (1 << 63)
        | ((comm_size.min(MAX_COMM_SIZE) as u64) << 32)
        | ((func as u64) << 19)
        | ((mode as u64) << 15)
        | ((class as u64) << 12)
        | bin as u64
}

#[inline]
pub fn split_key(key: u64) -> (u8, Mode, PeerClass, u16, u32) {
    (
        ((key >> 19) & 0xff) as u8,
        Mode::from_u8(((key >> 15) & 0xf) as u8),
        PeerClass::from_u8(((key >> 12) & 0x7) as u8),
        (key & 0xfff) as u16,
        ((key >> 32) & MAX_COMM_SIZE as u64) as u32,
    )
}

/// Single-writer add: only the owning thread writes a cell, others only read, so a plain
/// load and store suffice (no locked instruction on the hot path).
#[inline(always)]
fn bump(a: &AtomicU64, v: u64) {
    a.store(a.load(Relaxed).wrapping_add(v), Relaxed);
}

#[repr(C)]
pub struct StatCell {
    pub key: AtomicU64,
    pub count: AtomicU64,
    pub bytes: AtomicU64,
    pub ticks: AtomicU64,
    /// Smallest duration + 1 (0 = none yet).
    pub min_ticks_plus1: AtomicU64,
    pub min_size_plus1: AtomicU64,
    pub max_size: AtomicU64,
    pub hist: [AtomicU32; HIST_BUCKETS],
}

impl SlotHeader {
    /// Remembers this send and returns the spacing from the previous one's start when the
    /// two were back to back to the same peer in the same mode: no other intercepted call
    /// between them, and the idle time between them shorter than the previous call itself
    /// (a burst, as in a flood test). A send–receive exchange is not a burst.
    #[inline(always)]
    pub fn burst_spacing(&self, peer: i32, mode: Mode, t0: u64, t1: u64) -> Option<u64> {
        let l = &self.last_send;
        let (p0, p1, ppeer, pmode, pseq) =
            (l[0].get(), l[1].get(), l[2].get(), l[3].get(), l[4].get());
        let seq = self.seq.get();
        l[0].set(t0);
        l[1].set(t1);
        l[2].set(peer as u64 + 1);
        l[3].set(mode as u64);
        l[4].set(seq);
        // This send's own record is the only one since the previous send's.
        let adjacent = seq == pseq.wrapping_add(1);
        let same = adjacent && ppeer == peer as u64 + 1 && pmode == mode as u64 && p1 != 0;
        (same && t0 >= p1 && t0 - p1 <= p1 - p0).then(|| t0 - p0)
    }

    /// Counts one record in this thread's sequence (see [`count_record`]).
    #[inline(always)]
    pub fn count_record(&self) {
        self.seq.set(self.seq.get().wrapping_add(1));
    }
}

impl StatCell {
    /// One record of a call binned by `size`, moving `bytes`, lasting `ticks`.
    #[inline(always)]
    pub fn add(&self, size: u64, bytes: u64, ticks: u64) {
        bump(&self.count, 1);
        bump(&self.bytes, bytes);
        bump(&self.ticks, ticks);
        let m = self.min_ticks_plus1.load(Relaxed);
        if m == 0 || ticks + 1 < m {
            self.min_ticks_plus1.store(ticks + 1, Relaxed);
        }
        let s = self.min_size_plus1.load(Relaxed);
        if s == 0 || size + 1 < s {
            self.min_size_plus1.store(size + 1, Relaxed);
        }
        if size > self.max_size.load(Relaxed) {
            self.max_size.store(size, Relaxed);
        }
        let h = &self.hist[hist_index(ticks)];
        h.store(h.load(Relaxed).saturating_add(1), Relaxed);
    }

    /// A call's duration in the histogram only: the rest of its record is held by the
    /// thread's memo entry until [`StatCell::add_held`] (`record::memo`).
    #[inline(always)]
    pub fn add_to_histogram(&self, ticks: u64) {
        let h = &self.hist[hist_index(ticks)];
        h.store(h.load(Relaxed).saturating_add(1), Relaxed);
    }

    /// Calls whose durations are already in the histogram: their count, bytes, ticks and
    /// smallest duration + 1 (0: none), from a memo entry.
    pub fn add_held(&self, calls: u64, bytes: u64, ticks: u64, min_ticks_plus1: u64) {
        bump(&self.count, calls);
        bump(&self.bytes, bytes);
        bump(&self.ticks, ticks);
        let m = self.min_ticks_plus1.load(Relaxed);
        if min_ticks_plus1 != 0 && (m == 0 || min_ticks_plus1 < m) {
            self.min_ticks_plus1.store(min_ticks_plus1, Relaxed);
        }
    }

    /// Calls of `size` bytes will be recorded here (through a memo entry, whose size is
    /// fixed): the cell's smallest and largest sizes, once.
    pub fn note_size(&self, size: u64) {
        let s = self.min_size_plus1.load(Relaxed);
        if s == 0 || size + 1 < s {
            self.min_size_plus1.store(size + 1, Relaxed);
        }
        if size > self.max_size.load(Relaxed) {
            self.max_size.store(size, Relaxed);
        }
    }
}

/// The cell of this thread's slot that records of a point-to-point call of `func` in
/// `mode` to a peer of `class`, binned by `size`, go to (claimed if new); None without a
/// slot or room, where [`record`] counts in the overflow instead. Cells never move, so
/// the reference can be kept (see `record::memo`).
#[inline(always)]
pub fn cell_for(func: u8, mode: Mode, class: PeerClass, size: u64) -> Option<&'static StatCell> {
    let slot = this_slot()?;
    let c = slot.find_or_claim(make_key(func, mode, class, size_bin(size), 0))?;
    // SAFETY: the cell lies in the arena's mapping, which is never unmapped.
    Some(unsafe { &*(c as *const StatCell) })
}

/// This thread's slot header (claiming a slot on first use); it never moves, so the
/// reference can be kept (`record::memo`). Its `count_record` counts one record in the
/// thread's sequence, as [`record`] does: bursts need to know that no other call came
/// between two sends.
#[inline(always)]
pub fn header() -> Option<&'static SlotHeader> {
    let slot = this_slot()?;
    // SAFETY: the header lies in the arena's mapping, which is never unmapped.
    Some(unsafe { &*slot.header })
}

#[repr(C)]
#[derive(Default)]
pub struct Totals {
    pub count: AtomicU64,
    pub bytes: AtomicU64,
    pub ticks: AtomicU64,
}

#[repr(C)]
pub struct SlotHeader {
    /// Records that went to `overflow` because the cell table was full.
    pub dropped: AtomicU64,
    pub overflow: [Totals; MAX_FUNCS],
    /// Request handles remembered by a Wait/Test variant across its PMPI_ call.
    pub scratch: [StdCell<u64>; SCRATCH_HANDLES],
    /// The thread's previous send: start, end, peer world rank + 1, mode and the record
    /// sequence number after it (for bursts).
    pub last_send: [StdCell<u64>; 5],
    /// Records made by this thread (burst spacings excepted): two sends are back to back
    /// only if no other intercepted call came between them.
    pub seq: StdCell<u64>,
    /// The intercepted call this thread is in, for the interim reports of a hung job:
    /// function id + 1 (0: none), what it waits on (`progress::InProgress`), bytes, start ticks.
    pub current: [AtomicU64; 4],
}

/// A thread's slot: a header and `cells` cells right after it in the mapping.
pub struct Slot {
    header: *mut SlotHeader,
    cells: *mut StatCell,
    mask: usize,
    /// Its index in the arena (the thread's row in the other per-slot tables).
    index: usize,
}

struct Arena {
    base: *mut u8,
    slot_bytes: usize,
    n_slots: usize,
    n_cells: usize,
}

static ARENA_BASE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static ARENA_SLOT_BYTES: AtomicUsize = AtomicUsize::new(0);
static ARENA_SLOTS: AtomicUsize = AtomicUsize::new(0);
static ARENA_CELLS: AtomicUsize = AtomicUsize::new(0);
/// Slots handed out so far (may exceed ARENA_SLOTS: those threads use SHARED_OVERFLOW).
static NEXT_SLOT: AtomicUsize = AtomicUsize::new(0);
/// Exact totals of threads that found no slot left; shared, so updated atomically.
static SHARED_OVERFLOW: [Totals; MAX_FUNCS] = [const {
    Totals {
        count: AtomicU64::new(0),
        bytes: AtomicU64::new(0),
        ticks: AtomicU64::new(0),
    }
}; MAX_FUNCS];

use crate::base::runtime::THREAD;

fn arena() -> Option<Arena> {
    let base = ARENA_BASE.load(Acquire);
    if base.is_null() {
        return None;
    }
    Some(Arena {
        base,
        slot_bytes: ARENA_SLOT_BYTES.load(Relaxed),
        n_slots: ARENA_SLOTS.load(Relaxed),
        n_cells: ARENA_CELLS.load(Relaxed),
    })
}

/// Maps the slots. Called once, before any record; returns false if the memory could not
/// be mapped (profiling then stays off).
pub fn setup(max_threads: usize, cells_per_thread: usize) -> bool {
    if !ARENA_BASE.load(Acquire).is_null() {
        return true;
    }
    let cells = cells_per_thread.next_power_of_two();
    let header = std::mem::size_of::<SlotHeader>().next_multiple_of(64);
    let slot_bytes = (header + cells * std::mem::size_of::<StatCell>()).next_multiple_of(4096);
    let total = slot_bytes * max_threads;
    // All-zero memory is a valid empty table.
    let Some(p) = crate::base::runtime::map_zeroed(total) else {
        return false;
    };
    ARENA_SLOT_BYTES.store(slot_bytes, Relaxed);
    ARENA_SLOTS.store(max_threads, Relaxed);
    ARENA_CELLS.store(cells, Relaxed);
    ARENA_BASE.store(p, Release);
    true
}

fn slot_at(a: &Arena, i: usize) -> Slot {
    // SAFETY: i < n_slots; the mapping holds n_slots slots of slot_bytes each.
    let base = unsafe { a.base.add(i * a.slot_bytes) };
    let header_bytes = std::mem::size_of::<SlotHeader>().next_multiple_of(64);
    Slot {
        header: base as *mut SlotHeader,
        cells: unsafe { base.add(header_bytes) } as *mut StatCell,
        mask: a.n_cells - 1,
        index: i,
    }
}

/// This thread's slot, claiming one on first use; None when all are taken or not mapped.
/// Its address and mask are kept in the thread's block (`ThreadState`) when claimed: the
/// hot path finds it several times per call (a Waitall of two requests six times), and
/// from the arena's globals each time cost three loads and a multiplication more.
#[inline(always)]
pub fn this_slot() -> Option<Slot> {
    let (idx, header, mask) =
        THREAD.with(|t| (t.slot_index.get(), t.slot_header.get(), t.slot_mask.get()));
    if header != 0 {
        let header_bytes = const { std::mem::size_of::<SlotHeader>().next_multiple_of(64) };
        return Some(Slot {
            header: header as *mut SlotHeader,
            cells: (header + header_bytes) as *mut StatCell,
            mask,
            index: idx - 1,
        });
    }
    if idx == usize::MAX {
        return None;
    }
    claim_slot()
}

/// This thread's slot index, if it has claimed one.
#[inline(always)]
pub fn slot_index() -> Option<usize> {
    let idx = THREAD.with(|t| t.slot_index.get());
    (idx != 0 && idx != usize::MAX).then(|| idx - 1)
}

#[cold]
fn claim_slot() -> Option<Slot> {
    let a = arena()?;
    let i = NEXT_SLOT.fetch_add(1, Relaxed);
    if i >= a.n_slots {
        THREAD.with(|t| t.slot_index.set(usize::MAX));
        return None;
    }
    let slot = slot_at(&a, i);
    THREAD.with(|t| {
        t.slot_index.set(i + 1);
        t.slot_mask.set(slot.mask);
        t.slot_header.set(slot.header as usize);
    });
    Some(slot)
}

impl Slot {
    #[inline(always)]
    pub(crate) fn header(&self) -> &SlotHeader {
        // SAFETY: points into the live mapping, which is never unmapped.
        unsafe { &*self.header }
    }

    #[inline(always)]
    fn cell(&self, i: usize) -> &StatCell {
        // SAFETY: i <= mask < n_cells.
        unsafe { &*self.cells.add(i) }
    }

    /// The scratch array of request handles for the Wait/Test variants.
    #[inline(always)]
    pub fn scratch(&self) -> &[StdCell<u64>; SCRATCH_HANDLES] {
        &self.header().scratch
    }

    /// See [`SlotHeader::burst_spacing`].
    #[inline(always)]
    pub fn burst_spacing(&self, peer: i32, mode: Mode, t0: u64, t1: u64) -> Option<u64> {
        self.header().burst_spacing(peer, mode, t0, t1)
    }

    #[inline(always)]
    fn find_or_claim(&self, key: u64) -> Option<&StatCell> {
        let mut i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & self.mask;
        for _ in 0..MAX_PROBE {
            let c = self.cell(i);
            let k = c.key.load(Relaxed);
            if k == key {
                return Some(c);
            }
            if k == 0 {
                // Release: a reader that sees the key sees a zeroed cell at least.
                c.key.store(key, Release);
                return Some(c);
            }
            i = (i + 1) & self.mask;
        }
        None
    }

    pub fn cells(&self) -> impl Iterator<Item = &StatCell> {
        (0..=self.mask)
            .map(|i| self.cell(i))
            .filter(|c| c.key.load(Acquire) != 0)
    }

    pub fn overflow(&self) -> &[Totals; MAX_FUNCS] {
        &self.header().overflow
    }

    pub fn dropped(&self) -> u64 {
        self.header().dropped.load(Relaxed)
    }
}

/// Records one event: a call of `func` (or a pseudo record) of the given mode and peer
/// class, binned by `size`, adding `bytes` and a duration of `ticks`.
#[inline(always)]
pub fn record(func: u8, mode: Mode, class: PeerClass, size: u64, bytes: u64, ticks: u64) {
    record_in(func, mode, class, size, bytes, ticks, 0)
}

/// [`record`] for a collective on a communicator of `comm_size` processes (a dimension
/// of its cell).
#[inline(always)]
pub fn record_in(
    func: u8,
    mode: Mode,
    class: PeerClass,
    size: u64,
    bytes: u64,
    ticks: u64,
    comm_size: u32,
) {
    let Some(slot) = this_slot() else {
        if crate::base::funcs::is_function(func) && crate::base::runtime::call_site() != 0 {
            super::sites::add(None, func, 0, 0, 0);
        }
        let t = &SHARED_OVERFLOW[func as usize & (MAX_FUNCS - 1)];
        t.count.fetch_add(1, Relaxed);
        t.bytes.fetch_add(bytes, Relaxed);
        t.ticks.fetch_add(ticks, Relaxed);
        return;
    };
    if func != BURST_GAP {
        let h = slot.header();
        h.seq.set(h.seq.get().wrapping_add(1));
    }
    if crate::base::funcs::is_function(func) {
        let site = crate::base::runtime::call_site();
        if site != 0 {
            super::sites::add(Some(slot.index), func, site, bytes, ticks);
        }
    }
    let key = make_key(func, mode, class, size_bin(size), comm_size);
    match slot.find_or_claim(key) {
        Some(c) => c.add(size, bytes, ticks),
        None => {
            let h = slot.header();
            bump(&h.dropped, 1);
            let t = &h.overflow[func as usize & (MAX_FUNCS - 1)];
            bump(&t.count, 1);
            bump(&t.bytes, bytes);
            bump(&t.ticks, ticks);
        }
    }
}

/// Every claimed slot, for the report writers (Finalize, exit and signal paths).
pub fn for_each_slot(mut f: impl FnMut(&Slot)) {
    let Some(a) = arena() else { return };
    let n = NEXT_SLOT.load(Acquire).min(a.n_slots);
    for i in 0..n {
        f(&slot_at(&a, i));
    }
}

/// Threads that made calls (with or without a slot of their own).
pub fn threads_seen() -> usize {
    NEXT_SLOT.load(Relaxed)
}

pub fn shared_overflow() -> &'static [Totals; MAX_FUNCS] {
    &SHARED_OVERFLOW
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip() {
        let k = make_key(37, Mode::Irecv, PeerClass::InterNode, 300, 0);
        assert_eq!(
            split_key(k),
            (37, Mode::Irecv, PeerClass::InterNode, 300, 0)
        );
        assert_ne!(make_key(0, Mode::None, PeerClass::SelfRank, 0, 0), 0);
        let k = make_key(9, Mode::Collective, PeerClass::Unknown, 7, 1024);
        assert_eq!(
            split_key(k),
            (9, Mode::Collective, PeerClass::Unknown, 7, 1024)
        );
        let k = make_key(250, Mode::Isendrecv, PeerClass::ProcNull, 4095, 0);
        assert_eq!(
            split_key(k),
            (250, Mode::Isendrecv, PeerClass::ProcNull, 4095, 0)
        );
    }

    #[test]
    fn records_are_exact_across_threads_and_overflow() {
        assert!(setup(3, 64));
        let run = |n: u64| {
            for i in 0..n {
                // 400 distinct size bins overflow a 64-cell table: totals must stay exact.
                let size = (8 + i % 8) << ((i / 8) % 50);
                record(5, Mode::Send, PeerClass::IntraNode, size, 8, 100 + i % 7);
            }
        };
        let hs: Vec<_> = (0..5)
            .map(|_| std::thread::spawn(move || run(10_000)))
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        let (mut count, mut bytes, mut dropped) = (0, 0, 0);
        for_each_slot(|s| {
            for c in s.cells() {
                let (f, ..) = split_key(c.key.load(Relaxed));
                if f == 5 {
                    count += c.count.load(Relaxed);
                    bytes += c.bytes.load(Relaxed);
                    let h: u64 = c.hist.iter().map(|x| x.load(Relaxed) as u64).sum();
                    assert_eq!(h, c.count.load(Relaxed));
                }
            }
            count += s.overflow()[5].count.load(Relaxed);
            bytes += s.overflow()[5].bytes.load(Relaxed);
            dropped += s.dropped();
        });
        count += shared_overflow()[5].count.load(Relaxed);
        bytes += shared_overflow()[5].bytes.load(Relaxed);
        assert_eq!(count, 50_000);
        assert_eq!(bytes, 400_000);
        assert!(dropped > 0, "a 64-cell table must overflow with 200 sizes");
    }
}
