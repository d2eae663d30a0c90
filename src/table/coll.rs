//! The rows of the collective functions (see `table`), after those handed in.

/// Expands `$consumer! { [call, ierr] <rows handed in> <these rows> }`, with the names of
/// the Fortran call and IERROR handed in (a Fortran column here writes `$call`).
macro_rules! coll_rows {
    ($consumer:ident, [$call:ident, $ierr:ident], [$($before:tt)*]) => {
        $consumer! {
            [$call, $ierr]
            $($before)*

            // Collectives, MPI 4.0 §6: blocking (§6.3–6.11), then nonblocking (§6.12), each
            // recorded with this rank's send and receive data (`record::hooks::coll`).
            MPI_Barrier { role: Initiates, mode: Collective, entry: guarded,
                c: (comm: MPI_Comm)
                    => collective(|| 0, || PMPI_Barrier(comm)),
            }
            MPI_Bcast { role: Initiates, mode: Collective, entry: guarded,
                c: (buffer: *mut c_void, count: c_int, datatype: MPI_Datatype, root: c_int, comm: MPI_Comm)
                    => collective(|| bytes::bcast(count, datatype, root, comm), || PMPI_Bcast(buffer, count, datatype, root, comm)),
            }
            MPI_Gather { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm)
                    => collective(|| bytes::gather(sendbuf, sendcount, sendtype, recvcount, recvtype, root, comm), || PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)),
            }
            MPI_Gatherv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm)
                    => collective(|| bytes::gatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, root, comm), || PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm)),
            }
            MPI_Scatter { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm)
                    => collective(|| bytes::scatter(sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), || PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)),
            }
            MPI_Scatterv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, displs: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm)
                    => collective(|| bytes::scatterv(sendcounts, sendtype, recvbuf, recvcount, recvtype, root, comm), || PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm)),
            }
            MPI_Allgather { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm)
                    => collective(|| bytes::all(sendbuf, sendcount, sendtype, recvcount, recvtype, comm, false), || PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)),
            }
            MPI_Allgatherv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm)
                    => collective(|| bytes::allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm), || PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm)),
            }
            MPI_Alltoall { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm)
                    => collective(|| bytes::all(sendbuf, sendcount, sendtype, recvcount, recvtype, comm, true), || PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)),
            }
            MPI_Alltoallv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm)
                    => collective(|| bytes::alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm), || PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm)),
            }
            MPI_Alltoallw { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtypes: *const MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtypes: *const MPI_Datatype, comm: MPI_Comm)
                    => collective(|| bytes::alltoallw(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes, comm), || PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm)),
            }
            MPI_Reduce { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, root: c_int, comm: MPI_Comm)
                    => collective(|| bytes::reduce(sendbuf, count, datatype, root, comm), || PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm)),
            }
            MPI_Allreduce { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm)
                    => collective(|| bytes::both(sendbuf, count, datatype), || PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm)),
            }
            MPI_Reduce_scatter { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm)
                    => collective(|| bytes::reduce_scatter(sendbuf, recvcounts, datatype, comm), || PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm)),
            }
            MPI_Reduce_scatter_block { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm)
                    => collective(|| bytes::reduce_scatter_block(sendbuf, recvcount, datatype, comm), || PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm)),
            }
            MPI_Scan { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm)
                    => collective(|| bytes::both(sendbuf, count, datatype), || PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm)),
            }
            MPI_Exscan { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm)
                    => collective(|| bytes::both(sendbuf, count, datatype), || PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm)),
            }

            MPI_Ibarrier { role: Initiates, mode: Collective, entry: guarded,
                c: (comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| 0, c_req_out(request), || PMPI_Ibarrier(comm, request)),
            }
            MPI_Ibcast { role: Initiates, mode: Collective, entry: guarded,
                c: (buffer: *mut c_void, count: c_int, datatype: MPI_Datatype, root: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| bytes::bcast(count, datatype, root, comm), c_req_out(request), || PMPI_Ibcast(buffer, count, datatype, root, comm, request)),
            }
            MPI_Igather { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| bytes::gather(sendbuf, sendcount, sendtype, recvcount, recvtype, root, comm), c_req_out(request), || PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request)),
            }
            MPI_Igatherv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| bytes::gatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, root, comm), c_req_out(request), || PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request)),
            }
            MPI_Iscatter { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| bytes::scatter(sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), c_req_out(request), || PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request)),
            }
            MPI_Iscatterv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, displs: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| bytes::scatterv(sendcounts, sendtype, recvbuf, recvcount, recvtype, root, comm), c_req_out(request), || PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request)),
            }
            MPI_Iallgather { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| bytes::all(sendbuf, sendcount, sendtype, recvcount, recvtype, comm, false), c_req_out(request), || PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request)),
            }
            MPI_Iallgatherv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| bytes::allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm), c_req_out(request), || PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request)),
            }
            MPI_Ialltoall { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| bytes::all(sendbuf, sendcount, sendtype, recvcount, recvtype, comm, true), c_req_out(request), || PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request)),
            }
            MPI_Ialltoallv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| bytes::alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm), c_req_out(request), || PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request)),
            }
            MPI_Ialltoallw { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtypes: *const MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtypes: *const MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| bytes::alltoallw(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes, comm), c_req_out(request), || PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request)),
            }
            MPI_Ireduce { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, root: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| bytes::reduce(sendbuf, count, datatype, root, comm), c_req_out(request), || PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request)),
            }
            MPI_Iallreduce { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| bytes::both(sendbuf, count, datatype), c_req_out(request), || PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request)),
            }
            MPI_Ireduce_scatter { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| bytes::reduce_scatter(sendbuf, recvcounts, datatype, comm), c_req_out(request), || PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request)),
            }
            MPI_Ireduce_scatter_block { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| bytes::reduce_scatter_block(sendbuf, recvcount, datatype, comm), c_req_out(request), || PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request)),
            }
            MPI_Iscan { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| bytes::both(sendbuf, count, datatype), c_req_out(request), || PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, request)),
            }
            MPI_Iexscan { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| bytes::both(sendbuf, count, datatype), c_req_out(request), || PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, request)),
            }

            // Neighbourhood collectives, MPI 4.0 §8.6: bytes by the topology's degrees
            // (`record::hooks::neighbor`).
            MPI_Neighbor_allgather { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm)
                    => collective(|| neighbor::allgather(sendcount, sendtype, recvcount, recvtype, comm), || PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)),
            }
            MPI_Neighbor_allgatherv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm)
                    => collective(|| neighbor::allgatherv(sendcount, sendtype, recvcounts, recvtype, comm), || PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm)),
            }
            MPI_Neighbor_alltoall { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm)
                    => collective(|| neighbor::alltoall(sendcount, sendtype, recvcount, recvtype, comm), || PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)),
            }
            MPI_Neighbor_alltoallv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm)
                    => collective(|| neighbor::alltoallv(sendcounts, sendtype, recvcounts, recvtype, comm), || PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm)),
            }
            MPI_Neighbor_alltoallw { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const MPI_Aint, sendtypes: *const MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const MPI_Aint, recvtypes: *const MPI_Datatype, comm: MPI_Comm)
                    => collective(|| neighbor::alltoallw(sendcounts, sendtypes, recvcounts, recvtypes, comm), || PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm)),
            }
            MPI_Ineighbor_allgather { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| neighbor::allgather(sendcount, sendtype, recvcount, recvtype, comm), c_req_out(request), || PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request)),
            }
            MPI_Ineighbor_allgatherv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| neighbor::allgatherv(sendcount, sendtype, recvcounts, recvtype, comm), c_req_out(request), || PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request)),
            }
            MPI_Ineighbor_alltoall { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| neighbor::alltoall(sendcount, sendtype, recvcount, recvtype, comm), c_req_out(request), || PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request)),
            }
            MPI_Ineighbor_alltoallv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| neighbor::alltoallv(sendcounts, sendtype, recvcounts, recvtype, comm), c_req_out(request), || PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request)),
            }
            MPI_Ineighbor_alltoallw { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const MPI_Aint, sendtypes: *const MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const MPI_Aint, recvtypes: *const MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(|| neighbor::alltoallw(sendcounts, sendtypes, recvcounts, recvtypes, comm), c_req_out(request), || PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request)),
            }

            // Persistent collectives, MPI 4.0 §6.13 (where mpi.h declares them): the init
            // moves nothing; MPI_Start counts the bytes under mode `collective`.
            MPI_Barrier_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| 0, c_req_out(request), || PMPI_Barrier_init(comm, info, request)),
            }
            MPI_Bcast_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (buffer: *mut c_void, count: c_int, datatype: MPI_Datatype, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| bytes::bcast(count, datatype, root, comm), c_req_out(request), || PMPI_Bcast_init(buffer, count, datatype, root, comm, info, request)),
            }
            MPI_Gather_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| bytes::gather(sendbuf, sendcount, sendtype, recvcount, recvtype, root, comm), c_req_out(request), || PMPI_Gather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request)),
            }
            MPI_Gatherv_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| bytes::gatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, root, comm), c_req_out(request), || PMPI_Gatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, info, request)),
            }
            MPI_Scatter_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| bytes::scatter(sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), c_req_out(request), || PMPI_Scatter_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request)),
            }
            MPI_Scatterv_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, displs: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| bytes::scatterv(sendcounts, sendtype, recvbuf, recvcount, recvtype, root, comm), c_req_out(request), || PMPI_Scatterv_init(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request)),
            }
            MPI_Allgather_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| bytes::all(sendbuf, sendcount, sendtype, recvcount, recvtype, comm, false), c_req_out(request), || PMPI_Allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request)),
            }
            MPI_Allgatherv_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| bytes::allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm), c_req_out(request), || PMPI_Allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info, request)),
            }
            MPI_Alltoall_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| bytes::all(sendbuf, sendcount, sendtype, recvcount, recvtype, comm, true), c_req_out(request), || PMPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request)),
            }
            MPI_Alltoallv_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| bytes::alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm), c_req_out(request), || PMPI_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, info, request)),
            }
            MPI_Alltoallw_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtypes: *const MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtypes: *const MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| bytes::alltoallw(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes, comm), c_req_out(request), || PMPI_Alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, info, request)),
            }
            MPI_Reduce_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| bytes::reduce(sendbuf, count, datatype, root, comm), c_req_out(request), || PMPI_Reduce_init(sendbuf, recvbuf, count, datatype, op, root, comm, info, request)),
            }
            MPI_Allreduce_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| bytes::both(sendbuf, count, datatype), c_req_out(request), || PMPI_Allreduce_init(sendbuf, recvbuf, count, datatype, op, comm, info, request)),
            }
            MPI_Reduce_scatter_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| bytes::reduce_scatter(sendbuf, recvcounts, datatype, comm), c_req_out(request), || PMPI_Reduce_scatter_init(sendbuf, recvbuf, recvcounts, datatype, op, comm, info, request)),
            }
            MPI_Reduce_scatter_block_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| bytes::reduce_scatter_block(sendbuf, recvcount, datatype, comm), c_req_out(request), || PMPI_Reduce_scatter_block_init(sendbuf, recvbuf, recvcount, datatype, op, comm, info, request)),
            }
            MPI_Scan_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| bytes::both(sendbuf, count, datatype), c_req_out(request), || PMPI_Scan_init(sendbuf, recvbuf, count, datatype, op, comm, info, request)),
            }
            MPI_Exscan_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(|| bytes::both(sendbuf, count, datatype), c_req_out(request), || PMPI_Exscan_init(sendbuf, recvbuf, count, datatype, op, comm, info, request)),
            }
        }
    };
}
