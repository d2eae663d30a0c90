//! `loggp trace`: the report's sampled calls as a timeline in the Chrome trace event
//! format, which Perfetto (ui.perfetto.dev) and chrome://tracing open (issue 27).
//!
//! One process per rank; a complete event ("X") per sampled call, on rank 0's clock
//! (the report's `clocks` offsets already applied by the shim), in µs from the earliest
//! call; a flow ("s" at the send, "f" at the receive's end, bound to the enclosing call)
//! joining each message whose two ends are both kept (from the send's start, or a
//! nonblocking send's post on the rank's second track); collectives carry their arrival
//! wait; counters ("C") from the report's `waits.counters`, the rates between each
//! rank's interim snapshots (LOGGP_INTERVAL): the share of time in MPI, MPI calls per
//! second, the small sends' mean call time (passive o_s of the smallest messages), and
//! the shares of time the rank's MPI_Init thread spent off its CPU and waiting in the
//! run queue for one. Each value holds from one snapshot to the next.
use loggp_report::{CounterPoint, Report};
use serde_json::{json, Value};
use std::collections::HashSet;

/// The trace as Chrome trace JSON (`{"traceEvents": [...], "displayTimeUnit": "ns"}`).
pub fn chrome(r: &Report) -> Result<Value, String> {
    let t = &r.waits.trace;
    let counters = &r.waits.counters;
    if t.is_empty() && counters.len() < 2 {
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
        .chain(counters.iter().map(|c| c.at_ns))
        .fold(f64::INFINITY, f64::min);
    let us = |ns: f64| (ns - t0) / 1000.0;
    let mut out: Vec<Value> = vec![];
    let ranks: std::collections::BTreeSet<u32> = t
        .iter()
        .map(|e| e.rank)
        .chain(counters.iter().map(|c| c.rank))
        .collect();
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
    for &k in &ranks {
        let mut pts: Vec<&CounterPoint> = counters.iter().filter(|c| c.rank == k).collect();
        pts.sort_by(|a, b| a.at_ns.total_cmp(&b.at_ns));
        for w in pts.windows(2) {
            for (name, v) in rates(w[0], w[1]) {
                out.push(json!({"name": name, "ph": "C", "pid": k, "ts": us(w[0].at_ns), "args": {"value": v}}));
            }
        }
    }
    Ok(json!({"traceEvents": out, "displayTimeUnit": "ns"}))
}

/// The counters' rates from point `a` to point `b` (named with their units), those the
/// points determine.
pub fn rates(a: &CounterPoint, b: &CounterPoint) -> Vec<(&'static str, f64)> {
    let dt = b.at_ns - a.at_ns;
    if dt <= 0.0 {
        return vec![];
    }
    let mut v = vec![
        (
            "time in MPI (share)",
            ((b.time_in_mpi_ns - a.time_in_mpi_ns) / dt).max(0.0),
        ),
        (
            "MPI calls per s",
            b.calls.saturating_sub(a.calls) as f64 / dt * 1e9,
        ),
    ];
    let n = b.small_send_calls.saturating_sub(a.small_send_calls);
    if n > 0 {
        v.push((
            "o_s, sends <= 256 B (ns)",
            (b.small_send_ns - a.small_send_ns) / n as f64,
        ));
    }
    if let (Some(x), Some(y)) = (a.on_cpu_ns, b.on_cpu_ns) {
        v.push(("off CPU (share)", (1.0 - (y - x) / dt).clamp(0.0, 1.0)));
    }
    if let (Some(x), Some(y)) = (a.runqueue_wait_ns, b.runqueue_wait_ns) {
        v.push(("waiting for a CPU (share)", ((y - x) / dt).clamp(0.0, 1.0)));
    }
    v
}
