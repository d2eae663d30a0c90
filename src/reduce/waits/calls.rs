//! Which calls' time the waits' split divides, by kind (see the parent module).

/// The point-to-point calls whose time the split divides: the blocking ones, and the
/// Wait and Test calls that complete nonblocking messages (a Wait that completes several
/// requests, among them nonblocking collectives, or untracked requests is in this time
/// too, and is taken to split as the sampled ones do; one that completes one nonblocking
/// collective is the collectives', `NONBLOCKING_COLLECTIVES`).
pub(super) const MESSAGE_CALLS: &[&str] = &[
    "MPI_Wait",
    "MPI_Waitall",
    "MPI_Waitany",
    "MPI_Waitsome",
    // Test calls poll: a message they complete was waited for from the first poll
    // (`record::hooks::complete::polled_since`); the polls that complete nothing are in
    // this time too, but for those of a nonblocking collective that a call then completed
    // alone (`completion::COLLECTIVE_POLL_TICKS`), which are the collectives'.
    "MPI_Test",
    "MPI_Testall",
    "MPI_Testany",
    "MPI_Testsome",
    "MPI_Send",
    "MPI_Ssend",
    "MPI_Bsend",
    "MPI_Rsend",
    "MPI_Recv",
    "MPI_Sendrecv",
    "MPI_Sendrecv_replace",
    // A probe and the blocking receive of what it found: the receive waits from the
    // probe's entry, or from the first of polling ones (`hooks::probe::probe_polled_since`).
    "MPI_Mprobe",
    "MPI_Probe",
    "MPI_Mrecv",
    "MPI_Iprobe",
    "MPI_Improbe",
    "MPI_Mrecv_c",
    "MPI_Send_c",
    "MPI_Ssend_c",
    "MPI_Bsend_c",
    "MPI_Rsend_c",
    "MPI_Recv_c",
    "MPI_Sendrecv_c",
    "MPI_Sendrecv_replace_c",
];
/// The blocking collectives whose time the split divides (a neighbourhood collective's
/// arrival wait ends at its last in-neighbour's entry, `colls::neighbourhoods`), and the
/// communicator constructors, collective over the communicator they start from (MPI 4.0
/// §7.4.2, §8.5): a member that enters MPI_Comm_split early waits there for the last;
/// and MPI_Win_fence and the collective I/O calls (`loggp_report::SPLIT_AS_COLLECTIVES`).
const COLLECTIVE_CALLS: &[&str] = &[
    "MPI_Barrier",
    "MPI_Bcast",
    "MPI_Gather",
    "MPI_Gatherv",
    "MPI_Scatter",
    "MPI_Scatterv",
    "MPI_Allgather",
    "MPI_Allgatherv",
    "MPI_Alltoall",
    "MPI_Alltoallv",
    "MPI_Alltoallw",
    "MPI_Reduce",
    "MPI_Allreduce",
    "MPI_Reduce_scatter",
    "MPI_Reduce_scatter_block",
    "MPI_Scan",
    "MPI_Exscan",
    "MPI_Neighbor_allgather",
    "MPI_Neighbor_allgatherv",
    "MPI_Neighbor_alltoall",
    "MPI_Neighbor_alltoallv",
    "MPI_Neighbor_alltoallw",
    "MPI_Comm_dup",
    "MPI_Comm_dup_with_info",
    "MPI_Comm_split",
    "MPI_Comm_split_type",
    "MPI_Comm_create",
    "MPI_Cart_create",
    "MPI_Cart_sub",
    "MPI_Graph_create",
    "MPI_Dist_graph_create",
    "MPI_Dist_graph_create_adjacent",
    "MPI_Comm_create_group",
    "MPI_Intercomm_create",
    "MPI_Intercomm_merge",
    "MPI_Comm_spawn",
    "MPI_Comm_spawn_multiple",
    "MPI_Comm_accept",
    "MPI_Comm_connect",
    "MPI_Comm_disconnect",
];

pub(super) fn is_collective(name: &str) -> bool {
    COLLECTIVE_CALLS.contains(&name.trim_end_matches("_c"))
        || loggp_report::SPLIT_AS_COLLECTIVES.contains(&name)
}

/// The nonblocking and persistent collectives whose completion the split divides
/// (MPI_Iallreduce, …: the blocking ones' names with an I; MPI_Allreduce_init, …, each
/// MPI_Start of one numbered as a call; neighbourhood ones too). Their time is that of the Wait and Test calls that completed one of them
/// (the cells of mode `collective` of those calls): the start itself is in `other_ns`,
/// as a nonblocking send's is. The nonblocking collective I/O calls too
/// (`loggp_report::SPLIT_AS_NONBLOCKING_COLLECTIVES`).
pub(super) fn is_nonblocking_collective(name: &str) -> bool {
    let name = name.trim_end_matches("_c");
    match name.strip_suffix("_init") {
        Some(blocking) => COLLECTIVE_CALLS.contains(&blocking.trim_end_matches("_c")),
        None => {
            NONBLOCKING_COLLECTIVE_CALLS.contains(&name)
                || loggp_report::SPLIT_AS_NONBLOCKING_COLLECTIVES.contains(&name)
        }
    }
}

const NONBLOCKING_COLLECTIVE_CALLS: &[&str] = &[
    "MPI_Ibarrier",
    "MPI_Ibcast",
    "MPI_Igather",
    "MPI_Igatherv",
    "MPI_Iscatter",
    "MPI_Iscatterv",
    "MPI_Iallgather",
    "MPI_Iallgatherv",
    "MPI_Ialltoall",
    "MPI_Ialltoallv",
    "MPI_Ialltoallw",
    "MPI_Ireduce",
    "MPI_Iallreduce",
    "MPI_Ireduce_scatter",
    "MPI_Ireduce_scatter_block",
    "MPI_Iscan",
    "MPI_Iexscan",
    "MPI_Ineighbor_allgather",
    "MPI_Ineighbor_allgatherv",
    "MPI_Ineighbor_alltoall",
    "MPI_Ineighbor_alltoallv",
    "MPI_Ineighbor_alltoallw",
    "MPI_Comm_idup",
];
