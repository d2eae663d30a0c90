//! This rank's send and receive data in the neighbourhood collectives (MPI 4.0 §8.6),
//! recorded like the other collectives (`coll::collective`, `coll::icollective`): the
//! buffers hold one block per neighbour of the communicator's virtual topology, so the
//! bytes follow its in- and out-degree (a Cartesian topology of d dimensions: 2d each,
//! a graph: the rank's neighbours, a distributed graph: its sources and destinations).
//! MPI_Neighbor_allgather(v) sends one block, to every out-neighbour.
use super::coll::named;
use super::common::{msg_bytes, sum, typed_sum, Types};
use crate::base::mpi::{MPI_Comm, MPI_Datatype};
use crate::record::neighbours;
use std::os::raw::c_int;

/// (in-degree, out-degree) of this rank in `comm`'s topology; (0, 0) without one.
#[inline]
fn degrees(comm: MPI_Comm) -> (i64, i64) {
    let t = neighbours::topology(comm, || named(comm));
    (t.in_degree, t.out_degree)
}

pub(crate) fn allgather(
    scount: c_int,
    stype: MPI_Datatype,
    rcount: c_int,
    rtype: MPI_Datatype,
    comm: MPI_Comm,
) -> u64 {
    let (indeg, _) = degrees(comm);
    msg_bytes(scount as i64, stype) + msg_bytes(rcount as i64 * indeg, rtype)
}

pub(crate) fn allgatherv(
    scount: c_int,
    stype: MPI_Datatype,
    rcounts: *const c_int,
    rtype: MPI_Datatype,
    comm: MPI_Comm,
) -> u64 {
    let (indeg, _) = degrees(comm);
    msg_bytes(scount as i64, stype) + sum(rcounts, indeg, rtype)
}

pub(crate) fn alltoall(
    scount: c_int,
    stype: MPI_Datatype,
    rcount: c_int,
    rtype: MPI_Datatype,
    comm: MPI_Comm,
) -> u64 {
    let (indeg, outdeg) = degrees(comm);
    msg_bytes(scount as i64 * outdeg, stype) + msg_bytes(rcount as i64 * indeg, rtype)
}

pub(crate) fn alltoallv(
    scounts: *const c_int,
    stype: MPI_Datatype,
    rcounts: *const c_int,
    rtype: MPI_Datatype,
    comm: MPI_Comm,
) -> u64 {
    let (indeg, outdeg) = degrees(comm);
    sum(scounts, outdeg, stype) + sum(rcounts, indeg, rtype)
}

pub(crate) fn alltoallw(
    scounts: *const c_int,
    stypes: impl Into<Types>,
    rcounts: *const c_int,
    rtypes: impl Into<Types>,
    comm: MPI_Comm,
) -> u64 {
    let (indeg, outdeg) = degrees(comm);
    typed_sum(scounts, stypes.into(), outdeg) + typed_sum(rcounts, rtypes.into(), indeg)
}
