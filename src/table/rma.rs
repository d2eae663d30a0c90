//! The rows of the communicator constructors and of one-sided communication (see
//! `table`), after those handed in; the I/O rows follow (`io.rs`).
//!
//! Why: a job's time in these calls is time in MPI as much as a send's (mpiP and IPM
//! count them), and without them a job that builds communicators, reads and writes
//! through MPI-IO or puts into windows showed less time in MPI than it spent there.
//! LAMMPS, for one, calls MPI_Cart_create, MPI_Comm_split, MPI_Comm_dup and
//! MPI_File_write_at_all. The communicator constructors are collectives over the
//! communicator they start from, recorded as collectives (their arrival wait is split
//! like a barrier's). One-sided and I/O calls are counted and timed with the data they
//! name (`record::hooks::counted`): no message model prices them, and the requests of
//! their nonblocking forms complete in MPI_Wait and its kin, counted there.
//!
//! Not here: the large-count (`_c`) forms, MPI_Comm_create_group and the
//! intercommunicator constructors; and the Fortran bindings of the functions with a
//! CHARACTER argument (MPI_File_open, MPI_File_set_view), whose hidden length the
//! generated Fortran entry points do not pass on.

/// Hands the rows handed in and these on to `io_rows!` (a Fortran column here writes
/// `$call`).
macro_rules! rma_rows {
    ($consumer:ident, [$call:ident, $ierr:ident], [$($before:tt)*]) => {
        io_rows! { $consumer, [$call, $ierr], [
            $($before)*

            // Communicator constructors, MPI 4.0 §7.4.2 and §8.5: collective over the
            // communicator they start from; no data of their own.
            MPI_Comm_dup { role: Initiates, mode: Collective, entry: guarded,
                c: (comm: MPI_Comm, newcomm: *mut MPI_Comm)
                    => collective(comm, || 0, || PMPI_Comm_dup(comm, newcomm)),
                fortran: comm_dup plain (comm_, newcomm) => collective(comm(comm_), || 0, $call),
            }
            // Nonblocking (§7.4.2): followed to the Wait or Test that completes it, as a
            // nonblocking collective is.
            MPI_Comm_idup { role: Initiates, mode: Collective, entry: guarded,
                c: (comm: MPI_Comm, newcomm: *mut MPI_Comm, request: *mut MPI_Request)
                    => icollective(comm, || 0, c_req_out(request), || PMPI_Comm_idup(comm, newcomm, request)),
                fortran: comm_idup plain (comm_, newcomm, request)
                    => icollective(comm(comm_), || 0, f_req_out(fp(request)), $call),
            }
            MPI_Comm_dup_with_info { role: Initiates, mode: Collective, entry: guarded,
                c: (comm: MPI_Comm, info: MPI_Info, newcomm: *mut MPI_Comm)
                    => collective(comm, || 0, || PMPI_Comm_dup_with_info(comm, info, newcomm)),
                fortran: comm_dup_with_info plain (comm_, info, newcomm) => collective(comm(comm_), || 0, $call),
            }
            MPI_Comm_split { role: Initiates, mode: Collective, entry: guarded,
                c: (comm: MPI_Comm, color: c_int, key: c_int, newcomm: *mut MPI_Comm)
                    => collective(comm, || 0, || PMPI_Comm_split(comm, color, key, newcomm)),
                fortran: comm_split plain (comm_, color, key, newcomm) => collective(comm(comm_), || 0, $call),
            }
            MPI_Comm_split_type { role: Initiates, mode: Collective, entry: guarded,
                c: (comm: MPI_Comm, split_type: c_int, key: c_int, info: MPI_Info, newcomm: *mut MPI_Comm)
                    => collective(comm, || 0, || PMPI_Comm_split_type(comm, split_type, key, info, newcomm)),
                fortran: comm_split_type plain (comm_, split_type, key, info, newcomm) => collective(comm(comm_), || 0, $call),
            }
            MPI_Comm_create { role: Initiates, mode: Collective, entry: guarded,
                c: (comm: MPI_Comm, group: MPI_Group, newcomm: *mut MPI_Comm)
                    => collective(comm, || 0, || PMPI_Comm_create(comm, group, newcomm)),
                fortran: comm_create plain (comm_, group, newcomm) => collective(comm(comm_), || 0, $call),
            }
            MPI_Comm_create_group { role: Initiates, mode: Collective, entry: guarded,
                c: (comm: MPI_Comm, group: MPI_Group, tag: c_int, newcomm: *mut MPI_Comm)
                    => group_collective(comm, group, tag, || PMPI_Comm_create_group(comm, group, tag, newcomm)),
                fortran: comm_create_group plain (comm_, group, tag, newcomm) => group_collective(comm(comm_), f_group(fp(group)), int(tag), $call),
            }
            // The intercommunicator constructors: collective over both groups, numbered
            // and kept on the local one (each group's members agree on its name; the
            // other group's lateness is in the cost).
            MPI_Intercomm_create { role: Initiates, mode: Collective, entry: guarded,
                c: (local_comm: MPI_Comm, local_leader: c_int, peer_comm: MPI_Comm, remote_leader: c_int, tag: c_int, newintercomm: *mut MPI_Comm)
                    => collective(local_comm, || 0, || PMPI_Intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag, newintercomm)),
                fortran: intercomm_create plain (local_comm, local_leader, peer_comm, remote_leader, tag, newintercomm) => collective(comm(local_comm), || 0, $call),
            }
            MPI_Intercomm_merge { role: Initiates, mode: Collective, entry: guarded,
                c: (intercomm: MPI_Comm, high: c_int, newintracomm: *mut MPI_Comm)
                    => collective(intercomm, || 0, || PMPI_Intercomm_merge(intercomm, high, newintracomm)),
                fortran: intercomm_merge f08direct (intercomm, high, newintracomm) => collective(comm(intercomm), || 0, $call),
            }
            // Process creation and management (MPI 4.0 §11.8, §11.10): MPI_Comm_spawn,
            // MPI_Comm_spawn_multiple, MPI_Comm_accept and MPI_Comm_connect are
            // collective over `comm`, recorded and split as the constructors are (a
            // member that enters early waits there for the last); a world they start
            // writes a report of its own (`lifecycle::identity`). MPI_Comm_disconnect is
            // collective over the communicator it frees, read before the call
            // (`comm_disconnected`); MPI_Comm_join, MPI_Open_port and MPI_Close_port are
            // counted.
            MPI_Comm_spawn { role: Initiates, mode: Collective, entry: guarded,
                c: (command: *const c_char, argv: *mut *mut c_char, maxprocs: c_int, info: MPI_Info, root: c_int, comm: MPI_Comm, intercomm: *mut MPI_Comm, array_of_errcodes: *mut c_int)
                    => collective(comm, || 0, || PMPI_Comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, array_of_errcodes)),
                fortran: comm_spawn chars2 (command, argv, maxprocs, info, root, comm_, intercomm, array_of_errcodes)
                    => collective(comm(comm_), || 0, $call),
            }
            MPI_Comm_spawn_multiple { role: Initiates, mode: Collective, entry: guarded,
                c: (count: c_int, array_of_commands: *mut *mut c_char, array_of_argv: *mut *mut *mut c_char, array_of_maxprocs: *const c_int, array_of_info: *const MPI_Info, root: c_int, comm: MPI_Comm, intercomm: *mut MPI_Comm, array_of_errcodes: *mut c_int)
                    => collective(comm, || 0, || PMPI_Comm_spawn_multiple(count, array_of_commands, array_of_argv, array_of_maxprocs, array_of_info, root, comm, intercomm, array_of_errcodes)),
                fortran: comm_spawn_multiple chars2 (count, array_of_commands, array_of_argv, array_of_maxprocs, array_of_info, root, comm_, intercomm, array_of_errcodes)
                    => collective(comm(comm_), || 0, $call),
            }
            MPI_Comm_accept { role: Initiates, mode: Collective, entry: guarded,
                c: (port_name: *const c_char, info: MPI_Info, root: c_int, comm: MPI_Comm, newcomm: *mut MPI_Comm)
                    => collective(comm, || 0, || PMPI_Comm_accept(port_name, info, root, comm, newcomm)),
                fortran: comm_accept chars (port_name, info, root, comm_, newcomm) => collective(comm(comm_), || 0, $call),
            }
            MPI_Comm_connect { role: Initiates, mode: Collective, entry: guarded,
                c: (port_name: *const c_char, info: MPI_Info, root: c_int, comm: MPI_Comm, newcomm: *mut MPI_Comm)
                    => collective(comm, || 0, || PMPI_Comm_connect(port_name, info, root, comm, newcomm)),
                fortran: comm_connect chars (port_name, info, root, comm_, newcomm) => collective(comm(comm_), || 0, $call),
            }
            MPI_Comm_disconnect { role: Initiates, mode: Collective, entry: guarded,
                c: (comm: *mut MPI_Comm)
                    => comm_disconnected(|| c_comm(comm), || PMPI_Comm_disconnect(comm)),
                fortran: comm_disconnect plain (comm_) => comm_disconnected(|| comm(comm_), $call),
            }
            MPI_Comm_join { role: Other, mode: None, entry: guarded,
                c: (fd: c_int, intercomm: *mut MPI_Comm)
                    => counted(|| 0, || PMPI_Comm_join(fd, intercomm)),
                fortran: comm_join plain (fd, intercomm) => counted(|| 0, $call),
            }
            MPI_Open_port { role: Other, mode: None, entry: guarded,
                c: (info: MPI_Info, port_name: *mut c_char)
                    => counted(|| 0, || PMPI_Open_port(info, port_name)),
                fortran: open_port chars (info, port_name) => counted(|| 0, $call),
            }
            MPI_Close_port { role: Other, mode: None, entry: guarded,
                c: (port_name: *const c_char)
                    => counted(|| 0, || PMPI_Close_port(port_name)),
                fortran: close_port chars (port_name) => counted(|| 0, $call),
            }
            MPI_Cart_create { role: Initiates, mode: Collective, entry: guarded,
                c: (comm_old: MPI_Comm, ndims: c_int, dims: *const c_int, periods: *const c_int, reorder: c_int, comm_cart: *mut MPI_Comm)
                    => collective(comm_old, || 0, || PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart)),
                fortran: cart_create f08direct (comm_old, ndims, dims, periods, reorder, comm_cart) => collective(comm(comm_old), || 0, $call),
            }
            MPI_Cart_sub { role: Initiates, mode: Collective, entry: guarded,
                c: (comm: MPI_Comm, remain_dims: *const c_int, newcomm: *mut MPI_Comm)
                    => collective(comm, || 0, || PMPI_Cart_sub(comm, remain_dims, newcomm)),
                fortran: cart_sub f08direct (comm_, remain_dims, newcomm) => collective(comm(comm_), || 0, $call),
            }
            MPI_Graph_create { role: Initiates, mode: Collective, entry: guarded,
                c: (comm_old: MPI_Comm, nnodes: c_int, index: *const c_int, edges: *const c_int, reorder: c_int, comm_graph: *mut MPI_Comm)
                    => collective(comm_old, || 0, || PMPI_Graph_create(comm_old, nnodes, index, edges, reorder, comm_graph)),
                fortran: graph_create f08direct (comm_old, nnodes, index, edges, reorder, comm_graph) => collective(comm(comm_old), || 0, $call),
            }
            MPI_Dist_graph_create { role: Initiates, mode: Collective, entry: guarded,
                c: (comm_old: MPI_Comm, n: c_int, sources: *const c_int, degrees: *const c_int, destinations: *const c_int, weights: *const c_int, info: MPI_Info, reorder: c_int, comm_dist_graph: *mut MPI_Comm)
                    => collective(comm_old, || 0, || PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info, reorder, comm_dist_graph)),
                fortran: dist_graph_create f08direct (comm_old, n, sources, degrees, destinations, weights, info, reorder, comm_dist_graph)
                    => collective(comm(comm_old), || 0, $call),
            }
            MPI_Dist_graph_create_adjacent { role: Initiates, mode: Collective, entry: guarded,
                c: (comm_old: MPI_Comm, indegree: c_int, sources: *const c_int, sourceweights: *const c_int, outdegree: c_int, destinations: *const c_int, destweights: *const c_int, info: MPI_Info, reorder: c_int, comm_dist_graph: *mut MPI_Comm)
                    => collective(comm_old, || 0, || PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder, comm_dist_graph)),
                fortran: dist_graph_create_adjacent f08direct (comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder, comm_dist_graph)
                    => collective(comm(comm_old), || 0, $call),
            }

            // One-sided communication, MPI 4.0 §12: windows (§12.2, each one's communicator
            // kept: `hooks::window`), their communication calls with this rank's send and
            // receive data, and their synchronization (§12.5; MPI_Win_fence numbered and
            // kept like a collective on the window's communicator).
            MPI_Win_create { role: Other, mode: None, entry: guarded,
                c: (base: *mut c_void, size: MPI_Aint, disp_unit: c_int, info: MPI_Info, comm: MPI_Comm, win: *mut MPI_Win)
                    => window_created(comm, || c_win(win), || PMPI_Win_create(base, size, disp_unit, info, comm, win)),
                fortran: win_create ts (base, size, disp_unit, info, comm_, win) => window_created(comm(comm_), || f_win(fp(win)), $call),
            }
            MPI_Win_allocate { role: Other, mode: None, entry: guarded,
                c: (size: MPI_Aint, disp_unit: c_int, info: MPI_Info, comm: MPI_Comm, baseptr: *mut c_void, win: *mut MPI_Win)
                    => window_created(comm, || c_win(win), || PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win)),
                fortran: win_allocate plain (size, disp_unit, info, comm_, baseptr, win) => window_created(comm(comm_), || f_win(fp(win)), $call),
            }
            MPI_Win_allocate_shared { role: Other, mode: None, entry: guarded,
                c: (size: MPI_Aint, disp_unit: c_int, info: MPI_Info, comm: MPI_Comm, baseptr: *mut c_void, win: *mut MPI_Win)
                    => window_created(comm, || c_win(win), || PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win)),
                fortran: win_allocate_shared plain (size, disp_unit, info, comm_, baseptr, win) => window_created(comm(comm_), || f_win(fp(win)), $call),
            }
            MPI_Win_create_dynamic { role: Other, mode: None, entry: guarded,
                c: (info: MPI_Info, comm: MPI_Comm, win: *mut MPI_Win)
                    => window_created(comm, || c_win(win), || PMPI_Win_create_dynamic(info, comm, win)),
                fortran: win_create_dynamic plain (info, comm_, win) => window_created(comm(comm_), || f_win(fp(win)), $call),
            }
            MPI_Win_free { role: Other, mode: None, entry: guarded,
                c: (win: *mut MPI_Win) => window_freed(|| c_win(win), || PMPI_Win_free(win)),
                fortran: win_free plain (win) => window_freed(|| f_win(fp(win)), $call),
            }
            MPI_Put { role: Other, mode: None, entry: guarded,
                c: (origin_addr: *const c_void, origin_count: c_int, origin_datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, target_count: c_int, target_datatype: MPI_Datatype, win: MPI_Win)
                    => counted(|| data(origin_count, origin_datatype), || PMPI_Put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win)),
                fortran: put ts (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win)
                    => counted(|| data(int(origin_count), dt(origin_datatype)), $call),
            }
            MPI_Get { role: Other, mode: None, entry: guarded,
                c: (origin_addr: *mut c_void, origin_count: c_int, origin_datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, target_count: c_int, target_datatype: MPI_Datatype, win: MPI_Win)
                    => counted(|| data(origin_count, origin_datatype), || PMPI_Get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win)),
                fortran: get ts (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win)
                    => counted(|| data(int(origin_count), dt(origin_datatype)), $call),
            }
            MPI_Accumulate { role: Other, mode: None, entry: guarded,
                c: (origin_addr: *const c_void, origin_count: c_int, origin_datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, target_count: c_int, target_datatype: MPI_Datatype, op: MPI_Op, win: MPI_Win)
                    => counted(|| data(origin_count, origin_datatype), || PMPI_Accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, op, win)),
                fortran: accumulate ts (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, op, win)
                    => counted(|| data(int(origin_count), dt(origin_datatype)), $call),
            }
            MPI_Get_accumulate { role: Other, mode: None, entry: guarded,
                c: (origin_addr: *const c_void, origin_count: c_int, origin_datatype: MPI_Datatype, result_addr: *mut c_void, result_count: c_int, result_datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, target_count: c_int, target_datatype: MPI_Datatype, op: MPI_Op, win: MPI_Win)
                    => counted(|| data(origin_count, origin_datatype) + data(result_count, result_datatype),
                        || PMPI_Get_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype, target_rank, target_disp, target_count, target_datatype, op, win)),
                fortran: get_accumulate ts (origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype, target_rank, target_disp, target_count, target_datatype, op, win)
                    => counted(|| data(int(origin_count), dt(origin_datatype)) + data(int(result_count), dt(result_datatype)), $call),
            }
            MPI_Fetch_and_op { role: Other, mode: None, entry: guarded,
                c: (origin_addr: *const c_void, result_addr: *mut c_void, datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, op: MPI_Op, win: MPI_Win)
                    => counted(|| data(2, datatype), || PMPI_Fetch_and_op(origin_addr, result_addr, datatype, target_rank, target_disp, op, win)),
                fortran: fetch_and_op ts (origin_addr, result_addr, datatype, target_rank, target_disp, op, win)
                    => counted(|| data(2, dt(datatype)), $call),
            }
            MPI_Compare_and_swap { role: Other, mode: None, entry: guarded,
                c: (origin_addr: *const c_void, compare_addr: *const c_void, result_addr: *mut c_void, datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, win: MPI_Win)
                    => counted(|| data(3, datatype), || PMPI_Compare_and_swap(origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp, win)),
                fortran: compare_and_swap ts (origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp, win)
                    => counted(|| data(3, dt(datatype)), $call),
            }
            MPI_Rput { role: Other, mode: None, entry: guarded,
                c: (origin_addr: *const c_void, origin_count: c_int, origin_datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, target_count: c_int, target_datatype: MPI_Datatype, win: MPI_Win, request: *mut MPI_Request)
                    => counted_request(|| data(origin_count, origin_datatype), c_req_out(request), || PMPI_Rput(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win, request)),
                fortran: rput ts (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win, request)
                    => counted_request(|| data(int(origin_count), dt(origin_datatype)), f_req_out(fp(request)), $call),
            }
            MPI_Rget { role: Other, mode: None, entry: guarded,
                c: (origin_addr: *mut c_void, origin_count: c_int, origin_datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, target_count: c_int, target_datatype: MPI_Datatype, win: MPI_Win, request: *mut MPI_Request)
                    => counted_request(|| data(origin_count, origin_datatype), c_req_out(request), || PMPI_Rget(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win, request)),
                fortran: rget ts (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win, request)
                    => counted_request(|| data(int(origin_count), dt(origin_datatype)), f_req_out(fp(request)), $call),
            }
            MPI_Raccumulate { role: Other, mode: None, entry: guarded,
                c: (origin_addr: *const c_void, origin_count: c_int, origin_datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, target_count: c_int, target_datatype: MPI_Datatype, op: MPI_Op, win: MPI_Win, request: *mut MPI_Request)
                    => counted_request(|| data(origin_count, origin_datatype), c_req_out(request), || PMPI_Raccumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, op, win, request)),
                fortran: raccumulate ts (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, op, win, request)
                    => counted_request(|| data(int(origin_count), dt(origin_datatype)), f_req_out(fp(request)), $call),
            }
            MPI_Rget_accumulate { role: Other, mode: None, entry: guarded,
                c: (origin_addr: *const c_void, origin_count: c_int, origin_datatype: MPI_Datatype, result_addr: *mut c_void, result_count: c_int, result_datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, target_count: c_int, target_datatype: MPI_Datatype, op: MPI_Op, win: MPI_Win, request: *mut MPI_Request)
                    => counted_request(|| data(origin_count, origin_datatype) + data(result_count, result_datatype), c_req_out(request),
                        || PMPI_Rget_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, request)),
                fortran: rget_accumulate ts (origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, request)
                    => counted_request(|| data(int(origin_count), dt(origin_datatype)) + data(int(result_count), dt(result_datatype)), f_req_out(fp(request)), $call),
            }
            MPI_Win_fence { role: Other, mode: None, entry: guarded,
                c: (assert: c_int, win: MPI_Win) => fence(win, || PMPI_Win_fence(assert, win)),
                fortran: win_fence plain (assert, win) => fence(f_win(fp(win)), $call),
            }
            MPI_Win_lock { role: Other, mode: None, entry: guarded,
                c: (lock_type: c_int, rank: c_int, assert: c_int, win: MPI_Win) => counted(|| 0, || PMPI_Win_lock(lock_type, rank, assert, win)),
                fortran: win_lock plain (lock_type, rank, assert, win) => counted(|| 0, $call),
            }
            MPI_Win_unlock { role: Other, mode: None, entry: guarded,
                c: (rank: c_int, win: MPI_Win) => counted(|| 0, || PMPI_Win_unlock(rank, win)),
                fortran: win_unlock plain (rank, win) => counted(|| 0, $call),
            }
            MPI_Win_lock_all { role: Other, mode: None, entry: guarded,
                c: (assert: c_int, win: MPI_Win) => counted(|| 0, || PMPI_Win_lock_all(assert, win)),
                fortran: win_lock_all plain (assert, win) => counted(|| 0, $call),
            }
            MPI_Win_unlock_all { role: Other, mode: None, entry: guarded,
                c: (win: MPI_Win) => counted(|| 0, || PMPI_Win_unlock_all(win)),
                fortran: win_unlock_all plain (win) => counted(|| 0, $call),
            }
            MPI_Win_flush { role: Other, mode: None, entry: guarded,
                c: (rank: c_int, win: MPI_Win) => counted(|| 0, || PMPI_Win_flush(rank, win)),
                fortran: win_flush plain (rank, win) => counted(|| 0, $call),
            }
            MPI_Win_flush_all { role: Other, mode: None, entry: guarded,
                c: (win: MPI_Win) => counted(|| 0, || PMPI_Win_flush_all(win)),
                fortran: win_flush_all plain (win) => counted(|| 0, $call),
            }
            MPI_Win_flush_local { role: Other, mode: None, entry: guarded,
                c: (rank: c_int, win: MPI_Win) => counted(|| 0, || PMPI_Win_flush_local(rank, win)),
                fortran: win_flush_local plain (rank, win) => counted(|| 0, $call),
            }
            MPI_Win_flush_local_all { role: Other, mode: None, entry: guarded,
                c: (win: MPI_Win) => counted(|| 0, || PMPI_Win_flush_local_all(win)),
                fortran: win_flush_local_all plain (win) => counted(|| 0, $call),
            }
            MPI_Win_sync { role: Other, mode: None, entry: guarded,
                c: (win: MPI_Win) => counted(|| 0, || PMPI_Win_sync(win)),
                fortran: win_sync plain (win) => counted(|| 0, $call),
            }
            MPI_Win_post { role: Other, mode: None, entry: guarded,
                c: (group: MPI_Group, assert: c_int, win: MPI_Win) => epoch_opened(group, win, Epoch::Exposure, || PMPI_Win_post(group, assert, win)),
                fortran: win_post plain (group, assert, win) => epoch_opened(f_group(fp(group)), f_win(fp(win)), Epoch::Exposure, $call),
            }
            MPI_Win_start { role: Other, mode: None, entry: guarded,
                c: (group: MPI_Group, assert: c_int, win: MPI_Win) => epoch_opened(group, win, Epoch::Access, || PMPI_Win_start(group, assert, win)),
                fortran: win_start plain (group, assert, win) => epoch_opened(f_group(fp(group)), f_win(fp(win)), Epoch::Access, $call),
            }
            MPI_Win_complete { role: Other, mode: None, entry: guarded,
                c: (win: MPI_Win) => epoch_closed(win, Epoch::Access, || PMPI_Win_complete(win)),
                fortran: win_complete plain (win) => epoch_closed(f_win(fp(win)), Epoch::Access, $call),
            }
            MPI_Win_wait { role: Other, mode: None, entry: guarded,
                c: (win: MPI_Win) => epoch_closed(win, Epoch::Exposure, || PMPI_Win_wait(win)),
                fortran: win_wait plain (win) => epoch_closed(f_win(fp(win)), Epoch::Exposure, $call),
            }
            MPI_Win_test { role: Other, mode: None, entry: guarded,
                c: (win: MPI_Win, flag: *mut c_int) => epoch_tested(win, || c_flag(flag), || PMPI_Win_test(win, flag)),
                fortran: win_test f08direct (win, flag) => epoch_tested(f_win(fp(win)), || int(flag) != 0, $call),
            }
        ] }
    };
}
