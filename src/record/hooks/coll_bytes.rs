//! This rank's send plus receive data per collective (MPI 4.0 §6.3–6.11): the send
//! buffer unless it is MPI_IN_PLACE, and the receive buffer where it is significant at
//! this rank; v-variants summed over their counts.
use super::*;

pub(crate) fn bcast(count: impl Into<i64>, dt: MPI_Datatype, root: c_int, comm: MPI_Comm) -> u64 {
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

/// A reduction's operation and element size (`samples::op_meta`).
pub(crate) fn op(op: mpi::MPI_Op, dt: MPI_Datatype) -> u8 {
    // SAFETY: a handle the application passed to the call that just succeeded.
    let kind = unsafe { mpi::loggp_op_kind(op) }.clamp(0, 3) as u8;
    samples::op_meta(kind, msg_bytes(1, dt))
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
