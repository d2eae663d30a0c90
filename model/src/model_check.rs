//! The model check of the passive fits: does the fitted model explain the application's
//! calls? Two views per (peer class, mode):
//! * per size bin, the fitted line of its range at the bin's size against the median of
//!   its calls; the count-weighted median of the relative errors. A line that misses the
//!   bulk of the calls shows here, but so does waiting: the median of a blocking call
//!   holds what it waited for its partner, which no LogGP overhead predicts.
//! * the model's price of all the calls, Σ count × line(size), against the cost part of
//!   their time in the waits' split (`time_split[].by_class_mode`, summed over ranks:
//!   each call's time less its late-sender and late-receiver wait, issue 25). The
//!   lines are lower envelopes, so the price is what the calls cost without waiting and
//!   without the machine's disturbances; the cost part still holds the disturbances.
//!
//! The price is given for the blocking modes only. A nonblocking mode's envelope is the
//! start and the completion of a request that had already completed: its line prices the
//! calls' overhead, while their cost in the split holds the transfer their completion
//! calls waited for (examples/demo.c: isend and irecv priced at 0.01–0.09 of that cost).
//!
//! Ranges left with no parameter predict nothing and are left out of both: those whose
//! calls nearly all waited for their partner (`passive::waited_for_partner`: their
//! envelopes measure the partner) and a send-receive's (one call cannot separate o_s and
//! o_r). Their calls are counted as not priced, and the price is given only where every
//! call of the mode is priced, so that it compares with the whole mode's cost.
use loggp_report::{Mode, ModelCheck, PeerClass, Range, TimeSplit};

/// One size bin's prediction by its range's line.
#[derive(Clone, Copy, Debug)]
pub struct Prediction {
    /// The index of the bin's range among the (class, mode)'s ranges.
    pub range: usize,
    pub count: u64,
    pub median_ns: f64,
    pub predicted_ns: f64,
}

/// The count-weighted median of |predicted − median| / median over the bins of the
/// ranges `keep` takes.
pub fn median_error(p: &[Prediction], keep: impl Fn(usize) -> bool) -> Option<f64> {
    let mut errs: Vec<(f64, u64)> = p
        .iter()
        .filter(|x| keep(x.range) && x.median_ns > 0.0)
        .map(|x| ((x.predicted_ns - x.median_ns).abs() / x.median_ns, x.count))
        .collect();
    errs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let half = errs.iter().map(|e| e.1).sum::<u64>().div_ceil(2);
    let mut seen = 0;
    errs.iter()
        .find(|e| {
            seen += e.1;
            seen >= half
        })
        .map(|e| e.0)
}

/// Whether the range reports a parameter the model can price with.
pub fn fitted(r: &Range) -> bool {
    r.send_overhead_ns.is_some()
        || r.recv_overhead_ns.is_some()
        || r.gap_ns.is_some()
        || r.gap_per_byte_ns.is_some()
}

/// The report's model check of one (class, mode), over the ranges as reported (after
/// `passive::waited_for_partner`).
pub fn check(
    (peer_class, mode): (PeerClass, Mode),
    calls: u64,
    predictions: &[Prediction],
    ranges: &[Range],
    split: &[TimeSplit],
) -> ModelCheck {
    let keep = |k: usize| ranges.get(k).is_some_and(fitted);
    let priced = predictions
        .iter()
        .filter(|p| mode.is_blocking() && keep(p.range));
    let priced_calls: u64 = priced.clone().map(|p| p.count).sum();
    let price: f64 = priced.map(|p| p.count as f64 * p.predicted_ns).sum();
    let rows: Vec<_> = split
        .iter()
        .flat_map(|t| &t.by_class_mode)
        .filter(|x| x.peer_class == peer_class && x.mode == mode)
        .collect();
    let cost = (!rows.is_empty()).then(|| rows.iter().map(|x| x.cost_ns).sum::<f64>());
    let cost_ci = rows
        .iter()
        .map(|x| x.cost_ns_ci)
        .try_fold([0.0, 0.0], |[lo, hi], c| c.map(|[a, b]| [lo + a, hi + b]));
    ModelCheck {
        peer_class,
        mode,
        calls,
        median_relative_error: median_error(predictions, keep),
        priced_calls,
        priced_ns: (priced_calls == calls && calls > 0).then_some(price),
        cost_ns: cost,
        cost_ns_ci: cost.and(cost_ci),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loggp_report::ClassModeSplit;

    fn range(o: Option<f64>) -> Range {
        Range {
            send_overhead_ns: o,
            ..Default::default()
        }
    }

    fn p(range: usize, count: u64, median_ns: f64, predicted_ns: f64) -> Prediction {
        Prediction {
            range,
            count,
            median_ns,
            predicted_ns,
        }
    }

    fn split(cost: f64) -> TimeSplit {
        TimeSplit {
            by_class_mode: vec![ClassModeSplit {
                peer_class: PeerClass::IntraNode,
                mode: Mode::Send,
                cost_ns: cost,
                cost_ns_ci: Some([0.9 * cost, 1.1 * cost]),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    /// A range emptied because its calls waited (no parameter) is out of the median and
    /// leaves the price unset; with every range fitted the price is Σ count × line and
    /// the cost the ranks' sum.
    #[test]
    fn only_fitted_ranges_are_checked_and_priced() {
        let key = (PeerClass::IntraNode, Mode::Send);
        // Range 0 fits its calls; range 1's median is a 2 ms wait over a 10 µs line.
        let preds = [p(0, 100, 1000.0, 1000.0), p(1, 300, 2e6, 1e4)];
        let splits = [split(1.5e5), split(2.0e5)];
        let both = [range(Some(1000.0)), range(Some(1e4))];
        let c = check(key, 400, &preds, &both, &splits);
        assert!(c.median_relative_error.unwrap() > 0.99);
        assert_eq!(c.priced_ns, Some(100.0 * 1000.0 + 300.0 * 1e4));
        assert_eq!(c.cost_ns, Some(3.5e5));
        let [lo, hi] = c.cost_ns_ci.unwrap();
        assert!((lo - 3.15e5).abs() < 1e-6 && (hi - 3.85e5).abs() < 1e-6);
        let emptied = [range(Some(1000.0)), range(None)];
        let c = check(key, 400, &preds, &emptied, &splits);
        assert_eq!(c.median_relative_error, Some(0.0));
        assert_eq!((c.priced_calls, c.priced_ns), (100, None));
        // Another mode's split is not this one's cost.
        let c = check(
            (PeerClass::IntraNode, Mode::Recv),
            400,
            &preds,
            &both,
            &splits,
        );
        assert_eq!(c.cost_ns, None);
        // A nonblocking mode's line is its overhead: checked, not priced.
        let isend = (PeerClass::IntraNode, Mode::Isend);
        let c = check(isend, 400, &preds, &both, &splits);
        assert!(c.median_relative_error.is_some());
        assert_eq!((c.priced_calls, c.priced_ns), (0, None));
    }
}
