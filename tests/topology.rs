//! Peer classes against a topology we build: two "hosts" in network namespaces
//! (scripts/netns-hosts.sh, as in shared/docs/ground-truth.md), Open MPI over TCP (and
//! MPICH over UCX's TCP for the collectives).
//! Skips, saying why, where namespaces cannot be made (not root, no iproute2).
mod common;
use common::*;
use std::process::Command;

struct Hosts;
impl Hosts {
    fn up() -> Option<Hosts> {
        Hosts::up_at(None)
    }
    fn up_at(rate: Option<&str>) -> Option<Hosts> {
        let script = root().join("scripts/netns-hosts.sh");
        let ok = Command::new(&script)
            .arg("up")
            .args(rate)
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        if !ok {
            cannot_run(
                "namespaces",
                "cannot create network namespaces here (needs root and iproute2)",
            );
            return None;
        }
        Some(Hosts)
    }
}
impl Drop for Hosts {
    fn drop(&mut self) {
        let _ = Command::new(root().join("scripts/netns-hosts.sh"))
            .arg("down")
            .output();
    }
}

/// Runs `prog` with Open MPI over TCP across lg-h1 and lg-h2 (mpirun inside lg-h1).
/// mpi_yield_when_idle: two busy-polling ranks on this 2-core machine would otherwise
/// starve the softirq that delivers veth packets, and every message would wait a tick.
fn run_two_hosts(
    hosts: &str,
    extra: &str,
    env: &[(&str, &str)],
    app: &str,
    dir: &std::path::Path,
) -> std::process::Output {
    run_two_hosts_btl("tcp,self", hosts, extra, env, app, dir)
}

/// `run_two_hosts` with the BTLs given (`tcp,vader,self`: shared memory inside a host).
fn run_two_hosts_btl(
    btl: &str,
    hosts: &str,
    extra: &str,
    env: &[(&str, &str)],
    app: &str,
    dir: &std::path::Path,
) -> std::process::Output {
    let xs: String = env.iter().map(|(k, v)| format!(" -x {k}={v}")).collect();
    let cmd = format!(
        "timeout 240 mpirun.openmpi --bind-to none --mca mpi_yield_when_idle 1 --mca plm_rsh_agent /tmp/loggp-nsrsh \
         --mca btl {btl} --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24 \
         -H {hosts} {extra} -x LD_PRELOAD={}{xs} {}",
        Mpi::OpenMpi.shim().display(),
        app
    );
    on_first_host(&cmd, dir)
}

/// Runs the shell command `cmd` in lg-h1, named lg-h1, in `dir`.
fn on_first_host(cmd: &str, dir: &std::path::Path) -> std::process::Output {
    let cmd = format!("hostname lg-h1; {cmd}");
    Command::new("ip")
        .args(["netns", "exec", "lg-h1", "unshare", "-u", "sh", "-c", &cmd])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .current_dir(dir)
        .output()
        .unwrap()
}

/// A job of `app` on `hosts` (`btl`, mpirun's `extra`) that writes its report to
/// `dir/name` with a calibration budget of 6 s: it must succeed, and its report is read.
fn calibrated_job(
    btl: &str,
    hosts: &str,
    extra: &str,
    app: &str,
    dir: &std::path::Path,
    name: &str,
) -> loggp_report::Report {
    let report = dir.join(name);
    let rep = report.display().to_string();
    let o = run_two_hosts_btl(
        btl,
        hosts,
        extra,
        &[
            ("LOGGP_REPORT", rep.as_str()),
            ("LOGGP_CALIBRATE_BUDGET_MS", "6000"),
        ],
        app,
        dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    read_report(&report)
}

/// `calibrated_job` of four ranks, two a host (vader inside a host, TCP across): ranks 0
/// and 1 on lg-h1, 2 and 3 on lg-h2, as its report must say.
fn four_ranks_two_a_host(app: &str, dir: &std::path::Path, name: &str) -> loggp_report::Report {
    let r = calibrated_job("tcp,vader,self", "lg-h1:2,lg-h2:2", "-np 4", app, dir, name);
    let hosts: Vec<_> = r.ranks.iter().map(|k| k.host.as_str()).collect();
    assert_eq!(hosts, ["lg-h1", "lg-h1", "lg-h2", "lg-h2"]);
    r
}

#[test]
fn ranks_on_two_hosts_are_inter_node_and_self_is_self() {
    let Some(_hosts) = Hosts::up() else { return };
    let dir = scratch("topology");
    let prog = compile(Mpi::OpenMpi, "p2p_all.c", &[]);
    let report = dir.join("r.json");
    // --map-by node puts ranks 0,2 on lg-h1 and 1,3 on lg-h2: every pair (r, r^1) crosses.
    let rep = report.display().to_string();
    let o = run_two_hosts(
        "lg-h1:2,lg-h2:2",
        "--map-by node -np 4",
        &[("LOGGP_REPORT", rep.as_str())],
        &prog.display().to_string(),
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_report(&report);
    assert_eq!(r.job.hosts, ["lg-h1", "lg-h2"]);
    let hosts: Vec<_> = r.ranks.iter().map(|k| k.host.as_str()).collect();
    assert_eq!(hosts, ["lg-h1", "lg-h2", "lg-h1", "lg-h2"]);
    let classes: std::collections::BTreeSet<_> = r
        .passive
        .iter()
        .map(|p| (p.peer_class.name(), p.mode.name()))
        .collect();
    assert!(classes.contains(&("inter_node", "send")), "{classes:?}");
    assert!(classes.contains(&("self", "sendrecv")), "{classes:?}");
    assert!(
        !classes.iter().any(|(c, _)| *c == "intra_node"),
        "no pair shares a host: {classes:?}"
    );
    assert_counts(&r, &expected(&stdout(&o)), &["MPI_Init"]);
    // Issue 25 §2: the two "hosts" share this machine's TSC, so every offset is 0 within
    // its uncertainty; ranks on the other host are not called shared (a host is a name).
    for k in &r.clocks.ranks {
        for o in [&k.at_init, &k.at_finalize] {
            let o = o.as_ref().expect("both ends");
            println!(
                "rank {}: offset {:.0} ns ± {:.0}",
                k.rank, o.offset_ns, o.uncertainty_ns
            );
            assert!(o.offset_ns.abs() <= o.uncertainty_ns, "{k:?}");
        }
        assert_eq!(k.same_counter_as_rank0, k.rank % 2 == 0, "{k:?}");
    }
}

/// Passive G over TCP (issue 4): the blocking exchange of tests/c/exchange.c between the
/// two hosts at 200 Mbit/s, 32 KiB – 1 MiB. A Recv that had to wait for its message ends
/// when the last byte has crossed the link, so the slope of the receive envelope against
/// size is the link's G. The sender's view is not: past the TCP eager limit ob1's
/// rendezvous send returns once the kernel has taken the data into its socket buffer
/// (measured: 107 µs + 0.46 ns/B), so its slope is a copy cost, well under G.
#[test]
fn passive_g_over_tcp_matches_the_link_rate() {
    let Some(_hosts) = Hosts::up_at(Some("200mbit")) else {
        return;
    };
    let dir = scratch("topology_passive_tcp");
    let prog = compile(Mpi::OpenMpi, "exchange.c", &[]);
    let report = dir.join("r.json");
    let rep = report.display().to_string();
    let env = [("LOGGP_REPORT", rep.as_str()), ("LOGGP_CALIBRATE", "off")];
    let app = format!("{} 32768 1048576 4 20", prog.display());
    let o = run_two_hosts("lg-h1,lg-h2", "-np 2", &env, &app, &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_report(&report);
    let link = LINK_200_MBIT_NS_PER_BYTE;
    let top = |mode: &str| {
        let p = r
            .passive
            .iter()
            .find(|p| p.peer_class == "inter_node" && p.mode == mode)
            .unwrap_or_else(|| panic!("passive inter_node {mode}"));
        let x = p.ranges.last().unwrap().clone();
        eprintln!(
            "passive {mode} G {:?} ns/B over {}..{} B",
            x.gap_per_byte_ns, x.size_lo_bytes, x.size_hi_bytes
        );
        x
    };
    let recv = top("recv");
    let g = recv.gap_per_byte_ns.expect("G from the receives");
    assert!(
        (g - link).abs() / link < 0.15,
        "passive G {g} ns/B against {link}"
    );
    let send = top("send");
    assert!(
        send.size_lo_bytes > 60_000,
        "the send's rendezvous range: {send:?}"
    );
    // The send returns once TCP has the data: its G is far below the link's, or not
    // above zero at all (null, with the note saying so).
    match send.gap_per_byte_ns {
        Some(g) => assert!(g < 0.5 * link, "send G {g} ns/B against {link}"),
        None => assert!(send.note.is_some(), "a null G without a note: {send:?}"),
    }
}

/// Issue 13 §5 (LoGH, altawil-moritz): both peer classes in one job — two hosts of two
/// ranks each (0, 1 on lg-h1; 2, 3 on lg-h2), shared memory inside a host, TCP between.
/// The first round of calibration pairs lies inside the hosts, so a second round
/// calibrates a pair across; the ring's traffic teaches both classes passively; `show`
/// puts them side by side; and the classes differ as their paths do.
#[test]
fn both_peer_classes_in_one_job() {
    let Some(_hosts) = Hosts::up() else { return };
    let dir = scratch("topology_both_classes");
    let prog = compile(Mpi::OpenMpi, "ring.c", &[]);
    let report = dir.join("r.json");
    let app = format!("{} 400", prog.display());
    // 6 s: two rounds share the budget, and 4 ranks on 2 cores slow every probe; each
    // round must reach past its eager limit (65536 over TCP).
    let r = four_ranks_two_a_host(&app, &dir, "r.json");
    for k in &r.ranks {
        assert_eq!(k.calls["MPI_Isend"].count, 400, "rank {}", k.rank);
    }
    // Calibrated: a pair inside a host and one across, in one job.
    let c = &r.calibration;
    assert!(
        c.pairs.contains(&[0, 2]),
        "a second round across: {:?}",
        c.pairs
    );
    let set = |class: &str| {
        c.mpi
            .iter()
            .find(|s| s.peer_class == class && s.mode == "send")
            .unwrap_or_else(|| panic!("no calibrated ({class}, send): {}", c.status))
    };
    let (intra, inter) = (set("intra_node"), set("inter_node"));
    // Learned: the ring's neighbours 0→1, 2→3 share a host, 1→2 and 3→0 do not.
    for class in ["intra_node", "inter_node"] {
        assert!(
            r.passive
                .iter()
                .any(|p| p.peer_class == class && p.mode == "isend" && !p.bins.is_empty()),
            "no passive ({class}, isend)"
        );
    }
    // The paths differ as they should: each class's eager limit is its own transport's
    // (vader 4096 and TCP 65536, both including ob1's header), found in the same job.
    let threshold = |class: &str| {
        r.thresholds
            .iter()
            .find(|t| t.peer_class == class && t.mode == "send")
            .unwrap_or_else(|| panic!("no ({class}, send) threshold: {}", c.status))
    };
    let limit = |class: &str| {
        threshold(class)
            .active_bytes
            .unwrap_or_else(|| panic!("no ({class}, send) eager limit: {}", c.status))
            as i64
    };
    let (li, lx) = (limit("intra_node"), limit("inter_node"));
    eprintln!(
        "eager limits: intra_node {li} B, inter_node {lx} B; PRTT(1,0,1) {:?} and {:?} ns",
        intra.points.first().and_then(|p| p.prtt_1_0_ns),
        inter.points.first().and_then(|p| p.prtt_1_0_ns)
    );
    // Where the tool says its probes were disturbed (4 ranks on 2 cores: CI once measured
    // PRTT(1,0,1) 7.0 µs inside a host, and put the switch at 3769 B, "not exact", in
    // [3444, 4096]), the switch must lie in the bracket it gives instead, and the bracket
    // be within an octave, so that the two classes (16 × apart) still tell apart
    // (`limit_holds`).
    for (class, found, want) in [
        ("intra_node", li, 4096 - 128..=4096),
        ("inter_node", lx, 65536 - 128..=65536),
    ] {
        limit_holds(threshold(class), found, want, class);
    }
    // Side by side in `show`.
    let show = std::process::Command::new(root().join("target/release/loggp"))
        .arg("show")
        .arg(&report)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&show.stdout);
    assert!(show.status.success());
    for class in ["intra_node", "inter_node"] {
        assert!(text.contains(class), "show lacks {class}:\n{text}");
    }
    // A budget spent in the first round: its clients still release the second round's
    // server (this hung once: a client that had stopped skipped the round).
    let report = dir.join("r_tiny.json");
    let rep = report.display().to_string();
    let app = format!("{} 10", prog.display());
    let o = run_two_hosts_btl(
        "tcp,vader,self",
        "lg-h1:2,lg-h2:2",
        "--map-by node -np 4",
        &[
            ("LOGGP_REPORT", rep.as_str()),
            ("LOGGP_CALIBRATE_BUDGET_MS", "10"),
        ],
        &app,
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_report(&report);
    assert!(
        r.calibration.status.starts_with("stopped: "),
        "{}",
        r.calibration.status
    );
}

/// Runs `app` with MPICH (hydra, ch4:ucx over UCX's TCP) on lg-h1 and lg-h2, one rank a
/// host, hydra inside lg-h1. UCX_TLS=tcp,self: with UCX's defaults the two namespaces
/// share memory, and an 8-byte Allreduce took 0.47 µs (posix shared memory), no two-host
/// truth.
fn run_two_hosts_mpich(
    env: &[(&str, &str)],
    app: &str,
    dir: &std::path::Path,
) -> std::process::Output {
    let xs: String = env.iter().map(|(k, v)| format!(" -genv {k} {v}")).collect();
    let cmd = format!(
        "timeout 60 mpiexec.hydra -launcher ssh -launcher-exec /tmp/loggp-nsrsh-hydra \
         -hosts lg-h1,lg-h2 -np 2 -genv UCX_TLS tcp,self -genv LD_PRELOAD {}{xs} {}",
        Mpi::Mpich.shim().display(),
        app
    );
    on_first_host(&cmd, dir)
}

/// Issue 26: a job's collectives on two hosts are priced by the calibration of each
/// pair's class (`loggp_model::coll::rows`), where before a job on several hosts had no
/// collective priced at all ("members on several hosts: which pairs are inter-node is not
/// known"). Two ranks, one a host, over TCP: MPI_Allreduce and MPI_Bcast of 8 B, 4 KiB
/// and 64 KiB and the program's barriers (tests/c/coll_model.c, each call after a
/// barrier), every message inter-node; three jobs, each row's price (as the members
/// entered) against its measured cost, within the issue's ±30 % in at least 80 % of the
/// rows pooled. Open MPI (2026-11-29, four jobs: 5, 7, 7 and 5 of 7 rows; the misses
/// 0.71 × (Bcast of 4 KiB) and 1.30–1.45 ×). MPICH, where no two members share a host,
/// runs flat (`coll::mpich_nodes`): its barrier is the dissemination alone, which the
/// one-host model, closing it with the node leader's Bcast, priced 1.95–2.58 × the
/// measured 3.7 µs; three jobs after the change held 7, 6 and 7 of 7 (Barrier 0.99–1.02,
/// the miss a Bcast of 64 KiB at 1.52 ×, whose cost was 30 µs in two jobs and 44 µs in
/// the third). Four ranks, two a host, mix the classes in one schedule; on this 2-core
/// machine their calibration is disturbed (four ranks, TCP's softirqs) and the rows came
/// to 0.13–3.15 × in two Open MPI jobs, so that case is checked by the model's unit tests
/// (`coll::tests::pairs_across_hosts_are_priced_by_their_class`, and MPICH's compositions
/// in `coll::mpich_nodes::tests`).
fn collectives_across_two_hosts(mpi: Mpi) {
    let Some(_hosts) = Hosts::up() else { return };
    let dir = scratch(&format!("topology_collectives_{}", mpi.name()));
    let prog = compile(mpi, "coll_model.c", &[]);
    let mut ratios = vec![];
    let mut barriers_held = 0;
    let mut hung = vec![];
    let cc = Command::new("ip")
        .args(["netns", "exec", "lg-h1", "cat"])
        .arg("/proc/sys/net/ipv4/tcp_congestion_control")
        .output()
        .unwrap();
    let bbr = String::from_utf8_lossy(&cc.stdout).trim() == "bbr";
    for k in 0..3 {
        let app = format!("{} allreduce,bcast 8,4096,65536 100", prog.display());
        let name = format!("r{k}.json");
        let r = match mpi {
            Mpi::OpenMpi => calibrated_job("tcp,self", "lg-h1,lg-h2", "-np 2", &app, &dir, &name),
            Mpi::Mpich => {
                let rep = dir.join(&name).display().to_string();
                let env = [
                    ("LOGGP_REPORT", rep.as_str()),
                    ("LOGGP_CALIBRATE_BUDGET_MS", "6000"),
                ];
                let o = run_two_hosts_mpich(&env, &app, &dir);
                // MPICH 4.0 over UCX's tcp can hang in its MPI_Finalize, with or without
                // loggp (README; `raw::mpich_over_ucx_tcp_measures_uct_tcp_and_finalizes`
                // allows one of four): a job killed there has written its report before
                // (fresh-clone rehearsal at a90d7fe: one such job ran into the timeout
                // with nothing on stderr). One of the three may; its report must be
                // complete.
                let r = read_report(&dir.join(&name));
                if !o.status.success() {
                    assert!(r.job.complete, "job {k}: {}", stderr(&o));
                    hung.push(k);
                    assert!(hung.len() <= 1, "jobs {hung:?} of 3 did not end");
                    println!("job {k} did not end (in MPICH's Finalize, after loggp's)");
                }
                r
            }
        };
        assert_eq!(r.collective_model.len(), 7, "{:?}", r.collective_model);
        // MPICH's UCX over TCP on a host whose congestion control is BBR is warned of
        // (`calib::congestion`); Open MPI's btl tcp is not.
        let warned = r.warnings.iter().any(|w| w.contains("congestion control"));
        assert_eq!(warned, mpi == Mpi::Mpich && bbr, "{:?}", r.warnings);
        for x in &r.collective_model {
            let price = x.predicted_as_entered_ns.or(x.predicted_ns);
            let note = x.note.as_deref().unwrap_or_default();
            let (Some(price), Some(cost)) = (price, x.measured_ns) else {
                panic!(
                    "job {k}: {} of {} B not priced: {note}",
                    x.function, x.message_bytes
                );
            };
            assert!(
                note.contains("every pair priced by the inter-node calibration"),
                "{note}"
            );
            println!(
                "job {k}: {} of {} B ({:?}): priced {price:.0} ns, measured {cost:.0} ns ({:.2} x)",
                x.function,
                x.message_bytes,
                x.algorithm,
                price / cost
            );
            ratios.push(price / cost);
            barriers_held +=
                (x.function == "MPI_Barrier" && within_30_percent(price / cost)) as u32;
        }
    }
    let held = ratios.iter().filter(|&&q| within_30_percent(q)).count();
    println!("{held} of {} rows within ±30 %", ratios.len());
    // The barrier on its own as well: the pooled bar would pass with it priced twice.
    assert!(
        barriers_held >= 2,
        "the barrier held in {barriers_held} of 3 jobs"
    );
    assert!(
        5 * held >= 4 * ratios.len(),
        "{held} of {} rows within ±30 %: {ratios:.2?}",
        ratios.len()
    );
}

#[test]
fn collectives_across_two_hosts_are_priced_by_the_inter_node_calibration() {
    collectives_across_two_hosts(Mpi::OpenMpi);
}

#[test]
fn mpich_collectives_across_two_hosts_run_flat_and_are_priced() {
    collectives_across_two_hosts(Mpi::Mpich);
}

/// Issue 26: collectives on communicators of some of the ranks, on two hosts. Before,
/// which of their pairs are inter-node was not known and none was priced ("members on
/// several hosts: … not for this one"). The shim now records each communicator's world
/// ranks (`record::peers::members_of`), the time split keeps a row per communicator whose
/// members matter (`CollectiveSplit::members`), and the model prices each pair by its
/// class. Four ranks, two a host (Open MPI, vader inside a host, TCP across): on the
/// communicators {0, 1} and {2, 3} every pair is inside a host, on {0, 2} and {1, 3}
/// every pair crosses (`tests/c/split_colls.c`). In each of three jobs, each of their
/// MPI_Barrier and MPI_Allreduce rows must carry its members and be priced by the right
/// class; in at least two, every row's price must lie nearer its measured cost (on the
/// log scale) than the price of the same function on a communicator of the other class
/// does: a row priced by the wrong class fails (with members mapped by their index, not
/// their world rank, it did). Four ranks on this 2-core machine disturb the
/// calibration (see `collectives_across_two_hosts`), so ±30 % is printed, not asked. On
/// 2026-11-29, single jobs held 8, 5, 8, 8 and 4 of 8 rows (33 of 40); later, in a
/// slower phase, 4–9 of 16 and 9 of 24 in each of three runs of this test: across, priced
/// 7.4–10.8 µs against 8.3–15.0 measured; inside, priced 1.6–5.7 µs against 1.0–3.0 (the
/// disturbed calibration's intra-node price moves most). A price of the other class lay
/// 1.6–10 × off; every row was nearer its own class's price in every job seen. Not
/// under MPICH: the same program with hydra across the two hosts (UCX_TLS=tcp,self)
/// hung in MPI_Finalize in 5 of 6 jobs without loggp (one rank in UCX's TCP progress,
/// three in PMI's read) and in 2 of 10 with it. In the four reports of those with it
/// that I read, each row had its members and MPICH's grouping in its note (by node on
/// {0, 1} and {2, 3}, flat on {0, 2} and {1, 3}); one class's calls waited a timer tick
/// (3.2–4.8 ms) with four busy-polling ranks on two cores, the other's were priced
/// 4.0–8.0 µs against 2.9–10.0 measured.
#[test]
fn collectives_on_split_communicators_are_priced_by_their_members_hosts() {
    let Some(_hosts) = Hosts::up() else { return };
    let dir = scratch("topology_split_communicators");
    let prog = compile(Mpi::OpenMpi, "split_colls.c", &[]);
    let app = format!("{} 200", prog.display());
    let (mut held, mut rows, mut nearer) = (0, 0, 0);
    for k in 0..3 {
        let name = format!("r{k}.json");
        let r = four_ranks_two_a_host(&app, &dir, &name);
        for c in &r.waits.collectives {
            assert!(
                c.members
                    .as_ref()
                    .is_none_or(|m| m.len() == c.comm_size as usize),
                "{c:?}"
            );
        }
        let mut by = std::collections::BTreeMap::new();
        for (members, inside) in [
            ([0, 1], true),
            ([2, 3], true),
            ([0, 2], false),
            ([1, 3], false),
        ] {
            for function in ["MPI_Barrier", "MPI_Allreduce"] {
                let x = (r.collective_model.iter())
                    .find(|x| x.function == function && x.members.as_deref() == Some(&members[..]))
                    .unwrap_or_else(|| {
                        let rows: Vec<_> = (r.collective_model.iter())
                            .map(|x| (&x.function, x.comm_size, &x.members))
                            .collect();
                        panic!("job {k}: no {function} row of members {members:?}: {rows:?}")
                    });
                let note = x.note.as_deref().unwrap_or_default();
                let (Some(price), Some(cost)) = (x.predicted_ns, x.measured_ns) else {
                    panic!("job {k}: {function} on {members:?} not priced: {note}");
                };
                let class = if inside {
                    "every member on one host (the communicator's members as recorded): every pair priced by the intra-node calibration"
                } else {
                    "each pair priced by its class's calibration (the communicator's members as recorded)"
                };
                assert!(
                    note.contains(class),
                    "job {k}: {function} on {members:?}: {note}"
                );
                println!(
                    "job {k}: {function} on {members:?}: priced {price:.0} ns, measured {cost:.0} ns ({:.2} x)",
                    price / cost
                );
                held += within_30_percent(price / cost) as u32;
                rows += 1;
                by.insert((function, members), (price, cost, inside));
            }
        }
        let off = |price: f64, cost: f64| (price / cost).ln().abs();
        let mut all = true;
        for (&(function, members), &(price, cost, inside)) in &by {
            for (&(f, other), &(other_price, _, other_inside)) in &by {
                if f == function
                    && other_inside != inside
                    && off(price, cost) >= off(other_price, cost)
                {
                    println!("job {k}: {function} on {members:?} measured {cost:.0} ns, priced {price:.0} by its class, {other_price:.0} on {other:?}");
                    all = false;
                }
            }
        }
        nearer += all as u32;
    }
    println!("{held} of {rows} rows within ±30 %");
    // A job whose calibration four ranks on two cores disturbed most can price a class
    // off by 2.9 × (seen): the majority of the jobs, as the barrier's check above.
    assert!(
        nearer >= 2,
        "every row's price nearer its cost than the other class's in {nearer} of 3 jobs"
    );
}

/// Issue 13 §8: the schedule adapts to the link. LOGGP_CALIBRATE=full (16 MiB, 8 sizes
/// per octave, three modes, raw TCP) between two hosts over 200 Mbit/s: before, a warm-up
/// burst at 16 MiB alone took 21 s and sizes above 1 MiB minutes each. Now the schedule
/// thins where sizes get slow and stops growing where the next size would not fit, says
/// where and why, and the calibration ends within its 60 s budget.
///
/// Ground truth §2, from the same job: tbf at 200 Mbit/s fixes G (8 bits / 200 Mbit/s =
/// 40 ns per byte of payload, about 41.8 with TCP/IP and Ethernet framing), for MPI and
/// for raw TCP between the same pair, and btl_tcp_eager_limit fixes the switch (65536
/// including the header), named through MPI_T. (A quick calibration to 128 KiB checked
/// the same in a job of its own, 40 s; the full one measures every size it did, to
/// 370 KB, so one job of the two is kept.)
#[test]
fn full_calibration_over_a_slow_link_holds_its_budget() {
    let Some(_hosts) = Hosts::up_at(Some("200mbit")) else {
        return;
    };
    let dir = scratch("topology_full_slow");
    let prog = compile(Mpi::OpenMpi, "init_only.c", &[]);
    let report = dir.join("r.json");
    let rep = report.display().to_string();
    let env = [("LOGGP_REPORT", rep.as_str()), ("LOGGP_CALIBRATE", "full")];
    let o = run_two_hosts(
        "lg-h1,lg-h2",
        "-np 2",
        &env,
        &prog.display().to_string(),
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_report(&report);
    let c = &r.calibration;
    let took_ms = c.duration_ns.expect("duration") / 1e6;
    eprintln!("full over 200 Mbit/s: {took_ms:.0} ms, {}", c.status);
    assert!(took_ms <= 60_000.0 * 1.05, "{took_ms:.0} ms: {}", c.status);
    // Not the whole schedule (16 MiB would take minutes per size): the status says the
    // budget stopped it, where, and why.
    assert!(
        c.status
            .starts_with("stopped: the budget of 60000 ms was reached ("),
        "{}",
        c.status
    );
    let t = r
        .thresholds
        .iter()
        .find(|t| t.peer_class == "inter_node" && t.mode == "send")
        .expect("inter_node send threshold");
    // Where the repeated probes around the switch disagreed, the bracket it gives (CI-like
    // run at 8e5e902: "not exact", 65153 in [60097, 84990], the budget thinning the
    // schedule above 42 KB to one size in four).
    let found = t.active_bytes.expect("the TCP eager switch") as i64;
    limit_holds(t, found, 65536 - 128..=65536, "inter_node send");
    let set = c
        .mpi
        .iter()
        .find(|s| s.peer_class == "inter_node" && s.mode == "send")
        .unwrap();
    let g = largest_sizes_g(&set.ranges, "MPI inter_node send");
    let link = LINK_200_MBIT_NS_PER_BYTE;
    assert!((g - link).abs() / link < 0.10, "G {g} ns/B against {link}");
    assert_eq!(
        t.mpi_t.as_ref().map(|m| (m.name.as_str(), m.value)),
        Some(("btl_tcp_eager_limit", 65536))
    );
    // Issue 5: raw TCP beneath MPI between the same pair (auto: verbs says why not).
    let raw = |t: &str| {
        c.raw
            .iter()
            .find(|x| x.transport == t && x.peer_class == "inter_node")
    };
    let verbs = raw("verbs").expect("verbs status");
    assert!(
        verbs.status.starts_with("unavailable: "),
        "{}",
        verbs.status
    );
    let tcp = raw("tcp").expect("raw tcp set");
    assert!(
        tcp.status == "done" || tcp.status.starts_with("stopped: "),
        "{}",
        tcp.status
    );
    let last = tcp.ranges.last().expect("raw tcp ranges");
    assert!(
        last.gap_per_byte_ns.is_some() || last.note.is_some(),
        "{last:?}"
    );
    let raw_g = largest_sizes_g(&tcp.ranges, "raw tcp");
    eprintln!("G: MPI {g:.2} ns/B, raw tcp {raw_g:.2} ns/B, link {link:.2} ns/B");
    assert!(
        (raw_g - link).abs() / link < 0.10,
        "raw tcp G {raw_g} against {link}"
    );
    assert!(
        (g - raw_g).abs() / raw_g < 0.10,
        "MPI G {g} against raw tcp {raw_g}"
    );
    assert!(r
        .mpi_overhead
        .iter()
        .any(|o| o.transport == "tcp" && o.size_hi_bytes >= 131072));
    // Where the schedule stopped, and why.
    let note = r
        .warnings
        .iter()
        .find(|w| w.starts_with("calibration (inter_node): "))
        .expect("a note on the schedule");
    assert!(note.contains("sizes measured up to"), "{note}");
    eprintln!("{note}");
}

/// Issue 12: raw UCT tcp between two hosts at 200 Mbit/s, under Open MPI's pml ucx over
/// UCX's tcp: G within 10 % of the link rate with framing, and MPI − ucx:tcp reported.
#[test]
fn uct_tcp_at_200_mbit_gives_the_link_rate() {
    let Some(_hosts) = Hosts::up_at(Some("200mbit")) else {
        return;
    };
    let dir = scratch("topology_uct_tcp");
    let prog = compile(Mpi::OpenMpi, "init_only.c", &[]);
    let report = dir.join("r.json");
    let rep = report.display().to_string();
    let env = [
        ("LOGGP_REPORT", rep.as_str()),
        ("LOGGP_RAW", "ucx:tcp"),
        ("LOGGP_CALIBRATE_MAX_BYTES", "65536"),
        ("LOGGP_CALIBRATE_BUDGET_MS", "120000"),
        ("UCX_TLS", "tcp,self"),
    ];
    let o = run_two_hosts(
        "lg-h1,lg-h2",
        "-np 2 --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any",
        &env,
        &prog.display().to_string(),
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_report(&report);
    let u = r
        .calibration
        .raw
        .iter()
        .find(|x| x.transport == "ucx" && x.peer_class == "inter_node")
        .expect("raw ucx set");
    assert_eq!(u.status, "done", "{u:?}");
    assert_eq!(u.tl.as_deref(), Some("tcp"));
    assert_eq!(
        u.device.as_deref(),
        Some("lg-veth1"),
        "the link, not loopback"
    );
    let g = largest_sizes_g(&u.ranges, "raw ucx");
    let link = LINK_200_MBIT_NS_PER_BYTE;
    eprintln!("raw ucx:tcp G {g:.2} ns/B, link {link:.2} ns/B");
    assert!((g - link).abs() / link < 0.10, "G {g} against {link}");
    assert!(r.mpi_overhead.iter().any(|o| o.transport == "ucx:tcp"));
}

/// G on the 200 Mbit/s link (8 bits / 200 Mbit/s = 40 ns per byte of payload), with
/// TCP/IP and Ethernet framing: ns per byte.
const LINK_200_MBIT_NS_PER_BYTE: f64 = 8.0 / 200e6 * 1e9 * 1.045;

/// G of the largest sizes' range that has one (a narrow last range may leave G null, with
/// its note, as no slope can be fitted over it).
fn largest_sizes_g(ranges: &[loggp_report::Range], what: &str) -> f64 {
    ranges
        .iter()
        .rev()
        .find_map(|x| x.gap_per_byte_ns)
        .unwrap_or_else(|| panic!("no {what} range with a G: {ranges:?}"))
}

/// A switch found where the limit is (`want`), or, where the tool says its probes around
/// it disagreed ("not exact"), inside the bracket it gives, the bracket within an octave
/// (four steps of the size schedule, each 2^(1/4) rounded: CI at 50eb06b gave [2435,
/// 4871] around a switch found at 4040).
fn limit_holds(
    t: &loggp_report::Threshold,
    found: i64,
    want: std::ops::RangeInclusive<i64>,
    what: &str,
) {
    if t.active_exact == Some(false) {
        let (lo, hi) = (t.active_lo_bytes.unwrap(), t.active_hi_bytes.unwrap());
        assert!(
            lo as i64 <= *want.end() && *want.start() <= hi as i64 && hi as f64 <= 2.01 * lo as f64,
            "{what} limit {found}, not exact: [{lo}, {hi}]"
        );
    } else {
        assert!(want.contains(&found), "{what} limit {found}");
    }
}
