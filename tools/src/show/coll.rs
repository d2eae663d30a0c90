//! The LogGP model of collectives (issue 26): per collective, the algorithm in use and
//! its predicted cost, the best alternative, and the measured cost.
use super::*;

pub fn model_table(r: &Report) -> Option<Table> {
    if r.collective_model.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Collectives: the LogGP model per algorithm against the measured cost",
        &[
            "function",
            "comm size",
            "message",
            "algorithm in use",
            "predicted",
            "as entered",
            "measured",
            "best by the model",
        ],
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
        t.row(vec![
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
            best,
        ]);
    }
    t.note = Some("predicted: the algorithm's point-to-point schedule simulated with the calibration's LogGP prices (o_s, o_r, g + (s−1)G, end-to-end time, rendezvous), all members entering at once; as entered: the same with each member entering when it did on average (its wait for the last entry, from the time split), timed from the last entry as measured is; measured: see each row's note in the JSON".into());
    Some(t)
}
