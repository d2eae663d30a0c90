//! One peer class's prices for the collective model: the calibration's measured points,
//! interpolated, with a preemption's spikes taken out (`without_spikes`).
use super::schedule::Price;
use super::sim::Crowd;
use loggp_report::{CalibrationSet, ConcurrentExchange};

/// One peer class's prices, from its calibration set.
pub(super) struct Prices<'a> {
    /// (size, end-to-end, o_s, o_r, gap, exchange, refill exchange, persistent exchange,
    /// isolated exchange, isolated one-way message to the receiver's end and to the
    /// sender's; the exchanges and one-ways NaN where not measured), ns, by size,
    /// smoothed.
    points: Vec<[f64; 11]>,
    set: &'a CalibrationSet,
    /// The values `without_spikes` replaced, said in each row's note: "o_s at 4096 B:
    /// 229202 → 820 ns".
    pub(super) spikes: Vec<String>,
    /// The concurrent exchange (`with_concurrent`): per size, the lowest, the mean and
    /// the highest over the ranks that took part of each one's median, over the pair's
    /// exchange at that size, by size.
    crowd: Vec<(f64, [f64; 3])>,
    /// The ranks of a host that exchanged at once in it (the most of any host).
    crowd_ranks: f64,
}

/// Takes out the values a preemption made. A value is taken when it lies above twice
/// what each side of it shows, a side's showing being the smaller of its two nearest
/// values (one, next to an end): so a spike is found next to another spike. Each taken
/// value is replaced by the straight line (in size) between the nearest values not taken.
/// A preemption only ever adds time, so only values above both sides are taken; one
/// caught a single repetition of an MPICH calibration here (o_s 229 µs at 4 KiB between
/// 0.7 and 1.1 µs; its exchange probe 1.1 ms at 6 B and 1.2 µs at 8 B, between 0.25 and
/// 0.36 µs). Every other value stays as measured: a protocol switch's step (one side
/// shows as much), and the first and the last size (a step there looks like a spike
/// from its one side). Returns the values and which were replaced.
fn without_spikes(size: &[f64], v: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let n = v.len();
    let taken: Vec<usize> = (1..n.saturating_sub(1))
        .filter(|&i| {
            let left = v[i.saturating_sub(2)..i]
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min);
            let right = v[i + 1..(i + 3).min(n)]
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min);
            v[i] > 2.0 * left.max(right)
        })
        .collect();
    let mut out = v.to_vec();
    for &i in &taken {
        // The ends are never taken, so both exist.
        let a = (0..i).rev().find(|j| !taken.contains(j)).unwrap_or(0);
        let b = (i + 1..n).find(|j| !taken.contains(j)).unwrap_or(n - 1);
        let t = (size[i] - size[a]) / (size[b] - size[a]).max(1.0);
        out[i] = v[a] + (v[b] - v[a]) * t;
    }
    (out, taken)
}

impl<'a> Prices<'a> {
    pub(super) fn of(set: &'a CalibrationSet) -> Option<Self> {
        let mut points: Vec<[f64; 11]> = set
            .points
            .iter()
            .filter_map(|p| {
                Some([
                    p.size_bytes as f64,
                    p.prtt_1_0_ns? / 2.0,
                    p.send_overhead_ns.unwrap_or(0.0).max(0.0),
                    p.recv_overhead_ns.unwrap_or(0.0).max(0.0),
                    p.gap_all_ns.unwrap_or(0.0).max(0.0),
                    p.exchange_ns.unwrap_or(f64::NAN),
                    p.exchange_refill_ns.unwrap_or(f64::NAN),
                    p.exchange_persistent_ns.unwrap_or(f64::NAN),
                    p.exchange_isolated_ns.unwrap_or(f64::NAN),
                    p.one_way_isolated_recv_ns.unwrap_or(f64::NAN),
                    p.one_way_isolated_send_ns.unwrap_or(f64::NAN),
                ])
            })
            .collect();
        points.sort_by(|a, b| a[0].total_cmp(&b[0]));
        let mut spikes = vec![];
        for (k, name) in [
            (1, "end-to-end time"),
            (2, "o_s"),
            (3, "o_r"),
            (4, "gap"),
            (5, "exchange"),
            (6, "refill exchange"),
            (7, "persistent exchange"),
            (8, "isolated exchange"),
            (9, "isolated one-way message"),
            (10, "isolated one-way message's send"),
        ] {
            // Only where measured (the exchange probe may be missing at some sizes).
            let at: Vec<usize> = (0..points.len())
                .filter(|&i| points[i][k].is_finite())
                .collect();
            let size: Vec<f64> = at.iter().map(|&i| points[i][0]).collect();
            let raw: Vec<f64> = at.iter().map(|&i| points[i][k]).collect();
            let (clean, taken) = without_spikes(&size, &raw);
            for j in taken {
                let i = at[j];
                spikes.push(format!(
                    "{name} at {} B: {:.0} → {:.0} ns",
                    points[i][0], raw[j], clean[j]
                ));
                points[i][k] = clean[j];
            }
        }
        (!points.is_empty()).then_some(Prices {
            points,
            set,
            spikes,
            crowd: vec![],
            crowd_ranks: 0.0,
        })
    }

    /// These prices with the calibration's concurrent exchange (for the intra-node
    /// class): each rendezvous copy of a round where more than two ranks of a host copy
    /// at once is then priced by it (`sim::crowd_factor`).
    pub(super) fn with_concurrent(mut self, c: &[ConcurrentExchange]) -> Self {
        let (rows, ranks) = super::crowd::by_size(c);
        self.crowd = (rows.into_iter())
            .filter_map(|(size, [lo, mean, hi])| {
                let ex = self.at(size, 0).exchange_ns.filter(|&e| e > 0.0)?;
                Some((size as f64, [lo / ex, mean / ex, hi / ex]))
            })
            .collect();
        self.crowd_ranks = ranks as f64;
        self
    }

    /// The concurrent exchange over the pair's at `s` bytes (`k` 0, 1, 2: its lowest,
    /// mean and highest rank): between the sizes it measured in a straight line in log
    /// size, the nearest one's beyond them; None where not measured.
    fn crowd_at(&self, s: f64, k: usize) -> Option<f64> {
        let c = &self.crowd;
        let (first, last) = (c.first()?, c.last()?);
        if s <= first.0 {
            return Some(first.1[k]);
        }
        if s >= last.0 {
            return Some(last.1[k]);
        }
        let i = c.iter().position(|x| x.0 >= s)?;
        let (a, b) = (c[i - 1], c[i]);
        let t = (s.ln() - a.0.ln()) / (b.0.ln() - a.0.ln()).max(f64::EPSILON);
        Some(a.1[k] + (b.1[k] - a.1[k]) * t)
    }

    /// What a row's note says of the concurrent exchange, where these prices have it.
    pub(super) fn crowd_note(&self) -> Option<String> {
        let ratios: Vec<String> = (self.crowd.iter())
            .map(|&(size, [_, mean, _])| format!("{} KiB {:.2} ×", size / 1024.0, mean))
            .collect();
        (!ratios.is_empty()).then(|| format!(
            "where more than two ranks of the host copy rendezvous data from different buffers at once, each copy is priced up to the calibration's concurrent exchange ({} ranks of the host at once, from buffers larger than a core's cache) over the pair's exchange: {}; in a straight line from two copies (1 ×) to {} (`calibration.concurrent_exchanges`)",
            self.crowd_ranks,
            ratios.join(", "),
            self.crowd_ranks
        ))
    }

    /// The price of `bytes`; `bound` −1, 0 or +1: every parameter at its interval's low
    /// end, its estimate, or its high end.
    pub(super) fn at(&self, bytes: u64, bound: i32) -> Price {
        let s = bytes.max(1) as f64;
        let p = &self.points;
        let i = p.iter().position(|x| x[0] >= s);
        let mut v = match i {
            Some(0) => p[0],
            Some(i) => {
                // Each value between the nearest sizes that measured it: a probe taken at
                // some sizes only (the refill exchange from 4 KiB, the persistent one at
                // powers of 4) is interpolated across the sizes without it, and None
                // outside the sizes it was taken at.
                std::array::from_fn(|k| {
                    let below = p[..i].iter().rev().find(|x| x[k].is_finite());
                    let above = p[i..].iter().find(|x| x[k].is_finite());
                    match (below, above) {
                        (_, Some(b)) if b[0] == s => b[k],
                        (Some(a), Some(b)) => {
                            a[k] + (b[k] - a[k]) * (s - a[0]) / (b[0] - a[0]).max(1.0)
                        }
                        _ => f64::NAN,
                    }
                })
            }
            None => {
                let last = p[p.len() - 1];
                let g = self
                    .set
                    .ranges
                    .last()
                    .and_then(|r| r.gap_per_byte_ns)
                    .unwrap_or(0.0)
                    .max(0.0);
                let more = (s - last[0]) * g;
                [
                    s,
                    last[1] + more,
                    last[2],
                    last[3],
                    last[4] + more,
                    last[5] + 2.0 * more,
                    last[6] + 2.0 * more,
                    last[7] + 2.0 * more,
                    last[8] + 2.0 * more,
                    last[9] + more,
                    last[10] + more,
                ]
            }
        };
        let range = self
            .set
            .ranges
            .iter()
            .find(|r| r.size_lo_bytes <= bytes.max(1) && bytes.max(1) <= r.size_hi_bytes)
            .or(self.set.ranges.last());
        if bound != 0 {
            if let Some(r) = range {
                // The fixed part (L) and the per-byte part ((s − lo)·G) each move by their
                // own interval; every price of the message moves by their weighted mix.
                let ratio = |est: Option<f64>, ci: Option<[f64; 2]>| -> f64 {
                    match (est, ci) {
                        (Some(e), Some([lo, hi])) if e > 0.0 => {
                            if bound < 0 {
                                (lo / e).min(1.0)
                            } else {
                                (hi / e).max(1.0)
                            }
                        }
                        _ => 1.0,
                    }
                };
                let lat = r.latency_ns.unwrap_or(0.0).max(0.0);
                let per_byte = (s - r.size_lo_bytes as f64).max(0.0)
                    * r.gap_per_byte_ns.unwrap_or(0.0).max(0.0);
                let k = if lat + per_byte > 0.0 {
                    (lat * ratio(r.latency_ns, r.latency_ns_ci)
                        + per_byte * ratio(r.gap_per_byte_ns, r.gap_per_byte_ns_ci))
                        / (lat + per_byte)
                } else {
                    1.0
                };
                for x in &mut v[1..] {
                    *x *= k.max(0.0);
                }
            }
        }
        // The concurrent exchange over the pair's at this size, at the bound's rank.
        let crowd = (self.crowd_ranks > 2.0)
            .then(|| self.crowd_at(s, (bound + 1).clamp(0, 2) as usize))
            .flatten()
            .map(|ratio| Crowd {
                ratio: ratio.max(1.0),
                ranks: self.crowd_ranks,
            });
        Price {
            crowd,
            end_to_end_ns: v[1],
            send_overhead_ns: v[2],
            recv_overhead_ns: v[3],
            gap_ns: v[4],
            exchange_ns: v[5].is_finite().then_some(v[5]),
            exchange_refill_ns: v[6].is_finite().then_some(v[6]),
            exchange_persistent_ns: v[7].is_finite().then_some(v[7]),
            exchange_isolated_ns: v[8].is_finite().then_some(v[8]),
            one_way_isolated_ns: (v[9].is_finite() && v[10].is_finite()).then_some((v[9], v[10])),
            rendezvous: range.and_then(|r| r.protocol.as_deref()) == Some("rendezvous"),
            // The smallest message's o_s and gap: the request a rendezvous send posts.
            post: Some((p[0][2], p[0][4])),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{without_spikes, Prices};
    use loggp_report::{CalibrationSet, Point};

    #[test]
    fn a_probe_measured_from_a_size_on_prices_that_size() {
        // The refill exchange from 4 KiB: at 4096 B its value, not NaN from 2048 B's
        // missing one (which left every 4 KiB refill and rewrite unpriced).
        let point = |s: u64, refill: Option<f64>| Point {
            size_bytes: s,
            prtt_1_0_ns: Some(1000.0),
            exchange_ns: Some(600.0),
            exchange_refill_ns: refill,
            ..Default::default()
        };
        let set = CalibrationSet {
            points: vec![
                point(2048, None),
                point(4096, Some(900.0)),
                point(8192, Some(1300.0)),
            ],
            ..Default::default()
        };
        let p = Prices::of(&set).unwrap();
        assert_eq!(p.at(4096, 0).exchange_refill_ns, Some(900.0));
        assert_eq!(p.at(6144, 0).exchange_refill_ns, Some(1100.0));
        assert_eq!(p.at(3000, 0).exchange_refill_ns, None);
        // A probe taken at some sizes only: interpolated across the sizes between.
        let set = CalibrationSet {
            points: vec![
                Point {
                    exchange_persistent_ns: Some(700.0),
                    ..point(16, None)
                },
                point(32, None),
                Point {
                    exchange_persistent_ns: Some(900.0),
                    ..point(64, None)
                },
                point(128, None),
            ],
            ..Default::default()
        };
        let p = Prices::of(&set).unwrap();
        assert_eq!(p.at(40, 0).exchange_persistent_ns, Some(800.0));
        assert_eq!(p.at(64, 0).exchange_persistent_ns, Some(900.0));
        assert_eq!(p.at(128, 0).exchange_persistent_ns, None);
    }

    #[test]
    fn a_spike_goes_and_everything_else_stays() {
        let size = [1024.0, 2048.0, 4096.0, 8192.0, 16384.0];
        // A cost linear in the size, and a protocol switch's steps: unchanged.
        for v in [
            [1.0, 2.0, 4.0, 8.0, 16.0],
            [5.0, 5.0, 1.0, 1.0, 9.0],
            [1.0, 1.0, 1.0, 9.0, 9.0],
        ] {
            assert_eq!(without_spikes(&size, &v), (v.to_vec(), vec![]));
        }
        // One repetition caught by a preemption (an MPICH calibration here): the line
        // between its neighbours; the neighbours stay.
        let (v, taken) = without_spikes(&size, &[558.0, 682.0, 229202.0, 1097.0, 6063.0]);
        assert_eq!(taken, vec![2]);
        assert!((v[2] - (682.0 + 415.0 / 3.0)).abs() < 1e-9, "{v:?}");
        assert_eq!([v[0], v[1], v[3], v[4]], [558.0, 682.0, 1097.0, 6063.0]);
        // At the last size it may be a step: it stays.
        let end = [500.0, 510.0, 520.0, 530.0, 90000.0];
        assert_eq!(without_spikes(&size, &end).1, Vec::<usize>::new());
        // Two spikes side by side (that calibration's exchange probe at 6 and 8 B).
        let size = [2.0, 4.0, 6.0, 8.0, 11.0, 16.0];
        let v = [339.0, 359.0, 1084589.0, 1235.0, 252.0, 385.0];
        let (clean, taken) = without_spikes(&size, &v);
        assert_eq!(taken, vec![2, 3]);
        assert!(clean[2] < 400.0 && clean[3] < 400.0, "{clean:?}");
        // A step up two sizes from the end: it stays.
        let step = [1.0, 1.0, 1.0, 9.0, 9.0, 9.5];
        assert_eq!(without_spikes(&size, &step).1, Vec::<usize>::new());
        // A dip is not a preemption's: it stays.
        let dip = [500.0, 510.0, 20.0, 530.0, 540.0];
        assert_eq!(without_spikes(&size, &dip).1, Vec::<usize>::new());
    }

    /// The concurrent exchange prices a size by its ratio to the pair's exchange: the
    /// ratio is interpolated and held beyond the sizes measured, not the time (a 4 KiB
    /// copy priced by 16 KiB's concurrent time over 4 KiB's exchange was 2.5 × too dear).
    #[test]
    fn the_concurrent_exchange_prices_by_its_ratio_to_the_pairs() {
        use loggp_report::{ConcurrentExchange, ConcurrentPoint};
        let point = |s: u64, ex: f64| Point {
            size_bytes: s,
            prtt_1_0_ns: Some(ex),
            exchange_ns: Some(ex),
            ..Default::default()
        };
        let set = CalibrationSet {
            points: vec![
                point(4096, 4000.0),
                point(16384, 10000.0),
                point(65536, 20000.0),
            ],
            ..Default::default()
        };
        let rank = |k: u32, at16: f64, at64: f64| ConcurrentExchange {
            rank: k,
            host_ranks: 8,
            buffer_bytes: 4 << 20,
            points: vec![
                ConcurrentPoint {
                    size_bytes: 16384,
                    exchange_ns: at16,
                    exchange_reps_ns: vec![at16],
                },
                ConcurrentPoint {
                    size_bytes: 65536,
                    exchange_ns: at64,
                    exchange_reps_ns: vec![at64],
                },
            ],
        };
        // Ranks at 1.5 ×, 2 × and 2.5 × the pair's at 16 KiB; 3 ×, 4 ×, 5 × at 64 KiB.
        let c = [
            rank(0, 15000.0, 60000.0),
            rank(1, 20000.0, 80000.0),
            rank(2, 25000.0, 100000.0),
        ];
        let p = Prices::of(&set).unwrap().with_concurrent(&c);
        let ratio = |b: u64, bound: i32| p.at(b, bound).crowd.map(|c| (c.ratio, c.ranks));
        assert_eq!(ratio(16384, 0), Some((2.0, 8.0)));
        assert_eq!(ratio(65536, 0), Some((4.0, 8.0)));
        // Held beyond the sizes measured, and between them in a straight line in log size.
        assert_eq!(ratio(4096, 0), Some((2.0, 8.0)));
        assert_eq!(ratio(1 << 20, 0), Some((4.0, 8.0)));
        assert_eq!(ratio(32768, 0), Some((3.0, 8.0)));
        // The bounds: the lowest and the highest rank.
        assert_eq!(ratio(16384, -1), Some((1.5, 8.0)));
        assert_eq!(ratio(65536, 1), Some((5.0, 8.0)));
        // None without it, or with no more than two ranks of a host at once.
        assert_eq!(Prices::of(&set).unwrap().at(16384, 0).crowd, None);
        let two = [ConcurrentExchange {
            host_ranks: 2,
            ..rank(0, 15000.0, 60000.0)
        }];
        assert_eq!(
            Prices::of(&set)
                .unwrap()
                .with_concurrent(&two)
                .at(16384, 0)
                .crowd,
            None
        );
    }
}
