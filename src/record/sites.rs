//! Call sites: per (function, the application's return address) the calls, bytes and
//! time, as mpiP aggregates them. The address is read by the entry point
//! (`return_address!`) and kept in the thread's in-call state (`runtime::call_site`);
//! `stats::record` adds the call here.
//!
//! One open-addressed table of [`SITES_PER_THREAD`] entries per thread slot, in one
//! anonymous mapping made at MPI_Init; written only by its own thread (plain loads and
//! stores). A call whose table is full, or from a thread without a slot, is counted in
//! `dropped` (its function's totals stay exact in `ranks[].calls`). Nothing is
//! symbolized in the job: the report carries addresses relative to their object, and
//! `loggp` resolves them offline.
use std::collections::HashMap;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering::*};

/// Distinct (function, call site) pairs a thread can hold.
pub const SITES_PER_THREAD: usize = 4096;
const MAX_PROBE: usize = 16;

#[repr(C)]
pub struct Site {
    /// The return address, with the function id + 1 in the top byte (0: empty).
    key: AtomicU64,
    count: AtomicU64,
    bytes: AtomicU64,
    ticks: AtomicU64,
}

static BASE: AtomicPtr<Site> = AtomicPtr::new(std::ptr::null_mut());
static SLOTS: AtomicUsize = AtomicUsize::new(0);
/// Calls that found no room (table full, or a thread without a slot).
static DROPPED: AtomicU64 = AtomicU64::new(0);

/// Maps the tables for `max_threads` slots. False if it could not be mapped.
pub fn setup(max_threads: usize) -> bool {
    if !BASE.load(Acquire).is_null() {
        return true;
    }
    let bytes = max_threads * SITES_PER_THREAD * std::mem::size_of::<Site>();
    let Some(p) = crate::base::runtime::map_zeroed(bytes) else {
        return false;
    };
    SLOTS.store(max_threads, Relaxed);
    BASE.store(p as *mut Site, Release);
    true
}

#[inline(always)]
fn bump(a: &AtomicU64, v: u64) {
    a.store(a.load(Relaxed).wrapping_add(v), Relaxed);
}

impl Site {
    /// One more call of this site's function from it.
    #[inline(always)]
    pub fn add(&self, bytes: u64, ticks: u64) {
        bump(&self.count, 1);
        bump(&self.bytes, bytes);
        bump(&self.ticks, ticks);
    }

    /// `calls` more calls, held until now by a memo entry (`record::memo`).
    pub fn add_calls(&self, calls: u64, bytes: u64, ticks: u64) {
        bump(&self.count, calls);
        bump(&self.bytes, bytes);
        bump(&self.ticks, ticks);
    }
}

/// One call of `func` from `site` by the thread of `slot` (None: a thread without one).
#[inline(always)]
pub fn add(slot: Option<usize>, func: u8, site: usize, bytes: u64, ticks: u64) {
    match entry(slot, func, site) {
        Some(s) => s.add(bytes, ticks),
        None => {
            DROPPED.fetch_add(1, Relaxed);
        }
    }
}

/// The entry of (`func`, `site`) in the table of `slot`, claimed if new; None without a
/// table or room. Entries never move, so the reference can be kept (`record::memo`).
#[inline(always)]
pub fn entry(slot: Option<usize>, func: u8, site: usize) -> Option<&'static Site> {
    let base = BASE.load(Relaxed);
    let slot = slot.filter(|&s| !base.is_null() && s < SLOTS.load(Relaxed))?;
    // User-space addresses leave the top byte free on x86-64 and AArch64.
    let key = (site as u64 & ((1 << 56) - 1)) | ((func as u64 + 1) << 56);
    let mut i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize;
    for _ in 0..MAX_PROBE {
        // SAFETY: slot < SLOTS and i < SITES_PER_THREAD: inside the mapping.
        let s = unsafe { &*base.add(slot * SITES_PER_THREAD + i) };
        let k = s.key.load(Relaxed);
        if k == key || k == 0 {
            if k == 0 {
                s.key.store(key, Release);
            }
            return Some(s);
        }
        i = (i + 1) & (SITES_PER_THREAD - 1);
    }
    None
}

/// One (function, call site) of one thread: function id, return address, count, bytes,
/// ticks.
pub type SiteTotals = (u8, usize, u64, u64, u64);

/// Every (function, call site) over the slots, with what memo entries still hold for an
/// entry (`record::memo::held`: calls, bytes, ticks, by the entry's address), and the
/// calls dropped.
pub fn totals(slots_used: usize, held: &HashMap<usize, [u64; 3]>) -> (Vec<SiteTotals>, u64) {
    let base = BASE.load(Acquire);
    let mut out = Vec::new();
    if !base.is_null() {
        for i in 0..slots_used.min(SLOTS.load(Relaxed)) * SITES_PER_THREAD {
            // SAFETY: inside the mapping.
            let s = unsafe { &*base.add(i) };
            let k = s.key.load(Acquire);
            if k != 0 {
                let h = held.get(&(s as *const Site as usize)).copied();
                let [hc, hb, ht] = h.unwrap_or_default();
                out.push((
                    ((k >> 56) - 1) as u8,
                    (k & ((1 << 56) - 1)) as usize,
                    s.count.load(Relaxed) + hc,
                    s.bytes.load(Relaxed) + hb,
                    s.ticks.load(Relaxed) + ht,
                ));
            }
        }
    }
    (out, DROPPED.load(Relaxed))
}

/// Whether call sites are read at all (built with frame pointers) and mapped.
pub fn recording() -> bool {
    cfg!(loggp_call_sites) && !BASE.load(Relaxed).is_null()
}
