use super::raw_share::*;
use super::standout::*;
use super::switch::*;
use crate::stats::{median, Rng};
use crate::Settings;
use loggp_report::{Bin, CalibrationSet, Mode, PeerClass, Point, Report, Threshold};

use loggp_report::{Passive, RawSet, Setting};

/// A calibration with eager PRTT(1,0,s) = 800 + 0.1 s up to 4040 and rendezvous
/// 5000 + 0.1 s above (ground truth §3 style), 5 repetitions with ±2 % jitter.
fn report(sizes_sent: &[(u64, u64)]) -> Report {
    let mut rng = Rng::new(9);
    let mut points = vec![];
    let mut s = 1.0f64;
    while s <= 65536.0 {
        let size = s.round() as u64;
        let truth = if size <= 4040 { 800.0 } else { 5000.0 } + 0.1 * size as f64;
        let reps: Vec<f64> = (0..5).map(|_| truth * (1.0 + 0.02 * rng.sym())).collect();
        points.push(Point {
            size_bytes: size,
            prtt_1_0_reps_ns: reps,
            ..Default::default()
        });
        s *= 2f64.powf(0.25);
    }
    let mut r = Report::default();
    r.job.mpi_flavor = "openmpi".into();
    r.calibration.mpi.push(CalibrationSet {
        peer_class: PeerClass::IntraNode,
        mode: Mode::Send,
        switches_bytes: vec![256, 4040],
        points,
        ..Default::default()
    });
    r.thresholds.push(Threshold {
        peer_class: PeerClass::IntraNode,
        mode: Mode::Send,
        active_bytes: Some(4040),
        setting: Some(Setting {
            name: "btl_vader_eager_limit".into(),
            value: Some(4096),
            text: "4096".into(),
            ..Default::default()
        }),
        ..Default::default()
    });
    r.passive.push(Passive {
        peer_class: PeerClass::IntraNode,
        mode: Mode::Send,
        bins: sizes_sent
            .iter()
            .map(|&(size, count)| Bin {
                smallest_bytes: size,
                largest_bytes: size,
                count,
                mean_ns: Some(1000.0),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    });
    r
}

/// The raw transport's round trips are half MPI's at every size: MPI's share is 50 %,
/// inside its interval, and the interval is a proper one.
#[test]
fn raw_share_at_half_the_round_trip_is_half_with_its_interval() {
    let mut r = report(&[(100, 500), (2000, 500)]);
    for p in &mut r.calibration.mpi[0].points {
        p.prtt_1_0_ns = median(&p.prtt_1_0_reps_ns);
    }
    let mut raw = RawSet {
        transport: "shm".into(),
        peer_class: PeerClass::IntraNode,
        status: "done".into(),
        points: r.calibration.mpi[0].points.clone(),
        ..Default::default()
    };
    for p in &mut raw.points {
        p.prtt_1_0_reps_ns.iter_mut().for_each(|v| *v /= 2.0);
        p.prtt_1_0_ns = median(&p.prtt_1_0_reps_ns);
    }
    r.calibration.raw.push(raw);
    let share = raw_share(&r, &Settings::default());
    assert_eq!(share.len(), 1);
    let x = &share[0];
    assert_eq!((x.messages, x.messages_not_priced), (1000, 0));
    let v = x.mpi_share.unwrap();
    assert!((v - 0.5).abs() < 0.02, "{v}");
    let [lo, hi] = x.mpi_share_ci.unwrap();
    assert!(lo <= v && v <= hi && lo < hi && hi - lo < 0.1, "{lo} {hi}");
}

#[test]
fn advises_the_value_that_makes_the_jobs_messages_eager_and_prices_it() {
    let (a, _) = advise(&report(&[(6000, 1000), (100, 50)]), &Settings::default());
    let a = &a[0];
    assert!(a.advised, "{a:?}");
    let v = a.setting.as_ref().unwrap().value.unwrap();
    assert_eq!(v, 6056);
    // The truth: 1000 × (5000 − 800) = 4.2 ms.
    let est = a.predicted_saving_ns.unwrap();
    assert!((est - 4.2e6).abs() < 0.1 * 4.2e6, "{est}");
    let [lo, hi] = a.predicted_saving_ns_ci.unwrap();
    assert!(lo <= est && est <= hi && lo > 0.0);
    assert!(a
        .command
        .as_ref()
        .unwrap()
        .contains("btl_vader_eager_limit 6056"));
}

/// The halo's MPI_Isend messages of the advised sizes: not priced, and said so.
#[test]
fn isend_messages_the_advice_also_turns_eager_are_named() {
    let mut r = report(&[(6000, 1000), (2000, 1000)]);
    let mut isend = r.passive[0].clone();
    isend.mode = Mode::Isend;
    r.passive.push(isend);
    let (a, _) = advise(&r, &Settings::default());
    assert!(a[0].advised, "{:#?}", a[0]);
    let note = a[0].notes.iter().find(|n| n.contains("mode isend"));
    assert!(
        note.is_some_and(|n| n.starts_with("1000 messages of 4041–6000 B")),
        "{:?}",
        a[0].notes
    );
}

#[test]
fn no_change_where_everything_is_eager_or_beyond_what_was_measured() {
    let (a, _) = advise(&report(&[(2000, 1000)]), &Settings::default());
    assert!(!a[0].advised);
    assert!(a[0].notes[0].contains("already eager"), "{:?}", a[0].notes);
    // 40000 B: more than twice the largest eager size measured — not priced.
    let (a, _) = advise(&report(&[(40000, 1000)]), &Settings::default());
    assert!(!a[0].advised);
    assert!(
        a[0].notes.iter().any(|n| n.contains("not priced")),
        "{:?}",
        a[0].notes
    );
}

#[test]
fn a_rank_far_from_the_others_stands_out_and_noise_does_not() {
    let mut r = Report::default();
    for (k, t) in [100.0, 104.0, 98.0, 101.0, 99.0, 103.0, 102.0, 300.0]
        .iter()
        .enumerate()
    {
        r.ranks.push(loggp_report::RankEntry {
            rank: k as u32,
            time_in_mpi_ns: t * 1e6,
            ..Default::default()
        });
    }
    let s = standout_ranks(&r);
    assert_eq!(s.len(), 1, "{s:?}");
    assert_eq!(s[0].rank, 7);
    r.ranks[7].time_in_mpi_ns = 106e6;
    assert!(standout_ranks(&r).is_empty());
    r.ranks.truncate(3);
    assert!(standout_ranks(&r).is_empty(), "too few ranks to say");
}

/// A 2-rank MPI_Allreduce forced to basic_linear, 100 calls of one size bin; the model
/// prices basic_linear at 1000 ns and recursive doubling at 600 ns for each member.
fn allreduce_report(measured_costs: &[f64]) -> Report {
    use loggp_report::{AlgorithmCost, Cell, CollectiveModel, CollectiveSplit};
    let cost = |name: &str, ns: f64, force: &str| AlgorithmCost {
        algorithm: name.into(),
        force: force.into(),
        predicted_ns: ns,
        predicted_ns_ci: Some([ns - 50.0, ns + 50.0]),
        predicted_member_mean_ns: Some(ns),
        predicted_member_mean_ns_ci: Some([ns - 50.0, ns + 50.0]),
        predicted_as_entered_ns: None,
    };
    let mut r = Report::default();
    r.collective_model.push(CollectiveModel {
        function: "MPI_Allreduce".into(),
        comm_size: 2,
        size_lo_bytes: 4096,
        size_hi_bytes: 4607,
        message_bytes: 4096,
        algorithm: Some("basic_linear".into()),
        algorithm_source: Some("forced".into()),
        predicted_ns: Some(1000.0),
        predicted_ns_ci: Some([950.0, 1050.0]),
        measured_ns: Some(820.0),
        alternatives: vec![
            cost("basic_linear", 1000.0, "x=1"),
            cost("recursive_doubling", 600.0, "x=3"),
        ],
        ..Default::default()
    });
    r.cells.push(Cell {
        function: "MPI_Allreduce".into(),
        mode: Mode::Collective,
        size_bin: loggp_report::bins::size_bin(4096),
        comm_size: Some(2),
        count: 200,
        ..Default::default()
    });
    for (rank, &c) in measured_costs.iter().enumerate() {
        r.waits.collectives.push(CollectiveSplit {
            rank: rank as u32,
            function: "MPI_Allreduce".into(),
            comm_size: 2,
            size_lo_bytes: 4096,
            size_hi_bytes: 4607,
            calls_matched: 100,
            cost_ns: c,
            cost_ns_ci: Some([c - 20.0, c + 20.0]),
            ..Default::default()
        });
    }
    r
}

/// The saving of a forced algorithm is what the job pays now, measured by its time
/// split, times the share of it the model's prices say the candidate saves; without a
/// measured cost, both sides are the model's.
#[test]
fn algorithm_saving_is_the_models_share_of_the_measured_cost_in_use() {
    let r = allreduce_report(&[800.0, 820.0]);
    let a = &super::algorithm_advice(&r)[0];
    assert!(a.advised, "{a:?}");
    assert!(a.in_use_measured);
    assert_eq!(a.algorithm.as_deref(), Some("recursive_doubling"));
    // 100 calls × 810 measured × (1 − 600 / 1000); the interval: the ratio's bounds
    // (550 / 950 and 650 / 1050) and the measured ± 20, in quadrature.
    let est = a.predicted_saving_ns.unwrap();
    assert!((est - 32_400.0).abs() < 1e-6, "{est}");
    let at = |m: f64, q: f64, p: f64| 100.0 * m * (1.0 - q / p);
    let down = (est - at(810.0, 650.0, 1050.0)).hypot(est - at(790.0, 600.0, 1000.0));
    let up = (at(810.0, 550.0, 950.0) - est).hypot(at(830.0, 600.0, 1000.0) - est);
    let [lo, hi] = a.predicted_saving_ns_ci.unwrap();
    assert!((lo - (est - down)).abs() < 1e-6, "{lo}");
    assert!((hi - (est + up)).abs() < 1e-6, "{hi}");
    // A model that prices the algorithm in use high (1000 against 550 measured) is
    // trusted where the saving starts from the measured cost, and its share (0.4) is
    // taken at the level measured; one that prices it low (1000 against 1400) is not.
    let mut r = allreduce_report(&[540.0, 560.0]);
    r.collective_model[0].measured_ns = Some(550.0);
    let a = &super::algorithm_advice(&r)[0];
    assert!(a.advised && a.in_use_measured, "{a:?}");
    assert!((a.predicted_saving_ns.unwrap() - 22_000.0).abs() < 1e-6);
    let mut r = allreduce_report(&[700.0, 720.0]);
    r.collective_model[0].measured_ns = Some(600.0);
    let a = &super::algorithm_advice(&r)[0];
    assert!(a.advised && a.in_use_measured, "{a:?}");
    assert!((a.predicted_saving_ns.unwrap() - 28_400.0).abs() < 1e-6);
    let mut r = allreduce_report(&[1390.0, 1410.0]);
    r.collective_model[0].measured_ns = Some(1400.0);
    let a = &super::algorithm_advice(&r)[0];
    assert!(!a.advised, "{a:?}");
    assert!(a.notes.iter().any(|n| n.contains("does not hold")), "{a:?}");
    // No time split: the model's prices on both sides.
    let r = allreduce_report(&[]);
    let a = &super::algorithm_advice(&r)[0];
    assert!(a.advised && !a.in_use_measured, "{a:?}");
    assert!((a.predicted_saving_ns.unwrap() - 40_000.0).abs() < 1e-6);
}

/// Where the model misses the algorithm in use and that algorithm is also the cheapest
/// it prices, the note says so, not that the candidate "runs the same schedule" as
/// itself.
#[test]
fn a_missed_algorithm_that_is_the_cheapest_is_not_its_own_fallback() {
    let mut r = allreduce_report(&[1390.0, 1410.0]);
    let x = &mut r.collective_model[0];
    x.algorithm = Some("recursive_doubling".into());
    x.algorithm_source = Some("fixed rules".into());
    x.predicted_ns = Some(600.0);
    x.measured_ns = Some(1400.0);
    let a = &super::algorithm_advice(&r)[0];
    assert!(!a.advised, "{a:?}");
    assert!(
        a.notes
            .iter()
            .any(|n| n.contains("(recursive_doubling, its measured cost off its price by more than 30 %), which is also the cheapest")),
        "{a:?}"
    );
    assert!(
        !a.notes.iter().any(|n| n.contains("runs the same schedule")),
        "{a:?}"
    );
}

fn bcast_row(lo: u64, hi: u64, alg: &str) -> loggp_report::CollectiveModel {
    loggp_report::CollectiveModel {
        function: "MPI_Bcast".into(),
        comm_size: 2,
        size_lo_bytes: lo,
        size_hi_bytes: hi,
        algorithm: Some(alg.into()),
        algorithm_source: Some("fixed rules".into()),
        ..Default::default()
    }
}

/// Neighbouring bins of one algorithm are one span; another algorithm between them
/// starts a new one.
#[test]
fn bins_of_one_algorithm_are_one_span() {
    let rows = [
        bcast_row(32, 35, "binary_tree"),
        bcast_row(1, 1, "pipeline"),
        bcast_row(4, 4, "pipeline"),
        bcast_row(26, 27, "pipeline"),
        bcast_row(72, 79, "binary_tree"),
        bcast_row(65536, 65536, "pipeline"),
    ];
    let refs: Vec<&loggp_report::CollectiveModel> = rows.iter().collect();
    assert_eq!(
        super::algorithm::in_use(&refs),
        [
            "1..27 B: pipeline (fixed rules)",
            "32..79 B: binary_tree (fixed rules)",
            "65536..65536 B: pipeline (fixed rules)"
        ]
    );
}

/// The eager side of the saving is the calibration's line times what the job's own eager
/// messages cost the pair over it, at most 1: a job whose 2000-byte messages cost 1.3 ×
/// the line saves, on its 6000-byte ones turned eager, their cost now less the line
/// (1000 × (5600 − 1400) = 4.2 ms), and one whose cost 0.5 × saves 1000 × (5600 − 700).
#[test]
fn the_jobs_eager_cost_scales_the_line_down_not_up() {
    for (k, truth) in [(1.3, 4.2e6), (0.5, 4.9e6)] {
        let mut r = report(&[]);
        // The pair's time per 2000-byte message: k × (800 + 0.1 × 2000), half each side.
        let eager_ns = k * 1000.0 / 2.0;
        r.passive[0].bins = [(2000, eager_ns), (6000, 2800.0)]
            .into_iter()
            .map(|(size, mean)| Bin {
                smallest_bytes: size,
                largest_bytes: size,
                count: 1000,
                mean_ns: Some(mean),
                ..Default::default()
            })
            .collect();
        let mut recv = r.passive[0].clone();
        recv.mode = Mode::Recv;
        r.passive.push(recv);
        let (a, _) = advise(&r, &Settings::default());
        let a = &a[0];
        let observed = a.eager_observed_over_model.unwrap();
        assert!((observed - k).abs() < 0.05 * k, "k {k}: {observed}");
        let est = a.predicted_saving_ns.unwrap();
        assert!(
            (est - truth).abs() < 0.05 * truth,
            "k {k}: {est} against {truth}"
        );
    }
}
