//! The rows the collective model leaves unpriced or cannot check, and what `advise`
//! makes of them: one rank, a count of 0, calls after a pause.

/// A collective on one rank is neither priced nor advised (hpcc's 1-rank Allreduce was
/// advised `coll_tuned_allreduce_algorithm=1`, which coll tuned never sees there); the
/// same collective on two ranks keeps its algorithm in use.
#[test]
fn a_one_rank_collective_is_not_priced_or_advised() {
    use loggp_report::{Cell, Mode, Report};
    let cell = |n: u32| Cell {
        function: "MPI_Allreduce".into(),
        mode: Mode::Collective,
        comm_size: Some(n),
        size_bin: loggp_report::bins::size_bin(8),
        count: 10,
        bytes: 80,
        time_ns: 10_000.0,
        min_ns: 900.0,
        hist: vec![[loggp_report::bins::hist_index(1000) as u64, 10]],
        ..Default::default()
    };
    let mut r = Report {
        cells: vec![cell(1), cell(2)],
        ..Default::default()
    };
    r.collective_config.decider = "openmpi_tuned".into();
    let rows = crate::coll::rows(&r);
    let one = rows.iter().find(|x| x.comm_size == 1).unwrap();
    assert_eq!(one.algorithm, None);
    assert!(one.alternatives.is_empty() && one.best.is_none());
    assert!(one
        .note
        .as_deref()
        .unwrap()
        .starts_with(crate::coll::ONE_RANK));
    let two = rows.iter().find(|x| x.comm_size == 2).unwrap();
    assert!(two.algorithm.is_some(), "{two:?}");
    r.collective_model = rows;
    let advice = crate::advise::algorithm_advice(&r);
    assert!(advice.iter().all(|a| a.comm_size > 1) && !advice.is_empty());
}

/// A collective of count 0 is neither priced nor advised where the MPI returns from it at
/// once (hpcc's 0-byte MPI_Bcast on 2 ranks was priced 307 ns against 11 ns measured):
/// Open MPI's MPI_Bcast and MPI_Allreduce, MPICH's MPI_Bcast; MPICH's MPI_Allreduce of
/// count 0 exchanges messages and stays priced, and so does every 8-byte row.
#[test]
fn a_count_0_collective_the_mpi_skips_is_not_priced_or_advised() {
    use loggp_report::{Cell, Mode, Report};
    let cell = |function: &str, bytes: u64| Cell {
        function: function.into(),
        mode: Mode::Collective,
        comm_size: Some(2),
        size_bin: loggp_report::bins::size_bin(bytes),
        count: 10,
        bytes: 10 * bytes,
        time_ns: 10_000.0,
        min_ns: 900.0,
        hist: vec![[loggp_report::bins::hist_index(1000) as u64, 10]],
        ..Default::default()
    };
    for (flavor, decider, allreduce_skipped) in [
        ("openmpi", "openmpi_tuned", true),
        ("mpich", "mpich", false),
    ] {
        let mut r = Report {
            cells: vec![
                cell("MPI_Bcast", 0),
                cell("MPI_Bcast", 8),
                cell("MPI_Allreduce", 0),
                cell("MPI_Allreduce", 16),
            ],
            ..Default::default()
        };
        r.job.mpi_flavor = flavor.into();
        r.job.mpi_library = if flavor == "mpich" {
            "MPICH Version:\t4.0.2".into()
        } else {
            "Open MPI v4.1.4".into()
        };
        r.collective_config.decider = decider.into();
        let rows = crate::coll::rows(&r);
        let row = |f: &str, lo: u64| {
            rows.iter()
                .find(|x| x.function == f && x.size_lo_bytes == lo)
                .unwrap_or_else(|| panic!("{flavor}: no {f} row from {lo} B: {rows:?}"))
        };
        let skipped = |x: &loggp_report::CollectiveModel| {
            x.algorithm.is_none()
                && x.alternatives.is_empty()
                && crate::coll::nothing_at_count_0(&r, x)
                && (x.note.as_deref())
                    .is_some_and(|n| n.starts_with(crate::coll::NOTHING_AT_COUNT_0))
        };
        assert!(
            skipped(row("MPI_Bcast", 0)),
            "{flavor}: {:?}",
            row("MPI_Bcast", 0)
        );
        assert_eq!(
            skipped(row("MPI_Allreduce", 0)),
            allreduce_skipped,
            "{flavor}"
        );
        for (f, hi) in [("MPI_Bcast", 8), ("MPI_Allreduce", 16)] {
            assert!(
                row(f, hi).algorithm.is_some() && !skipped(row(f, hi)),
                "{flavor}: {:?}",
                row(f, hi)
            );
        }
        r.collective_model = rows;
        for a in crate::advise::algorithm_advice(&r) {
            assert!(
                a.in_use.iter().all(|u| !u.starts_with("0..0 B")),
                "{flavor}: {a:?}"
            );
        }
    }
}

/// A row whose calls all came after a pause (too few back to back to measure without
/// them) is not told that the model misses its algorithm: the model is priced back to
/// back and cannot be checked there (hpcc's 320-byte MPI_Allreduce, 1 of 1 call after a
/// pause, 9.83 µs against 754 ns). With enough back-to-back calls the same prices miss.
#[test]
fn a_row_measured_only_after_pauses_is_not_said_to_miss() {
    let mut row = loggp_report::CollectiveModel {
        function: "MPI_Allreduce".into(),
        comm_size: 2,
        size_lo_bytes: 320,
        size_hi_bytes: 351,
        algorithm: Some("recursive_doubling".into()),
        predicted_ns: Some(754.0),
        measured_ns: Some(9830.0),
        calls_matched: 1,
        calls_after_pause: Some(1),
        ..Default::default()
    };
    let e = super::algorithm::holds(&row, false).unwrap_err();
    assert!(
        e.contains("cannot be checked") && e.contains("1 of its 1 calls"),
        "{e}"
    );
    row.calls_matched = 40;
    let e = super::algorithm::holds(&row, false).unwrap_err();
    assert!(e.contains("does not hold"), "{e}");
}
