//! Issue 27 §2: `loggp trace` writes the sampled calls as Chrome trace JSON. On a 4-rank
//! ring (tests/c/ring.c) under both MPIs: one process per rank, complete events for the
//! calls, and flows joining each kept send to its receive — the ids match, and on clocks
//! aligned to rank 0's (here one counter) no receive ends before its send started.
mod common;
use common::*;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

#[test]
fn a_ring_becomes_a_timeline_with_a_flow_per_message() {
    for mpi in BOTH {
        let name = format!("trace_ring_{}", mpi.name());
        let (rep, _) = shim_job(mpi, 4, "ring.c", &["200"], &[], &name);
        let dir = root().join("target/it").join(&name);
        let report = dir.join("r.json");
        // Through the command, as a user runs it.
        let out = dir.join("job.trace.json");
        let st = std::process::Command::new(root().join("target/release/loggp"))
            .args([
                "trace",
                report.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ])
            .status()
            .expect("loggp trace");
        assert!(st.success(), "{name}: loggp trace failed");
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap())
            .expect("the trace parses as JSON");
        let ev = v["traceEvents"].as_array().expect("traceEvents");
        let of = |ph: &'static str| ev.iter().filter(move |e| e["ph"] == ph);
        let procs: BTreeSet<u64> = of("M")
            .filter(|e| e["name"] == "process_name")
            .map(|e| e["pid"].as_u64().unwrap())
            .collect();
        assert_eq!(procs, (0..4).collect(), "{name}: one process per rank");
        let calls: BTreeSet<u64> = of("X").map(|e| e["pid"].as_u64().unwrap()).collect();
        assert_eq!(calls, procs, "{name}: every rank has calls");
        let starts: HashMap<u64, f64> = of("s")
            .map(|e| (e["id"].as_u64().unwrap(), e["ts"].as_f64().unwrap()))
            .collect();
        let ends: HashMap<u64, f64> = of("f")
            .map(|e| (e["id"].as_u64().unwrap(), e["ts"].as_f64().unwrap()))
            .collect();
        assert!(starts.len() >= 20, "{name}: {} flows", starts.len());
        assert_eq!(
            starts.keys().collect::<BTreeSet<_>>(),
            ends.keys().collect::<BTreeSet<_>>(),
            "{name}: every flow has both ends"
        );
        for (id, s) in &starts {
            assert!(
                ends[id] >= *s,
                "{name}: flow {id} ends at {} before its start {s}",
                ends[id]
            );
        }
        // The report's own: each kept send has its receive (both ends keep alike).
        let sends = rep.waits.trace.iter().filter(|e| e.side == "send").count();
        println!(
            "{name}: {} events, {} flows, {sends} sends kept",
            ev.len(),
            starts.len()
        );
    }
}
