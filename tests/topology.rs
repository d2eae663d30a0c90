//! Peer classes against a topology we build: two "hosts" in network namespaces
//! (scripts/netns-hosts.sh, as in shared/docs/ground-truth.md), Open MPI over TCP.
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
            eprintln!("SKIPPED: cannot create network namespaces here (needs root and iproute2)");
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
    prog: &std::path::Path,
    dir: &std::path::Path,
) -> std::process::Output {
    let mut xs = String::new();
    for (k, v) in env {
        xs += &format!(" -x {k}={v}");
    }
    let cmd = format!(
        "hostname lg-h1; timeout 240 mpirun.openmpi --mca mpi_yield_when_idle 1 --mca plm_rsh_agent /tmp/loggp-nsrsh \
         --mca btl tcp,self --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24 \
         -H {hosts} {extra} -x LD_PRELOAD={}{xs} {}",
        Mpi::OpenMpi.shim().display(),
        prog.display()
    );
    Command::new("ip")
        .args(["netns", "exec", "lg-h1", "unshare", "-u", "sh", "-c", &cmd])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .current_dir(dir)
        .output()
        .unwrap()
}

/// Ground truth §2: tbf at 200 Mbit/s fixes G (8 bits / 200 Mbit/s = 40 ns per byte of
/// payload, about 41.8 with TCP/IP and Ethernet framing), and btl_tcp_eager_limit fixes
/// the switch (65536 including the header).
#[test]
fn tcp_at_200_mbit_gives_g_and_the_eager_limit() {
    let Some(_hosts) = Hosts::up_at(Some("200mbit")) else {
        return;
    };
    let dir = scratch("topology_tcp");
    let prog = compile(Mpi::OpenMpi, "init_only.c", &[]);
    let report = dir.join("r.json");
    let rep = report.display().to_string();
    let env = [
        ("LOGGP_REPORT", rep.as_str()),
        ("LOGGP_CALIBRATE_MAX_BYTES", "131072"),
        ("LOGGP_CALIBRATE_BUDGET_MS", "120000"),
    ];
    let o = run_two_hosts("lg-h1,lg-h2", "-np 2", &env, &prog, &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_report(&report);
    assert_eq!(r.calibration.status, "done");
    let t = r
        .thresholds
        .iter()
        .find(|t| t.peer_class == "inter_node" && t.mode == "send")
        .expect("inter_node threshold");
    let found = t.active_bytes.expect("the TCP eager switch") as i64;
    assert!((65536 - 128..=65536).contains(&found), "found {found}");
    assert_eq!(
        t.mpi_t.as_ref().map(|m| (m.name.as_str(), m.value)),
        Some(("btl_tcp_eager_limit", 65536))
    );
    let set = r
        .calibration
        .mpi
        .iter()
        .find(|s| s.peer_class == "inter_node")
        .unwrap();
    let above = set
        .ranges
        .iter()
        .find(|x| x.size_lo_bytes == found as u64 + 1)
        .expect("range above the limit");
    let g = above.gap_per_byte_ns.unwrap();
    let link = 8.0 / 200e6 * 1e9 * 1.045; // ns per byte with framing
    assert!((g - link).abs() / link < 0.10, "G {g} ns/B against {link}");
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
        &prog,
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
        .map(|p| (p.peer_class.as_str(), p.mode.as_str()))
        .collect();
    assert!(classes.contains(&("inter_node", "send")), "{classes:?}");
    assert!(classes.contains(&("self", "sendrecv")), "{classes:?}");
    assert!(
        !classes.iter().any(|(c, _)| *c == "intra_node"),
        "no pair shares a host: {classes:?}"
    );
    assert_counts(&r, &expected(&stdout(&o)), &["MPI_Init"]);
}
