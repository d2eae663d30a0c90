//! Each thread's memory of its recent blocking calls (`src/record/memo.rs`, kept for the
//! hot-path budget) must not outlive what it remembers: tests/c/reuse.c frees a
//! communicator and a datatype and gets both handles back for others (another order of
//! members, another size), sending from the same call site before and after. The
//! matrix, the per-function totals and the cells must count every message to its real
//! peer with its real size, on both MPIs. Breaking the communicator's invalidation (no
//! `peers::epoch` change in `peers::forget`) sends the split's 5 messages to world rank 2
//! in the matrix, which this test catches.
mod common;
use common::*;
use std::collections::BTreeMap;

fn handles_come_back(mpi: Mpi, name: &str) {
    let dir = scratch(name);
    let prog = compile(mpi, "reuse.c", &[]);
    let report = dir.join("r.json");
    let plain = run(mpi, &Run::new(3, false), &prog, &[], &dir);
    assert!(plain.status.success(), "{name}: {}", stderr(&plain));
    let r = Run::new(3, true)
        .env("LOGGP_REPORT", report.to_str().unwrap())
        .env("LOGGP_CALIBRATE", "off");
    let o = run(mpi, &r, &prog, &[], &dir);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    assert_eq!(stdout(&o), stdout(&plain), "{name}: the program's output");
    // Without a handle that comes back, the property is not tested: fail, not pass.
    assert!(
        stdout(&o).contains("communicator handle reused: 1")
            && stdout(&o).contains("datatype handle reused: 1"),
        "{name}: this MPI gave no handle back, so nothing was tested: {}",
        stdout(&o)
    );
    let rep = read_report(&report);
    let matrix: BTreeMap<(u32, u32), (u64, u64)> = rep
        .matrix
        .iter()
        .filter(|e| e.messages > 0)
        .map(|e| ((e.from, e.to), (e.messages, e.bytes)))
        .collect();
    let want = BTreeMap::from([((0, 1), (5 + 3 + 3, 500 + 12 + 48)), ((0, 2), (3, 300))]);
    assert_eq!(matrix, want, "{name}: the matrix");
    let rank0 = rep.ranks.iter().find(|r| r.rank == 0).expect("rank 0");
    let send = &rank0.calls["MPI_Send"];
    assert_eq!(
        (send.count, send.bytes),
        (14, 860),
        "{name}: rank 0's MPI_Send"
    );
    // Each size in its own cell: 8 × 100 B, 3 × 4 B, 3 × 16 B, over both receivers too.
    for f in ["MPI_Send", "MPI_Recv"] {
        let mut sizes: BTreeMap<u64, u64> = BTreeMap::new();
        for c in rep.cells.iter().filter(|c| c.function == f) {
            assert_eq!(
                c.smallest_bytes, c.largest_bytes,
                "{name}: one size per cell here: {c:?}"
            );
            *sizes.entry(c.smallest_bytes).or_default() += c.count;
        }
        assert_eq!(
            sizes,
            BTreeMap::from([(4, 3), (16, 3), (100, 8)]),
            "{name}: {f} by size"
        );
    }
}

#[test]
fn reused_handles_are_counted_right_openmpi() {
    handles_come_back(Mpi::OpenMpi, "memo_openmpi");
}

#[test]
fn reused_handles_are_counted_right_mpich() {
    handles_come_back(Mpi::Mpich, "memo_mpich");
}
