//! Deterministic message sampling (issue 25 §1): both ends of a message keep the same
//! messages without talking to each other.
//!
//! A point-to-point message is named by its channel (sender and receiver world ranks,
//! communicator, tag) and its sequence number k on that channel: by MPI's non-overtaking
//! rule (MPI 4.0 §3.5) the k-th send on a channel is matched by the k-th receive on it.
//! The receiver takes source and tag from the status, so wildcards number alike. A
//! collective is named by its communicator and function and its sequence number there,
//! the same call on every member (MPI 4.0 §6.12: collectives, blocking and nonblocking,
//! are called in the same order by all members; §6.13: persistent ones are started in
//! the same order); a nonblocking one is numbered at its start, a persistent one at each
//! MPI_Start, and kept at its completion.
//!
//! Which k are kept is a fixed rule, so both ends agree: every message up to 64 on a
//! channel, then every 2nd up to 128, every 4th up to 256, … (32 per doubling). A kept
//! message stands for `stride` messages, its weight when scaling to all calls. A channel
//! of 10^7 messages keeps about 640.
//!
//! Memory: a fixed buffer of [`P2P_CAP`] point-to-point and [`COLL_CAP`] collective
//! samples (4 MiB together) whatever the job's length; when it is full, later samples
//! are counted as dropped and the report says so. The channel counters are a table of
//! [`CHANNELS`] per thread slot (16 KiB each, touched by threads that send), written
//! only by their own thread: plain loads and stores on the hot path.
use crate::base::runtime::map_zeroed;
use crate::record::stats::slot_index;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering::*};

/// 40 960 point-to-point samples of 10 words: the memory of 45 056 of 9 before each kept
/// its polls' time (`poll_word`), within issue 25's bound of 4 MiB with the collectives'.
pub const P2P_CAP: usize = 40_960;
/// 14 336 collective samples of 8 words: the memory of 16 384 of 7 before each kept
/// its pause (issue 25's bound, 4 MiB, holds).
pub const COLL_CAP: usize = 14_336;
pub const CHANNELS: usize = 1024;
const PROBE: usize = 8;
/// Messages kept without thinning on every channel.
const KEEP_ALL: u64 = 64;

/// Words of a point-to-point sample.
pub const P2P_WORDS: usize = 10;
/// Words of a collective sample.
pub const COLL_WORDS: usize = 8;

/// One end of a sampled message, as exchanged at MPI_Finalize: `[channel, seq, bytes,
/// start, wait, end, meta, peer, call site, polls]`. Sender: start = wait = the send call's entry, end its
/// exit. Receiver: start = the receive's post, wait = the entry of the call that waited
/// for it, end = its completion. `meta` = stride | side << 32 | class << 40 | func << 48
/// | mode << 56 (func: the call that completed it; mode: the message's, as started).
/// `polls`: where the wait began at the first of some Test calls that polled for it, or
/// at a probe (or the first of polling ones) whose message the call received, the time
/// inside MPI of the span (`poll_word`), else 0.
pub type P2p = [u64; P2P_WORDS];

/// The ticks a saturated half of a [`poll_word`] holds: the span's calls are not known.
pub const POLL_SATURATED: u64 = u32::MAX as u64;

/// A polled span's calls (`polls_ticks`: the earlier polls' time inside MPI, the Test
/// calls that completed nothing, or the probe calls that found the message a receive
/// then took; `t0`, `t1`: the completing call's entry and exit — the Test that completed
/// it, or the receive) in one word: the polls in the low 32 bits, the completing call in the high 32, each capped
/// at [`POLL_SATURATED`] (1.6 s at 2.6 GHz). 0 where nothing polled before the call.
/// Why: between polls the program runs its loop (MPICH's MPI_Test took 57 % of a
/// polling loop's time here), so the span from the first poll overstates the calls'
/// time; the split needs the time inside MPI, and which of it went before the send began.
#[inline(always)]
pub fn poll_word(polls_ticks: u64, t0: u64, t1: u64) -> u64 {
    if polls_ticks == 0 {
        return 0;
    }
    polls_ticks.min(POLL_SATURATED) | t1.wrapping_sub(t0).min(POLL_SATURATED) << 32
}

/// The (earlier polls, completing call) ticks of a [`poll_word`]; None where nothing
/// polled or either half is saturated.
pub fn poll_parts(word: u64) -> Option<(u64, u64)> {
    let (p, c) = (word & POLL_SATURATED, word >> 32);
    (word != 0 && p < POLL_SATURATED && c < POLL_SATURATED).then_some((p, c))
}
/// A sampled collective call: `[key, seq, entry, exit, stride | comm_size << 32,
/// bytes | op << 48 | func << 56, wait, pause]` (bytes below 2^48, `op` see
/// [`op_meta`]). Blocking: entry = wait = the call's entry, exit its exit, pause = the
/// ticks since this thread's previous call of the collective on its communicator left
/// it, less those inside other blocking collectives since, + 1
/// (`hooks::coll::pause_since_last`; 0: not known). Nonblocking: entry =
/// the start's (MPI_Iallreduce, …) entry, wait = the entry of the call that completed it
/// (the first of the Test calls that polled for it), exit = its completion, pause 0.
pub type Coll = [u64; COLL_WORDS];

/// The largest byte count a collective sample holds (a call's send plus receive bytes).
pub const COLL_BYTES: u64 = (1 << 48) - 1;

/// A reduction's operation and element size in one byte, as a collective sample keeps
/// it: the kind (1 predefined, 2 user-defined commutative, 3 user-defined
/// non-commutative, 0 not known: `loggp_op_kind`) in the low 2 bits, the datatype's size
/// in bytes above them (capped at 63: 63 = not known or 63 and more).
pub fn op_meta(kind: u8, element_bytes: u64) -> u8 {
    (kind & 3) | (element_bytes.min(63) as u8) << 2
}

/// The kind and element size of [`op_meta`] (None: not known).
pub fn op_of_meta(meta: u8) -> (u8, Option<u64>) {
    let size = (meta >> 2) as u64;
    (meta & 3, (size != 0 && size != 63).then_some(size))
}

pub const SIDE_SEND: u64 = 0;
pub const SIDE_RECV: u64 = 1;

static P2P: AtomicPtr<AtomicU64> = AtomicPtr::new(std::ptr::null_mut());
static COLL: AtomicPtr<AtomicU64> = AtomicPtr::new(std::ptr::null_mut());
static P2P_USED: AtomicUsize = AtomicUsize::new(0);
static COLL_USED: AtomicUsize = AtomicUsize::new(0);
static DROPPED: AtomicU64 = AtomicU64::new(0);
static UNCOUNTED: AtomicU64 = AtomicU64::new(0);
/// Per thread slot: CHANNELS × [key, next seq].
static CHAN: AtomicPtr<AtomicU64> = AtomicPtr::new(std::ptr::null_mut());
static CHAN_SLOTS: AtomicUsize = AtomicUsize::new(0);

/// Maps the buffers (lazily touched); false if the memory cannot be had.
pub fn setup(max_threads: usize) -> bool {
    if !P2P.load(Acquire).is_null() {
        return true;
    }
    let (Some(p), Some(c), Some(ch)) = (
        map_zeroed(P2P_CAP * P2P_WORDS * 8),
        map_zeroed(COLL_CAP * COLL_WORDS * 8),
        map_zeroed(max_threads * CHANNELS * 16),
    ) else {
        return false;
    };
    // Touched now, at MPI_Init: a page fault inside the job would delay exactly the
    // sampled messages (both ends keep the same ones) and bias their waits.
    for (ptr, bytes) in [(p, P2P_CAP * P2P_WORDS * 8), (c, COLL_CAP * COLL_WORDS * 8)] {
        for off in (0..bytes).step_by(4096) {
            // SAFETY: within the fresh mapping.
            unsafe { std::ptr::write_volatile(ptr.add(off), 0) };
        }
    }
    COLL.store(c as *mut AtomicU64, Release);
    CHAN.store(ch as *mut AtomicU64, Release);
    CHAN_SLOTS.store(max_threads, Release);
    P2P.store(p as *mut AtomicU64, Release);
    true
}

/// The stride of message k (0-based) of `channel` if it is kept: every message below
/// 64; above, the messages fall in blocks of 2^(⌊log2 k⌋ − 5) and one of each block is
/// kept, at an offset both ends draw from a hash of (channel, block). A fixed offset
/// would keep only even messages, say, and a job whose odd messages differ (a protocol
/// that alternates buffers) would be measured wrong: this is stratified random sampling,
/// repeatable on both ends without a word between them.
#[inline(always)]
pub fn kept(channel: u64, k: u64) -> Option<u64> {
    if k < KEEP_ALL {
        return Some(1);
    }
    let shift = 63 - k.leading_zeros() - 5;
    let stride = 1u64 << shift;
    let block = k >> shift;
    let draw = ((channel ^ block.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_mul(0xff51_afd7_ed55_8ccd)
        >> 32)
        & (stride - 1);
    (k & (stride - 1) == draw).then_some(stride)
}

/// A point-to-point channel's name, alike on both ends (never 0): the two ranks in one
/// word, the communicator and tag hashed into it (two multiplications on the hot path).
#[inline(always)]
pub fn p2p_channel(sender: i32, receiver: i32, comm_id: u64, tag: i32) -> u64 {
    let pair = (sender as u32 as u64) << 32 | receiver as u32 as u64;
    let ct = (comm_id ^ (tag as u32 as u64).rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (pair ^ ct).wrapping_mul(0xff51_afd7_ed55_8ccd) | 1
}

/// A collective's name on its communicator (never 0).
#[inline(always)]
pub fn coll_channel(comm_id: u64, func: u8) -> u64 {
    (comm_id ^ (func as u64) << 56 ^ 0x5eed).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1
}

/// The next sequence number on `channel` for this thread; None without a slot or room.
#[inline(always)]
pub fn next_seq(channel: u64) -> Option<u64> {
    match find(channel) {
        Ok(counter) => Some(next_at(counter)),
        Err(full) => {
            if full {
                UNCOUNTED.fetch_add(1, Relaxed);
            }
            None
        }
    }
}

/// The next sequence number from a channel's counter (see [`counter`]).
#[inline(always)]
pub fn next_at(counter: &AtomicU64) -> u64 {
    // Only this thread writes its slot: load and store, no locked instruction.
    let s = counter.load(Relaxed);
    counter.store(s + 1, Relaxed);
    s
}

/// This thread's counter of `channel`, claimed if new; None without a slot or room.
/// Counters never move, so the reference can be kept (`record::memo`).
#[inline(always)]
pub fn counter(channel: u64) -> Option<&'static AtomicU64> {
    find(channel).ok()
}

/// [`counter`], or whether the table was full (true) rather than absent (false).
#[inline(always)]
fn find(channel: u64) -> Result<&'static AtomicU64, bool> {
    let slot = slot_index().ok_or(false)?;
    let base = CHAN.load(Relaxed);
    if base.is_null() || slot >= CHAN_SLOTS.load(Relaxed) {
        return Err(false);
    }
    let home = (channel.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54) as usize % CHANNELS;
    for i in 0..PROBE {
        // SAFETY: within this slot's CHANNELS × 2 words of the mapping.
        let e = unsafe { base.add((slot * CHANNELS + (home + i) % CHANNELS) * 2) };
        let (key, seq) = unsafe { (&*e, &*e.add(1)) };
        let k = key.load(Relaxed);
        if k == channel || k == 0 {
            if k == 0 {
                key.store(channel, Relaxed);
            }
            return Ok(seq);
        }
    }
    Err(true)
}

/// The channel of one end of a point-to-point message (see [`number`]); None where the
/// message is not numbered.
#[inline(always)]
pub fn p2p_channel_of(side: u64, me: i32, peer: i32, comm_id: u64, tag: i32) -> Option<u64> {
    if peer < 0 || comm_id == 0 || tag < 0 {
        return None;
    }
    Some(if side == SIDE_SEND {
        p2p_channel(me, peer, comm_id, tag)
    } else {
        p2p_channel(peer, me, comm_id, tag)
    })
}

#[inline(always)]
fn push<const W: usize>(
    buf: &AtomicPtr<AtomicU64>,
    used: &AtomicUsize,
    cap: usize,
    v: [u64; W],
) -> Option<usize> {
    let base = buf.load(Relaxed);
    if base.is_null() {
        return None;
    }
    let i = used.fetch_add(1, Relaxed);
    if i >= cap {
        used.store(cap, Relaxed);
        DROPPED.fetch_add(1, Relaxed);
        return None;
    }
    for (j, x) in v.iter().enumerate() {
        // SAFETY: entry i < cap of the mapping.
        unsafe { (*base.add(i * W + j)).store(*x, Relaxed) };
    }
    Some(i)
}

/// Numbers one end of a point-to-point message on its channel; (channel, k, stride)
/// when it is kept.
#[inline(always)]
pub fn number(side: u64, me: i32, peer: i32, comm_id: u64, tag: i32) -> Option<(u64, u64, u64)> {
    let channel = p2p_channel_of(side, me, peer, comm_id, tag)?;
    let k = next_seq(channel)?;
    Some((channel, k, kept(channel, k)?))
}

/// A side with the number of message ends its call completed together, for [`keep`]:
/// a Waitall of an MPI_Irecv and an MPI_Isend, or an MPI_Sendrecv, is one call for two
/// message ends, each of them sampled on its own channel; the reduction weighs each kept
/// end by stride / together, so that the call's time is counted once
/// (`reduce::waits`). At most 127; 0 reads as 1.
#[inline(always)]
pub fn side_of(side: u64, together: u64) -> u64 {
    side | together.min(127) << 1
}

/// Records that the kept end at `index` (from [`keep`]) was one of `together` message
/// ends its call completed (see [`side_of`]): known only once the call's completions are
/// counted, after the end was kept.
#[inline(always)]
pub fn set_together(index: usize, together: u64) {
    let base = P2P.load(Relaxed);
    if base.is_null() || index >= P2P_CAP {
        return;
    }
    // SAFETY: entry `index` < cap of the mapping, written by this thread's `keep`.
    let meta = unsafe { &*base.add(index * P2P_WORDS + 6) };
    let v = meta.load(Relaxed) & !(0x7f << 33);
    meta.store(v | together.min(127) << 33, Relaxed);
}

/// Keeps one end of a numbered point-to-point message: `times` = start (post), wait, end;
/// `side` from [`side_of`] where its call completed more than one. Returns where it was
/// kept.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn keep(
    (channel, k, stride): (u64, u64, u64),
    side: u64,
    peer: i32,
    (func, mode): (u8, u8),
    class: u8,
    bytes: u64,
    times: [u64; 3],
    polls: u64,
) -> Option<usize> {
    let meta =
        stride | side << 32 | (class as u64) << 40 | (func as u64) << 48 | (mode as u64) << 56;
    push(
        &P2P,
        &P2P_USED,
        P2P_CAP,
        [
            channel,
            k,
            bytes,
            times[0],
            times[1],
            times[2],
            meta,
            peer as u64,
            crate::base::runtime::call_site() as u64,
            polls,
        ] as P2p,
    )
}

/// Keeps one end of a blocking point-to-point message if its number is kept.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn p2p(
    side: u64,
    me: i32,
    peer: i32,
    comm_id: u64,
    tag: i32,
    func: u8,
    class: u8,
    bytes: u64,
    (times, polls): ([u64; 3], u64),
    together: u64,
) {
    if let Some(n) = number(side, me, peer, comm_id, tag) {
        let side = side_of(side, together);
        keep_blocking(n, side, peer, (func, class), bytes, times, polls);
    }
}

/// Keeps one end of a blocking call's message, numbered `n` (see [`keep`]).
#[inline(always)]
pub fn keep_blocking(
    n: (u64, u64, u64),
    side: u64,
    peer: i32,
    (func, class): (u8, u8),
    bytes: u64,
    times: [u64; 3],
    polls: u64,
) {
    let mode = crate::base::funcs::FUNC_MODES
        .get(func as usize)
        .map_or(0, |m| *m as u8);
    let _ = keep(n, side, peer, (func, mode), class, bytes, times, polls);
}

/// Numbers a collective call on its communicator; (channel, k, stride) when it is kept.
#[inline(always)]
pub fn number_coll(func: u8, comm_id: u64) -> Option<(u64, u64, u64)> {
    if comm_id == 0 {
        return None;
    }
    let channel = coll_channel(comm_id, func);
    let k = next_seq(channel)?;
    Some((channel, k, kept(channel, k)?))
}

/// Keeps a numbered collective call: `times` = entry, wait, exit and pause (see
/// [`Coll`]); `op`: a reduction's operation and element size ([`op_meta`]), else 0.
#[inline(always)]
pub fn keep_coll(
    (channel, k, stride): (u64, u64, u64),
    func: u8,
    comm_size: u32,
    (bytes, op): (u64, u8),
    [entry, wait, exit, pause]: [u64; 4],
) {
    let _ = push(
        &COLL,
        &COLL_USED,
        COLL_CAP,
        [
            channel,
            k,
            entry,
            exit,
            stride | (comm_size as u64) << 32,
            bytes.min(COLL_BYTES) | (op as u64) << 48 | (func as u64) << 56,
            wait,
            pause,
        ] as Coll,
    );
}

fn read<const W: usize>(
    buf: &AtomicPtr<AtomicU64>,
    used: &AtomicUsize,
    cap: usize,
) -> Vec<[u64; W]> {
    let base = buf.load(Acquire);
    if base.is_null() {
        return Vec::new();
    }
    let n = used.load(Acquire).min(cap);
    (0..n)
        .map(|i| {
            // SAFETY: entries below `used` lie in the mapping.
            std::array::from_fn(|j| unsafe { (*base.add(i * W + j)).load(Relaxed) })
        })
        .filter(|v: &[u64; W]| v[0] != 0)
        .collect()
}

/// What was kept (read at MPI_Finalize, when no other thread records).
pub fn taken() -> (Vec<P2p>, Vec<Coll>) {
    (
        read::<P2P_WORDS>(&P2P, &P2P_USED, P2P_CAP),
        read::<COLL_WORDS>(&COLL, &COLL_USED, COLL_CAP),
    )
}

/// Messages numbered on each channel, over all thread slots (read at MPI_Finalize): the
/// last kept message of a channel stands only for those up to its end.
pub fn channel_counts() -> std::collections::HashMap<u64, u64> {
    let mut m = std::collections::HashMap::new();
    let base = CHAN.load(Acquire);
    if base.is_null() {
        return m;
    }
    for i in 0..CHAN_SLOTS.load(Acquire) * CHANNELS {
        // SAFETY: within the mapping of CHAN_SLOTS × CHANNELS entries of 2 words.
        let (k, n) = unsafe {
            (
                (*base.add(2 * i)).load(Relaxed),
                (*base.add(2 * i + 1)).load(Relaxed),
            )
        };
        if k != 0 {
            *m.entry(k).or_insert(0) += n;
        }
    }
    m
}

/// The weight of kept message `k` of a channel of `count` messages: the messages of its
/// block, which the channel's end may cut short (a last block whose draw fell past the
/// end has no sample: fewer than 1/64 of the channel's messages are then unrepresented,
/// and `messages_represented` says how many were).
pub fn weight(k: u64, stride: u64, count: u64) -> u64 {
    stride.min(count.saturating_sub(k & !(stride - 1))).max(1)
}

/// Samples lost to a full buffer, and messages not numbered (channel table full).
pub fn lost() -> (u64, u64) {
    (DROPPED.load(Relaxed), UNCOUNTED.load(Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_keeps_32_per_doubling_and_weights_add_up() {
        for ch in [1u64, 0xdead_beef, u64::MAX] {
            let kept_below = |n: u64| (0..n).filter(|&k| kept(ch, k).is_some()).count();
            assert_eq!(kept_below(64), 64);
            assert_eq!(kept_below(128), 96);
            assert_eq!(kept_below(1 << 20), 64 + 14 * 32);
            // Each kept message stands for its block: the weights sum to the messages,
            // less at most a last block cut short before its draw.
            for n in [1u64, 63, 64, 100, 128, 1000, 4096, 99_999] {
                let w: u64 = (0..n)
                    .filter_map(|k| Some(weight(k, kept(ch, k)?, n)))
                    .sum();
                let last = if n > 64 {
                    1 << (63 - (n - 1).leading_zeros() - 5)
                } else {
                    1
                };
                assert!(w <= n && w + last > n, "{ch} {n}: {w}");
            }
        }
        // Odd and even messages alike (a fixed offset would keep only even ones).
        let odd = (1024..1 << 16)
            .filter(|&k| k % 2 == 1 && kept(7, k).is_some())
            .count();
        let all = (1024..1 << 16).filter(|&k| kept(7, k).is_some()).count();
        assert!(
            (0.4..0.6).contains(&(odd as f64 / all as f64)),
            "{odd} of {all}"
        );
    }

    #[test]
    fn both_ends_name_a_channel_alike() {
        assert_eq!(p2p_channel(0, 1, 1, 7), p2p_channel(0, 1, 1, 7));
        assert_ne!(p2p_channel(0, 1, 1, 7), p2p_channel(1, 0, 1, 7));
        assert_ne!(p2p_channel(0, 1, 1, 7), p2p_channel(0, 1, 1, 8));
    }
}
