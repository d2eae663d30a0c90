//! Collective hooks (MPI 4.0 §6): the call timed and recorded under mode `collective`,
//! with this rank's send and receive data as the standard defines them for the function
//! (`bytes` below). A collective's own messages run beneath PMPI and are not seen; its
//! peer class is `unknown`, so the passive point-to-point model never takes it in.
//! Nonblocking collectives are tracked from start to completion like point-to-point
//! requests: the completing Wait or Test counts under mode `collective` too.
use super::common::{msg_bytes, sum, timed, typed_sum, Types};
use crate::base::funcs;
use crate::base::mpi::{self, Handle, MPI_Comm, MPI_Datatype};
use crate::base::runtime::protect;
use crate::record::neighbours;
use crate::record::peers::{classify, comm_id};
use crate::record::requests::{self, Info, Sample};
use crate::record::samples;
use crate::record::stats::record_in;
use loggp_report::{Mode, PeerClass};
use std::os::raw::{c_int, c_void};

/// The communicator's size (its local group), a dimension of a collective's cell.
#[inline(always)]
fn comm_size(comm: MPI_Comm) -> u32 {
    let mut n: c_int = 0;
    // SAFETY: writes one int.
    unsafe { mpi::PMPI_Comm_size(comm, &mut n) };
    n.max(0) as u32
}

/// A blocking collective (MPI_Barrier, MPI_Bcast, …). `bytes` runs after the call.
#[inline(always)]
pub(crate) fn collective(
    func: u8,
    mode: Mode,
    comm: MPI_Comm,
    bytes: impl FnOnce() -> u64,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let (rc, t0, t1) = timed(func, None, call);
    protect(|| {
        let b = bytes();
        let n = comm_size(comm);
        record_in(func, mode, PeerClass::Unknown, b, b, t1.wrapping_sub(t0), n);
        // The waits' sample (issue 25).
        if rc == mpi::success() {
            if let Some(k) = number(func, comm) {
                samples::keep_coll(k, func, n, b, [t0, t0, t1]);
            }
        }
    });
    rc
}

/// Numbers a collective call among those of its function on its communicator (every
/// member calls them in the same order, MPI 4.0 §6.12); (channel, k, stride) where it
/// is kept. A neighbourhood collective is numbered on its topology's name, and this
/// rank's neighbours in it are kept when its first call is (`record::neighbours`): its
/// members wait only for their in-neighbours.
#[inline(always)]
pub(crate) fn number(func: u8, comm: MPI_Comm) -> Option<(u64, u64, u64)> {
    let id = named(comm);
    if !funcs::is_neighborhood(func) {
        return samples::number_coll(func, id);
    }
    let name = neighbours::topology(comm, || id).name;
    let kept = samples::number_coll(func, name)?;
    neighbours::note(comm, name);
    Some(kept)
}

/// The communicator's name as all its members compute it (translated on first use).
#[inline(always)]
pub(crate) fn named(comm: MPI_Comm) -> u64 {
    match comm_id(comm) {
        0 => {
            classify(comm, 0);
            comm_id(comm)
        }
        id => id,
    }
}

/// A nonblocking collective (MPI_Ibarrier, MPI_Ibcast, …): recorded at its start with its
/// bytes, and its request followed to the Wait or Test that completes it.
#[inline(always)]
pub(crate) fn icollective(
    func: u8,
    mode: Mode,
    comm: MPI_Comm,
    bytes: impl FnOnce() -> u64,
    request: impl FnOnce() -> Option<u64>,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let (rc, t0, t1) = timed(func, None, call);
    protect(|| {
        let b = bytes();
        let n = comm_size(comm);
        record_in(func, mode, PeerClass::Unknown, b, b, t1.wrapping_sub(t0), n);
        // The waits' sample (issue 25): numbered at its start, among the collectives of
        // its kind on the communicator (every member starts them in the same order, MPI
        // 4.0 §6.12), and kept when its request completes.
        let sample = if rc == mpi::success() {
            number(func, comm)
                .map(|(ch, k, stride)| Sample::kept(ch, k, stride, Sample::coll_tag(func, n)))
        } else {
            None
        };
        track(
            rc,
            request,
            mode,
            b,
            false,
            t0,
            comm,
            sample.unwrap_or_default(),
        );
    });
    rc
}

/// Follows a collective's request to its completion: a nonblocking one is active from
/// its start; a persistent one from each MPI_Start.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn track(
    rc: c_int,
    request: impl FnOnce() -> Option<u64>,
    mode: Mode,
    bytes: u64,
    persistent: bool,
    t0: u64,
    comm: MPI_Comm,
    sample: Sample,
) {
    if rc != mpi::success() {
        return;
    }
    if let Some(req) = request() {
        requests::insert(
            req,
            Info {
                mode,
                class: PeerClass::Unknown,
                persistent,
                active: !persistent,
                cancel_requested: false,
                message: false,
                bytes,
                peer_world: -1,
                start_ticks: t0,
                comm_bits: comm.bits(),
                sample,
            },
        );
    }
}

/// A persistent collective's init (MPI 4.0 §6.13, MPI_Allreduce_init, …): it moves
/// nothing, as a point-to-point init does not; its bytes count at each MPI_Start, under
/// mode `collective`, and each start is followed to the Wait or Test that completes it.
/// The request keeps its communicator and, in the tag's place, its function and the
/// communicator's size: each start is numbered for the waits' sample (issue 25) from
/// them (`persistent::restart`).
#[cfg(mpi_persistent_coll)]
#[inline(always)]
pub(crate) fn init_collective(
    func: u8,
    mode: Mode,
    comm: MPI_Comm,
    bytes: impl FnOnce() -> u64,
    request: impl FnOnce() -> Option<u64>,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let (rc, t0, t1) = timed(func, None, call);
    protect(|| {
        let b = bytes();
        let n = comm_size(comm);
        record_in(func, mode, PeerClass::Unknown, b, 0, t1.wrapping_sub(t0), n);
        let sample = Sample {
            tag: Sample::coll_tag(func, n),
            ..Sample::default()
        };
        track(rc, request, mode, b, true, t0, comm, sample);
    });
    rc
}

/// The shape of a communicator as the byte rules need it: the number of processes a
/// rank exchanges with (the remote group of an intercommunicator), its own rank, and
/// whether it is an intercommunicator.
pub(crate) struct Shape {
    pub n: i64,
    pub rank: c_int,
    pub inter: bool,
}

pub(crate) fn shape(comm: MPI_Comm) -> Shape {
    let (mut n, mut rank, mut inter) = (0, -1, 0);
    // SAFETY: each call writes one int; errors leave the defaults.
    unsafe {
        mpi::PMPI_Comm_test_inter(comm, &mut inter);
        if inter != 0 {
            mpi::PMPI_Comm_remote_size(comm, &mut n);
        } else {
            mpi::PMPI_Comm_size(comm, &mut n);
        }
        mpi::PMPI_Comm_rank(comm, &mut rank);
    }
    Shape {
        n: n.max(0) as i64,
        rank,
        inter: inter != 0,
    }
}

/// Whether this rank is the root's side: an intracommunicator's root, or MPI_ROOT in an
/// intercommunicator's root group.
fn at_root(s: &Shape, root: c_int) -> bool {
    if s.inter {
        root == mpi::root()
    } else {
        root == s.rank
    }
}

/// In an intercommunicator's root group, the processes other than the root take no part.
fn idle(s: &Shape, root: c_int) -> bool {
    s.inter && root == mpi::proc_null()
}

fn in_place(buf: *const c_void) -> bool {
    std::ptr::eq(buf, mpi::in_place())
}

fn times(count: impl Into<i64>, n: i64, dt: MPI_Datatype) -> u64 {
    msg_bytes(count.into().saturating_mul(n.max(0)), dt)
}

/// This rank's send plus receive data per collective (MPI 4.0 §6.3–6.11): the send
/// buffer unless it is MPI_IN_PLACE, and the receive buffer where it is significant at
/// this rank; v-variants summed over their counts.
pub(crate) mod bytes {
    use super::*;

    pub(crate) fn bcast(
        count: impl Into<i64>,
        dt: MPI_Datatype,
        root: c_int,
        comm: MPI_Comm,
    ) -> u64 {
        let s = shape(comm);
        if idle(&s, root) {
            return 0;
        }
        msg_bytes(count.into(), dt)
    }

    /// A rooted collective: this rank's own buffer (`own_buf`, its bytes `own`) unless it
    /// is MPI_IN_PLACE or this is an intercommunicator's root, plus, at the root, the
    /// data for or from the n processes (`at_root(n)`).
    fn rooted(
        comm: MPI_Comm,
        root: c_int,
        own_buf: *const c_void,
        own: impl FnOnce() -> u64,
        at_root_of: impl FnOnce(i64) -> u64,
    ) -> u64 {
        let s = shape(comm);
        if idle(&s, root) {
            return 0;
        }
        let root_side = at_root(&s, root);
        let mine = if in_place(own_buf) || (s.inter && root_side) {
            0
        } else {
            own()
        };
        mine + if root_side { at_root_of(s.n) } else { 0 }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn gather(
        sendbuf: *const c_void,
        scount: impl Into<i64>,
        stype: MPI_Datatype,
        rcount: impl Into<i64>,
        rtype: MPI_Datatype,
        root: c_int,
        comm: MPI_Comm,
    ) -> u64 {
        rooted(
            comm,
            root,
            sendbuf,
            || msg_bytes(scount.into(), stype),
            |n| times(rcount, n, rtype),
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn gatherv(
        sendbuf: *const c_void,
        scount: impl Into<i64>,
        stype: MPI_Datatype,
        rcounts: *const c_int,
        rtype: MPI_Datatype,
        root: c_int,
        comm: MPI_Comm,
    ) -> u64 {
        rooted(
            comm,
            root,
            sendbuf,
            || msg_bytes(scount.into(), stype),
            |n| sum(rcounts, n, rtype),
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn scatter(
        scount: impl Into<i64>,
        stype: MPI_Datatype,
        recvbuf: *const c_void,
        rcount: impl Into<i64>,
        rtype: MPI_Datatype,
        root: c_int,
        comm: MPI_Comm,
    ) -> u64 {
        rooted(
            comm,
            root,
            recvbuf,
            || msg_bytes(rcount.into(), rtype),
            |n| times(scount, n, stype),
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn scatterv(
        scounts: *const c_int,
        stype: MPI_Datatype,
        recvbuf: *const c_void,
        rcount: impl Into<i64>,
        rtype: MPI_Datatype,
        root: c_int,
        comm: MPI_Comm,
    ) -> u64 {
        rooted(
            comm,
            root,
            recvbuf,
            || msg_bytes(rcount.into(), rtype),
            |n| sum(scounts, n, stype),
        )
    }

    /// MPI_Allgather (`per_peer_send` false) and MPI_Alltoall (true: a block per peer).
    pub(crate) fn all(
        sendbuf: *const c_void,
        scount: impl Into<i64>,
        stype: MPI_Datatype,
        rcount: impl Into<i64>,
        rtype: MPI_Datatype,
        comm: MPI_Comm,
        per_peer_send: bool,
    ) -> u64 {
        let s = shape(comm);
        let send = if in_place(sendbuf) {
            0
        } else if per_peer_send {
            times(scount, s.n, stype)
        } else {
            msg_bytes(scount.into(), stype)
        };
        send + times(rcount, s.n, rtype)
    }

    pub(crate) fn allgatherv(
        sendbuf: *const c_void,
        scount: impl Into<i64>,
        stype: MPI_Datatype,
        rcounts: *const c_int,
        rtype: MPI_Datatype,
        comm: MPI_Comm,
    ) -> u64 {
        let s = shape(comm);
        let send = if in_place(sendbuf) {
            0
        } else {
            msg_bytes(scount.into(), stype)
        };
        send + sum(rcounts, s.n, rtype)
    }

    pub(crate) fn alltoallv(
        sendbuf: *const c_void,
        scounts: *const c_int,
        stype: MPI_Datatype,
        rcounts: *const c_int,
        rtype: MPI_Datatype,
        comm: MPI_Comm,
    ) -> u64 {
        let s = shape(comm);
        let send = if in_place(sendbuf) {
            0
        } else {
            sum(scounts, s.n, stype)
        };
        send + sum(rcounts, s.n, rtype)
    }

    pub(crate) fn alltoallw(
        sendbuf: *const c_void,
        scounts: *const c_int,
        stypes: impl Into<Types>,
        rcounts: *const c_int,
        rtypes: impl Into<Types>,
        comm: MPI_Comm,
    ) -> u64 {
        let s = shape(comm);
        let send = if in_place(sendbuf) {
            0
        } else {
            typed_sum(scounts, stypes.into(), s.n)
        };
        send + typed_sum(rcounts, rtypes.into(), s.n)
    }

    /// MPI_Reduce: every rank's contribution; the root also receives the result.
    pub(crate) fn reduce(
        sendbuf: *const c_void,
        count: impl Into<i64>,
        dt: MPI_Datatype,
        root: c_int,
        comm: MPI_Comm,
    ) -> u64 {
        let b = msg_bytes(count.into(), dt);
        rooted(comm, root, sendbuf, || b, |_| b)
    }

    /// MPI_Allreduce, MPI_Scan, MPI_Exscan: the contribution and the result.
    pub(crate) fn both(sendbuf: *const c_void, count: impl Into<i64>, dt: MPI_Datatype) -> u64 {
        let b = msg_bytes(count.into(), dt);
        if in_place(sendbuf) {
            b
        } else {
            2 * b
        }
    }

    pub(crate) fn reduce_scatter(
        sendbuf: *const c_void,
        rcounts: *const c_int,
        dt: MPI_Datatype,
        comm: MPI_Comm,
    ) -> u64 {
        let mut n: c_int = 0;
        // SAFETY: writes one int. The counts are per process of the (local) group.
        unsafe { mpi::PMPI_Comm_size(comm, &mut n) };
        let s = shape(comm);
        let send = if in_place(sendbuf) {
            0
        } else {
            sum(rcounts, n as i64, dt)
        };
        let mine = if rcounts.is_null() || s.rank < 0 || s.rank >= n {
            0
        } else {
            // SAFETY: rank < n entries.
            msg_bytes(unsafe { *rcounts.add(s.rank as usize) } as i64, dt)
        };
        send + mine
    }

    pub(crate) fn reduce_scatter_block(
        sendbuf: *const c_void,
        rcount: impl Into<i64>,
        dt: MPI_Datatype,
        comm: MPI_Comm,
    ) -> u64 {
        let mut n: c_int = 0;
        // SAFETY: writes one int.
        unsafe { mpi::PMPI_Comm_size(comm, &mut n) };
        let rcount: i64 = rcount.into();
        let send = if in_place(sendbuf) {
            0
        } else {
            times(rcount, n as i64, dt)
        };
        send + msg_bytes(rcount, dt)
    }
}
