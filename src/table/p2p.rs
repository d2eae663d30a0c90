//! The rows of the lifecycle and point-to-point functions (see `table`).

/// Hands these rows on: `$then! { $consumer, [call, ierr], [rows…] }`. The names of the
/// Fortran routine's call and IERROR are made here, with these rows, so that a consumer's
/// binding of them reaches every row (macro hygiene).
macro_rules! p2p_rows {
    ($then:ident, $consumer:ident) => {
        $then! { $consumer, [call, ierr], [

            // Initialization and termination, MPI 4.0 §11.2 and §9.5.
            MPI_Init { role: Other, mode: None, entry: lifecycle,
                c: (argc: *mut c_int, argv: *mut *mut *mut c_char)
                    => on_init(|| PMPI_Init(argc, argv), mpi::thread_single),
                fortran: init plain () => on_init(call, mpi::thread_single),
            }
            MPI_Init_thread { role: Other, mode: None, entry: lifecycle,
                c: (argc: *mut c_int, argv: *mut *mut *mut c_char, required: c_int, provided: *mut c_int)
                    => on_init(|| PMPI_Init_thread(argc, argv, required, provided),
                               || if provided.is_null() { required } else { *provided }),
                fortran: init_thread plain (required, provided) => on_init(call, || int(provided)),
            }
            MPI_Finalize { role: Other, mode: None, entry: lifecycle,
                c: () => on_finalize(|| PMPI_Finalize()),
                fortran: finalize plain () => on_finalize(call),
            }
            MPI_Abort { role: Other, mode: None, entry: lifecycle,
                c: (comm: MPI_Comm, errorcode: c_int) => on_abort(|| PMPI_Abort(comm, errorcode)),
                fortran: abort plain (comm_, errorcode) => on_abort(call),
            }

            // The tool information interface's init, MPI 4.0 §15.3.4: passed on, with
            // `provided` as without us (`lifecycle::on_mpit_init`). No Fortran binding.
            MPI_T_init_thread { role: Other, mode: None, entry: lifecycle,
                c: (required: c_int, provided: *mut c_int)
                    => on_mpit_init(required, provided, || PMPI_T_init_thread(required, provided)),
            }

            // Profiling control, MPI 4.0 §15.2.4: level 0 pauses the profile, any other
            // level resumes it. Variadic in C: the arguments after `level` (profiler-
            // specific, which the MPI ignores) are not passed on. No Fortran row:
            // MPI_PCONTROL has no IERROR, which the Fortran rows assume.
            MPI_Pcontrol { role: Other, mode: None, entry: lifecycle,
                c: (level: c_int) => on_pcontrol(level, || PMPI_Pcontrol(level)),
                fortran: pcontrol noierr (level) => on_pcontrol(int(level), call),
            }

            // Blocking sends, §3.2.1 and §3.4 (communication modes).
            MPI_Send { role: Initiates, mode: Send, entry: guarded,
                c: (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm)
                    => blocking_send(count, datatype, dest, tag, comm, || PMPI_Send(buf, count, datatype, dest, tag, comm)),
                fortran: send ts (buf, count, datatype, dest, tag, comm_)
                    => blocking_send(int(count), dt(datatype), int(dest), int(tag), comm(comm_), call),
            }
            MPI_Ssend { role: Initiates, mode: Ssend, entry: guarded,
                c: (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm)
                    => blocking_send(count, datatype, dest, tag, comm, || PMPI_Ssend(buf, count, datatype, dest, tag, comm)),
                fortran: ssend ts (buf, count, datatype, dest, tag, comm_)
                    => blocking_send(int(count), dt(datatype), int(dest), int(tag), comm(comm_), call),
            }
            MPI_Bsend { role: Initiates, mode: Bsend, entry: guarded,
                c: (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm)
                    => blocking_send(count, datatype, dest, tag, comm, || PMPI_Bsend(buf, count, datatype, dest, tag, comm)),
                fortran: bsend ts (buf, count, datatype, dest, tag, comm_)
                    => blocking_send(int(count), dt(datatype), int(dest), int(tag), comm(comm_), call),
            }
            MPI_Rsend { role: Initiates, mode: Rsend, entry: guarded,
                c: (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm)
                    => blocking_send(count, datatype, dest, tag, comm, || PMPI_Rsend(buf, count, datatype, dest, tag, comm)),
                fortran: rsend ts (buf, count, datatype, dest, tag, comm_)
                    => blocking_send(int(count), dt(datatype), int(dest), int(tag), comm(comm_), call),
            }

            // Nonblocking sends, §3.7.2.
            MPI_Isend { role: Initiates, mode: Isend, entry: guarded,
                c: (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(false, count, datatype, dest, tag, comm, c_req_out(request), || PMPI_Isend(buf, count, datatype, dest, tag, comm, request)),
                fortran: isend ts (buf, count, datatype, dest, tag, comm_, request)
                    => start_nonblocking(false, int(count), dt(datatype), int(dest), int(tag), comm(comm_), f_req_out(fp(request)), call),
            }
            MPI_Issend { role: Initiates, mode: Issend, entry: guarded,
                c: (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(false, count, datatype, dest, tag, comm, c_req_out(request), || PMPI_Issend(buf, count, datatype, dest, tag, comm, request)),
                fortran: issend ts (buf, count, datatype, dest, tag, comm_, request)
                    => start_nonblocking(false, int(count), dt(datatype), int(dest), int(tag), comm(comm_), f_req_out(fp(request)), call),
            }
            MPI_Ibsend { role: Initiates, mode: Ibsend, entry: guarded,
                c: (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(false, count, datatype, dest, tag, comm, c_req_out(request), || PMPI_Ibsend(buf, count, datatype, dest, tag, comm, request)),
                fortran: ibsend ts (buf, count, datatype, dest, tag, comm_, request)
                    => start_nonblocking(false, int(count), dt(datatype), int(dest), int(tag), comm(comm_), f_req_out(fp(request)), call),
            }
            MPI_Irsend { role: Initiates, mode: Irsend, entry: guarded,
                c: (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(false, count, datatype, dest, tag, comm, c_req_out(request), || PMPI_Irsend(buf, count, datatype, dest, tag, comm, request)),
                fortran: irsend ts (buf, count, datatype, dest, tag, comm_, request)
                    => start_nonblocking(false, int(count), dt(datatype), int(dest), int(tag), comm(comm_), f_req_out(fp(request)), call),
            }

            // Receives, §3.2.4 and §3.7.2. A receive's source is its peer (a wildcard stays
            // unknown until a visible status names it).
            MPI_Recv { role: Initiates, mode: Recv, entry: guarded,
                c: (buf: *mut c_void, count: c_int, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, status: *mut MPI_Status)
                    => blocking_recv(count, datatype, source, tag, comm, status, |st| PMPI_Recv(buf, count, datatype, source, tag, comm, st)),
                fortran: recv ts (buf, count, datatype, source, tag, comm_, status)
                    => blocking_recv(int(count), dt(datatype), int(source), int(tag), comm(comm_), no_status(), |_| call()),
            }
            MPI_Irecv { role: Initiates, mode: Irecv, entry: guarded,
                c: (buf: *mut c_void, count: c_int, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(false, count, datatype, source, tag, comm, c_req_out(request), || PMPI_Irecv(buf, count, datatype, source, tag, comm, request)),
                fortran: irecv ts (buf, count, datatype, source, tag, comm_, request)
                    => start_nonblocking(false, int(count), dt(datatype), int(source), int(tag), comm(comm_), f_req_out(fp(request)), call),
            }

            // Probes and matched receives, §3.8.
            MPI_Probe { role: Probes, mode: None, entry: guarded,
                c: (source: c_int, tag: c_int, comm: MPI_Comm, status: *mut MPI_Status)
                    => probe((source, tag), comm, std::ptr::null_mut(), status, |st| PMPI_Probe(source, tag, comm, st)),
                fortran: probe plain (source, tag, comm_, status)
                    => probe((int(source), int(tag)), comm(comm_), std::ptr::null_mut(), no_status(), |_| call()),
            }
            MPI_Iprobe { role: Probes, mode: None, entry: guarded,
                c: (source: c_int, tag: c_int, comm: MPI_Comm, flag: *mut c_int, status: *mut MPI_Status)
                    => probe((source, tag), comm, flag, status, |st| PMPI_Iprobe(source, tag, comm, flag, st)),
                fortran: iprobe f08direct (source, tag, comm_, flag, status)
                    => probe((int(source), int(tag)), comm(comm_), ip(flag), no_status(), |_| call()),
            }
            MPI_Mprobe { role: Probes, mode: None, entry: guarded,
                c: (source: c_int, tag: c_int, comm: MPI_Comm, message: *mut MPI_Message, status: *mut MPI_Status)
                    => mprobe((source, tag), comm, std::ptr::null_mut(), c_msg_out(message), status, |st| PMPI_Mprobe(source, tag, comm, message, st)),
                fortran: mprobe plain (source, tag, comm_, message, status)
                    => mprobe((int(source), int(tag)), comm(comm_), std::ptr::null_mut(), f_msg_out(fp(message)), no_status(), |_| call()),
            }
            MPI_Improbe { role: Probes, mode: None, entry: guarded,
                c: (source: c_int, tag: c_int, comm: MPI_Comm, flag: *mut c_int, message: *mut MPI_Message, status: *mut MPI_Status)
                    => mprobe((source, tag), comm, flag, c_msg_out(message), status, |st| PMPI_Improbe(source, tag, comm, flag, message, st)),
                fortran: improbe f08direct (source, tag, comm_, flag, message, status)
                    => mprobe((int(source), int(tag)), comm(comm_), ip(flag), f_msg_out(fp(message)), no_status(), |_| call()),
            }
            MPI_Mrecv { role: Initiates, mode: Mrecv, entry: guarded,
                c: (buf: *mut c_void, count: c_int, datatype: MPI_Datatype, message: *mut MPI_Message, status: *mut MPI_Status)
                    => mrecv(count, datatype, c_msg(message), || None, || PMPI_Mrecv(buf, count, datatype, message, status)),
                fortran: mrecv ts (buf, count, datatype, message, status)
                    => mrecv(int(count), dt(datatype), f_msg(fp(message)), || None, call),
            }
            MPI_Imrecv { role: Initiates, mode: Mrecv, entry: guarded,
                c: (buf: *mut c_void, count: c_int, datatype: MPI_Datatype, message: *mut MPI_Message, request: *mut MPI_Request)
                    => mrecv(count, datatype, c_msg(message), c_req_out(request), || PMPI_Imrecv(buf, count, datatype, message, request)),
                fortran: imrecv ts (buf, count, datatype, message, request)
                    => mrecv(int(count), dt(datatype), f_msg(fp(message)), f_req_out(fp(request)), call),
            }

            // Combined send-receive, §3.10.
            MPI_Sendrecv { role: Initiates, mode: Sendrecv, entry: guarded,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, dest: c_int, sendtag: c_int,
                    recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, source: c_int, recvtag: c_int,
                    comm: MPI_Comm, status: *mut MPI_Status)
                    => sendrecv(sendcount, sendtype, dest, (sendtag, recvtag), recvcount, recvtype, source, comm,
                        || PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status)),
                fortran: sendrecv ts (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm_, status)
                    => sendrecv(int(sendcount), dt(sendtype), int(dest), (int(sendtag), int(recvtag)), int(recvcount), dt(recvtype), int(source), comm(comm_), call),
            }
            MPI_Sendrecv_replace { role: Initiates, mode: Sendrecv, entry: guarded,
                c: (buf: *mut c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, sendtag: c_int,
                    source: c_int, recvtag: c_int, comm: MPI_Comm, status: *mut MPI_Status)
                    => sendrecv(count, datatype, dest, (sendtag, recvtag), count, datatype, source, comm,
                        || PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status)),
                fortran: sendrecv_replace ts (buf, count, datatype, dest, sendtag, source, recvtag, comm_, status)
                    => sendrecv(int(count), dt(datatype), int(dest), (int(sendtag), int(recvtag)), int(count), dt(datatype), int(source), comm(comm_), call),
            }

            // Persistent requests, §3.9: an init moves nothing; MPI_Start counts the message
            // under the nonblocking mode it starts.
            MPI_Send_init { role: Other, mode: Isend, entry: guarded,
                c: (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(true, count, datatype, dest, tag, comm, c_req_out(request), || PMPI_Send_init(buf, count, datatype, dest, tag, comm, request)),
                fortran: send_init ts (buf, count, datatype, dest, tag, comm_, request)
                    => start_nonblocking(true, int(count), dt(datatype), int(dest), int(tag), comm(comm_), f_req_out(fp(request)), call),
            }
            MPI_Ssend_init { role: Other, mode: Issend, entry: guarded,
                c: (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(true, count, datatype, dest, tag, comm, c_req_out(request), || PMPI_Ssend_init(buf, count, datatype, dest, tag, comm, request)),
                fortran: ssend_init ts (buf, count, datatype, dest, tag, comm_, request)
                    => start_nonblocking(true, int(count), dt(datatype), int(dest), int(tag), comm(comm_), f_req_out(fp(request)), call),
            }
            MPI_Bsend_init { role: Other, mode: Ibsend, entry: guarded,
                c: (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(true, count, datatype, dest, tag, comm, c_req_out(request), || PMPI_Bsend_init(buf, count, datatype, dest, tag, comm, request)),
                fortran: bsend_init ts (buf, count, datatype, dest, tag, comm_, request)
                    => start_nonblocking(true, int(count), dt(datatype), int(dest), int(tag), comm(comm_), f_req_out(fp(request)), call),
            }
            MPI_Rsend_init { role: Other, mode: Irsend, entry: guarded,
                c: (buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(true, count, datatype, dest, tag, comm, c_req_out(request), || PMPI_Rsend_init(buf, count, datatype, dest, tag, comm, request)),
                fortran: rsend_init ts (buf, count, datatype, dest, tag, comm_, request)
                    => start_nonblocking(true, int(count), dt(datatype), int(dest), int(tag), comm(comm_), f_req_out(fp(request)), call),
            }
            MPI_Recv_init { role: Other, mode: Irecv, entry: guarded,
                c: (buf: *mut c_void, count: c_int, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(true, count, datatype, source, tag, comm, c_req_out(request), || PMPI_Recv_init(buf, count, datatype, source, tag, comm, request)),
                fortran: recv_init ts (buf, count, datatype, source, tag, comm_, request)
                    => start_nonblocking(true, int(count), dt(datatype), int(source), int(tag), comm(comm_), f_req_out(fp(request)), call),
            }
            MPI_Start { role: Initiates, mode: None, entry: guarded,
                c: (request: *mut MPI_Request) => start(c_req(request), || PMPI_Start(request)),
                fortran: start plain (request) => start(f_req(fp(request)), call),
            }
            MPI_Startall { role: Other, mode: None, entry: guarded,
                c: (count: c_int, array_of_requests: *mut MPI_Request)
                    => startall(count, c_reqs(array_of_requests), || PMPI_Startall(count, array_of_requests)),
                fortran: startall plain (count, requests) => startall(int(count), f_reqs(fp(requests)), call),
            }
            MPI_Request_free { role: Other, mode: None, entry: guarded,
                c: (request: *mut MPI_Request) => request_free(c_req(request), || PMPI_Request_free(request)),
                fortran: request_free plain (request) => request_free(f_req(fp(request)), call),
            }
            MPI_Cancel { role: Other, mode: None, entry: guarded,
                c: (request: *mut MPI_Request) => cancel(c_req(request), || PMPI_Cancel(request)),
                fortran: cancel plain (request) => cancel(f_req(fp(request)), call),
            }

            // Completion, §3.7.3 and §3.7.5.
            MPI_Wait { role: Completes, mode: None, entry: guarded,
                c: (request: *mut MPI_Request, status: *mut MPI_Status)
                    => wait_one(c_req(request), std::ptr::null_mut(), status, |st| PMPI_Wait(request, st)),
                fortran: wait plain (request, status)
                    => wait_one(f_req(fp(request)), std::ptr::null_mut(), no_status(), |_| call()),
            }
            MPI_Test { role: Completes, mode: None, entry: guarded,
                c: (request: *mut MPI_Request, flag: *mut c_int, status: *mut MPI_Status)
                    => wait_one(c_req(request), flag, status, |st| PMPI_Test(request, flag, st)),
                fortran: test f08direct (request, flag, status)
                    => wait_one(f_req(fp(request)), ip(flag), no_status(), |_| call()),
            }
            MPI_Waitall { role: Completes, mode: None, entry: guarded,
                c: (count: c_int, array_of_requests: *mut MPI_Request, array_of_statuses: *mut MPI_Status)
                    => wait_all(count, c_reqs(array_of_requests), std::ptr::null_mut(), array_of_statuses,
                        || PMPI_Waitall(count, array_of_requests, array_of_statuses)),
                fortran: waitall plain (count, requests, statuses)
                    => wait_all(int(count), f_reqs(fp(requests)), std::ptr::null_mut(), no_statuses(), call),
            }
            MPI_Testall { role: Completes, mode: None, entry: guarded,
                c: (count: c_int, array_of_requests: *mut MPI_Request, flag: *mut c_int, array_of_statuses: *mut MPI_Status)
                    => wait_all(count, c_reqs(array_of_requests), flag, array_of_statuses,
                        || PMPI_Testall(count, array_of_requests, flag, array_of_statuses)),
                fortran: testall f08direct (count, requests, flag, statuses)
                    => wait_all(int(count), f_reqs(fp(requests)), ip(flag), no_statuses(), call),
            }
            MPI_Waitany { role: Completes, mode: None, entry: guarded,
                c: (count: c_int, array_of_requests: *mut MPI_Request, index: *mut c_int, status: *mut MPI_Status)
                    => wait_any(count, c_reqs(array_of_requests), || deref(index), std::ptr::null_mut(), status,
                        |st| PMPI_Waitany(count, array_of_requests, index, st)),
                fortran: waitany plain (count, requests, index, status)
                    => wait_any(int(count), f_reqs(fp(requests)), || index0(index), std::ptr::null_mut(), no_status(), |_| call()),
            }
            MPI_Testany { role: Completes, mode: None, entry: guarded,
                c: (count: c_int, array_of_requests: *mut MPI_Request, index: *mut c_int, flag: *mut c_int, status: *mut MPI_Status)
                    => wait_any(count, c_reqs(array_of_requests), || deref(index), flag, status,
                        |st| PMPI_Testany(count, array_of_requests, index, flag, st)),
                fortran: testany f08direct (count, requests, index, flag, status)
                    => wait_any(int(count), f_reqs(fp(requests)), || index0(index), ip(flag), no_status(), |_| call()),
            }
            MPI_Waitsome { role: Completes, mode: None, entry: guarded,
                c: (incount: c_int, array_of_requests: *mut MPI_Request, outcount: *mut c_int, array_of_indices: *mut c_int, array_of_statuses: *mut MPI_Status)
                    => wait_some(incount, c_reqs(array_of_requests), outcount, array_of_indices, 0, array_of_statuses,
                        || PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses)),
                fortran: waitsome plain (incount, requests, outcount, indices, statuses)
                    => wait_some(int(incount), f_reqs(fp(requests)), ip(outcount), ip(indices), 1, no_statuses(), call),
            }
            MPI_Testsome { role: Completes, mode: None, entry: guarded,
                c: (incount: c_int, array_of_requests: *mut MPI_Request, outcount: *mut c_int, array_of_indices: *mut c_int, array_of_statuses: *mut MPI_Status)
                    => wait_some(incount, c_reqs(array_of_requests), outcount, array_of_indices, 0, array_of_statuses,
                        || PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses)),
                fortran: testsome f08direct (incount, requests, outcount, indices, statuses)
                    => wait_some(int(incount), f_reqs(fp(requests)), ip(outcount), ip(indices), 1, no_statuses(), call),
            }

            // Watched, not counted: a freed handle may return for another communicator, so
            // its cached rank translation must go. (Open MPI's Fortran MPI_COMM_FREE calls
            // PMPI_Comm_free directly; the cache is then checked against the group.)
            MPI_Comm_free { role: Other, mode: None, entry: guarded,
                c: (comm: *mut MPI_Comm) => comm_free(comm, || PMPI_Comm_free(comm)),
            }

            // Watched, not counted: a user-defined operation is created with a trampoline
            // that times the application's function per call (`hooks::user_op`), so that
            // the collective model prices its reductions. Open MPI's Fortran
            // MPI_OP_CREATE and MPICH's `use mpi_f08` call PMPI_Op_create themselves:
            // their routine gets the trampoline in FUNCTION's place (`procarg`).
            MPI_Op_create { role: Other, mode: None, entry: guarded,
                c: (user_fn: MPI_User_function, commute: c_int, op: *mut MPI_Op)
                    => op_create(user_fn, |f| PMPI_Op_create(f, commute, op)),
                fortran: op_create procarg (function, commute, op) => op_create_f(&function, call),
            }
            MPI_Op_create_c { role: Other, mode: None, entry: guarded, cfg: mpi_large_count,
                c: (user_fn: MPI_User_function_c, commute: c_int, op: *mut MPI_Op)
                    => op_create_c(user_fn, |f| PMPI_Op_create_c(f, commute, op)),
            }

            // MPI-4 large-count forms (§2.5.8): the same hooks with an MPI_Count, under their
            // own names.
            MPI_Send_c { role: Initiates, mode: Send, entry: guarded, cfg: mpi_large_count,
                c: (buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm)
                    => blocking_send(count, datatype, dest, tag, comm, || PMPI_Send_c(buf, count, datatype, dest, tag, comm)),
            }
            MPI_Ssend_c { role: Initiates, mode: Ssend, entry: guarded, cfg: mpi_large_count,
                c: (buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm)
                    => blocking_send(count, datatype, dest, tag, comm, || PMPI_Ssend_c(buf, count, datatype, dest, tag, comm)),
            }
            MPI_Bsend_c { role: Initiates, mode: Bsend, entry: guarded, cfg: mpi_large_count,
                c: (buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm)
                    => blocking_send(count, datatype, dest, tag, comm, || PMPI_Bsend_c(buf, count, datatype, dest, tag, comm)),
            }
            MPI_Rsend_c { role: Initiates, mode: Rsend, entry: guarded, cfg: mpi_large_count,
                c: (buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm)
                    => blocking_send(count, datatype, dest, tag, comm, || PMPI_Rsend_c(buf, count, datatype, dest, tag, comm)),
            }
            MPI_Isend_c { role: Initiates, mode: Isend, entry: guarded, cfg: mpi_large_count,
                c: (buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(false, count, datatype, dest, tag, comm, c_req_out(request), || PMPI_Isend_c(buf, count, datatype, dest, tag, comm, request)),
            }
            MPI_Issend_c { role: Initiates, mode: Issend, entry: guarded, cfg: mpi_large_count,
                c: (buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(false, count, datatype, dest, tag, comm, c_req_out(request), || PMPI_Issend_c(buf, count, datatype, dest, tag, comm, request)),
            }
            MPI_Ibsend_c { role: Initiates, mode: Ibsend, entry: guarded, cfg: mpi_large_count,
                c: (buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(false, count, datatype, dest, tag, comm, c_req_out(request), || PMPI_Ibsend_c(buf, count, datatype, dest, tag, comm, request)),
            }
            MPI_Irsend_c { role: Initiates, mode: Irsend, entry: guarded, cfg: mpi_large_count,
                c: (buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(false, count, datatype, dest, tag, comm, c_req_out(request), || PMPI_Irsend_c(buf, count, datatype, dest, tag, comm, request)),
            }
            MPI_Recv_c { role: Initiates, mode: Recv, entry: guarded, cfg: mpi_large_count,
                c: (buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, status: *mut MPI_Status)
                    => blocking_recv(count, datatype, source, tag, comm, status, |st| PMPI_Recv_c(buf, count, datatype, source, tag, comm, st)),
            }
            MPI_Irecv_c { role: Initiates, mode: Irecv, entry: guarded, cfg: mpi_large_count,
                c: (buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(false, count, datatype, source, tag, comm, c_req_out(request), || PMPI_Irecv_c(buf, count, datatype, source, tag, comm, request)),
            }
            MPI_Mrecv_c { role: Initiates, mode: Mrecv, entry: guarded, cfg: mpi_large_count,
                c: (buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, message: *mut MPI_Message, status: *mut MPI_Status)
                    => mrecv(count, datatype, c_msg(message), || None, || PMPI_Mrecv_c(buf, count, datatype, message, status)),
            }
            MPI_Imrecv_c { role: Initiates, mode: Mrecv, entry: guarded, cfg: mpi_large_count,
                c: (buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, message: *mut MPI_Message, request: *mut MPI_Request)
                    => mrecv(count, datatype, c_msg(message), c_req_out(request), || PMPI_Imrecv_c(buf, count, datatype, message, request)),
            }
            MPI_Sendrecv_c { role: Initiates, mode: Sendrecv, entry: guarded, cfg: mpi_large_count,
                c: (sendbuf: *const c_void, sendcount: MPI_Count, sendtype: MPI_Datatype, dest: c_int, sendtag: c_int,
                    recvbuf: *mut c_void, recvcount: MPI_Count, recvtype: MPI_Datatype, source: c_int, recvtag: c_int,
                    comm: MPI_Comm, status: *mut MPI_Status)
                    => sendrecv(sendcount, sendtype, dest, (sendtag, recvtag), recvcount, recvtype, source, comm,
                        || PMPI_Sendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status)),
            }
            MPI_Sendrecv_replace_c { role: Initiates, mode: Sendrecv, entry: guarded, cfg: mpi_large_count,
                c: (buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, sendtag: c_int,
                    source: c_int, recvtag: c_int, comm: MPI_Comm, status: *mut MPI_Status)
                    => sendrecv(count, datatype, dest, (sendtag, recvtag), count, datatype, source, comm,
                        || PMPI_Sendrecv_replace_c(buf, count, datatype, dest, sendtag, source, recvtag, comm, status)),
            }
            MPI_Send_init_c { role: Other, mode: Isend, entry: guarded, cfg: mpi_large_count,
                c: (buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(true, count, datatype, dest, tag, comm, c_req_out(request), || PMPI_Send_init_c(buf, count, datatype, dest, tag, comm, request)),
            }
            MPI_Ssend_init_c { role: Other, mode: Issend, entry: guarded, cfg: mpi_large_count,
                c: (buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(true, count, datatype, dest, tag, comm, c_req_out(request), || PMPI_Ssend_init_c(buf, count, datatype, dest, tag, comm, request)),
            }
            MPI_Bsend_init_c { role: Other, mode: Ibsend, entry: guarded, cfg: mpi_large_count,
                c: (buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(true, count, datatype, dest, tag, comm, c_req_out(request), || PMPI_Bsend_init_c(buf, count, datatype, dest, tag, comm, request)),
            }
            MPI_Rsend_init_c { role: Other, mode: Irsend, entry: guarded, cfg: mpi_large_count,
                c: (buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(true, count, datatype, dest, tag, comm, c_req_out(request), || PMPI_Rsend_init_c(buf, count, datatype, dest, tag, comm, request)),
            }
            MPI_Recv_init_c { role: Other, mode: Irecv, entry: guarded, cfg: mpi_large_count,
                c: (buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => start_nonblocking(true, count, datatype, source, tag, comm, c_req_out(request), || PMPI_Recv_init_c(buf, count, datatype, source, tag, comm, request)),
            }

            // Nonblocking send-receive, new in MPI 4.0 (§3.10): one request for both
            // directions, binned by the send size.
            MPI_Isendrecv { role: Initiates, mode: Isendrecv, entry: guarded, cfg: mpi_isendrecv,
                c: (sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, dest: c_int, sendtag: c_int,
                    recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, source: c_int, recvtag: c_int,
                    comm: MPI_Comm, request: *mut MPI_Request)
                    => isendrecv(sendcount, sendtype, dest, recvcount, recvtype, source, comm, c_req_out(request),
                        || PMPI_Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, request)),
            }
            MPI_Isendrecv_replace { role: Initiates, mode: Isendrecv, entry: guarded, cfg: mpi_isendrecv,
                c: (buf: *mut c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, sendtag: c_int,
                    source: c_int, recvtag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => isendrecv(count, datatype, dest, count, datatype, source, comm, c_req_out(request),
                        || PMPI_Isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, request)),
            }
            MPI_Isendrecv_c { role: Initiates, mode: Isendrecv, entry: guarded, cfg: all(mpi_isendrecv, mpi_large_count),
                c: (sendbuf: *const c_void, sendcount: MPI_Count, sendtype: MPI_Datatype, dest: c_int, sendtag: c_int,
                    recvbuf: *mut c_void, recvcount: MPI_Count, recvtype: MPI_Datatype, source: c_int, recvtag: c_int,
                    comm: MPI_Comm, request: *mut MPI_Request)
                    => isendrecv(sendcount, sendtype, dest, recvcount, recvtype, source, comm, c_req_out(request),
                        || PMPI_Isendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, request)),
            }
            MPI_Isendrecv_replace_c { role: Initiates, mode: Isendrecv, entry: guarded, cfg: all(mpi_isendrecv, mpi_large_count),
                c: (buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, sendtag: c_int,
                    source: c_int, recvtag: c_int, comm: MPI_Comm, request: *mut MPI_Request)
                    => isendrecv(count, datatype, dest, count, datatype, source, comm, c_req_out(request),
                        || PMPI_Isendrecv_replace_c(buf, count, datatype, dest, sendtag, source, recvtag, comm, request)),
            }
        ] }
    };
}
