//! `loggp trace`: the report's sampled calls as a timeline in the Chrome trace event
//! format, which Perfetto (ui.perfetto.dev) and chrome://tracing open (issue 27).
//!
//! One process per rank; a complete event ("X") per sampled call, on rank 0's clock
//! (the report's `clocks` offsets already applied by the shim), in µs from the earliest
//! call; a flow ("s" at the send, "f" at the receive's end, bound to the enclosing call)
//! joining each message whose two ends are both kept (from the send's start, or a
//! nonblocking send's post on the rank's second track); collectives carry their arrival
//! wait. Counters over time would need the interim snapshots' series, which reports do
//! not carry yet: none are written.
use loggp_report::Report;
use serde_json::{json, Value};
use std::collections::HashSet;

/// The trace as Chrome trace JSON (`{"traceEvents": [...], "displayTimeUnit": "ns"}`).
pub fn chrome(r: &Report) -> Result<Value, String> {
    let t = &r.waits.trace;
    if t.is_empty() {
        return Err(format!(
            "no sampled calls in this report (waits: {})",
            if r.waits.status.is_empty() {
                "not measured"
            } else {
                &r.waits.status
            }
        ));
    }
    let t0 = t
        .iter()
        .map(|e| e.posted_ns.unwrap_or(e.start_ns).min(e.start_ns))
        .fold(f64::INFINITY, f64::min);
    let us = |ns: f64| (ns - t0) / 1000.0;
    let mut out: Vec<Value> = vec![];
    let ranks: std::collections::BTreeSet<u32> = t.iter().map(|e| e.rank).collect();
    for &k in &ranks {
        out.push(json!({"name": "process_name", "ph": "M", "pid": k, "tid": 0, "args": {"name": format!("rank {k}")}}));
        out.push(json!({"name": "process_sort_index", "ph": "M", "pid": k, "tid": 0, "args": {"sort_index": k}}));
    }
    // A flow only where both of its ends are in the trace.
    let ends = |side: &str| -> HashSet<u64> {
        t.iter()
            .filter(|e| e.side == side)
            .filter_map(|e| e.flow)
            .collect()
    };
    let both: HashSet<u64> = ends("send").intersection(&ends("recv")).copied().collect();
    for e in t {
        let mut args = json!({"bytes": e.bytes});
        if let Some(p) = e.peer {
            args["peer"] = json!(p);
        }
        if let Some(w) = e.arrival_wait_ns {
            args["arrival_wait_ns"] = json!(w);
        }
        out.push(json!({
            "name": e.function, "cat": e.side, "ph": "X", "pid": e.rank, "tid": 0,
            "ts": us(e.start_ns), "dur": (e.end_ns - e.start_ns).max(0.0) / 1000.0, "args": args,
        }));
        // A nonblocking message's post, on a second track of the rank: a send's flow
        // starts there, when the message could first move.
        if let Some(p) = e.posted_ns {
            out.push(json!({
                "name": format!("{} posted", e.side), "cat": e.side, "ph": "X", "pid": e.rank,
                "tid": 1, "ts": us(p), "dur": 0.001, "args": {"completed by": e.function},
            }));
        }
        if let Some(id) = e.flow.filter(|f| both.contains(f)) {
            if e.side == "send" {
                let (at, tid) = e.posted_ns.map_or((e.start_ns, 0), |p| (p, 1));
                out.push(json!({"name": "message", "cat": "message", "ph": "s", "id": id, "pid": e.rank, "tid": tid, "ts": us(at)}));
            } else {
                out.push(json!({"name": "message", "cat": "message", "ph": "f", "bp": "e", "id": id, "pid": e.rank, "tid": 0, "ts": us(e.end_ns)}));
            }
        }
    }
    Ok(json!({"traceEvents": out, "displayTimeUnit": "ns"}))
}
