//! The communicator each one-sided window (MPI 4.0 §12.2) and each open file (§14.2.1)
//! was created on. MPI_Win_fence is collective over the window's group (§12.5.1), and
//! the collective I/O calls over the file's group (§14.2.1, §14.4): their calls are
//! numbered and kept like a collective's on that communicator's name, so that the waits'
//! split finds who entered each last (`hooks::window::fence`, `hooks::file`).
//!
//! A fixed table per kind of handle, shared by the threads: an entry is claimed with a
//! compare-and-swap on its key and let go when the handle is freed (MPI_Win_free,
//! MPI_File_close), so a job may create any number of windows and files, 64 of each at
//! once. A lookup scans the table from the handle's home (these calls synchronize or do
//! I/O for microseconds; 64 loads are not felt). A full table leaves a handle's calls
//! counted and timed but not kept.
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::*};

pub const ENTRIES: usize = 64;

struct Entry {
    /// The handle's bits + 1; 0: free.
    key: AtomicU64,
    /// The communicator's name (`peers::comm_id`); 0 while being claimed or let go.
    name: AtomicU64,
    /// The communicator's size.
    size: AtomicU32,
}

/// The handles of one kind (their bits, `Handle::bits`) and their communicators.
pub struct Groups([Entry; ENTRIES]);

/// The one-sided windows.
pub static WINDOWS: Groups = Groups::new();
/// The open files.
pub static FILES: Groups = Groups::new();

fn home(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize % ENTRIES
}

impl Groups {
    const fn new() -> Groups {
        Groups(
            [const {
                Entry {
                    key: AtomicU64::new(0),
                    name: AtomicU64::new(0),
                    size: AtomicU32::new(0),
                }
            }; ENTRIES],
        )
    }

    /// The entry of the handle `bits`, claimed if `claim` and it has none.
    fn entry(&self, bits: u64, claim: bool) -> Option<&Entry> {
        self.index(bits, claim).map(|i| &self.0[i])
    }

    /// The index of the entry of the handle `bits`, claimed if `claim` and it has none.
    fn index(&self, bits: u64, claim: bool) -> Option<usize> {
        let key = bits.wrapping_add(1);
        let h = home(key);
        let mut around = (0..ENTRIES).map(|i| (h + i) % ENTRIES);
        if let Some(i) = around.clone().find(|&i| self.0[i].key.load(Acquire) == key) {
            return Some(i);
        }
        if !claim {
            return None;
        }
        // Windows and files are created collectively, each handle by one call: no two
        // claims of one key.
        around.find(|&i| (self.0[i].key.compare_exchange(0, key, AcqRel, Relaxed)).is_ok())
    }

    /// The handle `bits` was created on the communicator named `name`, of `size` ranks.
    pub fn created(&self, bits: u64, name: u64, size: u32) {
        if let Some(e) = self.entry(bits, true) {
            e.size.store(size, Relaxed);
            e.name.store(name, Release);
        }
    }

    /// The handle `bits` is being freed: its entry is let go (the handle may come back
    /// for another).
    pub fn freed(&self, bits: u64) {
        if let Some(e) = self.entry(bits, false) {
            e.name.store(0, Release);
            e.key.store(0, Release);
        }
    }

    /// The name and size of the communicator the handle `bits` was created on, where
    /// known.
    #[inline(always)]
    pub fn group_of(&self, bits: u64) -> Option<(u64, u32)> {
        self.found(bits).map(|(_, group)| group)
    }

    /// The entry index of the handle `bits` (`record::epochs` keeps a window's epochs at
    /// the same index) and its communicator's name and size, where known.
    pub fn found(&self, bits: u64) -> Option<(usize, (u64, u32))> {
        let i = self.index(bits, false)?;
        let e = &self.0[i];
        let name = e.name.load(Acquire);
        (name != 0).then(|| (i, (name, e.size.load(Relaxed))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_is_found_until_freed_and_again_when_it_returns() {
        let t = Groups::new();
        let w = 0x5150;
        assert_eq!(t.group_of(w), None);
        t.created(w, 77, 4);
        assert_eq!(t.group_of(w), Some((77, 4)));
        t.freed(w);
        assert_eq!(t.group_of(w), None);
        t.created(w, 78, 2);
        assert_eq!(t.group_of(w), Some((78, 2)));
        let (slot, group) = t.found(w).unwrap();
        assert!(slot < ENTRIES && t.0[slot].key.load(Relaxed) == w + 1 && group == (78, 2));
        t.freed(w);
        assert_eq!(t.found(w), None);
    }

    /// Windows and files are tables of their own: a file whose handle has a window's
    /// bits is not that window.
    #[test]
    fn windows_and_files_are_apart() {
        WINDOWS.created(0x7070, 5, 2);
        assert_eq!(FILES.group_of(0x7070), None);
        FILES.created(0x7070, 6, 3);
        assert_eq!(WINDOWS.group_of(0x7070), Some((5, 2)));
        assert_eq!(FILES.group_of(0x7070), Some((6, 3)));
        WINDOWS.freed(0x7070);
        FILES.freed(0x7070);
    }

    /// Entries are let go when their handle is freed: more windows than entries over a
    /// job, 64 at once, are all found while they live.
    #[test]
    fn freed_entries_are_reused() {
        let t = Groups::new();
        for round in 0..4u64 {
            let wins: Vec<u64> = (0..ENTRIES as u64)
                .map(|i| 0x10_0000 + round * 0x1000 + i * 8)
                .collect();
            for (i, &w) in wins.iter().enumerate() {
                t.created(w, 100 + i as u64, 2);
            }
            for (i, &w) in wins.iter().enumerate() {
                assert_eq!(t.group_of(w), Some((100 + i as u64, 2)), "round {round}");
            }
            wins.iter().for_each(|&w| t.freed(w));
        }
    }
}
