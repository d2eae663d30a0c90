//! The LogGP model of collectives (issue 26): per collective, the algorithm in use and
//! its predicted cost, the best alternative, and the measured cost.
use super::*;

pub fn model_table(r: &Report) -> Option<Table> {
    if r.collective_model.is_empty() {
        return None;
    }
    // A column for the calls after a pause, where a row has some.
    let pauses = r
        .collective_model
        .iter()
        .any(|c| c.calls_after_pause.unwrap_or(0) > 0);
    let mut head = vec![
        "function",
        "comm size",
        "message",
        "algorithm in use",
        "predicted",
        "as entered",
        "measured",
    ];
    if pauses {
        head.push("after a pause");
    }
    head.push("best by the model");
    let mut t = Table::new(
        "Collectives: the LogGP model per algorithm against the measured cost",
        &head,
    );
    for c in &r.collective_model {
        let best = match (&c.best, &c.algorithm) {
            (Some(b), Some(a)) if &b.algorithm == a => "the one in use".to_string(),
            (Some(b), _) => format!(
                "{} {} ({})",
                b.algorithm,
                fmt_ns_ci(Some(b.predicted_ns), b.predicted_ns_ci),
                b.force
            ),
            _ => "-".into(),
        };
        let mut row = vec![
            c.function.clone(),
            c.comm_size.to_string(),
            match c.operation.as_deref() {
                // A reduction whose operation is not MPI's own: the MPIs choose by it.
                Some(op) if op != loggp_report::OP_PREDEFINED => {
                    format!("{} B, {}", c.message_bytes, op.replace('_', " "))
                }
                _ => format!("{} B", c.message_bytes),
            },
            match (&c.algorithm, &c.algorithm_source) {
                (Some(a), Some(s)) => format!("{a} ({s})"),
                _ if c.comm_size <= 1 => "none (one rank: not priced)".into(),
                _ => "not known".into(),
            },
            fmt_ns_ci(c.predicted_ns, c.predicted_ns_ci),
            c.predicted_as_entered_ns
                .map_or("-".into(), |v| fmt_ns(Some(v))),
            fmt_ns_ci(c.measured_ns, c.measured_ns_ci),
        ];
        if pauses {
            row.push(match c.calls_after_pause {
                Some(n) if n > 0 => format!(
                    "{n} of {} calls, {}",
                    c.calls_matched,
                    fmt_ns(c.measured_after_pause_ns)
                ),
                _ => "-".into(),
            });
        }
        row.push(best);
        t.row(row);
    }
    let after = if pauses {
        format!("; after a pause: the matched calls some member entered at least {:.0} µs after its previous call of the collective, and their median cost, which measured leaves out where 5 or more others came back to back (an MPI call whose code has not run for a while costs more than back to back, where the LogGP parameters are measured)", loggp_report::PAUSE_NS / 1e3)
    } else {
        String::new()
    };
    t.note = Some(format!("predicted: the algorithm's point-to-point schedule simulated with the calibration's LogGP prices (o_s, o_r, g + (s−1)G, end-to-end time, rendezvous), all members entering at once; as entered: the same with each member entering when it did on average (its wait for the last entry, from the time split), timed from the last entry as measured is; measured: see each row's note in the JSON{after}"));
    Some(t)
}
