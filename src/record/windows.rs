//! The windows of one-sided communication (MPI 4.0 §12.2) and the communicator each was
//! created on: MPI_Win_fence is collective over the window's group (§12.5.1), so its
//! calls are numbered and kept like a collective's on that communicator's name, and the
//! waits' split finds who entered each fence last (`hooks::window::fence`).
//!
//! A fixed table shared by the threads: an entry is claimed with a compare-and-swap on
//! its key and let go at MPI_Win_free, so a job may create any number of windows, 64 at
//! once. A lookup scans the table from the handle's home (a fence is a synchronization of
//! microseconds; 64 loads are not felt). A full table leaves a window's fences counted
//! and timed but not kept.
use crate::base::mpi::{Handle, MPI_Win};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::*};

const ENTRIES: usize = 64;

struct Entry {
    /// The window handle's bits + 1; 0: free.
    key: AtomicU64,
    /// The communicator's name (`peers::comm_id`); 0 while being claimed or let go.
    name: AtomicU64,
    /// The communicator's size.
    size: AtomicU32,
}

static TABLE: [Entry; ENTRIES] = [const {
    Entry {
        key: AtomicU64::new(0),
        name: AtomicU64::new(0),
        size: AtomicU32::new(0),
    }
}; ENTRIES];

fn home(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize % ENTRIES
}

/// The entry of `win`, claimed if `claim` and it has none.
fn entry(win: MPI_Win, claim: bool) -> Option<&'static Entry> {
    let key = win.bits().wrapping_add(1);
    let h = home(key);
    let at = |i: usize| &TABLE[(h + i) % ENTRIES];
    if let Some(e) = (0..ENTRIES).map(at).find(|e| e.key.load(Acquire) == key) {
        return Some(e);
    }
    if !claim {
        return None;
    }
    // Windows are created collectively, each handle by one call: no two claims of one key.
    (0..ENTRIES)
        .map(at)
        .find(|e| e.key.compare_exchange(0, key, AcqRel, Relaxed).is_ok())
}

/// A window was created on the communicator named `name`, of `size` ranks.
pub fn created(win: MPI_Win, name: u64, size: u32) {
    if let Some(e) = entry(win, true) {
        e.size.store(size, Relaxed);
        e.name.store(name, Release);
    }
}

/// A window is being freed: its entry is let go (its handle may come back for another).
pub fn freed(win: MPI_Win) {
    if let Some(e) = entry(win, false) {
        e.name.store(0, Release);
        e.key.store(0, Release);
    }
}

/// The name and size of the communicator `win` was created on, where known.
#[inline(always)]
pub fn group_of(win: MPI_Win) -> Option<(u64, u32)> {
    let e = entry(win, false)?;
    let name = e.name.load(Acquire);
    (name != 0).then(|| (name, e.size.load(Relaxed)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_is_found_until_freed_and_again_when_its_handle_returns() {
        let w = <MPI_Win as Handle>::from_bits(0x5150);
        assert_eq!(group_of(w), None);
        created(w, 77, 4);
        assert_eq!(group_of(w), Some((77, 4)));
        freed(w);
        assert_eq!(group_of(w), None);
        created(w, 78, 2);
        assert_eq!(group_of(w), Some((78, 2)));
        freed(w);
    }

    /// Entries are let go at MPI_Win_free: more windows than entries over a job, 63 at
    /// once (one entry left to the other test, which may run beside this one), are all
    /// found while they live.
    #[test]
    fn freed_entries_are_reused() {
        for round in 0..4u64 {
            let wins: Vec<MPI_Win> = (0..ENTRIES as u64 - 1)
                .map(|i| <MPI_Win as Handle>::from_bits(0x10_0000 + round * 0x1000 + i * 8))
                .collect();
            for (i, &w) in wins.iter().enumerate() {
                created(w, 100 + i as u64, 2);
            }
            for (i, &w) in wins.iter().enumerate() {
                assert_eq!(group_of(w), Some((100 + i as u64, 2)), "round {round}");
            }
            wins.iter().for_each(|&w| freed(w));
        }
    }
}
