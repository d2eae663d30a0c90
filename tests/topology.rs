//! Peer classes against a topology we build: two "hosts" in network namespaces
//! (scripts/netns-hosts.sh, as in shared/docs/ground-truth.md), Open MPI over TCP.
//! Skips, saying why, where namespaces cannot be made (not root, no iproute2).
mod common;
use common::*;
use std::process::Command;

struct Hosts;
impl Hosts {
    fn up() -> Option<Hosts> {
        let script = root().join("scripts/netns-hosts.sh");
        let ok = Command::new(&script)
            .arg("up")
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

#[test]
fn ranks_on_two_hosts_are_inter_node_and_self_is_self() {
    let Some(_hosts) = Hosts::up() else { return };
    let dir = scratch("topology");
    let prog = compile(Mpi::OpenMpi, "p2p_all.c", &[]);
    let report = dir.join("r.json");
    // --map-by node puts ranks 0,2 on lg-h1 and 1,3 on lg-h2: every pair (r, r^1) crosses.
    let cmd = format!(
        "hostname lg-h1; timeout 120 mpirun.openmpi --mca plm_rsh_agent /tmp/loggp-nsrsh --mca btl tcp,self \
         --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24 \
         -H lg-h1:2,lg-h2:2 --map-by node -np 4 -x LD_PRELOAD={} -x LOGGP_REPORT={} {}",
        Mpi::OpenMpi.shim().display(),
        report.display(),
        prog.display()
    );
    let o = Command::new("ip")
        .args(["netns", "exec", "lg-h1", "unshare", "-u", "sh", "-c", &cmd])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .current_dir(&dir)
        .output()
        .unwrap();
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
