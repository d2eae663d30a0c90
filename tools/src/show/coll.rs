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
            fmt_comm(c.comm_size, c.members.as_deref()),
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
                _ if loggp_model::coll::nothing_at_count_0(r, c) => {
                    "none (count 0: not priced)".into()
                }
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
        format!("; after a pause: the matched calls some member entered at least {:.0} µs after its previous call of the collective, its time inside other collectives since taken out, and their median cost, which measured leaves out where 5 or more others came back to back (an MPI call whose code has not run for a while costs more than back to back, where the LogGP parameters are measured)", loggp_report::PAUSE_NS / 1e3)
    } else {
        String::new()
    };
    t.note = Some(format!("predicted: the algorithm's point-to-point schedule simulated with the calibration's LogGP prices (o_s, o_r, g + (s−1)G, end-to-end time, rendezvous), all members entering at once; as entered: the same with each member entering when it did on average (its wait for the last entry, from the time split), timed from the last entry as measured is; measured: see each row's note in the JSON{after}"));
    Some(t)
}

/// The application's user-defined reduction operations (MPI_Op_create), every rank's
/// calls of their functions per octave of the element count: how many, their time, and
/// the price the collective model takes for a reduction by one (the mean elements at
/// the calls' median ns per element, `loggp_report::user_op_octaves`), beside their mean.
pub fn user_op_table(r: &Report) -> Option<Table> {
    let octaves = loggp_report::user_op_octaves(&r.ranks);
    if octaves.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "User-defined reduction operations (MPI_Op_create): the job's calls of their functions",
        &[
            "elements",
            "calls",
            "mean elements",
            "time",
            "mean per call",
            "median per call (the model's price)",
        ],
    );
    for o in octaves {
        let lo = 2f64.powi(o.octave);
        t.row(vec![
            format!("{lo:.0} … {:.0}", 2.0 * lo - 1.0),
            format!("{:.0}", o.calls),
            format!("{:.0}", o.elements / o.calls),
            fmt_ns(Some(o.ns)),
            fmt_ns(Some(o.ns / o.calls)),
            fmt_ns(Some(o.price_ns)),
        ]);
    }
    t.note = Some(
        "each call of an operation's function timed through loggp's trampoline, on every rank, all the job's user-defined operations together (the first 16 created; created while profiling was off, untimed). The collective model prices a reduction by a user-defined operation at the median (`collective_config.user_op_ns`): a preempted call moves the mean, not the median".into(),
    );
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use loggp_report::bins::hist_index;
    use loggp_report::RankEntry;

    /// Known truth: one rank, 40 calls of 300 elements in 1.2 ms, with their cost per
    /// element at 100 ns (the median), and 2 calls of 20000 elements in 0.5 ms without it
    /// (an older rank file: the mean is the price). The median itself is
    /// `loggp_report::user_op_octaves`'s (tested there).
    #[test]
    fn user_operations_are_shown_per_octave_with_their_price() {
        let r = Report {
            ranks: vec![RankEntry {
                user_op_calls: vec![[40.0, 12000.0, 1.2e6], [2.0, 40000.0, 0.5e6]],
                user_op_ns_per_1024_elements: vec![[8, hist_index(102_400) as u64, 40]],
                ..Default::default()
            }],
            ..Default::default()
        };
        let t = user_op_table(&r).expect("a table");
        let rows: Vec<&[String]> = t.rows.iter().map(|r| &r[..5]).collect();
        assert_eq!(
            rows,
            [
                ["256 … 511", "40", "300", "1.20 ms", "30.00 µs"],
                ["16384 … 32767", "2", "20000", "500.00 µs", "250.00 µs"],
            ]
        );
        assert!(
            t.rows[0][5].starts_with("30.") || t.rows[0][5].starts_with("29."),
            "{:?}",
            t.rows[0]
        );
        assert_eq!(t.rows[1][5], "250.00 µs");
        assert!(user_op_table(&Report::default()).is_none());
    }
}
