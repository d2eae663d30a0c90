//! The rows of the I/O functions (see `table`; why they are counted: `rma.rs`), after
//! those handed in. MPI 4.0 §14: each call counted and timed with the data it names,
//! count × the size of its memory datatype (`record::hooks::counted`), as asked rather
//! than as done (a read past the end of the file moves less). MPI_File_open and the
//! blocking calls collective over a file's group (`file_collective`, `file_closed`) are
//! numbered and kept like collectives on the file's communicator, so that the waits'
//! split finds their arrival wait (`record::hooks::window`).

/// Expands `$consumer! { [call, ierr] <rows handed in> <these rows> }` (a Fortran column
/// here writes `$call`).
macro_rules! io_rows {
    ($consumer:ident, [$call:ident, $ierr:ident], [$($before:tt)*]) => {
        $consumer! {
            [$call, $ierr]
            $($before)*

            // File manipulation (§14.2) and views (§14.3). MPI_File_open and
            // MPI_File_set_view take a CHARACTER argument (style `chars`).
            MPI_File_open { role: Other, mode: None, entry: guarded,
                c: (comm: MPI_Comm, filename: *const c_char, amode: c_int, info: MPI_Info, fh: *mut MPI_File)
                    => file_opened(comm, || c_file(fh), || PMPI_File_open(comm, filename, amode, info, fh)),
                fortran: file_open chars (comm_, filename, amode, info, fh) => file_opened(comm(comm_), || f_file(fp(fh)), $call),
            }
            MPI_File_close { role: Other, mode: None, entry: guarded,
                c: (fh: *mut MPI_File)
                    => file_closed(|| c_file(fh), || PMPI_File_close(fh)),
                fortran: file_close plain (fh) => file_closed(|| f_file(fp(fh)), $call),
            }
            MPI_File_set_size { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, size: MPI_Offset)
                    => file_collective(fh, || 0, || PMPI_File_set_size(fh, size)),
                fortran: file_set_size plain (fh, size) => file_collective(f_file(fp(fh)), || 0, $call),
            }
            MPI_File_preallocate { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, size: MPI_Offset)
                    => file_collective(fh, || 0, || PMPI_File_preallocate(fh, size)),
                fortran: file_preallocate plain (fh, size) => file_collective(f_file(fp(fh)), || 0, $call),
            }
            MPI_File_sync { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File)
                    => file_collective(fh, || 0, || PMPI_File_sync(fh)),
                fortran: file_sync plain (fh) => file_collective(f_file(fp(fh)), || 0, $call),
            }
            MPI_File_set_view { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, disp: MPI_Offset, etype: MPI_Datatype, filetype: MPI_Datatype, datarep: *const c_char, info: MPI_Info)
                    => file_collective(fh, || 0, || PMPI_File_set_view(fh, disp, etype, filetype, datarep, info)),
                fortran: file_set_view chars (fh, disp, etype, filetype, datarep, info) => file_collective(f_file(fp(fh)), || 0, $call),
            }

            // The calls that read or set a file's state (§14.2.2-14.2.8, §14.4.3, §14.4.4,
            // §14.6.1): no data; MPI_File_seek_shared, MPI_File_set_info and
            // MPI_File_set_atomicity are collective over the file's group.
            MPI_File_delete { role: Other, mode: None, entry: guarded,
                c: (filename: *const c_char, info: MPI_Info)
                    => counted(|| 0, || PMPI_File_delete(filename, info)),
                fortran: file_delete chars (filename, info) => counted(|| 0, $call),
            }
            MPI_File_get_size { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, size: *mut MPI_Offset)
                    => counted(|| 0, || PMPI_File_get_size(fh, size)),
                fortran: file_get_size plain (fh, size) => counted(|| 0, $call),
            }
            MPI_File_set_info { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, info: MPI_Info)
                    => file_collective(fh, || 0, || PMPI_File_set_info(fh, info)),
                fortran: file_set_info plain (fh, info) => file_collective(f_file(fp(fh)), || 0, $call),
            }
            MPI_File_set_atomicity { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, flag: c_int)
                    => file_collective(fh, || 0, || PMPI_File_set_atomicity(fh, flag)),
                fortran: file_set_atomicity f08direct (fh, flag) => file_collective(f_file(fp(fh)), || 0, $call),
            }
            MPI_File_seek { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, offset: MPI_Offset, whence: c_int)
                    => counted(|| 0, || PMPI_File_seek(fh, offset, whence)),
                fortran: file_seek plain (fh, offset, whence) => counted(|| 0, $call),
            }
            MPI_File_seek_shared { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, offset: MPI_Offset, whence: c_int)
                    => file_collective(fh, || 0, || PMPI_File_seek_shared(fh, offset, whence)),
                fortran: file_seek_shared plain (fh, offset, whence) => file_collective(f_file(fp(fh)), || 0, $call),
            }
            MPI_File_get_position { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, offset: *mut MPI_Offset)
                    => counted(|| 0, || PMPI_File_get_position(fh, offset)),
                fortran: file_get_position plain (fh, offset) => counted(|| 0, $call),
            }
            MPI_File_get_position_shared { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, offset: *mut MPI_Offset)
                    => counted(|| 0, || PMPI_File_get_position_shared(fh, offset)),
                fortran: file_get_position_shared plain (fh, offset) => counted(|| 0, $call),
            }
            MPI_File_get_byte_offset { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, offset: MPI_Offset, disp: *mut MPI_Offset)
                    => counted(|| 0, || PMPI_File_get_byte_offset(fh, offset, disp)),
                fortran: file_get_byte_offset plain (fh, offset, disp) => counted(|| 0, $call),
            }

            // Explicit offsets (§14.4.2), blocking and nonblocking.
            MPI_File_read_at { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, offset: MPI_Offset, buf: *mut c_void, count: c_int, datatype: MPI_Datatype, status: *mut MPI_Status)
                    => counted(|| data(count, datatype), || PMPI_File_read_at(fh, offset, buf, count, datatype, status)),
                fortran: file_read_at ts (fh, offset, buf, count, datatype, status) => counted(|| data(int(count), dt(datatype)), $call),
            }
            MPI_File_read_at_all { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, offset: MPI_Offset, buf: *mut c_void, count: c_int, datatype: MPI_Datatype, status: *mut MPI_Status)
                    => file_collective(fh, || data(count, datatype), || PMPI_File_read_at_all(fh, offset, buf, count, datatype, status)),
                fortran: file_read_at_all ts (fh, offset, buf, count, datatype, status) => file_collective(f_file(fp(fh)), || data(int(count), dt(datatype)), $call),
            }
            MPI_File_write_at { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, offset: MPI_Offset, buf: *const c_void, count: c_int, datatype: MPI_Datatype, status: *mut MPI_Status)
                    => counted(|| data(count, datatype), || PMPI_File_write_at(fh, offset, buf, count, datatype, status)),
                fortran: file_write_at ts (fh, offset, buf, count, datatype, status) => counted(|| data(int(count), dt(datatype)), $call),
            }
            MPI_File_write_at_all { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, offset: MPI_Offset, buf: *const c_void, count: c_int, datatype: MPI_Datatype, status: *mut MPI_Status)
                    => file_collective(fh, || data(count, datatype), || PMPI_File_write_at_all(fh, offset, buf, count, datatype, status)),
                fortran: file_write_at_all ts (fh, offset, buf, count, datatype, status) => file_collective(f_file(fp(fh)), || data(int(count), dt(datatype)), $call),
            }
            MPI_File_iread_at { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, offset: MPI_Offset, buf: *mut c_void, count: c_int, datatype: MPI_Datatype, request: *mut MPI_Request)
                    => counted_request(|| data(count, datatype), c_req_out(request), || PMPI_File_iread_at(fh, offset, buf, count, datatype, request)),
                fortran: file_iread_at ts (fh, offset, buf, count, datatype, request) => counted_request(|| data(int(count), dt(datatype)), f_req_out(fp(request)), $call),
            }
            MPI_File_iread_at_all { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, offset: MPI_Offset, buf: *mut c_void, count: c_int, datatype: MPI_Datatype, request: *mut MPI_Request)
                    => file_icollective(fh, || data(count, datatype), c_req_out(request), || PMPI_File_iread_at_all(fh, offset, buf, count, datatype, request)),
                fortran: file_iread_at_all ts (fh, offset, buf, count, datatype, request) => file_icollective(f_file(fp(fh)), || data(int(count), dt(datatype)), f_req_out(fp(request)), $call),
            }
            MPI_File_iwrite_at { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, offset: MPI_Offset, buf: *const c_void, count: c_int, datatype: MPI_Datatype, request: *mut MPI_Request)
                    => counted_request(|| data(count, datatype), c_req_out(request), || PMPI_File_iwrite_at(fh, offset, buf, count, datatype, request)),
                fortran: file_iwrite_at ts (fh, offset, buf, count, datatype, request) => counted_request(|| data(int(count), dt(datatype)), f_req_out(fp(request)), $call),
            }
            MPI_File_iwrite_at_all { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, offset: MPI_Offset, buf: *const c_void, count: c_int, datatype: MPI_Datatype, request: *mut MPI_Request)
                    => file_icollective(fh, || data(count, datatype), c_req_out(request), || PMPI_File_iwrite_at_all(fh, offset, buf, count, datatype, request)),
                fortran: file_iwrite_at_all ts (fh, offset, buf, count, datatype, request) => file_icollective(f_file(fp(fh)), || data(int(count), dt(datatype)), f_req_out(fp(request)), $call),
            }

            // Individual file pointers (§14.4.3).
            MPI_File_read { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *mut c_void, count: c_int, datatype: MPI_Datatype, status: *mut MPI_Status)
                    => counted(|| data(count, datatype), || PMPI_File_read(fh, buf, count, datatype, status)),
                fortran: file_read ts (fh, buf, count, datatype, status) => counted(|| data(int(count), dt(datatype)), $call),
            }
            MPI_File_read_all { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *mut c_void, count: c_int, datatype: MPI_Datatype, status: *mut MPI_Status)
                    => file_collective(fh, || data(count, datatype), || PMPI_File_read_all(fh, buf, count, datatype, status)),
                fortran: file_read_all ts (fh, buf, count, datatype, status) => file_collective(f_file(fp(fh)), || data(int(count), dt(datatype)), $call),
            }
            MPI_File_write { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *const c_void, count: c_int, datatype: MPI_Datatype, status: *mut MPI_Status)
                    => counted(|| data(count, datatype), || PMPI_File_write(fh, buf, count, datatype, status)),
                fortran: file_write ts (fh, buf, count, datatype, status) => counted(|| data(int(count), dt(datatype)), $call),
            }
            MPI_File_write_all { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *const c_void, count: c_int, datatype: MPI_Datatype, status: *mut MPI_Status)
                    => file_collective(fh, || data(count, datatype), || PMPI_File_write_all(fh, buf, count, datatype, status)),
                fortran: file_write_all ts (fh, buf, count, datatype, status) => file_collective(f_file(fp(fh)), || data(int(count), dt(datatype)), $call),
            }
            MPI_File_iread { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *mut c_void, count: c_int, datatype: MPI_Datatype, request: *mut MPI_Request)
                    => counted_request(|| data(count, datatype), c_req_out(request), || PMPI_File_iread(fh, buf, count, datatype, request)),
                fortran: file_iread ts (fh, buf, count, datatype, request) => counted_request(|| data(int(count), dt(datatype)), f_req_out(fp(request)), $call),
            }
            MPI_File_iread_all { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *mut c_void, count: c_int, datatype: MPI_Datatype, request: *mut MPI_Request)
                    => file_icollective(fh, || data(count, datatype), c_req_out(request), || PMPI_File_iread_all(fh, buf, count, datatype, request)),
                fortran: file_iread_all ts (fh, buf, count, datatype, request) => file_icollective(f_file(fp(fh)), || data(int(count), dt(datatype)), f_req_out(fp(request)), $call),
            }
            MPI_File_iwrite { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *const c_void, count: c_int, datatype: MPI_Datatype, request: *mut MPI_Request)
                    => counted_request(|| data(count, datatype), c_req_out(request), || PMPI_File_iwrite(fh, buf, count, datatype, request)),
                fortran: file_iwrite ts (fh, buf, count, datatype, request) => counted_request(|| data(int(count), dt(datatype)), f_req_out(fp(request)), $call),
            }
            MPI_File_iwrite_all { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *const c_void, count: c_int, datatype: MPI_Datatype, request: *mut MPI_Request)
                    => file_icollective(fh, || data(count, datatype), c_req_out(request), || PMPI_File_iwrite_all(fh, buf, count, datatype, request)),
                fortran: file_iwrite_all ts (fh, buf, count, datatype, request) => file_icollective(f_file(fp(fh)), || data(int(count), dt(datatype)), f_req_out(fp(request)), $call),
            }

            // Shared file pointers (§14.4.4).
            MPI_File_read_shared { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *mut c_void, count: c_int, datatype: MPI_Datatype, status: *mut MPI_Status)
                    => counted(|| data(count, datatype), || PMPI_File_read_shared(fh, buf, count, datatype, status)),
                fortran: file_read_shared ts (fh, buf, count, datatype, status) => counted(|| data(int(count), dt(datatype)), $call),
            }
            MPI_File_write_shared { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *const c_void, count: c_int, datatype: MPI_Datatype, status: *mut MPI_Status)
                    => counted(|| data(count, datatype), || PMPI_File_write_shared(fh, buf, count, datatype, status)),
                fortran: file_write_shared ts (fh, buf, count, datatype, status) => counted(|| data(int(count), dt(datatype)), $call),
            }
            MPI_File_read_ordered { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *mut c_void, count: c_int, datatype: MPI_Datatype, status: *mut MPI_Status)
                    => file_collective(fh, || data(count, datatype), || PMPI_File_read_ordered(fh, buf, count, datatype, status)),
                fortran: file_read_ordered ts (fh, buf, count, datatype, status) => file_collective(f_file(fp(fh)), || data(int(count), dt(datatype)), $call),
            }
            MPI_File_write_ordered { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *const c_void, count: c_int, datatype: MPI_Datatype, status: *mut MPI_Status)
                    => file_collective(fh, || data(count, datatype), || PMPI_File_write_ordered(fh, buf, count, datatype, status)),
                fortran: file_write_ordered ts (fh, buf, count, datatype, status) => file_collective(f_file(fp(fh)), || data(int(count), dt(datatype)), $call),
            }
            MPI_File_iread_shared { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *mut c_void, count: c_int, datatype: MPI_Datatype, request: *mut MPI_Request)
                    => counted_request(|| data(count, datatype), c_req_out(request), || PMPI_File_iread_shared(fh, buf, count, datatype, request)),
                fortran: file_iread_shared ts (fh, buf, count, datatype, request) => counted_request(|| data(int(count), dt(datatype)), f_req_out(fp(request)), $call),
            }
            MPI_File_iwrite_shared { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *const c_void, count: c_int, datatype: MPI_Datatype, request: *mut MPI_Request)
                    => counted_request(|| data(count, datatype), c_req_out(request), || PMPI_File_iwrite_shared(fh, buf, count, datatype, request)),
                fortran: file_iwrite_shared ts (fh, buf, count, datatype, request) => counted_request(|| data(int(count), dt(datatype)), f_req_out(fp(request)), $call),
            }

            // Split collective data access (§14.4.5): the begin call names the data, the end
            // call completes it. The begin call is split as a collective: ROMIO (MPICH) and
            // ompio (Open MPI) do the collective there, and a member that enters it early
            // waits there (rank 1 entering 1 ms late: rank 0's MPI_File_write_all_begin
            // took 1.008 ms under MPICH, its _end 0; MPI_File_write_ordered_begin 1.012 ms
            // under both).
            MPI_File_read_at_all_begin { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, offset: MPI_Offset, buf: *mut c_void, count: c_int, datatype: MPI_Datatype)
                    => file_collective(fh, || data(count, datatype), || PMPI_File_read_at_all_begin(fh, offset, buf, count, datatype)),
                fortran: file_read_at_all_begin ts (fh, offset, buf, count, datatype) => file_collective(f_file(fp(fh)), || data(int(count), dt(datatype)), $call),
            }
            MPI_File_read_at_all_end { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *mut c_void, status: *mut MPI_Status)
                    => counted(|| 0, || PMPI_File_read_at_all_end(fh, buf, status)),
                fortran: file_read_at_all_end ts (fh, buf, status) => counted(|| 0, $call),
            }
            MPI_File_write_at_all_begin { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, offset: MPI_Offset, buf: *const c_void, count: c_int, datatype: MPI_Datatype)
                    => file_collective(fh, || data(count, datatype), || PMPI_File_write_at_all_begin(fh, offset, buf, count, datatype)),
                fortran: file_write_at_all_begin ts (fh, offset, buf, count, datatype) => file_collective(f_file(fp(fh)), || data(int(count), dt(datatype)), $call),
            }
            MPI_File_write_at_all_end { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *const c_void, status: *mut MPI_Status)
                    => counted(|| 0, || PMPI_File_write_at_all_end(fh, buf, status)),
                fortran: file_write_at_all_end ts (fh, buf, status) => counted(|| 0, $call),
            }
            MPI_File_read_all_begin { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *mut c_void, count: c_int, datatype: MPI_Datatype)
                    => file_collective(fh, || data(count, datatype), || PMPI_File_read_all_begin(fh, buf, count, datatype)),
                fortran: file_read_all_begin ts (fh, buf, count, datatype) => file_collective(f_file(fp(fh)), || data(int(count), dt(datatype)), $call),
            }
            MPI_File_read_all_end { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *mut c_void, status: *mut MPI_Status)
                    => counted(|| 0, || PMPI_File_read_all_end(fh, buf, status)),
                fortran: file_read_all_end ts (fh, buf, status) => counted(|| 0, $call),
            }
            MPI_File_write_all_begin { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *const c_void, count: c_int, datatype: MPI_Datatype)
                    => file_collective(fh, || data(count, datatype), || PMPI_File_write_all_begin(fh, buf, count, datatype)),
                fortran: file_write_all_begin ts (fh, buf, count, datatype) => file_collective(f_file(fp(fh)), || data(int(count), dt(datatype)), $call),
            }
            MPI_File_write_all_end { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *const c_void, status: *mut MPI_Status)
                    => counted(|| 0, || PMPI_File_write_all_end(fh, buf, status)),
                fortran: file_write_all_end ts (fh, buf, status) => counted(|| 0, $call),
            }
            MPI_File_read_ordered_begin { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *mut c_void, count: c_int, datatype: MPI_Datatype)
                    => file_collective(fh, || data(count, datatype), || PMPI_File_read_ordered_begin(fh, buf, count, datatype)),
                fortran: file_read_ordered_begin ts (fh, buf, count, datatype) => file_collective(f_file(fp(fh)), || data(int(count), dt(datatype)), $call),
            }
            MPI_File_read_ordered_end { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *mut c_void, status: *mut MPI_Status)
                    => counted(|| 0, || PMPI_File_read_ordered_end(fh, buf, status)),
                fortran: file_read_ordered_end ts (fh, buf, status) => counted(|| 0, $call),
            }
            MPI_File_write_ordered_begin { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *const c_void, count: c_int, datatype: MPI_Datatype)
                    => file_collective(fh, || data(count, datatype), || PMPI_File_write_ordered_begin(fh, buf, count, datatype)),
                fortran: file_write_ordered_begin ts (fh, buf, count, datatype) => file_collective(f_file(fp(fh)), || data(int(count), dt(datatype)), $call),
            }
            MPI_File_write_ordered_end { role: Other, mode: None, entry: guarded,
                c: (fh: MPI_File, buf: *const c_void, status: *mut MPI_Status)
                    => counted(|| 0, || PMPI_File_write_ordered_end(fh, buf, status)),
                fortran: file_write_ordered_end ts (fh, buf, status) => counted(|| 0, $call),
            }
        }
    };
}
