//! Active calibration at MPI_Init against limits we set ourselves
//! (shared/docs/ground-truth.md §1): the eager limit found to within [limit − 128, limit]
//! and moving with the setting; Ssend rendezvous from the smallest size; the budget, off,
//! and a job of one rank.
mod common;
use common::*;
use loggp_report::Report;

fn calibrated(mpi: Mpi, np: usize, env: &[(&str, &str)], name: &str) -> Report {
    report_of(mpi, np, "init_only.c", env, name)
}

/// A calibration the report does not mark disturbed (see `common::undisturbed_run`; a
/// local run at 963e186 had one vader run of three marked disturbed).
fn undisturbed(mpi: Mpi, np: usize, env: &[(&str, &str)], name: &str) -> Report {
    undisturbed_run(name, |n| calibrated(mpi, np, env, n))
}

fn threshold<'a>(r: &'a Report, class: &str, mode: &str) -> &'a loggp_report::Threshold {
    r.thresholds
        .iter()
        .find(|t| t.peer_class == class && t.mode == mode)
        .unwrap_or_else(|| panic!("no ({class}, {mode}) threshold in {:?}", r.thresholds))
}

#[test]
fn openmpi_vader_eager_limit_found_and_moves_with_the_setting() {
    for limit in [4096i64, 8192, 16384] {
        let l = limit.to_string();
        let env: Vec<(&str, &str)> = if limit == 4096 {
            vec![]
        } else {
            vec![("OMPI_MCA_btl_vader_eager_limit", &l)]
        };
        let r = undisturbed(Mpi::OpenMpi, 2, &env, &format!("calib_vader_{limit}"));
        assert_eq!(r.calibration.status, "done", "{:?}", r.calibration.status);
        let t = threshold(&r, "intra_node", "send");
        let found = t.active_bytes.expect("a switch") as i64;
        assert!(
            (limit - 128..=limit).contains(&found),
            "limit {limit}: found {found}"
        );
        let mpi_t = t.mpi_t.as_ref().expect("MPI_T eager limit");
        assert_eq!(
            (mpi_t.name.as_str(), mpi_t.value),
            ("btl_vader_eager_limit", limit)
        );
        let setting = t.setting.as_ref().expect("the setting in use");
        assert_eq!(setting.component, "pml ob1, btl vader");
        assert_eq!(t.active_exact, Some(true));
        // The ranges split at the switch, with the protocol on each side.
        let set = &r.calibration.mpi[0];
        let eager = set
            .ranges
            .iter()
            .find(|x| x.size_hi_bytes == found as u64)
            .expect("a range ends at the limit");
        assert_eq!(eager.protocol.as_deref(), Some("eager"));
        let next = set
            .ranges
            .iter()
            .find(|x| x.size_lo_bytes == found as u64 + 1)
            .expect("a range starts after it");
        assert_eq!(next.protocol.as_deref(), Some("rendezvous"));
        for x in &set.ranges {
            assert!(
                x.gap_per_byte_ns.is_some()
                    && x.send_overhead_ns.unwrap() > 0.0
                    && x.samples.unwrap() >= 1
            );
        }
        assert!(r.calibration.duration_ns.unwrap() > 0.0);
        assert_eq!(r.calibration.pairs, [[0, 1]]);
    }
}

#[test]
fn openmpi_ssend_is_rendezvous_from_the_smallest_size() {
    let r = undisturbed(
        Mpi::OpenMpi,
        2,
        &[
            ("LOGGP_CALIBRATE_MODES", "send,ssend"),
            ("LOGGP_CALIBRATE_BUDGET_MS", "5000"),
        ],
        "calib_ssend",
    );
    assert_eq!(r.calibration.status, "done");
    let t = threshold(&r, "intra_node", "ssend");
    assert_eq!(t.active_bytes, None);
    assert_eq!(t.note.as_deref(), Some("rendezvous from the smallest size"));
    assert!(threshold(&r, "intra_node", "send").active_bytes.is_some());
}

#[test]
fn mpich_ucx_rndv_thresh_moves_the_switch() {
    for thresh in [None, Some(8192i64), Some(32768)] {
        let th = thresh.map(|t| t.to_string()).unwrap_or_default();
        let env: Vec<(&str, &str)> = match thresh {
            Some(_) => vec![("UCX_RNDV_THRESH", th.as_str())],
            None => vec![],
        };
        let r = undisturbed(Mpi::Mpich, 2, &env, &format!("calib_ucx_{th}"));
        assert_eq!(r.calibration.status, "done");
        let t = threshold(&r, "intra_node", "send");
        let found = t.active_bytes.expect("a switch") as i64;
        assert!(!r.calibration.mpi[0].ranges.is_empty());
        if let Some(limit) = thresh {
            assert!(
                (limit - 128..=limit).contains(&found),
                "UCX_RNDV_THRESH={limit}: found {found}"
            );
        }
        assert_eq!(t.mpi_t, None, "MPICH has no MPI_T eager limit for UCX");
        let setting = t.setting.as_ref().expect("UCX's setting");
        assert_eq!(
            (setting.component.as_str(), setting.name.as_str()),
            ("ucx", "UCX_RNDV_THRESH")
        );
        assert_eq!(setting.value, thresh, "{setting:?}");
    }
}

/// The switches of one set: every range boundary but those whose level change did not
/// repeat when probed again (a change of the machine over time, not of the protocol).
fn switches(r: &Report) -> Vec<u64> {
    let set = &r.calibration.mpi[0];
    set.ranges[..set.ranges.len().saturating_sub(1)]
        .iter()
        .map(|x| x.size_hi_bytes)
        .filter(|&hi| !set.not_repeated_bytes.iter().any(|&[l, _]| l == hi))
        .collect()
}

/// Open MPI's shared-memory send has exactly three protocol ranges (ground truth §1): the
/// 256-byte switch of ob1's send path over vader (see README), the eager limit, and
/// rendezvous above. Ten quick calibrations: exactly those two switches in at least 9.
#[test]
fn openmpi_vader_eager_limit_moves_and_the_256_byte_switch_stays() {
    // The eager limit moves with its setting; the 256-byte switch stays.
    let mut moved = 0;
    let mut seen = vec![];
    for i in 0..3 {
        let r = calibrated(
            Mpi::OpenMpi,
            2,
            &[
                ("LOGGP_RAW", "off"),
                ("OMPI_MCA_btl_vader_eager_limit", "8192"),
            ],
            &format!("calib_two_8192_{i}"),
        );
        let w = switches(&r);
        if w.len() == 2 && (192..=264).contains(&w[0]) && (8064..=8192).contains(&w[1]) {
            moved += 1;
        }
        seen.push(w);
    }
    assert!(moved >= 2, "at 8192: {seen:?}");
}

/// Open MPI's pml ucx: blocking sends switch at UCX's threshold for them, the cross-check
/// names UCX's variable (never vader's), and a numeric UCX_RNDV_THRESH moves the switch.
#[test]
fn openmpi_pml_ucx_switch_follows_ucx_and_the_cross_check_names_it() {
    for thresh in [None, Some(16384i64)] {
        let th = thresh.map(|t| t.to_string()).unwrap_or_default();
        let mut env: Vec<(&str, &str)> = PML_UCX.to_vec();
        env.push(("LOGGP_RAW", "off"));
        if thresh.is_some() {
            env.push(("UCX_RNDV_THRESH", &th));
        }
        let r = undisturbed(Mpi::OpenMpi, 2, &env, &format!("calib_pml_ucx_{th}"));
        assert_eq!(r.calibration.status, "done");
        let t = threshold(&r, "intra_node", "send");
        let limit = thresh.unwrap_or(262144);
        let found = t.active_bytes.expect("a switch") as i64;
        assert!(
            (limit - 128..=limit).contains(&found),
            "limit {limit}: found {found}"
        );
        assert_eq!(
            t.mpi_t, None,
            "vader carries no traffic under pml ucx: {:?}",
            t.mpi_t
        );
        let s = t.setting.as_ref().expect("UCX's setting");
        assert_eq!(s.component, "pml ucx");
        assert_eq!(s.value, Some(limit), "{s:?}");
        let want = if thresh.is_some() {
            "UCX_RNDV_THRESH"
        } else {
            "UCX_RNDV_SEND_NBR_THRESH"
        };
        assert_eq!(s.name, want);
    }
}

/// Two CPU-bound processes beside the job on this 2-core machine: the calibration either
/// finds the right switch or says it was disturbed — never a wrong switch as exact.
#[test]
fn under_load_a_switch_is_right_or_marked_disturbed() {
    struct Load(Vec<std::process::Child>);
    impl Drop for Load {
        fn drop(&mut self) {
            for c in &mut self.0 {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }
    let spin = || {
        std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .unwrap()
    };
    let load = Load(vec![spin(), spin()]);
    for i in 0..2 {
        let r = calibrated(
            Mpi::OpenMpi,
            2,
            &[("LOGGP_RAW", "off")],
            &format!("calib_load_{i}"),
        );
        assert!(
            r.calibration.disturbance.is_some() && r.calibration.status.contains("disturbed"),
            "a loaded machine is seen: {} / {:?}",
            r.calibration.status,
            r.calibration.disturbance
        );
        for t in &r.thresholds {
            if let Some(b) = t.active_bytes {
                assert_ne!(t.active_exact, Some(true), "disturbed, yet exact: {t:?}");
                if let (Some(lo), Some(hi)) = (t.active_lo_bytes, t.active_hi_bytes) {
                    assert!(lo <= b && b <= hi);
                }
            }
        }
    }
    drop(load);
}

#[test]
fn off_one_rank_and_budget() {
    let r = calibrated(Mpi::OpenMpi, 2, &[("LOGGP_CALIBRATE", "off")], "calib_off");
    assert_eq!(r.calibration.status, "off");
    assert!(r.calibration.mpi.is_empty() && r.thresholds.is_empty());
    let r = calibrated(Mpi::OpenMpi, 1, &[], "calib_one_rank");
    assert!(
        r.calibration.status.starts_with("skipped: "),
        "{}",
        r.calibration.status
    );
    // A budget too small: every rank agrees to stop, the job goes on, what was measured stays.
    let r = calibrated(
        Mpi::Mpich,
        2,
        &[("LOGGP_CALIBRATE_BUDGET_MS", "10")],
        "calib_budget",
    );
    assert!(
        r.calibration
            .status
            .starts_with("stopped: the budget of 10 ms was reached"),
        "{}",
        r.calibration.status
    );
}

/// Issue 13 §7: a budget is a promise. MPICH's ranks busy-poll, so 4 of them on 2 cores
/// stretch every probe: with the budget checked only between sizes, the 2000 ms quick
/// calibration took 3.3–3.5 s here. Stopped in band, before a repetition that would end
/// past it, the calibration ends within the budget plus a few percent, in any state.
#[test]
fn budget_holds_with_oversubscribed_ranks() {
    const BUDGET_MS: f64 = 1500.0;
    for (mpi, np) in [(Mpi::Mpich, 4), (Mpi::OpenMpi, 4)] {
        let r = calibrated(
            mpi,
            np,
            &[("LOGGP_CALIBRATE_BUDGET_MS", "1500")],
            &format!("calib_budget_holds_{}", mpi.name()),
        );
        assert_calibration_within(&r, BUDGET_MS, &format!("{} {np} ranks", mpi.name()));
    }
}

#[test]
fn calibration_sends_nothing_on_the_applications_communicators() {
    // The same program's output and counts with and without calibration: its traffic is
    // on the private communicator, through PMPI_, so the application's statistics hold
    // only the application's own calls.
    let dir = scratch("calib_private");
    let prog = compile(Mpi::OpenMpi, "p2p_all.c", &[]);
    let report = dir.join("r.json");
    let o = run(
        Mpi::OpenMpi,
        &Run::new(2, true).env("LOGGP_REPORT", report.to_str().unwrap()),
        &prog,
        &[],
        &dir,
    );
    assert!(o.status.success());
    let r = read_report(&report);
    // A calibration that ran, whole: one the machine disturbed (a full run of 2026-11-27:
    // "disturbed: the ranks were preempted while probing") sent the same messages.
    assert!(
        ["done", "disturbed: "]
            .iter()
            .any(|p| r.calibration.status.starts_with(p)),
        "{}",
        r.calibration.status
    );
    assert_counts(&r, &expected(&stdout(&o)), &["MPI_Init"]);
}

/// The calibration's exchange after a pause away from MPI (`Point::exchange_after_pause`)
/// against the same exchange timed by the program itself in the same job
/// (`tests/c/pause_exchange.c`: a 0-byte exchange, both ranks spinning on the clock for
/// the pause, an 8-byte exchange from the later entry to the exits, through PMPI_). Three
/// jobs per MPI; the medians over them. The machine must show the effect the probe is
/// for, in one MPI at least (after 1 ms away from MPI, the program's exchange at least
/// 1.5 × its own back to back), and each MPI's calibration after 1 ms must lie within
/// 0.5–2 × its program's. Why one: how much a pause costs moves with the machine's phase
/// (2026-11-29 about 6 ×; in a fresh-clone rehearsal of 2026-11-30, Open MPI 1.8 × and
/// MPICH 1.2 ×, 445 against 364 ns, where MPICH's calibration still gave 1.04 × its
/// program's), and each MPI's was asked before. A probe that did
/// not pause gives its back-to-back exchange there, and fails: with the spin taken out,
/// Open MPI's calibration gave 210–261 ns after 1 ms against the program's 1650–2086
/// (0.13). With it, 2026-11-29 (Intel Xeon VM): Open MPI 1598–2271 ns against the
/// program's 1678–1906 (its back to back 266–316), median ratio 1.26; MPICH 1506–1707
/// against 1557–1736 (300–386), 0.98. With one exchange after each pause per pass (six in
/// a calibration) a fresh-clone CI run failed at 0.49 (jobs 0.39, 0.49, 0.93) and fifteen
/// jobs here ranged 0.36–1.24; with four per pass (`AFTER_PAUSE_REPS`), eighteen jobs
/// 0.68–1.43, medians over three 0.74–0.85 (the program's own median moved 1.2–3.9 µs
/// from one 45 ms stretch of a job to the next).
///
/// A batch where neither MPI shows the effect cannot check the probe: it is made again,
/// three batches at most, before the test fails (a fresh-clone rehearsal at e9a2626 read
/// 1.34 × and 1.28 ×, each MPI's calibration within 0.97–1.0 × of its program's).
#[test]
fn the_exchange_after_a_pause_is_what_the_program_pays() {
    let mut batches = vec![];
    for batch in 0..3 {
        let pause_cost = pause_batch(batch);
        if pause_cost.iter().any(|&(_, x)| x >= 1.5) {
            return;
        }
        println!("batch {batch}: no pause cost to check against: {pause_cost:?}");
        batches.push(pause_cost);
    }
    panic!(
        "the programs' exchange after 1 ms away from MPI over their back to back, three batches: {batches:?}, none 1.5 ×: this machine shows no cost of a pause to check the probe against"
    );
}

/// One batch of [`the_exchange_after_a_pause_is_what_the_program_pays`]: per MPI, the
/// program's exchange after 1 ms over its back to back, each MPI's calibration checked
/// against its program's.
fn pause_batch(batch: usize) -> Vec<(&'static str, f64)> {
    let mut pause_cost: Vec<(&str, f64)> = vec![];
    for mpi in [Mpi::OpenMpi, Mpi::Mpich] {
        let (mut truth_hot, mut truth_cold, mut ratio) = (vec![], vec![], vec![]);
        for k in 0..3 {
            let name = format!("pause_exchange_{}_{batch}_{k}", mpi.name());
            let (r, o) = shim_job(mpi, 2, "pause_exchange.c", &[], &[], &name);
            // The median of the program's exchanges after each pause (ns).
            let truth = |pause: &str| -> f64 {
                let mut v: Vec<f64> = stdout(&o)
                    .lines()
                    .find_map(|l| l.strip_prefix(&format!("EXCHANGES {pause} ")))
                    .unwrap_or_else(|| panic!("{name}: no exchanges after {pause} ns"))
                    .split_whitespace()
                    .filter_map(|x| x.parse().ok())
                    .collect();
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            };
            let (hot, cold) = (truth("0"), truth("1000000"));
            let p = intra_node_send(&r)
                .points
                .iter()
                .find(|p| !p.exchange_after_pause.is_empty())
                .unwrap_or_else(|| panic!("{name}: no exchange after a pause in the calibration"));
            let after = |pause: f64| {
                (p.exchange_after_pause.iter())
                    .find(|a| a.pause_ns == pause)
                    .map(|a| a.exchange_ns)
                    .unwrap_or_else(|| panic!("{name}: no exchange after {pause} ns"))
            };
            println!(
                "{name}: the program's exchange {hot:.0} ns back to back, {:.0} after 100 µs, {cold:.0} after 1 ms; the calibration's {:.0}, {:.0}, {:.0}",
                truth("100000"),
                p.exchange_isolated_ns.unwrap_or(f64::NAN),
                after(100e3),
                after(1e6)
            );
            truth_hot.push(hot);
            truth_cold.push(cold);
            ratio.push(after(1e6) / cold);
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let (hot, cold, ratio) = (
            median(&mut truth_hot),
            median(&mut truth_cold),
            median(&mut ratio),
        );
        println!(
            "{}: after 1 ms, the program's {cold:.0} ns ({:.1} × back to back), the calibration's over the program's {ratio:.2}",
            mpi.name(),
            cold / hot
        );
        pause_cost.push((mpi.name(), cold / hot));
        assert!(
            (0.5..=2.0).contains(&ratio),
            "{}: the calibration's exchange after 1 ms over the program's: {ratio:.2}",
            mpi.name()
        );
    }
    pause_cost
}
