//! `loggp advise`: what moving a protocol switch would save this job, as text or JSON
//! (the model is `loggp_model::advise`).
use crate::table::{fmt_ns, fmt_ns_ci, Table};
use loggp_model::advise::{
    advise, algorithm_advice, raw_share, standout_ranks, Advice, AlgorithmAdvice,
};
use loggp_report::Report;

fn ns(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.2} s", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.2} ms", v / 1e6)
    } else if a >= 1e3 {
        format!("{:.2} µs", v / 1e3)
    } else {
        format!("{v:.0} ns")
    }
}

fn ci(c: Option<[f64; 2]>) -> String {
    c.map(|[a, b]| format!(" [{} … {}]", ns(a), ns(b)))
        .unwrap_or_default()
}

/// The advice as JSON: `{"advice": [...], "notes": [...]}`.
pub fn json(r: &Report) -> String {
    let (advice, notes) = advise(r, &loggp_model::Settings::for_report(r));
    serde_json::to_string_pretty(&serde_json::json!({
        "advice": advice,
        "notes": notes,
        "algorithms": algorithm_advice(r),
        "raw_share": raw_share(r, &loggp_model::Settings::for_report(r)),
        "standout_ranks": standout_ranks(r),
    }))
    .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// The advice as text (also a section of `show`).
pub fn text(r: &Report) -> String {
    let (advice, notes) = advise(r, &loggp_model::Settings::for_report(r));
    let mut o = String::from("== advice: protocol switches, priced by the calibration\n");
    for a in &advice {
        o += &one(a);
    }
    for n in notes {
        o += &format!("note: {n}\n");
    }
    if advice.is_empty() {
        o += "no (class, mode) with both a calibration and traffic\n";
    }
    let algs = algorithm_advice(r);
    if !algs.is_empty() {
        o += "\n== advice: collective algorithms, priced by the collective model\n";
        for a in &algs {
            o += &one_algorithm(a);
        }
    }
    for t in share_and_ranks(r) {
        o += "\n";
        o += &t.text();
    }
    o
}

/// The advice as tables, for `show` and `html`: per (class, mode) the knob and its
/// predicted saving; MPI's share over the raw transport; ranks that stand out.
pub fn tables(r: &Report) -> Vec<Table> {
    let (advice, _) = advise(r, &loggp_model::Settings::for_report(r));
    let mut out = vec![];
    if !advice.is_empty() {
        let mut t = Table::new(
            "Advice — protocol switches priced by the calibration (loggp advise)",
            &[
                "class",
                "mode",
                "messages",
                "time in mode",
                "switch (B)",
                "advice",
                "predicted saving",
            ],
        );
        for a in &advice {
            let (what, saving) = match (&a.setting, a.advised) {
                (Some(s), true) => (
                    format!(
                        "{} = {}",
                        s.name,
                        s.value.map_or("?".into(), |v| v.to_string())
                    ),
                    fmt_ns_ci(a.predicted_saving_ns, a.predicted_saving_ns_ci),
                ),
                _ => (
                    a.notes
                        .first()
                        .map_or("no change advised".into(), |n| n.clone()),
                    "—".into(),
                ),
            };
            t.row(vec![
                a.peer_class.to_string(),
                a.mode.to_string(),
                a.observed_messages.to_string(),
                fmt_ns(Some(a.observed_ns)),
                a.current_switch_bytes.map_or("—".into(), |b| b.to_string()),
                what,
                saving,
            ]);
        }
        t.note = Some("saving: per job, with its 95 % interval; it assumes the receiver waits for these messages (exchanges, ping-pongs); `loggp advise` gives the commands and every candidate".into());
        out.push(t);
    }
    out.extend(algorithm_table(r));
    out.extend(share_and_ranks(r));
    out
}

fn one_algorithm(a: &AlgorithmAdvice) -> String {
    let mut o = format!(
        "{} on {} ranks: {} call{}; in use: {}\n",
        a.function,
        a.comm_size,
        a.calls,
        if a.calls == 1 { "" } else { "s" },
        a.in_use.join("; ")
    );
    if let (true, Some(name)) = (a.advised, &a.algorithm) {
        o += &format!(
            "  advice: force {name}: each member's time in it {}{} → {}, predicted saving {}{}\n",
            ns(a.predicted_in_use_ns.unwrap_or(0.0)),
            if a.in_use_measured { " (measured)" } else { "" },
            ns(a.predicted_advised_ns.unwrap_or(0.0)),
            ns(a.predicted_saving_ns.unwrap_or(0.0)),
            ci(a.predicted_saving_ns_ci),
        );
        for c in &a.commands {
            o += &format!("    {c}\n");
        }
    }
    for n in &a.notes {
        o += &format!("  note: {n}\n");
    }
    o
}

/// Per (collective, communicator size): the algorithm to force and its saving.
fn algorithm_table(r: &Report) -> Option<Table> {
    let algs = algorithm_advice(r);
    if algs.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Advice — collective algorithms priced by the collective model (loggp advise)",
        &[
            "collective",
            "ranks",
            "calls",
            "in use",
            "advice",
            "predicted saving",
        ],
    );
    for a in &algs {
        let (what, saving) = match (&a.algorithm, a.advised) {
            (Some(name), true) => (
                format!(
                    "force {name}: {}",
                    a.settings
                        .iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                fmt_ns_ci(a.predicted_saving_ns, a.predicted_saving_ns_ci),
            ),
            _ => (
                a.notes
                    .first()
                    .map_or("no change advised".into(), |n| n.clone()),
                "—".into(),
            ),
        };
        t.row(vec![
            a.function.clone(),
            a.comm_size.to_string(),
            a.calls.to_string(),
            a.in_use.join("; "),
            what,
            saving,
        ]);
    }
    t.note = Some("saving: in each member's time over the job's calls, all sizes at once (a forced algorithm applies to every size); interval: every parameter at its low and at its high bound; advised only where the model holds for the algorithm in use (±30 %) and the interval lies above zero".into());
    Some(t)
}

fn share_and_ranks(r: &Report) -> Vec<Table> {
    let mut out = vec![];
    let share = raw_share(r, &loggp_model::Settings::for_report(r));
    if !share.is_empty() {
        let mut t = Table::new(
            "The job's messages at the raw transport's round trips (the share MPI adds)",
            &[
                "class",
                "raw",
                "messages",
                "not priced",
                "observed",
                "at MPI's PRTT",
                "at raw PRTT",
                "MPI's share",
            ],
        );
        for x in &share {
            t.row(vec![
                x.peer_class.to_string(),
                x.transport.clone(),
                x.messages.to_string(),
                x.messages_not_priced.to_string(),
                fmt_ns(Some(x.observed_ns)),
                fmt_ns(Some(x.predicted_mpi_ns)),
                fmt_ns(Some(x.predicted_raw_ns)),
                x.mpi_share.map_or("— (raw slower)".into(), |v| {
                    format!("{:.0} %", 100.0 * v)
                        + &x.mpi_share_ci
                            .map(|[a, b]| format!(" [{:.0} … {:.0}]", 100.0 * a, 100.0 * b))
                            .unwrap_or_default()
                }),
            ]);
        }
        t.note = Some("each message of the send modes priced at the pair's PRTT(1,0,s), interpolated between the sizes both calibrations measured (never extrapolated: those outside are not priced); MPI's share with its 95 % bootstrap interval".into());
        out.push(t);
    }
    let ranks = standout_ranks(r);
    if !ranks.is_empty() {
        let mut t = Table::new(
            "Ranks whose time in MPI stands out (> 3.5 robust SD and 20 % from the median)",
            &["rank", "host", "time in MPI", "median", "robust z"],
        );
        for k in &ranks {
            t.row(vec![
                k.rank.to_string(),
                k.host.clone(),
                fmt_ns(Some(k.time_in_mpi_ns)),
                fmt_ns(Some(k.median_ns)),
                format!("{:+.1}", k.robust_z),
            ]);
        }
        out.push(t);
    }
    out
}

fn one(a: &Advice) -> String {
    let mut o = format!(
        "{} {}: {} messages, {} in this mode; {} above the switch at {} B ({})\n",
        a.peer_class,
        a.mode,
        a.observed_messages,
        ns(a.observed_ns),
        a.rendezvous_messages,
        a.current_switch_bytes.map_or("?".into(), |b| b.to_string()),
        ns(a.rendezvous_observed_ns),
    );
    if let (true, Some(s)) = (a.advised, &a.setting) {
        o += &format!(
            "  advice: {} = {} (now {}): {} messages turn eager, predicted saving {}{} ({} per message)\n",
            s.name,
            s.value.map_or("?".into(), |v| v.to_string()),
            a.current_text
                .clone()
                .or(a.current.map(|v| v.to_string()))
                .unwrap_or("?".into()),
            a.messages,
            ns(a.predicted_saving_ns.unwrap_or(0.0)),
            ci(a.predicted_saving_ns_ci),
            ns(a.predicted_saving_per_message_ns.unwrap_or(0.0)),
        );
        for c in &a.commands {
            o += &format!("    {c}\n");
        }
    }
    if let (Some(obs), Some(model), Some(ratio)) = (
        a.rendezvous_pair_observed_ns,
        a.rendezvous_pair_predicted_ns,
        a.observed_over_model,
    ) {
        o += &format!(
            "  check: these messages took {} in MPI_Send + MPI_Recv; the calibration prices them at {} ({ratio:.2} ×)\n",
            ns(obs),
            ns(model)
        );
    }
    if a.candidates.len() > 1 {
        o += "  candidates:";
        for c in &a.candidates {
            o += &format!(
                " {} → {}{};",
                c.value,
                ns(c.predicted_saving_ns),
                ci(c.predicted_saving_ns_ci)
            );
        }
        o += "\n";
    }
    for n in &a.notes {
        o += &format!("  note: {n}\n");
    }
    o
}
