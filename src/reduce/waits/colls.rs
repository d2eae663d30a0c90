//! The collectives' arrival waits (see the parent module): who entered last, found by
//! exchanging each kept call's entry between the ranks that take part in it.
use super::calls::{is_collective, is_nonblocking_collective};
use super::timeline::TRACE_COLLECTIVES;
use super::{alltoallv, bounded, Measured, Split};
use crate::base::mpi::MPI_Comm;
use crate::record::neighbours::InOut;
use crate::record::samples::{self, Coll};
use loggp_report::bins::size_bin;
use std::collections::HashMap;

/// Where the timeline's clock starts (ticks), its ns per tick (`timeline_scale`), and the
/// message ends it holds (the collectives are counted from there).
pub(super) type Scale = (u64, f64, usize);

/// The exchange both matchings run in: the private communicator, this rank, the ranks,
/// this rank's clock uncertainty (ticks) and the timeline's scale.
pub(super) struct Ctx {
    pub comm: MPI_Comm,
    pub rank: i32,
    pub n: usize,
    pub my_u: u64,
    pub scale: Scale,
}

/// What a call's home rank gathers of its members: how many were seen and expected, the
/// last entry, the largest clock uncertainty, the longest pause + 1, and whether every
/// member's pause is known.
#[derive(Default)]
struct Gathered {
    seen: u64,
    expected: u64,
    last: u64,
    u: u64,
    pause: u64,
    known: bool,
}

/// Each collective sample to its home rank, which returns the last member's entry, the
/// largest clock uncertainty among the members, and the longest of the members' pauses
/// before the call (`hooks::coll::pause_since_last`) + 1 (0 where one is not known):
/// 0, 0, 0 where not every member's call was found, or one was found twice.
pub(super) fn collectives(x: &Ctx, coll: &[Coll], m: &mut Measured) {
    let (comm, rank, n, my_u, scale) = (x.comm, x.rank, x.n, x.my_u, x.scale);
    let home = |c: &Coll| (c[0] ^ c[1].wrapping_mul(0x9E37_79B9_7F4A_7C15)) as usize % n;
    let mut parts = vec![Vec::new(); n];
    for c in coll {
        parts[home(c)].extend_from_slice(&[
            c[0],
            c[1],
            c[2],
            (c[4] >> 32) << 32 | my_u.min(u32::MAX as u64),
            c[7],
        ]);
    }
    let got = alltoallv(comm, rank, &parts, 1);
    let mut calls: HashMap<(u64, u64), Gathered> = HashMap::new();
    for words in &got {
        for c in words.chunks_exact(5) {
            let e = calls.entry((c[0], c[1])).or_insert(Gathered {
                expected: c[3] >> 32,
                known: true,
                ..Default::default()
            });
            e.seen += 1;
            e.last = e.last.max(c[2]);
            e.u = e.u.max(c[3] & 0xffff_ffff);
            e.pause = e.pause.max(c[4]);
            e.known &= c[4] != 0;
        }
    }
    let replies: Vec<Vec<u64>> = got
        .iter()
        .map(|words| {
            words
                .chunks_exact(5)
                .flat_map(|c| match calls.get(&(c[0], c[1])) {
                    Some(g) if g.seen == g.expected => {
                        [g.last, g.u, if g.known { g.pause } else { 0 }]
                    }
                    _ => [0, 0, 0],
                })
                .collect()
        })
        .collect();
    let back = alltoallv(comm, rank, &replies, 2);
    let names = crate::record::peers::remembered();
    let mut communicators: HashMap<(u64, u8), Option<Communicator>> = HashMap::new();
    let mut next = vec![0usize; n];
    // Each sample's (last entry, uncertainty, pause), where its call was found whole.
    let found: Vec<Option<(u64, u64, u64)>> = (coll.iter())
        .map(|c| {
            let h = home(c);
            let i = next[h];
            next[h] += 3;
            match (back[h].get(i), back[h].get(i + 1), back[h].get(i + 2)) {
                (Some(&last), Some(&u), Some(&pause)) if last != 0 => Some((last, u, pause)),
                _ => None,
            }
        })
        .collect();
    // A one-sided epoch's call meets each of its peers apart (`hooks::epoch`): one call,
    // kept once per peer, waits for the last of them. Its samples (the same function and
    // entry) make one: the latest of their last entries, where every one was found.
    let mut epoch_calls: HashMap<(u8, u64), Option<(u64, u64)>> = HashMap::new();
    for (c, f) in coll.iter().zip(&found) {
        let func = (c[5] >> 56) as u8;
        if is_epoch_call(func) {
            let e = epoch_calls.entry((func, c[2])).or_insert(Some((0, 0)));
            *e = match (*e, f) {
                (Some((last, u)), Some(f)) => Some((last.max(f.0), u.max(f.1))),
                _ => None,
            };
        }
    }
    for (c, f) in coll.iter().zip(&found) {
        let func = (c[5] >> 56) as u8;
        // The MPI_Win_test that completed an exposure epoch is only its origins' partner
        // (`hooks::epoch`): not split, not counted here.
        if func == crate::base::funcs::Func::MPI_Win_test.id() {
            continue;
        }
        let (last, u, pause) = if is_epoch_call(func) {
            // The call's first sample stands for it, the others are not counted again.
            match epoch_calls.remove(&(func, c[2])) {
                None => continue,
                Some(None) => (0, 0, 0),
                Some(Some((last, u))) => (last, u, 0),
            }
        } else {
            f.unwrap_or_default()
        };
        m.sampled_collectives += 1;
        if last != 0 {
            let of = (communicators.entry((c[0], func)))
                .or_insert_with(|| communicator(&names, c[0], func));
            take(m, c, last, u + my_u, pause, scale, of.as_ref());
        }
    }
}

/// The one-sided epochs' calls, each kept once per peer (`hooks::epoch`).
fn is_epoch_call(func: u8) -> bool {
    use crate::base::funcs::Func;
    [
        Func::MPI_Win_start,
        Func::MPI_Win_complete,
        Func::MPI_Win_post,
        Func::MPI_Win_wait,
    ]
    .iter()
    .any(|f| f.id() == func)
}

/// A collective's communicator where its members matter to its row: its name
/// (`peers::comm_id`) and its members' world ranks in its rank order.
type Communicator = (u64, Vec<u32>);

/// The communicator of a collective's `channel` among those remembered (`names`), where
/// the job's ranks are on several hosts (which of its pairs are inter-node follows from
/// its members) and it is not every rank in rank order. None otherwise: one host,
/// MPI_COMM_WORLD or a duplicate, a communicator not remembered or too large to record
/// (`loggp_report::MEMBERS_RECORDED`); its calls then share the row of their function,
/// communicator size and size bin, as on one host.
fn communicator(names: &[u64], channel: u64, func: u8) -> Option<Communicator> {
    use crate::record::peers;
    let w = peers::world()?;
    if w.node_of.iter().all(|&x| Some(&x) == w.node_of.first()) {
        return None;
    }
    let name = *(names.iter()).find(|&&g| samples::coll_channel(g, func) == channel)?;
    let members = peers::members_of(name)?;
    let every = members.len() == w.size as usize
        && (members.iter().enumerate()).all(|(i, &r)| r == i as i32);
    if every || members.len() > loggp_report::MEMBERS_RECORDED || members.iter().any(|&r| r < 0) {
        return None;
    }
    Some((name, members.iter().map(|&r| r as u32).collect()))
}

/// The neighbourhood collectives' samples (MPI 4.0 §8.6): a member waits only for its
/// in-neighbours, so each kept call's entry goes to this rank's out-neighbours (in the
/// topology's lists that `record::neighbours` kept), and a call's last arrival is the
/// latest entry of its in-neighbours, where every one of them was found (a rank without
/// in-neighbours waits for nobody). Every rank calls this, with or without samples.
pub(super) fn neighbourhoods(x: &Ctx, coll: &[Coll], m: &mut Measured) {
    let (comm, rank, n, my_u, scale) = (x.comm, x.rank, x.n, x.my_u, x.scale);
    let func = |c: &Coll| (c[5] >> 56) as u8;
    let mut lists: HashMap<(u64, u8), Option<InOut>> = HashMap::new();
    for c in coll {
        lists
            .entry((c[0], func(c)))
            .or_insert_with(|| crate::record::neighbours::of_channel(c[0], func(c)));
    }
    let mut parts = vec![Vec::new(); n];
    for c in coll {
        if let Some(Some((_, destinations))) = lists.get(&(c[0], func(c))) {
            for &d in destinations {
                if let Some(p) = parts.get_mut(d as usize) {
                    p.extend_from_slice(&[c[0], c[1], c[2], my_u]);
                }
            }
        }
    }
    let got = alltoallv(comm, rank, &parts, 3);
    // (in-neighbours seen, latest entry, largest uncertainty) per call.
    let mut seen: HashMap<(u64, u64), (usize, u64, u64)> = HashMap::new();
    for words in &got {
        for c in words.chunks_exact(4) {
            let e = seen.entry((c[0], c[1])).or_default();
            e.0 += 1;
            e.1 = e.1.max(c[2]);
            e.2 = e.2.max(c[3]);
        }
    }
    for c in coll {
        m.sampled_collectives += 1;
        let Some(Some((sources, _))) = lists.get(&(c[0], func(c))) else {
            continue;
        };
        let (count, last, u) = seen.get(&(c[0], c[1])).copied().unwrap_or_default();
        if count != sources.len() {
            continue;
        }
        // Without in-neighbours the call waits for nobody: its own wait's start.
        let last = if sources.is_empty() { c[6] } else { last };
        // A neighbourhood call's pause is not gathered (its members differ per rank).
        take(m, c, last, u + my_u, 0, scale, None);
    }
}

/// One matched collective call: its arrival wait ends at `last` (± `u` ticks); `pause`:
/// the longest of its members' pauses before it, in ticks + 1 (0: not known); `of`: its
/// communicator, where its members make a row of their own ([`communicator`]).
fn take(
    m: &mut Measured,
    c: &Coll,
    last: u64,
    u: u64,
    pause: u64,
    (origin, ns0, traced): Scale,
    of: Option<&Communicator>,
) {
    let at = |t: f64| (t - origin as f64) * ns0;
    // A nonblocking collective's wait is in the call that completed it: the arrival
    // wait is the part of that call before the last member started the collective.
    let (wait, exit) = (c[6] as f64, c[3] as f64);
    let (stride, comm_size) = ((c[4] & 0xffff_ffff) as f64, (c[4] >> 32) as u32);
    let func = (c[5] >> 56) as u8;
    let name = crate::base::funcs::name(func);
    let nonblocking = is_nonblocking_collective(name);
    if !nonblocking && !is_collective(name) {
        return;
    }
    let sp = Split {
        w: stride,
        dur: exit - wait,
        ls: bounded(last as f64, wait, exit, u as f64),
        nonblocking,
        pause: pause.checked_sub(1).map(|p| p as f64),
        ..Default::default()
    };
    m.coll.push(sp);
    let bytes = c[5] & samples::COLL_BYTES;
    let op = (c[5] >> 48) as u8;
    if m.trace.len() - traced < TRACE_COLLECTIVES {
        m.trace.push((
            2,
            func,
            at(wait),
            at(exit),
            0,
            bytes,
            0,
            sp.ls[0] * ns0,
            at(wait),
        ));
    }
    let key = (func, comm_size, size_bin(bytes), of.map_or(0, |c| c.0));
    if let Some((name, members)) = of {
        m.coll_members
            .entry(*name)
            .or_insert_with(|| members.clone());
    }
    let row = m.coll_rows.entry(key).or_default();
    row.0.push(sp);
    row.1 += bytes as f64;
    // The reduction's operation: the same in every call of the row, else mixed.
    m.coll_ops
        .entry(key)
        .and_modify(|o| {
            if *o != op {
                *o = MIXED_OP;
            }
        })
        .or_insert(op);
}

/// `Measured::coll_ops` of a row whose calls had different operations or element sizes.
pub(super) const MIXED_OP: u8 = u8::MAX;
