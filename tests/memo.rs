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

/// tests/c/churn.c: 4000 sends from two call sites with 300 tags, so that each thread's
/// 64 memo entries are taken for other calls again and again; an entry holds its calls'
/// counts, bytes and time until then (`Entry::give_up_held`), and the reduce step adds
/// what entries still hold (`memo::held`). Every total must come out exact: the matrix,
/// the per-function totals, the cells (each histogram's calls equal to its count) and
/// the two call sites, and the time of MPI_Send alike in the cells, the call sites and
/// the per-function totals. Dropping what an entry held when it is taken (no
/// `give_up_held` in `fill`) left 64 of the 4000 messages in the matrix.
fn entries_taken_again(mpi: Mpi, name: &str) {
    let dir = scratch(name);
    let prog = compile(mpi, "churn.c", &[]);
    let report = dir.join("r.json");
    let r = Run::new(2, true)
        .env("LOGGP_REPORT", report.to_str().unwrap())
        .env("LOGGP_CALIBRATE", "off");
    let o = run(mpi, &r, &prog, &[], &dir);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    let bytes_of = |tag: u64| 8 * (1 + tag % 5);
    let want_bytes: u64 = (0..3000u64).map(|i| bytes_of(i * 7 % 300)).sum::<u64>()
        + (0..1000u64).map(|i| bytes_of(i * 13 % 300)).sum::<u64>();
    assert!(
        stdout(&o).contains(&format!("messages: 4000 bytes: {want_bytes} ")),
        "{name}: the program's own count: {}",
        stdout(&o)
    );
    let rep = read_report(&report);
    let m: Vec<_> = rep
        .matrix
        .iter()
        .filter(|e| (e.from, e.to) == (0, 1))
        .collect();
    assert_eq!(m.len(), 1, "{name}: {:?}", rep.matrix);
    assert_eq!(
        (m[0].messages, m[0].bytes),
        (4000, want_bytes),
        "{name}: the matrix"
    );
    assert!(
        m[0].send_time_ns > 0.0 && m[0].recv_time_ns > 0.0,
        "{name}: {:?}",
        m[0]
    );
    for (rank, f) in [(0, "MPI_Send"), (1, "MPI_Recv")] {
        let calls = rep
            .ranks
            .iter()
            .find(|r| r.rank == rank)
            .expect("rank")
            .calls[f];
        assert_eq!(
            (calls.count, calls.bytes),
            (4000, want_bytes),
            "{name}: {f}"
        );
        let cells: Vec<_> = rep.cells.iter().filter(|c| c.function == f).collect();
        let count: u64 = cells.iter().map(|c| c.count).sum();
        let bytes: u64 = cells.iter().map(|c| c.bytes).sum();
        let time: f64 = cells.iter().map(|c| c.time_ns).sum();
        assert_eq!((count, bytes), (4000, want_bytes), "{name}: {f}'s cells");
        assert!(
            (time - calls.time_ns).abs() <= 1e-6 * calls.time_ns,
            "{name}: {f}"
        );
        for c in &cells {
            let in_hist: u64 = c.hist.iter().map(|h| h[1]).sum();
            assert_eq!(in_hist, c.count, "{name}: {f}'s histogram: {c:?}");
            assert!(
                c.min_ns > 0.0 && c.min_ns * c.count as f64 <= c.time_ns * (1.0 + 1e-9),
                "{name}: {f}'s smallest duration: {c:?}"
            );
            assert!(
                c.smallest_bytes >= 8 && c.largest_bytes <= 40,
                "{name}: {c:?}"
            );
        }
        let sites: Vec<_> = rep
            .call_sites
            .sites
            .iter()
            .filter(|s| s.function == f)
            .collect();
        let mut counts: Vec<u64> = sites.iter().map(|s| s.count).collect();
        counts.sort_unstable();
        // Two send sites; one receive site for all.
        let want_sites = if f == "MPI_Send" {
            vec![1000, 3000]
        } else {
            vec![4000]
        };
        assert_eq!(counts, want_sites, "{name}: {f}'s call sites");
        let site_bytes: u64 = sites.iter().map(|s| s.bytes).sum();
        let site_time: f64 = sites.iter().map(|s| s.time_ns).sum();
        assert_eq!(site_bytes, want_bytes, "{name}: {f}'s call sites");
        assert!(
            (site_time - time).abs() <= 1e-6 * time,
            "{name}: {f}'s call sites"
        );
    }
}

#[test]
fn entries_taken_again_give_up_what_they_held_openmpi() {
    entries_taken_again(Mpi::OpenMpi, "memo_churn_openmpi");
}

#[test]
fn entries_taken_again_give_up_what_they_held_mpich() {
    entries_taken_again(Mpi::Mpich, "memo_churn_mpich");
}

#[test]
fn reused_handles_are_counted_right_openmpi() {
    handles_come_back(Mpi::OpenMpi, "memo_openmpi");
}

#[test]
fn reused_handles_are_counted_right_mpich() {
    handles_come_back(Mpi::Mpich, "memo_mpich");
}
