//! The call each thread is in, for the interim reports of a hung job: written around the
//! PMPI_ call into the thread's slot header (`SlotHeader::current`), read by the writer
//! thread.
use super::stats::{for_each_slot, this_slot};
use crate::base::runtime::THREAD;
use std::sync::atomic::{AtomicU64, Ordering::*};

/// Bit 63 of `current[1]`: the rest is a request handle, not a peer.
pub const CURRENT_REQUEST: u64 = 1 << 63;

/// The slot's record of the call in progress. Written by its own thread around the PMPI_
/// call (three stores and one at the end, no read-modify-write), read by the writer
/// thread for interim reports.
pub struct InProgress(*const [AtomicU64; 4]);

impl InProgress {
    /// `what`: peer world rank + 1 (0: any or unknown), or a request's bits with
    /// [`CURRENT_REQUEST`]. None when the thread has no slot.
    #[inline(always)]
    pub fn begin(what: u64, bytes: u64) -> Option<InProgress> {
        // One thread-local read on the hot path; the slot lookup once per thread.
        let mut p = THREAD.with(|t| t.current.get()) as *const [AtomicU64; 4];
        if p.is_null() {
            p = &this_slot()?.header().current as *const _;
            THREAD.with(|t| t.current.set(p as usize));
        }
        // SAFETY: points into the live mapping, which is never unmapped.
        let c = unsafe { &*p };
        c[1].store(what, Relaxed);
        c[2].store(bytes, Relaxed);
        Some(InProgress(p))
    }
    /// The call starts at `t0` (the hook's own clock read).
    #[inline(always)]
    pub fn started(&self, func: u8, t0: u64) {
        // SAFETY: points into the live mapping, which is never unmapped.
        let c = unsafe { &*self.0 };
        c[3].store(t0, Relaxed);
        c[0].store(func as u64 + 1, Release);
    }
}

impl Drop for InProgress {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: as above.
        let c = unsafe { &*self.0 };
        c[0].store(0, Release);
    }
}

/// The calls in progress in this rank's threads: (func, what, bytes, start ticks).
pub fn calls_in_progress() -> Vec<(u8, u64, u64, u64)> {
    let mut out = Vec::new();
    for_each_slot(|s| {
        let c = &s.header().current;
        let f = c[0].load(Acquire);
        if f != 0 {
            let v = (
                (f - 1) as u8,
                c[1].load(Relaxed),
                c[2].load(Relaxed),
                c[3].load(Relaxed),
            );
            // The same call still: not one that ended and another began meanwhile.
            if c[0].load(Acquire) == f && c[3].load(Relaxed) == v.3 {
                out.push(v);
            }
        }
    });
    out
}
