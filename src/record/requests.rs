//! The shim's own table of live requests: what each nonblocking or persistent request is
//! (mode, peer, size, start time) from initiation to completion, so that sizes never come
//! from a completion status (which MPI_STATUS_IGNORE may hide and which gives the received
//! count, not what was posted).
//!
//! One fixed table per rank, shared by all threads, because MPI_THREAD_MULTIPLE lets a
//! request start in one thread and complete in another. Entries are claimed with a
//! compare-and-swap on the key and released with a store; lookups probe at most `WINDOW`
//! slots from the handle's home, so a miss (a request from a collective or from MPI-IO)
//! costs a bounded scan. A full window leaves the request untracked, counted in the report.
//! Below MPI_THREAD_MULTIPLE no two threads are in MPI at once (MPI 4.0 §11.6), so the
//! claim is a plain load and store, without the compare-and-swap's locked instruction.
use loggp_report::{Mode, PeerClass};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicU64, AtomicUsize, Ordering::*};

const WINDOW: usize = 16;

/// Whether two threads may be in MPI at once (MPI_THREAD_MULTIPLE, or not known yet).
static CONCURRENT: AtomicBool = AtomicBool::new(true);

/// The thread level MPI provided: below MPI_THREAD_MULTIPLE, claims need no locked
/// instruction.
pub fn set_concurrent(concurrent: bool) {
    CONCURRENT.store(concurrent, Relaxed);
}

/// What the shim knows about a request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Info {
    pub mode: Mode,
    pub class: PeerClass,
    pub persistent: bool,
    /// Active: started and not yet completed (persistent requests alternate).
    pub active: bool,
    pub cancel_requested: bool,
    /// Message handle (Mprobe) rather than a request.
    pub message: bool,
    /// The message's bytes (0 for a message handle).
    pub bytes: u64,
    /// The ticks inside MPI that the message's wait counts before its completing calls:
    /// for a message handle (MPI_Mprobe, MPI_Improbe), the probe calls that matched it
    /// (`hooks::probe::mprobe`); for an MPI_Imrecv's request, those and the MPI_Imrecv
    /// call; 0 otherwise.
    pub polled_ticks: u64,
    pub peer_world: i32,
    pub start_ticks: u64,
    /// The communicator, to classify the source of a wildcard receive at completion.
    pub comm_bits: u64,
    /// The waits' deterministic sample (issue 25): how this request's message is kept.
    pub sample: Sample,
}

impl Info {
    /// A request of a call that moves no message (nonblocking I/O, request-based
    /// one-sided communication): mode `none`, followed only so that its completion is
    /// told apart (nothing of it is timed).
    pub fn other() -> Info {
        Info {
            mode: Mode::None,
            class: PeerClass::Unknown,
            persistent: false,
            active: true,
            cancel_requested: false,
            message: false,
            bytes: 0,
            polled_ticks: 0,
            peer_world: -1,
            start_ticks: 0,
            comm_bits: 0,
            sample: Sample::default(),
        }
    }
}

/// A nonblocking message's place in the waits' sample: numbered at its start (a send, or
/// a receive with a named source and tag, whose order of posting is its order of
/// matching) and kept, or to be numbered at completion from its status (a wildcard
/// receive), or not kept.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    /// The channel of a kept message; 0 otherwise.
    pub channel: u64,
    /// Its number and stride (`seq | log2(stride) << 56`); [`Sample::AT_COMPLETION`] for a
    /// wildcard receive.
    pub seq: u64,
    /// The tag given at the start (MPI_ANY_TAG for a wildcard); a nonblocking
    /// collective's function and communicator size ([`Sample::coll_tag`]).
    pub tag: i32,
}

impl Sample {
    pub const AT_COMPLETION: u64 = u64::MAX;
    pub fn kept(channel: u64, k: u64, stride: u64, tag: i32) -> Sample {
        Sample {
            channel,
            seq: k | (stride.trailing_zeros() as u64) << 56,
            tag,
        }
    }
    /// A nonblocking collective's function and communicator size, in the tag's place
    /// (its request has no tag): `func | size << 8`, the size capped at 2^23 − 1.
    pub fn coll_tag(func: u8, comm_size: u32) -> i32 {
        (func as u32 | comm_size.min((1 << 23) - 1) << 8) as i32
    }

    /// The function and communicator size of [`Sample::coll_tag`].
    pub fn coll_of_tag(tag: i32) -> (u8, u32) {
        (tag as u32 as u8, tag as u32 >> 8)
    }

    /// (channel, number, stride) of a kept message.
    pub fn get(&self) -> Option<(u64, u64, u64)> {
        (self.channel != 0 && self.seq != Self::AT_COMPLETION).then(|| {
            (
                self.channel,
                self.seq & ((1 << 56) - 1),
                1 << (self.seq >> 56),
            )
        })
    }
}

impl Info {
    fn pack(&self) -> u64 {
        (self.mode as u64)
            | (self.class as u64) << 4
            | (self.persistent as u64) << 7
            | (self.active as u64) << 8
            | (self.cancel_requested as u64) << 9
            | (self.message as u64) << 10
            | (self.bytes & ((1 << 48) - 1)) << 16
    }
    fn unpack(
        v: u64,
        peer_world: i32,
        start_ticks: u64,
        comm_bits: u64,
        polled_ticks: u64,
    ) -> Info {
        Info {
            mode: Mode::from_u8((v & 0xf) as u8),
            class: PeerClass::from_u8(((v >> 4) & 7) as u8),
            persistent: v >> 7 & 1 != 0,
            active: v >> 8 & 1 != 0,
            cancel_requested: v >> 9 & 1 != 0,
            message: v >> 10 & 1 != 0,
            bytes: v >> 16,
            polled_ticks,
            peer_world,
            start_ticks,
            comm_bits,
            sample: Sample::default(),
        }
    }
}

#[repr(C, align(64))]
struct Entry {
    /// Handle bits + 1 with bit 63 marking message handles; 0 = free.
    key: AtomicU64,
    info: AtomicU64,
    start: AtomicU64,
    comm: AtomicU64,
    peer: AtomicI32,
    tag: AtomicI32,
    channel: AtomicU64,
    seq: AtomicU64,
    polled: AtomicU64,
}

impl Entry {
    fn load(&self) -> Info {
        let peer = self.peer.load(Acquire);
        let mut i = Info::unpack(
            self.info.load(Relaxed),
            peer,
            self.start.load(Relaxed),
            self.comm.load(Relaxed),
            self.polled.load(Relaxed),
        );
        i.sample = Sample {
            channel: self.channel.load(Relaxed),
            seq: self.seq.load(Relaxed),
            tag: self.tag.load(Relaxed),
        };
        i
    }
    fn store(&self, info: &Info) {
        self.info.store(info.pack(), Relaxed);
        self.start.store(info.start_ticks, Relaxed);
        self.comm.store(info.comm_bits, Relaxed);
        self.tag.store(info.sample.tag, Relaxed);
        self.channel.store(info.sample.channel, Relaxed);
        self.seq.store(info.sample.seq, Relaxed);
        self.polled.store(info.polled_ticks, Relaxed);
        self.peer.store(info.peer_world, Release);
    }
}

static TABLE: AtomicPtr<Entry> = AtomicPtr::new(std::ptr::null_mut());
static MASK: AtomicUsize = AtomicUsize::new(0);
/// Requests that found no room in their window.
pub static UNTRACKED: AtomicU64 = AtomicU64::new(0);

/// Maps the table (entries rounded up to a power of two). False if mapping failed.
pub fn setup(entries: usize) -> bool {
    if !TABLE.load(Acquire).is_null() {
        return true;
    }
    let n = entries.next_power_of_two().max(WINDOW);
    let bytes = n * std::mem::size_of::<Entry>();
    // All-zero memory is a valid empty table.
    let Some(p) = crate::base::runtime::map_zeroed(bytes) else {
        return false;
    };
    MASK.store(n - 1, Relaxed);
    TABLE.store(p as *mut Entry, Release);
    true
}

#[inline(always)]
fn key_of(bits: u64, message: bool) -> u64 {
    (bits.wrapping_add(1) & !(1 << 63)) | (message as u64) << 63
}

#[inline(always)]
fn home(key: u64, mask: usize) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & mask
}

#[inline(always)]
fn table() -> Option<(&'static [Entry], usize)> {
    let p = TABLE.load(Acquire);
    if p.is_null() {
        return None;
    }
    let mask = MASK.load(Relaxed);
    // SAFETY: the mapping holds mask+1 entries and is never unmapped.
    Some((unsafe { std::slice::from_raw_parts(p, mask + 1) }, mask))
}

/// Starts tracking a handle. Returns false (and counts it) when its window is full.
#[inline]
pub fn insert(bits: u64, info: Info) -> bool {
    let Some((t, mask)) = table() else {
        return false;
    };
    let key = key_of(bits, info.message);
    let h = home(key, mask);
    let concurrent = CONCURRENT.load(Relaxed);
    for i in 0..WINDOW {
        let e = &t[(h + i) & mask];
        if e.key.load(Relaxed) != 0 {
            continue;
        }
        if !concurrent {
            e.key.store(key, Relaxed);
            e.store(&info);
            return true;
        }
        if e.key.compare_exchange(0, key, Acquire, Relaxed).is_ok() {
            e.store(&info);
            return true;
        }
    }
    UNTRACKED.fetch_add(1, Relaxed);
    false
}

#[inline]
fn find(bits: u64, message: bool) -> Option<&'static Entry> {
    let (t, mask) = table()?;
    let key = key_of(bits, message);
    let h = home(key, mask);
    (0..WINDOW)
        .map(|i| &t[(h + i) & mask])
        .find(|e| e.key.load(Acquire) == key)
}

/// What is known of a live handle.
#[inline]
pub fn get(bits: u64, message: bool) -> Option<Info> {
    Some(find(bits, message)?.load())
}

/// Forgets a handle, returning what was known of it.
#[inline]
pub fn remove(bits: u64, message: bool) -> Option<Info> {
    let e = find(bits, message)?;
    let info = e.load();
    e.key.store(0, Release);
    Some(info)
}

/// A request that completed: what was known of it, and the handle forgotten (or, for a
/// persistent request, marked inactive) in the same lookup. An inactive persistent
/// request is returned as it was.
#[inline]
pub fn complete(bits: u64) -> Option<Info> {
    let e = find(bits, false)?;
    let info = e.load();
    if !info.active {
        return Some(info);
    }
    if info.persistent {
        e.store(&Info {
            active: false,
            ..info
        });
    } else {
        e.key.store(0, Release);
    }
    Some(info)
}

/// Rewrites what is known of a live handle (persistent restart, cancel mark, completion).
#[inline]
pub fn update(bits: u64, message: bool, f: impl FnOnce(&mut Info)) -> Option<Info> {
    let e = find(bits, message)?;
    let before = e.load();
    let mut info = before;
    f(&mut info);
    e.store(&info);
    Some(before)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(bytes: u64) -> Info {
        Info {
            mode: Mode::Isend,
            class: PeerClass::IntraNode,
            persistent: false,
            active: true,
            cancel_requested: false,
            message: false,
            bytes,
            polled_ticks: 0,
            peer_world: 3,
            start_ticks: 42,
            comm_bits: 9,
            sample: Sample::kept(77, 5, 4, 11),
        }
    }

    #[test]
    fn insert_get_update_remove_and_full_window() {
        assert!(setup(1024));
        assert!(insert(0x1000, info(77)));
        assert_eq!(get(0x1000, false).unwrap().bytes, 77);
        assert!(
            get(0x1000, true).is_none(),
            "message and request keys are distinct"
        );
        update(0x1000, false, |i| i.cancel_requested = true);
        assert!(get(0x1000, false).unwrap().cancel_requested);
        assert_eq!(remove(0x1000, false).unwrap().peer_world, 3);
        assert!(get(0x1000, false).is_none());
        // Handles are distinct per thread here; many at once must all be found again.
        let hs: Vec<_> = (0..4u64)
            .map(|t| {
                std::thread::spawn(move || {
                    for k in 0..100u64 {
                        let bits = (t << 32) | (k * 64);
                        if insert(bits, info(k)) {
                            assert_eq!(remove(bits, false).unwrap().bytes, k);
                        }
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
    }
}
