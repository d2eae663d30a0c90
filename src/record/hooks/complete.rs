//! Completion hooks (MPI 4.0 §3.7.3, §3.7.5): each completed request is recorded with
//! its lifetime, and the completing call under the request's mode when it completed one.
use super::common::{poll_step, status_source, status_tag, timed, visible_status};
use super::completion::{record_completion_call, record_one_completion};
use crate::base::funcs::{REQ_CANCELLED, REQ_COMPLETED};
use crate::base::mpi::{self, Handle, MPI_Status};
use crate::base::runtime::{protect, THREAD};
use crate::record::peers::{classify, comm_id, world};
use crate::record::progress::CURRENT_REQUEST;
use crate::record::requests::{self, Info, Sample};
use crate::record::samples::{self, poll_word, SIDE_RECV, SIDE_SEND};
use crate::record::stats::{record, this_slot, Slot, SCRATCH_HANDLES};
use loggp_report::{Mode, PeerClass};
use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// The message ends one completion call completed, and where their kept samples went:
/// each kept end then records how many ends its call completed (`samples::side_of`), so
/// that the reduction counts the call's time once. A call that keeps more than
/// `KEPT_MAX` ends (a wide stencil's first 64 exchanges, every end kept) leaves the rest
/// counted as if alone.
#[derive(Default)]
struct Together {
    ends: u64,
    kept: [usize; KEPT_MAX],
    n_kept: usize,
}

const KEPT_MAX: usize = 8;

impl Together {
    #[inline(always)]
    fn kept(&mut self, index: Option<usize>) {
        if let Some(i) = index {
            if self.n_kept < KEPT_MAX {
                self.kept[self.n_kept] = i;
                self.n_kept += 1;
            }
        }
    }
    /// Marks the kept ends with the call's count of ends, once all are completed.
    #[inline(always)]
    fn finish(&self) {
        if self.ends > 1 {
            for &i in &self.kept[..self.n_kept] {
                samples::set_together(i, self.ends);
            }
        }
    }
}

/// One tracked request completed at `t_done` by the call `func`, waited for from
/// `t_wait` (its entry, or the first poll's: `polls` from `samples::poll_word`); `st` is
/// its status when visible (else null). Returns what it was, for attributing the
/// completing call.
#[inline(always)]
fn complete(
    bits: u64,
    st: *const MPI_Status,
    (func, t_wait, t_done, polls): (u8, u64, u64, u64),
    together: Option<&mut Together>,
) -> Option<Info> {
    let info = requests::complete(bits)?;
    if !info.active {
        return None; // an inactive persistent request completes at once, with nothing
    }
    if info.mode == Mode::None {
        return Some(info); // no message: nothing of it to record or sample
    }
    let (mut class, mut peer) = (info.class, info.peer_world);
    if class == PeerClass::Unknown
        && !st.is_null()
        && matches!(
            info.mode,
            Mode::Recv | Mode::Irecv | Mode::Mrecv | Mode::Sendrecv | Mode::Isendrecv
        )
    {
        (class, peer) = classify(mpi::MPI_Comm::from_bits(info.comm_bits), status_source(st));
    }
    let mut cancelled = false;
    if info.cancel_requested && !st.is_null() {
        let mut flag: c_int = 0;
        // SAFETY: st points to a filled status.
        unsafe { mpi::PMPI_Test_cancelled(st, &mut flag) };
        cancelled = flag != 0;
    }
    let pseudo = if cancelled {
        REQ_CANCELLED
    } else {
        REQ_COMPLETED
    };
    record(
        pseudo,
        info.mode,
        class,
        info.bytes,
        info.bytes,
        t_done.wrapping_sub(info.start_ticks),
    );
    if !cancelled {
        let times = [info.start_ticks, t_wait, t_done];
        let kept = sample_completed(&info, class, peer, st, (times, polls), func);
        if let Some(t) = together {
            t.ends += u64::from(info.mode != Mode::Collective && peer >= 0);
            t.kept(kept);
        }
    }
    Some(Info {
        class,
        peer_world: peer,
        ..info
    })
}

/// The waits' sample (issue 25): a kept nonblocking message's end, timed from its start
/// through the entry of the call that completed it to its completion; a wildcard
/// receive is numbered here, from its status. Returns where a message end was kept.
#[inline(always)]
fn sample_completed(
    info: &Info,
    class: PeerClass,
    peer: i32,
    st: *const MPI_Status,
    (times, polls): ([u64; 3], u64),
    func: u8,
) -> Option<usize> {
    let s = info.sample;
    if info.mode == Mode::Collective {
        // A nonblocking collective's call (numbered at its start; a persistent one's at
        // each MPI_Start).
        if let Some(n) = s.get() {
            let (f, comm_size) = Sample::coll_of_tag(s.tag);
            let [entry, wait, exit] = times;
            samples::keep_coll(n, f, comm_size, (info.bytes, 0), [entry, wait, exit, 0]);
        }
        return None;
    }
    let recv = matches!(info.mode, Mode::Irecv | Mode::Mrecv);
    let side = if recv { SIDE_RECV } else { SIDE_SEND };
    // An MPI_Imrecv's message waited from the probe that matched it (its start), not
    // from the polls of its request; the time inside MPI of that span is the probe
    // calls' and the MPI_Imrecv's (`Info::polled_ticks`), the Test calls' that polled its
    // request, and the completing call's, as for a message an MPI_Mrecv takes
    // (`probe::mrecv`). The MPI_Imrecv's own ticks count with the polls, spread over the
    // span before the completing call (it comes after the probe found the message: a
    // late sender's wait holds slightly too much of it).
    let (times, polls) = if info.mode == Mode::Mrecv {
        let (earlier, completing) = match samples::poll_parts(polls) {
            Some(parts) => parts,
            None => (0, times[2].wrapping_sub(times[1])),
        };
        let word = match (info.polled_ticks, polls) {
            (0, _) => 0,
            // Saturated: the span's calls are not known.
            (_, w) if w != 0 && samples::poll_parts(w).is_none() => w,
            (p, _) => poll_word(
                p.saturating_add(earlier),
                times[2].wrapping_sub(completing),
                times[2],
            ),
        };
        ([times[0], times[0], times[2]], word)
    } else {
        (times, polls)
    };
    let numbered = if s.seq == Sample::AT_COMPLETION {
        if st.is_null() || peer < 0 {
            return None;
        }
        let tag = if s.tag == mpi::any_tag() {
            status_tag(st)
        } else {
            s.tag
        };
        let comm = mpi::MPI_Comm::from_bits(info.comm_bits);
        world().and_then(|w| samples::number(side, w.rank, peer, comm_id(comm), tag))
    } else {
        s.get()
    };
    samples::keep(
        numbered?,
        side,
        peer,
        (func, info.mode as u8),
        class as u8,
        info.bytes,
        times,
        polls,
    )
}

/// Where the wait for the requests a completion call (entered at `t0`, `first` the bits
/// of its request, or of the first of its array) completed began: at the entry of the
/// first of the Test calls on the same request or array that went before it and
/// completed nothing (a polling loop, `while (!flag) MPI_Test(...)`), or at its own
/// entry. The waits' split (issue 25) then sees a polled message as waited for from the
/// first poll: a late sender's message keeps a receiver polling, and the polls' time is
/// in the split's message calls. A call that completes nothing on a request the thread
/// is not yet polling starts a new poll there; one that completes some ends it.
/// (Between the polls the program may compute: the span then holds more than the polls'
/// own time, and the split takes the waits' share of the span as their share of the
/// polls.)
///
/// Also returns, when this call completes a poll, the ticks the earlier polls of it took
/// together (else 0): where the call completes one nonblocking collective, those polls
/// waited for the collective, not for messages (`record_completion_call`), and so where
/// it completes only nonblocking collectives.
#[inline(always)]
fn polled_since(first: impl FnOnce() -> u64, completed: bool, t0: u64, t1: u64) -> (u64, u64) {
    // Until some Test call completes nothing, a completion looks no further (one load).
    let seen = POLLED.load(Relaxed);
    if completed && !seen {
        return (t0, 0);
    }
    if !seen {
        POLLED.store(true, Relaxed);
    }
    let key = first().wrapping_add(1);
    THREAD.with(|t| poll_step(&t.polled, &t.polled_ticks, key, completed, (t0, t1)))
}

/// Whether any Test call has completed nothing yet (see [`polled_since`]).
static POLLED: AtomicBool = AtomicBool::new(false);

/// MPI_Wait and MPI_Test (MPI 4.0 §3.7.3). `flag` is null for Wait. A status the caller
/// cannot see (Fortran) is passed as MPI_STATUS_IGNORE and stays unfilled.
pub(crate) fn wait_one(
    func: u8,
    _mode: Mode,
    request: u64,
    flag: *mut c_int,
    status: *mut MPI_Status,
    call: impl FnOnce(*mut MPI_Status) -> c_int,
) -> c_int {
    let mut local = mpi::empty_status();
    let st = visible_status(status, &mut local);
    let (rc, t0, t1) = timed(func, Some((CURRENT_REQUEST | request, 0)), || call(st));
    protect(|| {
        // SAFETY: flag, when given, was written by the call.
        let done = flag.is_null() || unsafe { *flag } != 0;
        let (since, polls) = polled_since(|| request, done, t0, t1);
        let info = if done && request != mpi::request_null().bits() {
            complete(
                request,
                st,
                (func, since, t1, poll_word(polls, t0, t1)),
                None,
            )
        } else {
            None
        };
        record_one_completion(func, info, (t0, t1), polls);
    });
    rc
}

/// The handles of a request array a Wait/Test variant remembered before the call nulls
/// them, in this thread's slot (found once for the call).
struct Remembered {
    slot: Option<Slot>,
    n: usize,
}

impl Remembered {
    /// Handle `i` (None, counted as untracked, beyond those remembered).
    #[inline(always)]
    fn get(&self, i: usize) -> Option<u64> {
        if i >= self.n {
            requests::UNTRACKED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return None;
        }
        self.slot.as_ref().map(|s| s.scratch()[i].get())
    }

    /// The first handle (0: none), which names a polling loop.
    #[inline(always)]
    fn first(&self) -> u64 {
        if self.n == 0 {
            return 0;
        }
        self.slot.as_ref().map_or(0, |s| s.scratch()[0].get())
    }
}

/// Remembers the handles of a request array before a Wait/Test variant nulls them.
#[inline(always)]
fn remember(count: c_int, reqs: &impl Fn(usize) -> u64) -> Remembered {
    let Some(slot) = this_slot() else {
        return Remembered { slot: None, n: 0 };
    };
    let n = (count.max(0) as usize).min(SCRATCH_HANDLES);
    for (i, s) in slot.scratch().iter().enumerate().take(n) {
        s.set(reqs(i));
    }
    Remembered {
        slot: Some(slot),
        n,
    }
}

#[inline(always)]
fn nth_status(statuses: *mut MPI_Status, j: usize) -> *const MPI_Status {
    if statuses.is_null() || statuses == mpi::statuses_ignore() {
        std::ptr::null()
    } else {
        // SAFETY: the user's array has one status per completed request.
        unsafe { statuses.add(j) }
    }
}

/// The in-progress record of an array Wait/Test variant: its first request.
#[inline(always)]
fn first_request(count: c_int, reqs: &impl Fn(usize) -> u64) -> u64 {
    if count > 0 {
        CURRENT_REQUEST | reqs(0)
    } else {
        0
    }
}

/// MPI_Waitall and MPI_Testall: every request completed when the call succeeds (and, for
/// Testall, sets the flag).
pub(crate) fn wait_all(
    func: u8,
    _mode: Mode,
    count: c_int,
    reqs: impl Fn(usize) -> u64,
    flag: *mut c_int,
    statuses: *mut MPI_Status,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let n = remember(count, &reqs);
    let (rc, t0, t1) = timed(
        func,
        Some((first_request(count, &reqs), count.max(0) as u64)),
        call,
    );
    protect(|| {
        // SAFETY: flag, when given, was written by the call.
        let done = rc == mpi::success() && (flag.is_null() || unsafe { *flag } != 0);
        let (since, polls) = polled_since(|| n.first(), done, t0, t1);
        let (mut last, mut n_done, mut n_coll, mut n_other) = (None, 0, 0, 0);
        if done {
            let mut together = Together::default();
            for i in 0..count.max(0) as usize {
                if let Some(bits) = n.get(i) {
                    let times = (func, since, t1, poll_word(polls, t0, t1));
                    if let Some(info) =
                        complete(bits, nth_status(statuses, i), times, Some(&mut together))
                    {
                        last = Some(info);
                        n_done += 1;
                        n_coll += (info.mode == Mode::Collective) as usize;
                        n_other += (info.mode == Mode::None) as usize;
                    }
                }
            }
            together.finish();
        }
        let ticks = t1.wrapping_sub(t0);
        record_completion_call(func, last, (n_done, n_coll, n_other), ticks, polls);
    });
    rc
}

/// MPI_Waitany and MPI_Testany: at most one completes, named by `index` (a C index; the
/// Fortran entry points pass the 1-based one converted).
#[allow(clippy::too_many_arguments)]
pub(crate) fn wait_any(
    func: u8,
    _mode: Mode,
    count: c_int,
    reqs: impl Fn(usize) -> u64,
    index: impl FnOnce() -> c_int,
    flag: *mut c_int,
    status: *mut MPI_Status,
    call: impl FnOnce(*mut MPI_Status) -> c_int,
) -> c_int {
    let n = remember(count, &reqs);
    let mut local = mpi::empty_status();
    let st = visible_status(status, &mut local);
    let (rc, t0, t1) = timed(
        func,
        Some((first_request(count, &reqs), count.max(0) as u64)),
        || call(st),
    );
    protect(|| {
        // SAFETY: flag was written by the call.
        let done = flag.is_null() || unsafe { *flag } != 0;
        let idx = index();
        let completed = done && idx != mpi::undefined() && idx >= 0;
        let (since, polls) = polled_since(|| n.first(), completed, t0, t1);
        let mut info = None;
        if completed {
            if let Some(bits) = n.get(idx as usize) {
                info = complete(bits, st, (func, since, t1, poll_word(polls, t0, t1)), None);
            }
        }
        record_one_completion(func, info, (t0, t1), polls);
    });
    rc
}

/// MPI_Waitsome and MPI_Testsome: `outcount` requests complete, named by `indices` (C
/// indices; `index_base` is 1 for Fortran).
#[allow(clippy::too_many_arguments)]
pub(crate) fn wait_some(
    func: u8,
    _mode: Mode,
    count: c_int,
    reqs: impl Fn(usize) -> u64,
    outcount: *mut c_int,
    indices: *mut c_int,
    index_base: c_int,
    statuses: *mut MPI_Status,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let n = remember(count, &reqs);
    let (rc, t0, t1) = timed(
        func,
        Some((first_request(count, &reqs), count.max(0) as u64)),
        call,
    );
    protect(|| {
        // SAFETY: outcount and indices were written by the call.
        let out = if outcount.is_null() {
            mpi::undefined()
        } else {
            unsafe { *outcount }
        };
        let (mut last, mut n_done, mut n_coll, mut n_other) = (None, 0, 0, 0);
        let completed =
            rc == mpi::success() && out != mpi::undefined() && out > 0 && !indices.is_null();
        let (since, polls) = polled_since(|| n.first(), completed, t0, t1);
        if completed {
            let mut together = Together::default();
            for j in 0..out as usize {
                let i = unsafe { *indices.add(j) } - index_base;
                if let Some(bits) = n.get(i.max(0) as usize) {
                    let times = (func, since, t1, poll_word(polls, t0, t1));
                    if let Some(info) =
                        complete(bits, nth_status(statuses, j), times, Some(&mut together))
                    {
                        last = Some(info);
                        n_done += 1;
                        n_coll += (info.mode == Mode::Collective) as usize;
                        n_other += (info.mode == Mode::None) as usize;
                    }
                }
            }
            together.finish();
        }
        let ticks = t1.wrapping_sub(t0);
        record_completion_call(func, last, (n_done, n_coll, n_other), ticks, polls);
    });
    rc
}
