//! The windows of one-sided communication (MPI 4.0 §12.2) and the communicator each was
//! created on: MPI_Win_fence is collective over the window's group (§12.5.1), so its
//! calls are numbered and kept like a collective's on that communicator's name, and the
//! waits' split finds who entered each fence last (`hooks::coll::fence`).
//!
//! A fixed table shared by the threads, open addressing on the handle; an entry is claimed
//! with a compare-and-swap on its key and keeps it (a freed window's entry holds name 0
//! until its handle comes back for another window). A full table leaves a window's fences
//! counted and timed but not kept.
use crate::base::mpi::{Handle, MPI_Win};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::*};

const ENTRIES: usize = 64;

struct Entry {
    /// The window handle's bits + 1; 0: free.
    key: AtomicU64,
    /// The communicator's name (`peers::comm_id`); 0: freed.
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
    for i in 0..ENTRIES {
        let e = &TABLE[(h + i) % ENTRIES];
        match e.key.load(Acquire) {
            k if k == key => return Some(e),
            0 if claim => match e.key.compare_exchange(0, key, AcqRel, Acquire) {
                Ok(_) => return Some(e),
                Err(k) if k == key => return Some(e),
                Err(_) => continue,
            },
            0 => return None,
            _ => continue,
        }
    }
    None
}

/// A window was created on the communicator named `name`, of `size` ranks.
pub fn created(win: MPI_Win, name: u64, size: u32) {
    if let Some(e) = entry(win, true) {
        e.size.store(size, Relaxed);
        e.name.store(name, Release);
    }
}

/// A window is being freed: its handle may come back for another.
pub fn freed(win: MPI_Win) {
    if let Some(e) = entry(win, false) {
        e.name.store(0, Release);
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
    }
}
