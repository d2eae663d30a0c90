//! What each collective cost as measured: from the time split where the report has it
//! (the cost from the last member's entry, and each member's wait for it), else from the
//! fastest decile of the calls.
use super::operation::{Operation, ASSUMED};
use super::{message_bytes, short_name};
use loggp_report::{bins, CollectiveSplit, Mode, Report};

/// A measured collective: function, communicator size, size bin, message size, its
/// cost and interval, the calls behind it, and where the cost comes from.
pub(super) struct Measured {
    pub(super) function: String,
    pub(super) coll: &'static str,
    pub(super) n: u32,
    pub(super) bin: (u64, u64),
    pub(super) m: u64,
    pub(super) cost: Option<(f64, Option<[f64; 2]>)>,
    pub(super) calls: u64,
    pub(super) from: &'static str,
    /// The largest member's mean wait for the last entry (ns; 0 without the time split).
    pub(super) lead_ns: f64,
    /// Each member's mean wait for the last entry, by world rank, where every rank of
    /// the job is a member (see `AlgorithmCost::predicted_as_entered_ns`).
    pub(super) waits: Vec<(u32, f64)>,
    /// A reduction's operation, as its members' rows say (`operation::Operation::of`),
    /// and the report's word for it ("mixed" where they differ).
    pub(super) op: Operation,
    pub(super) operation: Option<String>,
    /// The calls some member entered after a pause since its previous call of the
    /// collective (`CollectiveSplit::after_pause`): how many, their cost (the largest over
    /// the members of their median), and how many were back to back.
    pub(super) after_pause: Option<(u64, Option<f64>, u64)>,
    /// The communicator's world ranks in its rank order, where its rows say
    /// (`CollectiveSplit::members`): null for every rank in order, or not known.
    pub(super) members: Option<Vec<u32>>,
}

/// Back-to-back calls a row needs for its measured cost to be theirs alone, where some
/// of its calls came after a pause: fewer, and the row keeps the median of all its calls.
pub const MIN_BACK_TO_BACK: u64 = 5;

impl Measured {
    /// The note of a row with calls after a pause (see `loggp_report::PAUSE_NS`): what
    /// they cost, and whether the measured cost leaves them out.
    /// `probe`: what the calibration's exchange after a pause showed ([`after_pause_probe`]).
    pub(super) fn after_pause_note(&self, probe: Option<&str>) -> Option<String> {
        let (calls, cost, back) = self.after_pause?;
        if calls == 0 {
            return None;
        }
        let cost = cost.map_or(String::new(), |c| format!(", their median cost {c:.0} ns"));
        let how = if back >= MIN_BACK_TO_BACK {
            "measured_ns is the median of the others"
        } else {
            "too few others to measure without them"
        };
        let probe = probe.map_or(String::new(), |p| format!("; {p}"));
        Some(format!(
            "{calls} of {} matched calls came at least {:.0} µs away from the collectives after the member's previous call of this collective{cost}: an MPI call whose code has not run for a while costs more than back to back, where the model's parameters are measured ({how}){probe}",
            calls + back,
            loggp_report::PAUSE_NS / 1e3
        ))
    }

    /// [`Measured::cost`] of one member's row: the median of its back-to-back calls where
    /// some came after a pause and enough did not, else of all its calls.
    fn member_cost(c: &CollectiveSplit) -> (f64, Option<[f64; 2]>) {
        if let Some(a) = &c.after_pause {
            if let (true, true, Some(v)) = (
                a.calls > 0,
                a.calls_back_to_back >= MIN_BACK_TO_BACK,
                a.back_to_back_cost_median_ns,
            ) {
                return (v, a.back_to_back_cost_median_ns_ci);
            }
        }
        match c.cost_median_ns {
            Some(v) => (v, c.cost_median_ns_ci),
            None => (c.cost_ns, c.cost_ns_ci),
        }
    }

    /// Each member's entry time, the first at 0, in communicator order, where the time
    /// split has every member's mean wait for the last entry and the members are known
    /// (recorded, or the job's ranks in rank order for a communicator of every rank).
    pub(super) fn entries(&self, ranks: usize) -> Option<Vec<f64>> {
        // The members' world ranks in communicator order: as recorded, else the job's
        // ranks in rank order for a communicator of every rank.
        let order: Vec<u32> = match &self.members {
            Some(m) => m.clone(),
            None if self.n as usize == ranks => (0..ranks as u32).collect(),
            None => return None,
        };
        if order.len() != self.n as usize || self.waits.len() != order.len() {
            return None;
        }
        let w: Vec<f64> = (order.iter())
            .map(|k| self.waits.iter().find(|x| x.0 == *k).map(|x| x.1))
            .collect::<Option<_>>()?;
        // Two members: in each call one waits for the other, so the mean time apart is
        // the sum of their mean waits, not their difference (which is near zero where
        // each comes last half the time).
        if w.len() == 2 {
            let apart = w[0] + w[1];
            return Some(if w[0] >= w[1] {
                vec![0.0, apart]
            } else {
                vec![apart, 0.0]
            });
        }
        let first = w.iter().copied().fold(0.0, f64::max);
        Some(w.iter().map(|x| first - x).collect())
    }
}

/// The size bin a member's row of collective calls belongs to: its own, except for the
/// root of an MPI_Reduce, which counts its contribution and the result (2m) where the
/// other members count m, so that its calls fall in the bin of twice the size. Its row
/// then joins the other members' (see [`half_of`]): the call's cost is the root's, which
/// finishes it, and alone the other members' row measured 0.2–0.4 × the price of a
/// binomial Reduce on 2 ranks (a member sends and leaves). A rank is taken for the root
/// of the Reduces on a communicator size where each of its rows there has such a
/// partner: with sizes a factor 2 apart (1 KiB and 4 KiB) a member's 4 KiB row also has
/// a partner in the root's 2 KiB row, but the member's 1 KiB row has none. Where the
/// root changes from call to call no rank is, and the rows stay apart.
fn root_of_reduce(c: &CollectiveSplit, all: &[CollectiveSplit]) -> (u64, u64) {
    let own = (c.size_lo_bytes, c.size_hi_bytes);
    if c.function != "MPI_Reduce" {
        return own;
    }
    let mine = || {
        all.iter()
            .filter(|o| o.function == c.function && o.comm_size == c.comm_size && o.rank == c.rank)
            .filter(|o| o.members == c.members)
    };
    if !mine().all(|o| half_of(o, all).is_some()) {
        return own;
    }
    half_of(c, all).map_or(own, |o| (o.size_lo_bytes, o.size_hi_bytes))
}

/// Another member's row of the same function and communicator size, in another bin, with
/// half of `c`'s bytes (within 1 %) over the same matched calls: the other members' row
/// of a Reduce whose root `c` is.
fn half_of<'a>(c: &CollectiveSplit, all: &'a [CollectiveSplit]) -> Option<&'a CollectiveSplit> {
    all.iter().find(|o| {
        o.function == c.function
            && o.comm_size == c.comm_size
            && o.members == c.members
            && o.rank != c.rank
            && o.size_lo_bytes != c.size_lo_bytes
            && o.calls_matched == c.calls_matched
            && c.bytes_mean > 0.0
            && (2.0 * o.bytes_mean - c.bytes_mean).abs() <= 0.01 * c.bytes_mean
    })
}

pub(super) fn measured(r: &Report) -> Vec<Measured> {
    let mut out: Vec<Measured> = vec![];
    if r.waits.status == "done" {
        // Each row's members, for its operation (`Operation::of`).
        let mut members: Vec<Vec<&CollectiveSplit>> = vec![];
        for c in &r.waits.collectives {
            let Some(coll) = short_name(&c.function) else {
                continue;
            };
            let m = message_bytes(coll, c.comm_size, c.bytes_mean);
            let bin = root_of_reduce(c, &r.waits.collectives);
            let i = match out.iter().position(|x| {
                x.function == c.function
                    && x.n == c.comm_size
                    && x.bin.0 == bin.0
                    && x.members == c.members
            }) {
                Some(i) => i,
                None => {
                    out.push(Measured {
                        function: c.function.clone(),
                        coll,
                        n: c.comm_size,
                        bin,
                        m,
                        cost: None,
                        calls: 0,
                        lead_ns: 0.0,
                        waits: vec![],
                        op: ASSUMED,
                        operation: None,
                        after_pause: None,
                        members: c.members.clone(),
                        from: if c.cost_median_ns.is_some() {
                            "the time split's collective cost: the largest over the members of the median time from the last entry to the member's exit (the model prices a call, not a preempted one; the mean is in waits.collectives)"
                        } else {
                            "the time split's collective cost: the largest over the members of the mean time from the last entry to the member's exit"
                        },
                    });
                    members.push(vec![]);
                    out.len() - 1
                }
            };
            members[i].push(c);
            let x = &mut out[i];
            // The root of a Reduce counts 2m: the other members give m.
            x.m = x.m.min(m);
            x.calls = x.calls.max(c.calls_matched);
            x.lead_ns = x.lead_ns.max(c.arrival_wait_ns);
            x.waits.push((c.rank, c.arrival_wait_ns));
            // The median where the report has it (see `CollectiveSplit::cost_median_ns`),
            // of the back-to-back calls where some came after a pause.
            let (cost, ci) = Measured::member_cost(c);
            if x.cost.is_none_or(|(v, _)| cost > v) {
                x.cost = Some((cost, ci));
            }
            if let Some(a) = &c.after_pause {
                let (_, worst, _) = x.after_pause.unwrap_or_default();
                let worst = worst.into_iter().chain(a.cost_median_ns).reduce(f64::max);
                x.after_pause = Some((a.calls, worst, a.calls_back_to_back));
            }
        }
        for (x, members) in out.iter_mut().zip(&members) {
            (x.op, x.operation) = Operation::of(members);
        }
        return out;
    }
    // Without the time split: the fastest decile of the calls, which waited least.
    for c in &r.cells {
        let (Some(coll), Some(n), Mode::Collective) =
            (short_name(&c.function), c.comm_size, c.mode)
        else {
            continue;
        };
        if c.count == 0 {
            continue;
        }
        let hist: Vec<(u16, u64)> = c.hist.iter().map(|x| (x[0] as u16, x[1])).collect();
        let bin = bins::size_bin_range(c.size_bin);
        out.push(Measured {
            function: c.function.clone(),
            coll,
            n,
            bin,
            m: message_bytes(coll, n, c.bytes as f64 / c.count as f64),
            cost: bins::quantile(&hist, 0.1).map(|q| (q, bins::quantile_ci(&hist, 0.1))),
            calls: c.count,
            lead_ns: 0.0,
            waits: vec![],
            op: ASSUMED,
            operation: None,
            after_pause: None,
            members: None,
            from: "the fastest decile of the calls (no time split in this report): waiting is not taken out",
        });
    }
    out
}

/// What the calibration's isolated exchange after a pause away from MPI showed
/// (`Point::exchange_after_pause`), in words: the exchange back to back and after each
/// pause. None where the set has no such point.
pub fn after_pause_probe(set: &loggp_report::CalibrationSet) -> Option<String> {
    let p = set
        .points
        .iter()
        .find(|p| !p.exchange_after_pause.is_empty())?;
    let ns = |x: f64| {
        if x >= 1e3 {
            format!("{:.2} µs", x / 1e3)
        } else {
            format!("{x:.0} ns")
        }
    };
    let pause = |x: f64| {
        if x >= 1e6 {
            format!("{:.0} ms", x / 1e6)
        } else {
            format!("{:.0} µs", x / 1e3)
        }
    };
    let after: Vec<String> = (p.exchange_after_pause.iter())
        .map(|a| {
            format!(
                "{} after {} away from MPI",
                ns(a.exchange_ns),
                pause(a.pause_ns)
            )
        })
        .collect();
    Some(format!(
        "the calibration's {}-byte exchange took {} back to back, {}",
        p.size_bytes,
        p.exchange_isolated_ns.map_or("—".into(), ns),
        after.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::super::sim::{simulate_members_from, Local, Price, Round};
    use super::Measured;
    use loggp_report::{AfterPause, CollectiveSplit};

    /// The calibration's exchange after a pause, in the words a row's note quotes: the
    /// exchange back to back and after each pause; nothing where no point has it.
    #[test]
    fn the_exchange_after_a_pause_is_quoted_with_its_pauses() {
        use loggp_report::{CalibrationSet, ExchangeAfterPause, Point};
        let after = |pause_ns: f64, exchange_ns: f64| ExchangeAfterPause {
            pause_ns,
            exchange_ns,
            exchange_reps_ns: vec![exchange_ns],
        };
        let mut set = CalibrationSet {
            points: vec![
                Point {
                    size_bytes: 1,
                    ..Default::default()
                },
                Point {
                    size_bytes: 8,
                    exchange_isolated_ns: Some(290.0),
                    exchange_after_pause: vec![after(1e5, 315.0), after(1e6, 1261.0)],
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        assert_eq!(
            super::after_pause_probe(&set).as_deref(),
            Some("the calibration's 8-byte exchange took 290 ns back to back, 315 ns after 100 µs away from MPI, 1.26 µs after 1 ms away from MPI")
        );
        set.points[1].exchange_after_pause.clear();
        assert_eq!(super::after_pause_probe(&set), None);
    }

    /// A member's row with some calls after a pause: measured from its back-to-back calls
    /// where at least `MIN_BACK_TO_BACK` were, else from all of them; the note says which.
    #[test]
    fn a_row_with_calls_after_a_pause_is_measured_back_to_back() {
        let split = |back: u64| CollectiveSplit {
            cost_median_ns: Some(3000.0),
            cost_median_ns_ci: Some([2500.0, 3500.0]),
            after_pause: Some(AfterPause {
                pause_ns: loggp_report::PAUSE_NS,
                calls: 20,
                cost_median_ns: Some(4000.0),
                calls_back_to_back: back,
                back_to_back_cost_median_ns: Some(900.0),
                back_to_back_cost_median_ns_ci: Some([800.0, 1000.0]),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert_eq!(
            Measured::member_cost(&split(40)),
            (900.0, Some([800.0, 1000.0]))
        );
        assert_eq!(
            Measured::member_cost(&split(super::MIN_BACK_TO_BACK - 1)),
            (3000.0, Some([2500.0, 3500.0]))
        );
        let mut m = row(2, vec![]);
        m.after_pause = Some((20, Some(4000.0), 40));
        let note = m.after_pause_note(None).unwrap_or_default();
        assert!(note.starts_with("20 of 60 matched calls"), "{note}");
        assert!(note.contains("4000 ns") && note.contains("the median of the others"));
        m.after_pause = Some((20, Some(4000.0), 2));
        let note = m.after_pause_note(None).unwrap_or_default();
        assert!(note.contains("too few others"), "{note}");
        m.after_pause = Some((0, None, 40));
        assert_eq!(m.after_pause_note(None), None);
    }

    fn row(n: u32, waits: Vec<(u32, f64)>) -> Measured {
        Measured {
            function: "MPI_Bcast".into(),
            coll: "bcast",
            n,
            bin: (8, 8),
            m: 8,
            cost: None,
            calls: 100,
            from: "",
            lead_ns: 0.0,
            waits,
            op: super::super::operation::ASSUMED,
            operation: None,
            after_pause: None,
            members: None,
        }
    }

    /// Each member's entry from its mean wait for the last one (the first to enter at 0),
    /// in world rank order; none where a rank is missing or the communicator is not the
    /// job's ranks.
    #[test]
    fn members_enter_as_long_before_the_last_as_they_waited() {
        let e = row(3, vec![(2, 100.0), (0, 300.0), (1, 0.0)]).entries(3);
        assert_eq!(e, Some(vec![0.0, 300.0, 200.0]));
        assert_eq!(row(3, vec![(0, 300.0), (1, 0.0)]).entries(3), None);
        assert_eq!(row(2, vec![(0, 300.0), (1, 0.0)]).entries(3), None);
        assert_eq!(row(2, vec![(0, 300.0), (5, 0.0)]).entries(2), None);
        // Two members each waiting for the other in some calls: apart by the sum.
        let e = row(2, vec![(0, 25.0), (1, 81.0)]).entries(2);
        assert_eq!(e, Some(vec![106.0, 0.0]));
        // A communicator of ranks 3 and 1 of four (recorded members): in its order.
        let mut x = row(2, vec![(1, 81.0), (3, 25.0)]);
        x.members = Some(vec![3, 1]);
        assert_eq!(x.entries(4), Some(vec![106.0, 0.0]));
        x.members = Some(vec![3, 2]);
        assert_eq!(x.entries(4), None);
    }

    /// A root that enters 300 ns before its one receiver: its eager message (1000 ns end
    /// to end, o_r 100) is in 900 ns after the root's entry, so the receiver leaves 1000
    /// ns after it, 700 ns after the last entry, where members entering together take
    /// 1000. A rendezvous message waits for its receiver to enter instead.
    #[test]
    fn a_member_that_enters_first_has_sent_before_the_last_enters() {
        let sch = vec![Round {
            msgs: vec![(0, 1, 8)],
            ..Default::default()
        }];
        let price = |rendezvous: bool| {
            move |_: u32, _: u32, _: u64| Price {
                end_to_end_ns: 1000.0,
                send_overhead_ns: 100.0,
                recv_overhead_ns: 100.0,
                gap_ns: 100.0,
                rendezvous,
                ..Price::default()
            }
        };
        let nothing = |_: u64| 0.0;
        let local = Local {
            reduce_ns: &nothing,
            copy_ns: &nothing,
            datatype_setup_ns: 0.0,
        };
        let exits = |e: &[f64], r: bool| simulate_members_from(e, &sch, &price(r), &local);
        assert_eq!(exits(&[0.0, 0.0], false)[1], 1000.0);
        assert_eq!(exits(&[0.0, 300.0], false)[1] - 300.0, 700.0);
        assert_eq!(exits(&[0.0, 300.0], true)[1] - 300.0, 1000.0);
    }

    /// A Reduce's root counts 2m and falls in the bin of twice the size: its calls join
    /// the other members' row, whose cost is then the root's (the largest), at m. An
    /// Allreduce whose members count different bytes stays apart, as does a Reduce
    /// member without a partner at half its bytes.
    #[test]
    fn a_reduces_root_joins_its_members_row() {
        use loggp_report::{bins::size_bin, bins::size_bin_range, CollectiveSplit, Report};
        let split = |function: &str, rank, bytes: f64, cost| {
            let (lo, hi) = size_bin_range(size_bin(bytes as u64));
            CollectiveSplit {
                rank,
                function: function.into(),
                comm_size: 2,
                size_lo_bytes: lo,
                size_hi_bytes: hi,
                calls_matched: 40,
                bytes_mean: bytes,
                cost_median_ns: Some(cost),
                cost_median_ns_ci: Some([cost * 0.9, cost * 1.1]),
                ..Default::default()
            }
        };
        let mut r = Report::default();
        r.waits.status = "done".into();
        r.waits.collectives = vec![
            split("MPI_Reduce", 0, 8192.0, 1500.0),
            split("MPI_Reduce", 1, 4096.0, 300.0),
            split("MPI_Reduce", 1, 100_000.0, 900.0),
            split("MPI_Allreduce", 0, 8192.0, 700.0),
            split("MPI_Allreduce", 1, 4096.0, 600.0),
        ];
        let rows = super::measured(&r);
        let reduce: Vec<_> = rows.iter().filter(|x| x.function == "MPI_Reduce").collect();
        // Sizes a factor 2 apart on 2 ranks (1 KiB and 4 KiB, root 0): the member's 4 KiB
        // row stays at 4 KiB, though the root's 2 KiB row has half its bytes.
        let mut two = Report::default();
        two.waits.status = "done".into();
        let calls = |mut x: CollectiveSplit, n| {
            x.calls_matched = n;
            x
        };
        two.waits.collectives = vec![
            calls(split("MPI_Reduce", 0, 2048.0, 700.0), 133),
            calls(split("MPI_Reduce", 0, 8192.0, 2000.0), 32),
            calls(split("MPI_Reduce", 1, 1024.0, 100.0), 133),
            calls(split("MPI_Reduce", 1, 4096.0, 400.0), 32),
        ];
        let m: Vec<_> = super::measured(&two)
            .iter()
            .map(|x| (x.m, x.cost.unwrap().0, x.waits.len()))
            .collect();
        assert_eq!(m, vec![(1024, 700.0, 2), (4096, 2000.0, 2)]);
        assert_eq!(reduce.len(), 2);
        assert_eq!(reduce[0].bin, size_bin_range(size_bin(4096)));
        assert_eq!(reduce[0].m, 4096);
        assert_eq!(reduce[0].cost.map(|c| c.0), Some(1500.0));
        assert_eq!(reduce[0].waits.len(), 2);
        assert_eq!(reduce[1].m, 100_000);
        assert_eq!(
            rows.iter()
                .filter(|x| x.function == "MPI_Allreduce")
                .count(),
            2
        );
    }
}
