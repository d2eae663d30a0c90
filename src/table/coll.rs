//! The rows of the collective functions (see `table`), after those handed in.

/// Hands the rows handed in and these on to `rma_rows!`, with the names of the Fortran
/// call and IERROR handed in (a Fortran column here writes `$call`).
macro_rules! coll_rows {
    ($consumer:ident, [$call:ident, $ierr:ident], [$($before:tt)*]) => {
        rma_rows! { $consumer, [$call, $ierr], [
            $($before)*

            // Collectives, MPI 4.0 §6: blocking (§6.3–6.11), then nonblocking (§6.12), each
            // recorded with this rank's send and receive data (`record::hooks::coll`).
            MPI_Barrier { role: Initiates, mode: Collective, entry: guarded,
                c: (comm: MPI_Comm)
                    => collective(comm, || 0, || PMPI_Barrier(comm)),
                fortran: barrier plain (comm_)
                    => collective(comm(comm_), || 0, $call),
            }
            MPI_Bcast { role: Initiates, mode: Collective, entry: guarded,
                c: (buffer: *mut c_void, count: c_int, datatype: MPI_Datatype, root: c_int, comm: MPI_Comm)
                    => collective(comm, || bytes::bcast(count, datatype, root, comm), || PMPI_Bcast(buffer, count, datatype, root, comm)),
                fortran: bcast ts (buffer, count, datatype, root, comm_)
                    => collective(comm(comm_), || bytes::bcast(int(count), dt(datatype), int(root), comm(comm_)), $call),
            }
            MPI_Gather { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm)
                    => collective(comm, || bytes::gather(sendbuf, sendcount, sendtype, recvcount, recvtype, root, comm), || PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)),
                fortran: gather ts (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm_)
                    => collective(comm(comm_), || bytes::gather(f_buf(sendbuf), int(sendcount), dt(sendtype), int(recvcount), dt(recvtype), int(root), comm(comm_)), $call),
            }
            MPI_Gatherv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm)
                    => collective(comm, || bytes::gatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, root, comm), || PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm)),
                fortran: gatherv ts (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm_)
                    => collective(comm(comm_), || bytes::gatherv(f_buf(sendbuf), int(sendcount), dt(sendtype), fp(recvcounts), dt(recvtype), int(root), comm(comm_)), $call),
            }
            MPI_Scatter { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm)
                    => collective(comm, || bytes::scatter(sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), || PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)),
                fortran: scatter ts (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm_)
                    => collective(comm(comm_), || bytes::scatter(int(sendcount), dt(sendtype), f_buf(recvbuf), int(recvcount), dt(recvtype), int(root), comm(comm_)), $call),
            }
            MPI_Scatterv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, displs: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm)
                    => collective(comm, || bytes::scatterv(sendcounts, sendtype, recvbuf, recvcount, recvtype, root, comm), || PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm)),
                fortran: scatterv ts (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm_)
                    => collective(comm(comm_), || bytes::scatterv(fp(sendcounts), dt(sendtype), f_buf(recvbuf), int(recvcount), dt(recvtype), int(root), comm(comm_)), $call),
            }
            MPI_Allgather { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm)
                    => collective(comm, || bytes::all(sendbuf, sendcount, sendtype, recvcount, recvtype, comm, false), || PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)),
                fortran: allgather ts (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm_)
                    => collective(comm(comm_), || bytes::all(f_buf(sendbuf), int(sendcount), dt(sendtype), int(recvcount), dt(recvtype), comm(comm_), false), $call),
            }
            MPI_Allgatherv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm)
                    => collective(comm, || bytes::allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm), || PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm)),
                fortran: allgatherv ts (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm_)
                    => collective(comm(comm_), || bytes::allgatherv(f_buf(sendbuf), int(sendcount), dt(sendtype), fp(recvcounts), dt(recvtype), comm(comm_)), $call),
            }
            MPI_Alltoall { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm)
                    => collective(comm, || bytes::all(sendbuf, sendcount, sendtype, recvcount, recvtype, comm, true), || PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)),
                fortran: alltoall ts (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm_)
                    => collective(comm(comm_), || bytes::all(f_buf(sendbuf), int(sendcount), dt(sendtype), int(recvcount), dt(recvtype), comm(comm_), true), $call),
            }
            MPI_Alltoallv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm)
                    => collective(comm, || bytes::alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm), || PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm)),
                fortran: alltoallv ts (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm_)
                    => collective(comm(comm_), || bytes::alltoallv(f_buf(sendbuf), fp(sendcounts), dt(sendtype), fp(recvcounts), dt(recvtype), comm(comm_)), $call),
            }
            MPI_Alltoallw { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtypes: *const MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtypes: *const MPI_Datatype, comm: MPI_Comm)
                    => collective(comm, || bytes::alltoallw(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes, comm), || PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm)),
                fortran: alltoallw ts (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm_)
                    => collective(comm(comm_), || bytes::alltoallw(f_buf(sendbuf), fp(sendcounts), Types::F(fp(sendtypes)), fp(recvcounts), Types::F(fp(recvtypes)), comm(comm_)), $call),
            }
            MPI_Reduce { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, root: c_int, comm: MPI_Comm)
                    => reduction(comm, || bytes::reduce(sendbuf, count, datatype, root, comm), || bytes::op(op, datatype), || PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm)),
                fortran: reduce ts (sendbuf, recvbuf, count, datatype, op, root, comm_)
                    => reduction(comm(comm_), || bytes::reduce(f_buf(sendbuf), int(count), dt(datatype), int(root), comm(comm_)), || bytes::op(f_op(op), dt(datatype)), $call),
            }
            MPI_Allreduce { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm)
                    => reduction(comm, || bytes::both(sendbuf, count, datatype), || bytes::op(op, datatype), || PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm)),
                fortran: allreduce ts (sendbuf, recvbuf, count, datatype, op, comm_)
                    => reduction(comm(comm_), || bytes::both(f_buf(sendbuf), int(count), dt(datatype)), || bytes::op(f_op(op), dt(datatype)), $call),
            }
            MPI_Reduce_scatter { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm)
                    => collective(comm, || bytes::reduce_scatter(sendbuf, recvcounts, datatype, comm), || PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm)),
                fortran: reduce_scatter ts (sendbuf, recvbuf, recvcounts, datatype, op, comm_)
                    => collective(comm(comm_), || bytes::reduce_scatter(f_buf(sendbuf), fp(recvcounts), dt(datatype), comm(comm_)), $call),
            }
            MPI_Reduce_scatter_block { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm)
                    => collective(comm, || bytes::reduce_scatter_block(sendbuf, recvcount, datatype, comm), || PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm)),
                fortran: reduce_scatter_block ts (sendbuf, recvbuf, recvcount, datatype, op, comm_)
                    => collective(comm(comm_), || bytes::reduce_scatter_block(f_buf(sendbuf), int(recvcount), dt(datatype), comm(comm_)), $call),
            }
            MPI_Scan { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm)
                    => collective(comm, || bytes::both(sendbuf, count, datatype), || PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm)),
                fortran: scan ts (sendbuf, recvbuf, count, datatype, op, comm_)
                    => collective(comm(comm_), || bytes::both(f_buf(sendbuf), int(count), dt(datatype)), $call),
            }
            MPI_Exscan { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm)
                    => collective(comm, || bytes::both(sendbuf, count, datatype), || PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm)),
                fortran: exscan ts (sendbuf, recvbuf, count, datatype, op, comm_)
                    => collective(comm(comm_), || bytes::both(f_buf(sendbuf), int(count), dt(datatype)), $call),
            }

            MPI_Ibarrier { role: Initiates, mode: Collective, entry: guarded,
                c: (comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || 0, c_req_out(request), || PMPI_Ibarrier(comm, request)),
                fortran: ibarrier plain (comm_, request)
                    => icollective(comm(comm_), || 0, f_req_out(fp(request)), $call),
            }
            MPI_Ibcast { role: Initiates, mode: Collective, entry: guarded,
                c: (buffer: *mut c_void, count: c_int, datatype: MPI_Datatype, root: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || bytes::bcast(count, datatype, root, comm), c_req_out(request), || PMPI_Ibcast(buffer, count, datatype, root, comm, request)),
                fortran: ibcast ts (buffer, count, datatype, root, comm_, request)
                    => icollective(comm(comm_), || bytes::bcast(int(count), dt(datatype), int(root), comm(comm_)), f_req_out(fp(request)), $call),
            }
            MPI_Igather { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || bytes::gather(sendbuf, sendcount, sendtype, recvcount, recvtype, root, comm), c_req_out(request), || PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request)),
                fortran: igather ts (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm_, request)
                    => icollective(comm(comm_), || bytes::gather(f_buf(sendbuf), int(sendcount), dt(sendtype), int(recvcount), dt(recvtype), int(root), comm(comm_)), f_req_out(fp(request)), $call),
            }
            MPI_Igatherv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || bytes::gatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, root, comm), c_req_out(request), || PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request)),
                fortran: igatherv ts (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm_, request)
                    => icollective(comm(comm_), || bytes::gatherv(f_buf(sendbuf), int(sendcount), dt(sendtype), fp(recvcounts), dt(recvtype), int(root), comm(comm_)), f_req_out(fp(request)), $call),
            }
            MPI_Iscatter { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || bytes::scatter(sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), c_req_out(request), || PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request)),
                fortran: iscatter ts (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm_, request)
                    => icollective(comm(comm_), || bytes::scatter(int(sendcount), dt(sendtype), f_buf(recvbuf), int(recvcount), dt(recvtype), int(root), comm(comm_)), f_req_out(fp(request)), $call),
            }
            MPI_Iscatterv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, displs: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || bytes::scatterv(sendcounts, sendtype, recvbuf, recvcount, recvtype, root, comm), c_req_out(request), || PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request)),
                fortran: iscatterv ts (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm_, request)
                    => icollective(comm(comm_), || bytes::scatterv(fp(sendcounts), dt(sendtype), f_buf(recvbuf), int(recvcount), dt(recvtype), int(root), comm(comm_)), f_req_out(fp(request)), $call),
            }
            MPI_Iallgather { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || bytes::all(sendbuf, sendcount, sendtype, recvcount, recvtype, comm, false), c_req_out(request), || PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request)),
                fortran: iallgather ts (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm_, request)
                    => icollective(comm(comm_), || bytes::all(f_buf(sendbuf), int(sendcount), dt(sendtype), int(recvcount), dt(recvtype), comm(comm_), false), f_req_out(fp(request)), $call),
            }
            MPI_Iallgatherv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || bytes::allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm), c_req_out(request), || PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request)),
                fortran: iallgatherv ts (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm_, request)
                    => icollective(comm(comm_), || bytes::allgatherv(f_buf(sendbuf), int(sendcount), dt(sendtype), fp(recvcounts), dt(recvtype), comm(comm_)), f_req_out(fp(request)), $call),
            }
            MPI_Ialltoall { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || bytes::all(sendbuf, sendcount, sendtype, recvcount, recvtype, comm, true), c_req_out(request), || PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request)),
                fortran: ialltoall ts (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm_, request)
                    => icollective(comm(comm_), || bytes::all(f_buf(sendbuf), int(sendcount), dt(sendtype), int(recvcount), dt(recvtype), comm(comm_), true), f_req_out(fp(request)), $call),
            }
            MPI_Ialltoallv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || bytes::alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm), c_req_out(request), || PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request)),
                fortran: ialltoallv ts (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm_, request)
                    => icollective(comm(comm_), || bytes::alltoallv(f_buf(sendbuf), fp(sendcounts), dt(sendtype), fp(recvcounts), dt(recvtype), comm(comm_)), f_req_out(fp(request)), $call),
            }
            MPI_Ialltoallw { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtypes: *const MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtypes: *const MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || bytes::alltoallw(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes, comm), c_req_out(request), || PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request)),
                fortran: ialltoallw ts (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm_, request)
                    => icollective(comm(comm_), || bytes::alltoallw(f_buf(sendbuf), fp(sendcounts), Types::F(fp(sendtypes)), fp(recvcounts), Types::F(fp(recvtypes)), comm(comm_)), f_req_out(fp(request)), $call),
            }
            MPI_Ireduce { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, root: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || bytes::reduce(sendbuf, count, datatype, root, comm), c_req_out(request), || PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request)),
                fortran: ireduce ts (sendbuf, recvbuf, count, datatype, op, root, comm_, request)
                    => icollective(comm(comm_), || bytes::reduce(f_buf(sendbuf), int(count), dt(datatype), int(root), comm(comm_)), f_req_out(fp(request)), $call),
            }
            MPI_Iallreduce { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || bytes::both(sendbuf, count, datatype), c_req_out(request), || PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request)),
                fortran: iallreduce ts (sendbuf, recvbuf, count, datatype, op, comm_, request)
                    => icollective(comm(comm_), || bytes::both(f_buf(sendbuf), int(count), dt(datatype)), f_req_out(fp(request)), $call),
            }
            MPI_Ireduce_scatter { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || bytes::reduce_scatter(sendbuf, recvcounts, datatype, comm), c_req_out(request), || PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request)),
                fortran: ireduce_scatter ts (sendbuf, recvbuf, recvcounts, datatype, op, comm_, request)
                    => icollective(comm(comm_), || bytes::reduce_scatter(f_buf(sendbuf), fp(recvcounts), dt(datatype), comm(comm_)), f_req_out(fp(request)), $call),
            }
            MPI_Ireduce_scatter_block { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || bytes::reduce_scatter_block(sendbuf, recvcount, datatype, comm), c_req_out(request), || PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request)),
                fortran: ireduce_scatter_block ts (sendbuf, recvbuf, recvcount, datatype, op, comm_, request)
                    => icollective(comm(comm_), || bytes::reduce_scatter_block(f_buf(sendbuf), int(recvcount), dt(datatype), comm(comm_)), f_req_out(fp(request)), $call),
            }
            MPI_Iscan { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || bytes::both(sendbuf, count, datatype), c_req_out(request), || PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, request)),
                fortran: iscan ts (sendbuf, recvbuf, count, datatype, op, comm_, request)
                    => icollective(comm(comm_), || bytes::both(f_buf(sendbuf), int(count), dt(datatype)), f_req_out(fp(request)), $call),
            }
            MPI_Iexscan { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || bytes::both(sendbuf, count, datatype), c_req_out(request), || PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, request)),
                fortran: iexscan ts (sendbuf, recvbuf, count, datatype, op, comm_, request)
                    => icollective(comm(comm_), || bytes::both(f_buf(sendbuf), int(count), dt(datatype)), f_req_out(fp(request)), $call),
            }

            // Neighbourhood collectives, MPI 4.0 §8.6: bytes by the topology's degrees
            // (`record::hooks::neighbor`).
            MPI_Neighbor_allgather { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm)
                    => collective(comm, || neighbor::allgather(sendcount, sendtype, recvcount, recvtype, comm), || PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)),
                fortran: neighbor_allgather ts (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm_)
                    => collective(comm(comm_), || neighbor::allgather(int(sendcount), dt(sendtype), int(recvcount), dt(recvtype), comm(comm_)), $call),
            }
            MPI_Neighbor_allgatherv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm)
                    => collective(comm, || neighbor::allgatherv(sendcount, sendtype, recvcounts, recvtype, comm), || PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm)),
                fortran: neighbor_allgatherv ts (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm_)
                    => collective(comm(comm_), || neighbor::allgatherv(int(sendcount), dt(sendtype), fp(recvcounts), dt(recvtype), comm(comm_)), $call),
            }
            MPI_Neighbor_alltoall { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm)
                    => collective(comm, || neighbor::alltoall(sendcount, sendtype, recvcount, recvtype, comm), || PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)),
                fortran: neighbor_alltoall ts (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm_)
                    => collective(comm(comm_), || neighbor::alltoall(int(sendcount), dt(sendtype), int(recvcount), dt(recvtype), comm(comm_)), $call),
            }
            MPI_Neighbor_alltoallv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm)
                    => collective(comm, || neighbor::alltoallv(sendcounts, sendtype, recvcounts, recvtype, comm), || PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm)),
                fortran: neighbor_alltoallv ts (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm_)
                    => collective(comm(comm_), || neighbor::alltoallv(fp(sendcounts), dt(sendtype), fp(recvcounts), dt(recvtype), comm(comm_)), $call),
            }
            MPI_Neighbor_alltoallw { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const MPI_Aint, sendtypes: *const MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const MPI_Aint, recvtypes: *const MPI_Datatype, comm: MPI_Comm)
                    => collective(comm, || neighbor::alltoallw(sendcounts, sendtypes, recvcounts, recvtypes, comm), || PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm)),
                fortran: neighbor_alltoallw ts (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm_)
                    => collective(comm(comm_), || neighbor::alltoallw(fp(sendcounts), Types::F(fp(sendtypes)), fp(recvcounts), Types::F(fp(recvtypes)), comm(comm_)), $call),
            }
            MPI_Ineighbor_allgather { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || neighbor::allgather(sendcount, sendtype, recvcount, recvtype, comm), c_req_out(request), || PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request)),
                fortran: ineighbor_allgather ts (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm_, request)
                    => icollective(comm(comm_), || neighbor::allgather(int(sendcount), dt(sendtype), int(recvcount), dt(recvtype), comm(comm_)), f_req_out(fp(request)), $call),
            }
            MPI_Ineighbor_allgatherv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || neighbor::allgatherv(sendcount, sendtype, recvcounts, recvtype, comm), c_req_out(request), || PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request)),
                fortran: ineighbor_allgatherv ts (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm_, request)
                    => icollective(comm(comm_), || neighbor::allgatherv(int(sendcount), dt(sendtype), fp(recvcounts), dt(recvtype), comm(comm_)), f_req_out(fp(request)), $call),
            }
            MPI_Ineighbor_alltoall { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || neighbor::alltoall(sendcount, sendtype, recvcount, recvtype, comm), c_req_out(request), || PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request)),
                fortran: ineighbor_alltoall ts (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm_, request)
                    => icollective(comm(comm_), || neighbor::alltoall(int(sendcount), dt(sendtype), int(recvcount), dt(recvtype), comm(comm_)), f_req_out(fp(request)), $call),
            }
            MPI_Ineighbor_alltoallv { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || neighbor::alltoallv(sendcounts, sendtype, recvcounts, recvtype, comm), c_req_out(request), || PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request)),
                fortran: ineighbor_alltoallv ts (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm_, request)
                    => icollective(comm(comm_), || neighbor::alltoallv(fp(sendcounts), dt(sendtype), fp(recvcounts), dt(recvtype), comm(comm_)), f_req_out(fp(request)), $call),
            }
            MPI_Ineighbor_alltoallw { role: Initiates, mode: Collective, entry: guarded,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const MPI_Aint, sendtypes: *const MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const MPI_Aint, recvtypes: *const MPI_Datatype, comm: MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || neighbor::alltoallw(sendcounts, sendtypes, recvcounts, recvtypes, comm), c_req_out(request), || PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request)),
                fortran: ineighbor_alltoallw ts (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm_, request)
                    => icollective(comm(comm_), || neighbor::alltoallw(fp(sendcounts), Types::F(fp(sendtypes)), fp(recvcounts), Types::F(fp(recvtypes)), comm(comm_)), f_req_out(fp(request)), $call),
            }

            // Persistent collectives, MPI 4.0 §6.13 (where mpi.h declares them): the init
            // moves nothing; MPI_Start counts the bytes under mode `collective`.
            MPI_Barrier_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || 0, c_req_out(request), || PMPI_Barrier_init(comm, info, request)),
            }
            MPI_Bcast_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (buffer: *mut c_void, count: c_int, datatype: MPI_Datatype, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || bytes::bcast(count, datatype, root, comm), c_req_out(request), || PMPI_Bcast_init(buffer, count, datatype, root, comm, info, request)),
            }
            MPI_Gather_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || bytes::gather(sendbuf, sendcount, sendtype, recvcount, recvtype, root, comm), c_req_out(request), || PMPI_Gather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request)),
            }
            MPI_Gatherv_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || bytes::gatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, root, comm), c_req_out(request), || PMPI_Gatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, info, request)),
            }
            MPI_Scatter_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || bytes::scatter(sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), c_req_out(request), || PMPI_Scatter_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request)),
            }
            MPI_Scatterv_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, displs: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || bytes::scatterv(sendcounts, sendtype, recvbuf, recvcount, recvtype, root, comm), c_req_out(request), || PMPI_Scatterv_init(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request)),
            }
            MPI_Allgather_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || bytes::all(sendbuf, sendcount, sendtype, recvcount, recvtype, comm, false), c_req_out(request), || PMPI_Allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request)),
            }
            MPI_Allgatherv_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || bytes::allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm), c_req_out(request), || PMPI_Allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info, request)),
            }
            MPI_Alltoall_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || bytes::all(sendbuf, sendcount, sendtype, recvcount, recvtype, comm, true), c_req_out(request), || PMPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request)),
            }
            MPI_Alltoallv_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || bytes::alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm), c_req_out(request), || PMPI_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, info, request)),
            }
            MPI_Alltoallw_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtypes: *const MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtypes: *const MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || bytes::alltoallw(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes, comm), c_req_out(request), || PMPI_Alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, info, request)),
            }
            MPI_Reduce_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || bytes::reduce(sendbuf, count, datatype, root, comm), c_req_out(request), || PMPI_Reduce_init(sendbuf, recvbuf, count, datatype, op, root, comm, info, request)),
            }
            MPI_Allreduce_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || bytes::both(sendbuf, count, datatype), c_req_out(request), || PMPI_Allreduce_init(sendbuf, recvbuf, count, datatype, op, comm, info, request)),
            }
            MPI_Reduce_scatter_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || bytes::reduce_scatter(sendbuf, recvcounts, datatype, comm), c_req_out(request), || PMPI_Reduce_scatter_init(sendbuf, recvbuf, recvcounts, datatype, op, comm, info, request)),
            }
            MPI_Reduce_scatter_block_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || bytes::reduce_scatter_block(sendbuf, recvcount, datatype, comm), c_req_out(request), || PMPI_Reduce_scatter_block_init(sendbuf, recvbuf, recvcount, datatype, op, comm, info, request)),
            }
            MPI_Scan_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || bytes::both(sendbuf, count, datatype), c_req_out(request), || PMPI_Scan_init(sendbuf, recvbuf, count, datatype, op, comm, info, request)),
            }
            MPI_Exscan_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || bytes::both(sendbuf, count, datatype), c_req_out(request), || PMPI_Exscan_init(sendbuf, recvbuf, count, datatype, op, comm, info, request)),
            }
            MPI_Neighbor_allgather_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || neighbor::allgather(sendcount, sendtype, recvcount, recvtype, comm), c_req_out(request), || PMPI_Neighbor_allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request)),
            }
            MPI_Neighbor_allgatherv_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || neighbor::allgatherv(sendcount, sendtype, recvcounts, recvtype, comm), c_req_out(request), || PMPI_Neighbor_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info, request)),
            }
            MPI_Neighbor_alltoall_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || neighbor::alltoall(sendcount, sendtype, recvcount, recvtype, comm), c_req_out(request), || PMPI_Neighbor_alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request)),
            }
            MPI_Neighbor_alltoallv_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || neighbor::alltoallv(sendcounts, sendtype, recvcounts, recvtype, comm), c_req_out(request), || PMPI_Neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, info, request)),
            }
            MPI_Neighbor_alltoallw_init { role: Other, mode: Collective, entry: guarded, cfg: mpi_persistent_coll,
                c: (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const MPI_Aint, sendtypes: *const MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const MPI_Aint, recvtypes: *const MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request)
                    => init_collective(comm, || neighbor::alltoallw(sendcounts, sendtypes, recvcounts, recvtypes, comm), c_req_out(request), || PMPI_Neighbor_alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, info, request)),
            }
        ] }
    };
}
