//! MPI_Pcontrol (MPI 4.0 §15.2.4), as mpiP and IPM read it: level 0 pauses the profile,
//! any other level resumes it. tests/c/pcontrol.c makes 80 profiled MPI_Sendrecv calls a
//! rank and 400 paused ones, in two pauses (one paused twice over, one resumed at level 2).
//! The report must count the 80 only, say on every rank that it was paused twice, warn
//! once, and the program's output (its return codes and the sums it received) must be as
//! without the shim. On both MPIs.
mod common;
use common::*;

fn check(mpi: Mpi) {
    let what = mpi.name();
    let dir = scratch(&format!("pcontrol_{what}"));
    let prog = compile(mpi, "pcontrol.c", &[]);
    let (plain, o, rep) = plain_and_profiled(mpi, 2, &prog, &dir, what);
    assert_eq!(sorted_lines(&o), sorted_lines(&plain), "{what}: output");
    for k in &rep.ranks {
        let calls = k.calls.get("MPI_Sendrecv").map_or(0, |c| c.count);
        assert_eq!(calls, 80, "{what}: rank {} MPI_Sendrecv counted", k.rank);
        let paused = k
            .paused
            .as_ref()
            .unwrap_or_else(|| panic!("{what}: rank {} not paused", k.rank));
        assert_eq!(paused.times, 2, "{what}: rank {} pauses", k.rank);
        assert!(
            paused.for_ns > 0.0,
            "{what}: rank {} paused for {}",
            k.rank,
            paused.for_ns
        );
    }
    let cells: u64 = rep
        .cells
        .iter()
        .filter(|c| c.function == "MPI_Sendrecv")
        .map(|c| c.count)
        .sum();
    assert_eq!(cells, 2 * 80, "{what}: MPI_Sendrecv in the cells");
    let warned: Vec<&String> = rep
        .warnings
        .iter()
        .filter(|w| w.starts_with("MPI_Pcontrol(0) paused profiling on 2 of 2 ranks (4 pauses"))
        .collect();
    assert_eq!(warned.len(), 1, "{what}: {:?}", rep.warnings);
}

#[test]
fn open_mpi_pcontrol_pauses_the_profile() {
    check(Mpi::OpenMpi);
}

#[test]
fn mpich_pcontrol_pauses_the_profile() {
    check(Mpi::Mpich);
}
