//! Where each rank's MPI time goes (issue 25): the split into cost and waiting as a bar
//! per rank, the largest waits with their peer and sizes, the collectives' arrival wait
//! and cost per call, and the end-to-end latency of sampled messages.
use crate::table::*;
use loggp_report::{ClassModeSplit, Report, TimeSplit};

/// The parts of a rank's split, in bar order: (label, bar character, colour, value).
fn parts(t: &TimeSplit) -> [(&'static str, char, &'static str, f64); 6] {
    [
        ("cost", '#', "#3b7dd8", t.cost_ns),
        ("late sender", 'S', "#d8563b", t.late_sender_ns),
        ("late receiver", 'R', "#e3a33b", t.late_receiver_ns),
        ("collective wait", 'W', "#9b59b6", t.collective_wait_ns),
        ("collective cost", 'c', "#5dade2", t.collective_cost_ns),
        ("other", '.', "#bbbbbb", t.other_ns),
    ]
}

/// A text bar of `width` characters for `t`, scaled to `max`.
fn bar(t: &TimeSplit, max: f64, width: usize) -> String {
    let mut s = String::new();
    let mut acc = 0.0;
    for (_, ch, _, v) in parts(t) {
        let before = (acc / max * width as f64).round() as usize;
        acc += v.max(0.0);
        let after = (acc / max * width as f64).round() as usize;
        s.extend(std::iter::repeat_n(ch, after.saturating_sub(before)));
    }
    s
}

/// A rank's other time, with what MPI_Init took of it (the most of it in a short job).
fn other(r: &Report, s: &TimeSplit) -> String {
    let init = super::overview::start_up_ns(r, s.rank);
    if init > 0.0 {
        format!(
            "{} (MPI_Init {})",
            fmt_ns(Some(s.other_ns)),
            fmt_ns(Some(init))
        )
    } else {
        fmt_ns(Some(s.other_ns))
    }
}

/// Per rank: time in MPI, its bar and each part with its interval.
pub fn split_table(r: &Report) -> Option<Table> {
    if r.time_split.is_empty() {
        return None;
    }
    let max = r
        .time_split
        .iter()
        .map(|t| t.time_in_mpi_ns)
        .fold(0.0, f64::max)
        .max(1.0);
    let mut t = Table::new(
        "Where each rank's MPI time goes",
        &[
            "rank",
            "time in MPI",
            "# cost  S late sender  R late receiver  W coll. wait  c coll. cost  . other",
            "cost",
            "late sender",
            "late receiver",
            "coll. wait",
            "coll. cost",
            "other",
        ],
    );
    for s in &r.time_split {
        t.row(vec![
            s.rank.to_string(),
            fmt_ns(Some(s.time_in_mpi_ns)),
            bar(s, max, 40),
            fmt_ns_ci(Some(s.cost_ns), s.cost_ns_ci),
            fmt_ns_ci(Some(s.late_sender_ns), s.late_sender_ns_ci),
            fmt_ns_ci(Some(s.late_receiver_ns), s.late_receiver_ns_ci),
            fmt_ns_ci(Some(s.collective_wait_ns), s.collective_wait_ns_ci),
            fmt_ns_ci(Some(s.collective_cost_ns), s.collective_cost_ns_ci),
            other(r, s),
        ]);
    }
    let sampled: u64 = r.time_split.iter().map(|s| s.sampled_messages).sum();
    let matched: u64 = r.time_split.iter().map(|s| s.matched_messages).sum();
    let w = &r.waits;
    let unsampled: Vec<String> = r
        .time_split
        .iter()
        .filter(|s| s.unsampled_ns > 0.0)
        .map(|s| format!("rank {} {}", s.rank, fmt_ns(Some(s.unsampled_ns))))
        .collect();
    let unsampled = if unsampled.is_empty() {
        String::new()
    } else {
        format!(
            "; message calls of durations no sample met (any part may hold them, and the intervals allow it): {}",
            unsampled.join(", ")
        )
    };
    t.note = Some(format!(
        "blocking sends, receives (MPI_Probe, MPI_Mprobe and polled MPI_Iprobe or MPI_Improbe with their receives too), the Wait and Test calls that complete nonblocking and persistent messages, and collectives are split from {matched} of {sampled} sampled message ends matched with the other end ({} pairs dropped as inconsistent, {} samples lost to the full buffer){unsampled}; other = MPI_Init (the MPI's own; loggp's calibration is not MPI time), nonblocking and persistent starts, MPI_Imrecv, the Wait and Test calls that completed only independent nonblocking I/O or one-sided requests, one-sided calls other than MPI_Win_fence and the epochs' start, complete, post and wait, and I/O calls other than MPI_File_open and the blocking collective ones (MPI_File_write_all and its kin, split as collectives; the Wait and Test calls that complete a nonblocking collective one, MPI_File_iwrite_all and its kin, are split as a nonblocking collective's). Method: {}",
        w.pairs_inconsistent, w.samples_dropped, w.method
    ));
    Some(t)
}

/// Per rank and (peer class, mode): the point-to-point calls' time, cost and waits.
pub fn class_mode_table(r: &Report) -> Option<Table> {
    if r.time_split.iter().all(|s| s.by_class_mode.is_empty()) {
        return None;
    }
    let mut t = Table::new(
        "Point-to-point time by peer class and mode",
        &[
            "rank",
            "class",
            "mode",
            "calls matched",
            "time in the calls",
            "cost",
            "late sender",
            "late receiver",
        ],
    );
    // Beyond PER_RANK ranks, one row per (class, mode) over all ranks: a row per rank
    // and group would bury the page of a large job.
    const PER_RANK: usize = 16;
    let per_rank = r.time_split.len() <= PER_RANK;
    let mut rows: Vec<(String, ClassModeSplit)> = vec![];
    for s in &r.time_split {
        for g in &s.by_class_mode {
            if per_rank {
                rows.push((s.rank.to_string(), g.clone()));
                continue;
            }
            let label = format!("all {}", r.time_split.len());
            match rows
                .iter_mut()
                .find(|(_, x)| x.peer_class == g.peer_class && x.mode == g.mode)
            {
                Some((_, x)) => add(x, g),
                None => rows.push((label, g.clone())),
            }
        }
    }
    for (rank, g) in rows {
        t.row(vec![
            rank,
            g.peer_class.to_string(),
            g.mode.to_string(),
            g.calls_matched.to_string(),
            fmt_ns_ci(Some(g.message_calls_ns), g.message_calls_ns_ci),
            fmt_ns_ci(Some(g.cost_ns), g.cost_ns_ci),
            fmt_ns_ci(Some(g.late_sender_ns), g.late_sender_ns_ci),
            fmt_ns_ci(Some(g.late_receiver_ns), g.late_receiver_ns_ci),
        ]);
    }
    t.note = Some(format!(
        "a matched sample counts under its message's class and mode (the call that started it); a Wait that completed several requests under the one it waited longest for; each row is its share of the rank's sampled calls, scaled to the rank's measured time like the split, so the rows add up to the rank's{}",
        if per_rank {
            ""
        } else {
            "; over all ranks (summed, intervals by their bounds) beyond 16 ranks"
        }
    ));
    Some(t)
}

/// `into` += `g`, intervals by their bounds.
fn add(into: &mut ClassModeSplit, g: &ClassModeSplit) {
    let sum = |a: Option<[f64; 2]>, b: Option<[f64; 2]>| Some([a?[0] + b?[0], a?[1] + b?[1]]);
    into.calls_matched += g.calls_matched;
    into.message_calls_ns += g.message_calls_ns;
    into.cost_ns += g.cost_ns;
    into.late_sender_ns += g.late_sender_ns;
    into.late_receiver_ns += g.late_receiver_ns;
    into.message_calls_ns_ci = sum(into.message_calls_ns_ci, g.message_calls_ns_ci);
    into.cost_ns_ci = sum(into.cost_ns_ci, g.cost_ns_ci);
    into.late_sender_ns_ci = sum(into.late_sender_ns_ci, g.late_sender_ns_ci);
    into.late_receiver_ns_ci = sum(into.late_receiver_ns_ci, g.late_receiver_ns_ci);
}

/// The largest waits: who waited for whom, in which call and sizes.
pub fn largest_waits_table(r: &Report, n: usize) -> Option<Table> {
    if r.waits.largest.is_empty() {
        return None;
    }
    let mut v: Vec<_> = r.waits.largest.iter().collect();
    v.sort_by(|a, b| b.wait_ns.total_cmp(&a.wait_ns));
    let mut t = Table::new(
        "Largest waits",
        &[
            "rank",
            "waits for",
            "kind",
            "in",
            "sizes",
            "wait",
            "messages sampled",
            "call site",
        ],
    );
    for w in v.into_iter().take(n) {
        t.row(vec![
            w.rank.to_string(),
            format!("rank {}", w.peer),
            w.kind.replace('_', " "),
            w.function.clone(),
            fmt_span(w.size_lo_bytes, w.size_hi_bytes),
            fmt_ns(Some(w.wait_ns)),
            w.messages_matched.to_string(),
            match (&w.object, w.address) {
                (Some(p), Some(a)) => super::sites::symbolize(p, w.build_id.as_deref(), a),
                _ => "-".into(),
            },
        ]);
    }
    t.note = Some("late sender: a receive waited for its send to start; late receiver: a send waited for its receive to be posted; scaled to all calls like the split".into());
    Some(t)
}

/// Per rank and collective: the mean arrival wait and cost of one call.
pub fn collectives_table(r: &Report) -> Option<Table> {
    if r.waits.collectives.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Collectives: arrival wait and cost per call",
        &[
            "rank",
            "function",
            "comm size",
            "sizes",
            "calls sampled",
            "arrival wait",
            "cost",
        ],
    );
    for c in &r.waits.collectives {
        t.row(vec![
            c.rank.to_string(),
            c.function.clone(),
            fmt_comm(c.comm_size, c.members.as_deref()),
            fmt_span(c.size_lo_bytes, c.size_hi_bytes),
            c.calls_matched.to_string(),
            fmt_ns_ci(Some(c.arrival_wait_ns), c.arrival_wait_ns_ci),
            fmt_ns_ci(Some(c.cost_ns), c.cost_ns_ci),
        ]);
    }
    t.note = Some("arrival wait: from this rank's entry to the last member's (of a neighbourhood collective: the last in-neighbour's); cost: from the last entry to this rank's exit".into());
    Some(t)
}

/// End-to-end latency of sampled messages whose receiver was already waiting.
pub fn latency_table(r: &Report) -> Option<Table> {
    if r.passive_latency.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Passive end-to-end latency (send entry to receive exit)",
        &["rank", "class", "sizes", "pairs", "median"],
    );
    for l in &r.passive_latency {
        t.row(vec![
            l.rank.to_string(),
            l.peer_class.to_string(),
            fmt_span(l.size_lo_bytes, l.size_hi_bytes),
            l.pairs.to_string(),
            fmt_ns_ci(Some(l.median_ns), l.median_ns_ci),
        ]);
    }
    Some(t)
}

/// The split as stacked bars, one per rank (above 64 ranks, the 64 with the most time).
pub fn split_svg(r: &Report) -> Option<String> {
    if r.time_split.is_empty() {
        return None;
    }
    let mut v: Vec<&TimeSplit> = r.time_split.iter().collect();
    if v.len() > 64 {
        v.sort_by(|a, b| b.time_in_mpi_ns.total_cmp(&a.time_in_mpi_ns));
        v.truncate(64);
        v.sort_by_key(|t| t.rank);
    }
    let (w, h, l, top, bottom) = (720.0, 360.0, 70.0, 40.0, 60.0);
    let max = v
        .iter()
        .map(|t| t.time_in_mpi_ns)
        .fold(0.0, f64::max)
        .max(1.0);
    let bw = (w - l - 20.0) / v.len() as f64;
    let mut o = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">\n<title>time in MPI per rank, split</title>\n<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">Where each rank's MPI time goes</text>\n<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
        w / 2.0,
        l - 6.0,
        top + 4.0,
        esc(&fmt_ns(Some(max)))
    );
    for (i, t) in v.iter().enumerate() {
        let x = l + i as f64 * bw;
        let mut y = h - bottom;
        for (name, _, colour, val) in parts(t) {
            let hh = val.max(0.0) / max * (h - top - bottom);
            if hh <= 0.0 {
                continue;
            }
            y -= hh;
            o += &format!(
                "<rect class=\"part\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.2}\" height=\"{hh:.1}\" fill=\"{colour}\"><title>rank {}: {name} {}</title></rect>",
                (bw * 0.8).max(0.5),
                t.rank,
                esc(&fmt_ns(Some(val)))
            );
        }
        if v.len() <= 32 {
            o += &format!(
                "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\">{}</text>",
                x + bw * 0.4,
                h - bottom + 14.0,
                t.rank
            );
        }
    }
    for (i, (name, _, colour, _)) in parts(v[0]).iter().enumerate() {
        let x = l + i as f64 * 105.0;
        o += &format!(
            "<rect x=\"{x}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{colour}\"/><text x=\"{}\" y=\"{}\" font-size=\"11\">{name}</text>",
            h - 28.0,
            x + 14.0,
            h - 19.0
        );
    }
    Some(o + "</svg>\n")
}
