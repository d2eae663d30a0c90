//! General active-target synchronization of one-sided windows (MPI 4.0 §12.5.2): each
//! window's current access epoch's targets (MPI_Win_start's group) and exposure epoch's
//! origins (MPI_Win_post's group), as world ranks, so that MPI_Win_complete and
//! MPI_Win_wait, which name only the window, know their peers. Kept at the window's
//! index in `groups::WINDOWS`; an epoch of more than `PEERS` peers is counted, not split.
use super::groups::ENTRIES;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering::*};

/// The most peers of one epoch whose synchronization the split divides.
pub const PEERS: usize = 64;

/// Which epoch of a window.
#[derive(Clone, Copy)]
pub enum Epoch {
    /// MPI_Win_start to MPI_Win_complete: the origin's, toward its targets.
    Access = 0,
    /// MPI_Win_post to MPI_Win_wait: the target's, toward its origins.
    Exposure = 1,
}

struct Peers {
    n: AtomicU32,
    ranks: [AtomicI32; PEERS],
}

/// The entry (ticks) of the first MPI_Win_test since each window's last MPI_Win_post;
/// 0: none yet.
static FIRST_POLL: [AtomicU64; ENTRIES] = [const { AtomicU64::new(0) }; ENTRIES];

static EPOCHS: [[Peers; 2]; ENTRIES] = [const {
    [const {
        Peers {
            n: AtomicU32::new(0),
            ranks: [const { AtomicI32::new(-1) }; PEERS],
        }
    }; 2]
}; ENTRIES];

/// The epoch `which` of the window at `slot` opened with `peers` (world ranks); more
/// than `PEERS`: none kept.
pub fn opened(slot: usize, which: Epoch, peers: &[i32]) {
    let Some(e) = EPOCHS.get(slot).map(|w| &w[which as usize]) else {
        return;
    };
    let n = if peers.len() <= PEERS { peers.len() } else { 0 };
    for (r, &p) in e.ranks.iter().zip(&peers[..n]) {
        r.store(p, Relaxed);
    }
    e.n.store(n as u32, Release);
    if let (Epoch::Exposure, Some(p)) = (which, FIRST_POLL.get(slot)) {
        p.store(0, Relaxed);
    }
}

/// An MPI_Win_test entered at `t0` on the window at `slot`: the entry of the first one
/// since the window's last MPI_Win_post (this one's where it is the first).
pub fn polled(slot: usize, t0: u64) -> u64 {
    let Some(p) = FIRST_POLL.get(slot) else {
        return t0;
    };
    match p.compare_exchange(0, t0, Relaxed, Relaxed) {
        Ok(_) => t0,
        Err(first) => first,
    }
}

/// The peers of the epoch `which` of the window at `slot` into `out`; how many.
pub fn peers(slot: usize, which: Epoch, out: &mut [i32; PEERS]) -> usize {
    let Some(e) = EPOCHS.get(slot).map(|w| &w[which as usize]) else {
        return 0;
    };
    let n = (e.n.load(Acquire) as usize).min(PEERS);
    for (o, r) in out.iter_mut().zip(&e.ranks[..n]) {
        *o = r.load(Relaxed);
    }
    n
}

/// The name both ends of one origin–target pair of a window give their epochs' meeting
/// (`open`: MPI_Win_start with MPI_Win_post; else MPI_Win_complete with MPI_Win_wait):
/// numbered and kept like a collective of two on it (`hooks::epoch`). Never 0.
pub fn pair_name(window: u64, origin: i32, target: i32, open: bool) -> u64 {
    let x = window
        ^ (origin as u32 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (target as u32 as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9)
        ^ if open { 0x0be7 } else { 0xc105e };
    x.wrapping_mul(0x94D0_49BB_1331_11EB) | 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_epochs_peers_are_kept_until_the_next() {
        let mut out = [0; PEERS];
        opened(3, Epoch::Access, &[4, 7]);
        opened(3, Epoch::Exposure, &[1]);
        assert_eq!(peers(3, Epoch::Access, &mut out), 2);
        assert_eq!(&out[..2], &[4, 7]);
        assert_eq!(peers(3, Epoch::Exposure, &mut out), 1);
        assert_eq!(out[0], 1);
        // A group too large to keep leaves the epoch without peers, never a stale list.
        opened(3, Epoch::Access, &[0; PEERS + 1]);
        assert_eq!(peers(3, Epoch::Access, &mut out), 0);
        assert_eq!(peers(ENTRIES, Epoch::Access, &mut out), 0);
        // The polls of an exposure epoch start over at each post.
        assert_eq!(polled(3, 100), 100);
        assert_eq!(polled(3, 200), 100);
        opened(3, Epoch::Exposure, &[1]);
        assert_eq!(polled(3, 300), 300);
    }

    #[test]
    fn pair_names_tell_the_direction_and_the_meeting_apart() {
        let n = pair_name(77, 0, 1, true);
        assert_ne!(n, 0);
        assert_ne!(n, pair_name(77, 1, 0, true));
        assert_ne!(n, pair_name(77, 0, 1, false));
        assert_ne!(n, pair_name(78, 0, 1, true));
        assert_eq!(n, pair_name(77, 0, 1, true));
    }
}
