//! `loggp advise` checked against reality (issue 14): the advice's predicted saving for a
//! ping-pong, against what the job measures when rerun with the advised value.
mod common;
use common::*;
use loggp_model::advise::{advise, Advice};
use loggp_report::Report;

const TRIPS: f64 = 20000.0;

fn job(mpi: Mpi, src: &str, args: &[&str], env: &[(&str, String)], name: &str) -> Report {
    job_out(mpi, src, args, env, name).0
}

/// [`job`], with the program's output.
fn job_out(
    mpi: Mpi,
    src: &str,
    args: &[&str],
    env: &[(&str, String)],
    name: &str,
) -> (Report, std::process::Output) {
    let dir = scratch(name);
    let prog = compile(mpi, src, &[]);
    let report = dir.join("r.json");
    let mut r = Run::new(2, true).env("LOGGP_REPORT", report.to_str().unwrap());
    for (k, v) in env {
        r = r.env(k, v);
    }
    let o = run(mpi, &r, &prog, args, &dir);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    (read_report(&report), o)
}

/// Where `pingpong_with_raw` leaves the program's raw round trip (ns) in the report it
/// returns: a setting of the test's own, in memory only, so that it travels with the
/// report through `calibrated_through`'s reruns.
const RAW_ROUND_TRIP: &str = "test: raw_round_trip_ns";

/// [`pingpong_with_reference`] with the raw shared-memory round trips timed beside each
/// reference block (tests/c/pingpong.c `raw`), their mean kept under [`RAW_ROUND_TRIP`].
fn pingpong_with_raw(mpi: Mpi, bytes: u64, env: &[(&str, String)], name: &str) -> Report {
    let args = [bytes, TRIPS as u64, REFERENCE_BYTES].map(|x| x.to_string());
    let (mut r, o) = job_out(
        mpi,
        "pingpong.c",
        &[&args[0], &args[1], &args[2], "raw"],
        env,
        name,
    );
    let raw = stdout(&o)
        .lines()
        .find_map(|l| {
            l.strip_prefix("TRUTH raw_round_trip_ns ")?
                .trim()
                .parse::<f64>()
                .ok()
        })
        .unwrap_or_else(|| panic!("{name}: no raw round trip: {}", stdout(&o)));
    r.job
        .settings
        .insert(RAW_ROUND_TRIP.into(), raw.to_string());
    r
}

/// The first job's level over the rerun's from the raw round trips timed beside their
/// reference blocks: a control that no MPI setting can touch (see tests/c/pingpong.c).
fn raw_level_ratio(before: &Report, after: &Report) -> f64 {
    let raw = |r: &Report| -> f64 {
        r.job.settings[RAW_ROUND_TRIP]
            .parse()
            .expect("a raw round trip")
    };
    raw(before) / raw(after)
}

/// `run` again, as `undisturbed_run` does, while the calibration was disturbed or stopped
/// by its budget before the end of its schedule: a quick calibration of 2 ranks ends well
/// inside its 2 s here, and one that did not measured the machine's stall (a full run of
/// 2026-11-27: one pass over 1 byte took 826 ms, the calibration stopped there and
/// located no switch, unmarked). The advice then has nothing to price.
fn calibrated_through(name: &str, run: impl Fn(&str) -> Report) -> Report {
    run_again_while(name, run, |r| {
        let c = &r.calibration;
        (c.disturbance.is_some() || c.status.starts_with("stopped: "))
            .then(|| format!("calibration {}", c.status))
    })
}

fn pingpong(mpi: Mpi, bytes: u64, env: &[(&str, String)], name: &str) -> Report {
    let args = [bytes.to_string(), (TRIPS as u64).to_string()];
    job(mpi, "pingpong.c", &[&args[0], &args[1]], env, name)
}

/// The reference round trip of `pingpong_with_reference`: eager under every setting the
/// advice can give, so its time moves with the machine's level only.
const REFERENCE_BYTES: u64 = 1000;

/// The same ping-pong, each round trip followed by one of `REFERENCE_BYTES` (the control
/// of tests/c/pingpong.c).
fn pingpong_with_reference(mpi: Mpi, bytes: u64, env: &[(&str, String)], name: &str) -> Report {
    let args = [bytes, TRIPS as u64, REFERENCE_BYTES].map(|x| x.to_string());
    job(
        mpi,
        "pingpong.c",
        &[&args[0], &args[1], &args[2]],
        env,
        name,
    )
}

/// Time in MPI_Send and MPI_Recv, both ranks.
fn send_recv_ns(r: &Report) -> f64 {
    r.ranks
        .iter()
        .flat_map(|k| ["MPI_Send", "MPI_Recv"].map(|f| k.calls.get(f).map_or(0.0, |c| c.time_ns)))
        .sum()
}

/// Both ranks' time in MPI_Send and MPI_Recv for the messages of exactly `bytes`.
fn priced_ns(r: &Report, bytes: u64) -> f64 {
    pair_ns_in(r, bytes, bytes)
}

/// The model's own check of a job: a ping-pong's MPI_Send + MPI_Recv time per message
/// (both ranks) is PRTT(1,0,s), taken at the calibrated size nearest s on the same side
/// of the job's switch. The ratio observed / predicted.
fn observed_over_model(r: &Report, bytes: u64, trips: f64) -> f64 {
    let set = intra_node_send(r);
    let switch = intra_node_send_switch(r).unwrap_or(u64::MAX);
    let eager = bytes <= switch;
    let side = set
        .points
        .iter()
        .filter(|p| (p.size_bytes <= switch) == eager)
        .filter_map(|p| Some((p.size_bytes, p.prtt_1_0_ns?)));
    let (_, prtt) = side
        .min_by_key(|(s, _)| s.abs_diff(bytes))
        .expect("a point on the same side");
    priced_ns(r, bytes) / (2.0 * trips) / prtt
}

/// Time both ranks spent in MPI_Send and MPI_Recv for the messages of `lo..=hi` bytes, from
/// the report's size bins (the bins are by size, so the same messages in both jobs).
fn pair_ns_in(r: &Report, lo: u64, hi: u64) -> f64 {
    r.passive
        .iter()
        .filter(|p| p.peer_class == "intra_node" && (p.mode == "send" || p.mode == "recv"))
        .flat_map(|p| &p.bins)
        .filter(|b| b.count > 0 && b.smallest_bytes >= lo && b.largest_bytes <= hi)
        .map(|b| b.count as f64 * b.mean_ns.unwrap_or(0.0))
        .sum()
}

/// [`pair_ns_in`] with each bin's median in place of its mean: a level, which one slow
/// call must not move (see `halo_advice_holds_in_the_median`).
fn pair_p50_ns_in(r: &Report, lo: u64, hi: u64) -> f64 {
    r.passive
        .iter()
        .filter(|p| p.peer_class == "intra_node" && (p.mode == "send" || p.mode == "recv"))
        .flat_map(|p| &p.bins)
        .filter(|b| b.count > 0 && b.smallest_bytes >= lo && b.largest_bytes <= hi)
        .map(|b| b.count as f64 * b.p50_ns.unwrap_or(0.0))
        .sum()
}

fn blocking_send(r: &Report) -> Advice {
    let (a, notes) = advise(r, &loggp_model::Settings::for_report(r));
    a.into_iter()
        .find(|a| a.peer_class == "intra_node" && a.mode == "send")
        .unwrap_or_else(|| panic!("no advice for intra_node send: {notes:?}"))
}

/// Whether the advice itself warned, before the rerun, that its saving may be off
/// (`Advice::saving_warning`: a disturbed calibration, a switch not exact, the job's eager
/// messages far from the calibration's eager line): such a pair is not scored (issue 22
/// (d)); every other pair is. A job whose rendezvous messages ran away from the
/// calibration's round trips is scored: the saving starts from its own time for them.
/// (Until 2026-11-26 that counted as warned: on an Intel Xeon VM, where this ping-pong,
/// which sends back the buffer it received into, ran its rendezvous round trips at
/// 1.3–2.2 × the calibration's, 5 of 8 pairs were left unscored, and the scored-pair
/// guard failed while those pairs' savings held at 0.98–1.22 × their predictions.)
fn warned(a: &Advice) -> bool {
    a.saving_warning.is_some()
}

/// The first job's level over the rerun's, from the reference round trips timed beside
/// the priced ones. Until 2026-11-27 it came from each job's calibration (`level_ns` up to
/// 4040 B), taken at MPI_Init, which a level that moves after MPI_Init escapes: CI at
/// c36daef ran three of six reruns at 1.65–1.81 × their own calibration's price (353–366
/// ms where the others took 198–235), three misses. The reference is timed where the
/// job ran: rerun by hand with the advised value, the 6000-byte round trip over the 1000-
/// byte one held at 2.15–2.31 in six jobs, 2.23 at 10.6 µs per round trip and at 3.8.
fn level_ratio(before: &Report, after: &Report) -> f64 {
    priced_ns(before, REFERENCE_BYTES) / priced_ns(after, REFERENCE_BYTES)
}

/// Advises, reruns with the advised value, and compares the measured drop in the priced
/// messages' MPI_Send + MPI_Recv time with the prediction (the rerun at the first job's level,
/// `level_ratio`), pair after pair until `hits` pairs land within 0.5–`band` × the
/// prediction, at most `max_pairs`. Every pair counts (issue 22 (d)): a pair where either
/// job ran away from its calibration (on this VM the cost of the same exchange changes
/// level over seconds) is a miss, unless the advice warned of it before the rerun (or
/// gave no advice: the saving's interval reached zero). At most `max_misses` misses; at
/// most half the pairs warned of; the median ratio over the scored pairs within the band.
///
/// Why pairs until enough hit, not a fixed number: a rerun can run away from its own
/// calibration after MPI_Init, which no level taken at MPI_Init sees (CI at 063c441: one
/// rerun at 3.41 × its calibration's price, a miss, and one first job warned of at 1.72 ×,
/// left 2 of 4 fixed pairs to hit); such a pair still counts as the miss it is.
fn advice_holds(
    mpi: Mpi,
    bytes: u64,
    min_value: i64,
    (knob, env_name): (&str, &str),
    (max_pairs, hits, max_misses): (usize, usize, usize),
    band: f64,
) {
    let mut seen = vec![];
    let (mut hit, mut warnings, mut misses) = (0, 0, 0);
    let mut ratios = vec![];
    for k in 0..max_pairs {
        if hit >= hits {
            break;
        }
        let before =
            pingpong_with_reference(mpi, bytes, &[], &format!("advise_{}_{k}", mpi.name()));
        let a = blocking_send(&before);
        if !a.advised {
            // Said before any rerun: the saving's interval reached zero in this job.
            warnings += 1;
            seen.push(format!(
                "{}: pair {k}: no change advised: {:?}",
                mpi.name(),
                a.notes
            ));
            eprintln!("{}", seen.last().unwrap());
            continue;
        }
        let s = a.setting.clone().unwrap();
        assert_eq!(s.name, knob);
        let value = s.value.unwrap();
        assert!(value >= min_value, "{}: advised {value}", mpi.name());
        let after = pingpong_with_reference(
            mpi,
            bytes,
            &[(env_name, value.to_string())],
            &format!("advise_{}_{k}_after", mpi.name()),
        );
        let predicted = a.predicted_saving_ns.unwrap();
        let scale = level_ratio(&before, &after);
        let measured = priced_ns(&before, bytes) - priced_ns(&after, bytes) * scale;
        let fit = [
            observed_over_model(&before, bytes, TRIPS),
            observed_over_model(&after, bytes, TRIPS),
        ];
        let verdict = if warned(&a) {
            warnings += 1;
            "warned of by the advice, not scored"
        } else if (0.5 * predicted..=band * predicted).contains(&measured) {
            hit += 1;
            ratios.push(measured / predicted);
            // Issue 27: on a balanced ping-pong whose advice holds, the advice is the
            // first of the findings that `show` opens with.
            let f = loggp_tools::show::findings::findings(&before);
            assert!(
                f.first().is_some_and(|f| f.title.starts_with(knob)),
                "{}: pair {k}: the advice holds, but the first finding is not it: {f:#?}",
                mpi.name()
            );
            "hit"
        } else {
            ratios.push(measured / predicted);
            misses += 1;
            "miss"
        };
        seen.push(format!(
            "{}: pair {k}: {knob} = {value}: predicted {:.2} ms {:?}, measured {:.2} ms ({:.2} → {:.2} ms × level {scale:.3}), observed / model {fit:.2?}: {verdict}",
            mpi.name(),
            predicted / 1e6,
            a.predicted_saving_ns_ci.map(|[x, y]| [x / 1e6, y / 1e6]),
            measured / 1e6,
            priced_ns(&before, bytes) / 1e6,
            priced_ns(&after, bytes) / 1e6
        ));
        eprintln!("{}", seen.last().unwrap());
    }
    assert!(2 * warnings <= seen.len(), "{seen:#?}");
    assert!(misses <= max_misses, "{misses} misses: {seen:#?}");
    assert!(
        hit >= hits,
        "{hit} of {} pairs within 0.5–{band} ×: {seen:#?}",
        seen.len()
    );
    ratios.sort_by(f64::total_cmp);
    let median = ratios[ratios.len() / 2];
    assert!(
        (0.5..=band).contains(&median),
        "median {median:.2}: {seen:#?}"
    );
}

/// Open MPI over vader, 6000-byte ping-pong (eager limit 4096, 4040 B of payload): the
/// advice is btl_vader_eager_limit ≥ 6056, with a saving whose interval excludes zero
/// and the command to set it.
///
/// Where the tool declines because no candidate's saving has an interval above zero, its
/// calibration was too scattered to price the eager line at 6000 B (extrapolated from
/// ≤ 4040 B): a user reruns it, and so does this, as for a disturbed calibration
/// (`run_again_while`), saying so. The tool's own verdict before any comparison; whether
/// advice holds is `openmpi_advice_on_the_eager_limit_holds`'s, which counts every pair. A
/// full run of 2026-11-27 declined once: saving [−15.1, 81.8] ms, its calibration's
/// 257–4040 B range with o_s [926, 1680] ns and G [0.22, 0.52] ns/B.
#[test]
fn openmpi_advises_the_eager_limit_for_a_6000_byte_ping_pong() {
    let r = run_again_while(
        "advise_openmpi_once",
        |name| pingpong(Mpi::OpenMpi, 6000, &[], name),
        |r| {
            let a = blocking_send(r);
            let declined = !a.advised
                && a.notes.iter().any(|n| {
                    n.contains("no candidate's predicted saving has an interval above zero")
                });
            declined.then(|| format!("no advice: {:?}", a.candidates))
        },
    );
    let a = blocking_send(&r);
    assert!(a.advised, "{a:#?}");
    let s = a.setting.clone().unwrap();
    assert_eq!(s.name, "btl_vader_eager_limit");
    assert!(s.value.unwrap() >= 6056, "{a:#?}");
    assert!(a.predicted_saving_ns_ci.unwrap()[0] > 0.0);
    assert_eq!(a.messages, 40000);
    assert!(a.command.unwrap().contains("btl_vader_eager_limit"));
    let f = loggp_tools::show::findings::findings(&r);
    assert!(
        f.first()
            .is_some_and(|f| f.title.starts_with("btl_vader_eager_limit = ")),
        "the advice is not the first finding: {f:#?}"
    );
}

/// The same, rerun with the advised value: pairs until three land within 0.5–2 × the
/// prediction, at most eight, at most two misses, every pair counted.
#[test]
fn openmpi_advice_on_the_eager_limit_holds() {
    advice_holds(
        Mpi::OpenMpi,
        6000,
        6056,
        ("btl_vader_eager_limit", "OMPI_MCA_btl_vader_eager_limit"),
        (8, 3, 2),
        2.0,
    );
}

/// MPICH ch4:ucx: moving UCX_RNDV_THRESH past 8255 B puts the messages on UCX's
/// fragmented eager path above its am_bcopy limit (8248 B, named by the raw UCT set),
/// which no measurement before the rerun can price: advised and rerun, the saving was
/// 240–340 ms or none (1 ms, −59 ms) on a 12000-byte ping-pong, 0.46–0.60 ms or none
/// (−0.08 ms) on the halo's 16 KiB messages, from one rerun to the next. So the advice
/// prices nothing past a limit the layer beneath names, and says why: checked on both
/// jobs (the ping-pong at 12000 B, the halo exchange of examples/demo.c).
#[test]
fn mpich_advice_stops_at_the_limit_the_layer_beneath_names() {
    let jobs = [
        pingpong(Mpi::Mpich, 12000, &[], "advise_mpich_layer_pingpong"),
        job(
            Mpi::Mpich,
            "../../examples/demo.c",
            &[],
            &[],
            "advise_mpich_layer_halo",
        ),
    ];
    for r in &jobs {
        let a = blocking_send(r);
        assert!(!a.advised, "{a:#?}");
        assert!(
            a.notes
                .iter()
                .any(|n| n.contains("the layer beneath names 8248 B") && n.contains("am_bcopy")),
            "{:#?}",
            a.notes
        );
    }
}

/// At 2000 bytes every message is already eager: no change advised, and why.
#[test]
fn no_change_advised_where_the_messages_are_already_eager() {
    let r = pingpong(Mpi::OpenMpi, 2000, &[], "advise_2000");
    let a = blocking_send(&r);
    assert!(!a.advised);
    assert!(
        a.notes.iter().any(|n| n.contains("already eager")),
        "{:?}",
        a.notes
    );
}

/// A halo-like exchange of mixed sizes (examples/demo.c: 8 B–256 KiB in powers of two,
/// Isend/Irecv and Send/Recv with both neighbours, 200 times each): advise on the blocking
/// sends, rerun with the advice, seven pairs per MPI (at least five within fourteen: a job
/// whose saving's interval reaches zero gets no advice, honestly, and is not rerun — 4 to 6
/// of 10 jobs here; every pair that is rerun is scored, unless the advice warned beforehand
/// that the job did not run as its calibration priced it). The advice turns the 400
/// messages of 4096 B eager (the eager line is measured to 3444 B and reaches twice that),
/// a saving of 0.04–0.45 ms predicted in the pairs of 2026-12-06, 4–14 % of their
/// 4.3–4.7 µs. The whole job's MPI_Send +
/// MPI_Recv time cannot resolve that here (pairs measured −4.4 to +3.1 ms), so the
/// measured drop is that of the priced messages only: both ranks' time in MPI_Send and
/// MPI_Recv in the size bins the advice turns eager, before minus after, the after run
/// brought to the first run's level (the VM's level moved ×0.84–1.25 between the runs of a
/// pair; left in, one pair read 0.126 ms against 0.060 predicted with its rerun at ×0.84,
/// 0.059 ms once corrected, and CI's median drop read 2.4 × the prediction). The check is on
/// the pairs' median: each pair's drop over its own prediction, the median of those within
/// 0.5–2 ×. With 50 times per size (100 such messages, a saving of 0.04 ms) CI's run of
/// 2026-12-06 measured three of seven pairs below zero (−0.12, −0.19, −0.60 ms, the last
/// with its rerun's level read ×0.30 from the bins' means), median 0.01: four times the
/// messages and the level from the bins' medians (below). Pair by pair, because a job's level moves its prediction and its drop
/// together: the full run of 2026-11-27 predicted 0.047–0.345 ms in seven pairs, 7 × apart,
/// and measured 0.048–0.318 ms (0.244 against 0.230, 0.053 against 0.048); the median drop
/// over the median prediction, taken apart, read 2.2 × (0.169 over 0.077 ms), the pairs'
/// ratios 0.91–3.0 with a median of 1.04.
#[test]
fn halo_advice_holds_in_the_median() {
    // Open MPI only: under MPICH the advice stops at UCX's am_bcopy limit (see
    // `mpich_advice_stops_at_the_limit_the_layer_beneath_names`).
    for (mpi, knob, env_name) in [(
        Mpi::OpenMpi,
        "btl_vader_eager_limit",
        "OMPI_MCA_btl_vader_eager_limit",
    )] {
        let (mut predicted, mut measured, mut seen) = (vec![], vec![], vec![]);
        for k in 0..14 {
            if predicted.len() == 7 {
                break;
            }
            let demo = "../../examples/demo.c";
            let name = format!("advise_halo_{}_{k}", mpi.name());
            let before = job(mpi, demo, &["200"], &[], &name);
            let a = blocking_send(&before);
            if !a.advised {
                // Honest, not a failure: the saving's interval reached zero in this job.
                seen.push(format!("job {k}: no change advised: {:?}", a.notes));
                continue;
            }
            let s = a.setting.clone().unwrap();
            assert_eq!(s.name, knob);
            let value = s.value.unwrap().to_string();
            let after = job(
                mpi,
                demo,
                &["200"],
                &[(env_name, value.clone())],
                &(name + "_after"),
            );
            let p = a.predicted_saving_ns.unwrap();
            // The messages the advice turns eager: above the switch in use, up to the
            // advised value's largest eager size.
            let lo = a.current_switch_bytes.unwrap() + 1;
            let hi = a
                .candidates
                .iter()
                .find(|c| Some(c.value) == s.value)
                .unwrap()
                .eager_up_to_bytes;
            // The rerun may find the VM at another level (its cost of the same call moves
            // over seconds): the eager messages the advice leaves alone, 257 B up to the
            // switch, give the ratio of the two runs' levels, and the rerun's priced time
            // is brought to the first run's level before the difference is taken. The
            // level is the ratio of the bins' medians: their means moved it ×0.22–4.3
            // where one run met a slow phase, the medians ×0.94–1.09 in the same pairs
            // (2026-12-06). The priced time stays the bins' mean time, as the advice
            // prices it.
            let level = pair_p50_ns_in(&before, 257, lo - 1) / pair_p50_ns_in(&after, 257, lo - 1);
            let m = pair_ns_in(&before, lo, hi) - level * pair_ns_in(&after, lo, hi);
            let whole = send_recv_ns(&before) - send_recv_ns(&after);
            // As in `advice_holds`: every pair is scored, unless the advice warned
            // before the rerun that the job did not run as its calibration priced it.
            if warned(&a) {
                seen.push(format!(
                    "job {k}: warned of by the advice ({:?}), not scored",
                    a.saving_warning
                ));
                continue;
            }
            seen.push(format!(
                "{knob} = {value}: predicted {:.3} ms, measured {:.3} ms ({lo}..={hi} B; rerun's level x{:.3}; whole job {:.3} ms)",
                p / 1e6,
                m / 1e6,
                1.0 / level,
                whole / 1e6
            ));
            predicted.push(p);
            measured.push(m);
        }
        eprintln!("{}: {seen:#?}", mpi.name());
        assert!(predicted.len() >= 5, "{seen:#?}");
        let mut ratios: Vec<f64> = measured
            .iter()
            .zip(&predicted)
            .map(|(m, p)| m / p)
            .collect();
        ratios.sort_by(f64::total_cmp);
        let median = ratios[ratios.len() / 2];
        assert!(
            (0.5..=2.0).contains(&median),
            "{}: the pairs' drop over their prediction {ratios:.2?}, median {median:.2}: {seen:#?}",
            mpi.name(),
        );
        eprintln!(
            "{}: the pairs' drop over their prediction {ratios:.2?}, median {median:.2}",
            mpi.name(),
        );
    }
}

/// Issue 26 §5: `loggp advise --measure` prices what the eager line cannot reach. A
/// ping-pong of `bytes` (with the 1000-byte reference blocks), where `advise` prices none
/// of its 40000 messages and says why (`why_not`); `advise --measure -- <launcher> -np 2
/// <init_only>` runs two quick calibrations, as the job ran and with `knob = value`
/// (every message eager), and prices every message, with no "not priced" note. Rerun
/// with that value: the time in MPI_Send + MPI_Recv saved on those messages (the rerun at
/// the first job's level: `level_ratio`, or `raw_level_ratio` where the knob moves the
/// reference) lies within 0.5–2× the measured price: pairs
/// until 3 do, at most 8, at most 2 misses, every pair counted (see `advice_holds` for
/// why), except where `--measure` itself declined beforehand because its saving's
/// interval reached zero (at most half the pairs), or whose first job's calibration
/// said it was disturbed and misplaced the switch (at most half the pairs).
fn measured_advice_holds(
    mpi: Mpi,
    bytes: u64,
    why_not: &str,
    (knob, env_name, value): (&str, &str, i64),
) {
    let init_only = compile(mpi, "init_only.c", &[]);
    let launcher: &[&str] = match mpi {
        Mpi::OpenMpi => &["mpirun.openmpi", "--oversubscribe", "-np", "2"],
        Mpi::Mpich => &["mpiexec.mpich", "-np", "2"],
    };
    let (mut hits, mut misses, mut declined, mut disturbed, mut seen) = (0, 0, 0, 0, vec![]);
    for k in 0..8 {
        if hits >= 3 {
            break;
        }
        let name = format!("advise_measure_{}_{bytes}_{k}", mpi.name());
        let before = calibrated_through(&name, |n| pingpong_with_raw(mpi, bytes, &[], n));
        let a = blocking_send(&before);
        // A calibration that says it was disturbed may place the switch anywhere: one
        // fresh-clone run under MPICH put it above 92682 B, and the 64 KiB messages read
        // as eager already. Such a pair is not scored, at most half of them (below).
        if let Some(d) = &before.calibration.disturbance {
            if !a.notes.iter().any(|n| n.contains(why_not)) {
                disturbed += 1;
                seen.push(format!(
                    "pair {k}: the calibration was disturbed ({d}): {:?}",
                    a.notes
                ));
                continue;
            }
        }
        assert!(!a.advised, "{name}: {a:#?}");
        assert!(
            a.notes.iter().any(|n| n.contains(why_not)),
            "{name}: {:?}",
            a.notes
        );
        let o = std::process::Command::new(root().join("target/release/loggp"))
            .args(["advise", "--json", "--measure"])
            .arg(root().join("target/it").join(&name).join("r.json"))
            .arg("--")
            .args(launcher)
            .arg(&init_only)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .output()
            .expect("loggp advise --measure");
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        let m = &v[0];
        assert_eq!(m["knob"], knob, "{name}: {v:#}");
        assert_eq!(m["value"], value, "{name}: {v:#}");
        assert_eq!(m["messages_priced"], 40000, "{name}: {v:#}");
        assert!(
            !m["notes"].to_string().contains("not priced"),
            "{name}: {v:#}"
        );
        let predicted = m["predicted_saving_ns"].as_f64().expect("a saving");
        if m["advised"] != true {
            declined += 1;
            seen.push(format!(
                "pair {k}: predicted {:.1} ms {}: declined beforehand: {}",
                predicted / 1e6,
                m["predicted_saving_ns_ci"],
                m["notes"]
            ));
            continue;
        }
        let after = pingpong_with_raw(
            mpi,
            bytes,
            &[(env_name, value.to_string())],
            &format!("{name}_after"),
        );
        // The level from a control the knob leaves alone. Under MPICH over UCX the knob
        // moved the 1000-byte reference itself (its MPI_Send 396 → 223 ns with
        // UCX_RNDV_THRESH = 65537), and two fresh-clone runs at f2d3fe0 scored 1 and 2
        // of 8 pairs with it (levels 1.14–1.71; unscaled, one pair's drop was 478 ms
        // against 500 predicted): there, the raw round trips. Under Open MPI the
        // reference stays eager on vader's same path (1.86–2.17 µs either way, see
        // tests/c/pingpong.c) and is kept (one run here with the raw round trips
        // instead: levels 1.10–1.15 where the reference's were 0.98–1.11, two misses).
        let (raw_level, reference_level) = (
            raw_level_ratio(&before, &after),
            level_ratio(&before, &after),
        );
        let scale = match mpi {
            Mpi::Mpich => raw_level,
            Mpi::OpenMpi => reference_level,
        };
        let measured = priced_ns(&before, bytes) - priced_ns(&after, bytes) * scale;
        let ratio = measured / predicted;
        let hit = (0.5..=2.0).contains(&ratio);
        hits += usize::from(hit);
        misses += usize::from(!hit);
        seen.push(format!(
            "pair {k}: predicted {:.1} ms {}, measured {:.1} ms ({:.1} → {:.1} ms × level {scale:.3}; raw {raw_level:.3}, the 1000-byte reference's {reference_level:.3}): {ratio:.2} ×, {}",
            predicted / 1e6,
            m["predicted_saving_ns_ci"],
            measured / 1e6,
            priced_ns(&before, bytes) / 1e6,
            priced_ns(&after, bytes) / 1e6,
            if hit { "hit" } else { "miss" }
        ));
    }
    eprintln!("{}: {seen:#?}", mpi.name());
    assert!(2 * declined <= seen.len(), "{}: {seen:#?}", mpi.name());
    assert!(2 * disturbed <= seen.len(), "{}: {seen:#?}", mpi.name());
    assert!(misses <= 2, "{}: {misses} misses: {seen:#?}", mpi.name());
    assert!(
        hits >= 3,
        "{}: {hits} of {}: {seen:#?}",
        mpi.name(),
        seen.len()
    );
}

/// Open MPI over vader (eager limit 4096), a 12000-byte ping-pong: the eager line is
/// measured to 3444 B and extrapolated to twice that at most; measured with
/// `btl_vader_eager_limit = 12056`. Unscaled, a run at 8a3a6c5 scored 2 of 4 (0.07× and
/// 0.10× where the rerun's level was 2.0–2.2× the first job's); scaled, the same pairs
/// were 4 of 4 within 1.02–1.36×. Not at 64 KiB, which issue 26 names: there, by hand
/// (2026-11-27), 11 of 20 scored pairs lay within 0.5–2×, the median near 0.5×: the
/// saving is a fifth of the messages' cost (the job's rendezvous round trip 29–36 µs, its
/// eager one 25–31 µs), and the quick calibrations' eager price moved by as much between
/// runs (see the note of that day).
#[test]
fn advise_measure_prices_what_the_eager_line_cannot_reach() {
    measured_advice_holds(
        Mpi::OpenMpi,
        12000,
        "40000 messages above",
        (
            "btl_vader_eager_limit",
            "OMPI_MCA_btl_vader_eager_limit",
            12056,
        ),
    );
}

/// MPICH over UCX (rendezvous from 8255 B), a 64 KiB ping-pong, which `advise` does not
/// price past the limit the layer beneath names; measured with `UCX_RNDV_THRESH = 65537`.
/// By hand (2026-11-27): 3 of 3 pairs at 0.81–1.31×, and 3 of 4 in the test's first run
/// (the fourth 3.07×, its interval [116, 396] ms).
#[test]
fn advise_measure_prices_a_64_kib_ping_pong_under_mpich() {
    measured_advice_holds(
        Mpi::Mpich,
        65536,
        "the layer beneath names 8248 B",
        ("UCX_RNDV_THRESH", "UCX_RNDV_THRESH", 65537),
    );
}
