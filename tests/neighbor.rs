//! Issue 24 §1: the neighbourhood collectives, blocking and nonblocking, on a Cartesian
//! topology and on a distributed graph whose ranks differ in in- and out-degree
//! (tests/c/neighbor.c, 4 ranks), then on a 2 × 2 Cartesian topology that gets the
//! freed ring's handle (the topologies are cached by handle: with that cache kept across
//! the free, rank 2's MPI_Neighbor_allgather read 324 bytes of 396, and the test
//! failed). Per rank and function the report's count and bytes
//! must equal what the program computes from its own degrees, on both MPIs, and the
//! output must be as without the shim. Where the MPI has the persistent forms (MPICH
//! 4.0), their inits and each MPI_Start that starts them too.
mod common;
use common::*;

fn check(mpi: Mpi) {
    let what = mpi.name();
    let dir = scratch(&format!("neighbor_{what}"));
    let prog = compile(mpi, "neighbor.c", &[]);
    let (plain, o, rep) = plain_and_profiled(mpi, 4, &prog, &dir, what);
    assert_eq!(sorted_lines(&o), sorted_lines(&plain), "{what}: output");
    let mut seen = 0;
    let mut problems = vec![];
    for l in stdout(&o).lines().filter(|l| l.starts_with("EXPECT ")) {
        let f: Vec<&str> = l.split_whitespace().collect();
        let (rank, func): (u32, &str) = (f[1].parse().unwrap(), f[2]);
        let want: (u64, u64) = (f[3].parse().unwrap(), f[4].parse().unwrap());
        let k = rep.ranks.iter().find(|k| k.rank == rank).unwrap();
        let got = k.calls.get(func).map_or((0, 0), |c| (c.count, c.bytes));
        if got != want {
            problems.push(format!("rank {rank} {func}: {got:?}, called {want:?}"));
        }
        seen += 1;
    }
    // Persistent forms where the MPI has them (MPICH 4.0): 5 inits and MPI_Start.
    let want = if mpi == Mpi::Mpich { 40 + 24 } else { 40 };
    assert_eq!(seen, want, "{what}: functions × 4 ranks");
    assert!(problems.is_empty(), "{what}:\n{}", problems.join("\n"));
    // The waits' split matches every neighbourhood collective it keeps: each member's
    // entry reaches its out-neighbours, in the Cartesian ring and in the distributed
    // graph (whose ranks differ in in- and out-degree), blocking, nonblocking and
    // persistent alike (before the split took them in, 61 were kept and 1 matched, the
    // program's MPI_Reduce; then they were left out).
    for t in &rep.time_split {
        assert_eq!(
            t.sampled_collectives, t.matched_collectives,
            "{what}: rank {}",
            t.rank
        );
    }
}

#[test]
fn neighbourhood_collectives_openmpi() {
    check(Mpi::OpenMpi);
}

#[test]
fn neighbourhood_collectives_mpich() {
    check(Mpi::Mpich);
}
