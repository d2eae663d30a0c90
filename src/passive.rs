//! Passive LogGP estimates from the application's own calls: merged per-bin statistics
//! in, `passive[].ranges`, threshold brackets and `model_check[]` out. Runs on rank 0 at
//! report time; the hot path only fills the bins.
//!
//! Why each envelope measures what it claims (LogGP, and the protocols T / TA / RTA / RAT
//! of altawil-moritz §3.2):
//! * o_s — a blocking send of an eager size (protocol T) returns once the message is handed
//!   to the transport, so its duration is the sender's overhead o_s(s) plus any wait for
//!   resources; waits only add, so the lower envelope of the durations (a robust low
//!   quantile, the 10th percentile, not the single minimum) is o_s(s). For a nonblocking
//!   send, o_s(s) is the initiation call plus the completion call of a request that had
//!   already completed — again the lower envelopes of both.
//! * o_r — a receive whose message had already arrived costs the receiver o_r(s) alone;
//!   one that waits costs more. The lower envelope of the receive durations is o_r(s) when
//!   at least a tenth of the receives found their message there (otherwise it is an upper
//!   bound, and the note says so).
//! * G — within one protocol range the envelope is linear in s: eager, the slope is the
//!   per-byte cost the caller pays (copying into the transport); past a rendezvous switch
//!   a blocking send waits for the whole transfer, so the slope is the gap per byte G of
//!   the path. Least squares over the per-bin envelopes, weighted by relative error.
//! * g — consecutive sends to one peer started back to back are spaced by max(o_s, g);
//!   the lower envelope of that spacing is g where the transport limits the injection rate
//!   (g > o_s), else o_s. Reported only where the traffic had such bursts.
//! * switches — the change detection of hoefler2007 §3.5 on the envelopes against size;
//!   each switch is bracketed by the largest size seen on one side and the smallest seen
//!   on the other (so a bracket exists only where the traffic had sizes on both sides).
//! * L needs both ends' clocks and is not estimated passively (null, with a note).
use crate::calib::fit::{detect_changes, robust_line, Detect, Line};
use crate::collect::{Cell, CellKey};
use crate::intercept::Func;
use crate::stats::{Class, Mode};
use loggp_report::bins::quantile;
use loggp_report::{ModelCheck, Range};
use std::collections::BTreeMap;

/// Pseudo record: spacing between the starts of back-to-back sends to one peer.
pub const BURST_GAP: u8 = 59;

/// One size bin of one (class, mode): envelopes in ns.
#[derive(Clone, Debug)]
pub struct BinEnv {
    pub smallest: u64,
    pub largest: u64,
    pub count: u64,
    /// Lower envelope of the initiating call (+ completion call for nonblocking modes).
    pub env: f64,
    /// Median, for the model check.
    pub p50: f64,
    /// Lower envelope of back-to-back start spacing, where bursts were seen.
    pub gap: Option<f64>,
    pub gap_count: u64,
}

impl BinEnv {
    /// The size that stands for the bin: the middle of what was seen.
    pub fn size(&self) -> f64 {
        (self.smallest as f64 + self.largest as f64) / 2.0
    }
}

/// Functions whose call duration is a sample of a message's mode: the initiating calls.
pub(crate) fn initiates(f: u8) -> bool {
    use Func::*;
    [
        MPI_Send,
        MPI_Ssend,
        MPI_Bsend,
        MPI_Rsend,
        MPI_Isend,
        MPI_Issend,
        MPI_Ibsend,
        MPI_Irsend,
        MPI_Recv,
        MPI_Irecv,
        MPI_Mrecv,
        MPI_Imrecv,
        MPI_Sendrecv,
        MPI_Sendrecv_replace,
        MPI_Start,
    ]
    .iter()
    .any(|&x| x as u8 == f)
}

fn completes(f: u8) -> bool {
    use Func::*;
    [
        MPI_Wait,
        MPI_Test,
        MPI_Waitall,
        MPI_Testall,
        MPI_Waitany,
        MPI_Testany,
        MPI_Waitsome,
        MPI_Testsome,
    ]
    .iter()
    .any(|&x| x as u8 == f)
}

fn blocking(m: Mode) -> bool {
    matches!(
        m,
        Mode::Send | Mode::Ssend | Mode::Bsend | Mode::Rsend | Mode::Recv | Mode::Sendrecv
    )
}

fn is_receive(m: Mode) -> bool {
    matches!(m, Mode::Recv | Mode::Irecv | Mode::Mrecv)
}

/// Per (class, mode), the bins with their envelopes, sorted by size.
pub fn envelopes(cells: &BTreeMap<CellKey, Cell>) -> BTreeMap<(Class, Mode), Vec<BinEnv>> {
    let mut init: BTreeMap<(u8, u8, u16), Cell> = BTreeMap::new();
    let mut done: BTreeMap<(u8, u8, u16), Cell> = BTreeMap::new();
    let mut gaps: BTreeMap<(u8, u8, u16), Cell> = BTreeMap::new();
    for (&(f, m, cl, bin), c) in cells {
        let class = Class::from_u8(cl);
        if Mode::from_u8(m) == Mode::None
            || !matches!(class, Class::SelfRank | Class::IntraNode | Class::InterNode)
        {
            continue;
        }
        let target = if initiates(f) {
            &mut init
        } else if completes(f) {
            &mut done
        } else if f == BURST_GAP {
            &mut gaps
        } else {
            continue;
        };
        target.entry((cl, m, bin)).or_default().merge(c);
    }
    let mut out: BTreeMap<(Class, Mode), Vec<BinEnv>> = BTreeMap::new();
    for (&(cl, m, bin), c) in &init {
        let mode = Mode::from_u8(m);
        let low = |c: &Cell| quantile(&c.hist, 0.10).map(|q| q.max(c.min_ns));
        let Some(mut env) = low(c) else { continue };
        let mut p50 = quantile(&c.hist, 0.5).unwrap_or(env);
        if !blocking(mode) {
            // A nonblocking operation costs its caller the start and the completion call.
            if let Some(d) = done.get(&(cl, m, bin)) {
                env += low(d).unwrap_or(0.0);
                p50 += quantile(&d.hist, 0.5).unwrap_or(0.0);
            }
        }
        let g = gaps.get(&(cl, m, bin));
        out.entry((Class::from_u8(cl), mode))
            .or_default()
            .push(BinEnv {
                smallest: c.min_size,
                largest: c.max_size,
                count: c.count,
                env,
                p50,
                gap: g.and_then(low),
                gap_count: g.map(|g| g.count).unwrap_or(0),
            });
    }
    for v in out.values_mut() {
        v.sort_by_key(|b| b.smallest);
    }
    out
}

/// What the traffic of one (class, mode) tells.
#[derive(Clone, Debug, Default)]
pub struct Learned {
    pub ranges: Vec<Range>,
    /// Switch brackets [largest seen before, smallest seen after], one per boundary.
    pub brackets: Vec<(u64, u64)>,
    /// The boundary where the envelope jumps most (the eager limit for a send mode).
    pub main_bracket: Option<(u64, u64)>,
    pub model_check: Option<(u64, Option<f64>)>,
}

/// Fits ranges, brackets and the model check of one (class, mode).
pub fn learn(mode: Mode, bins: &[BinEnv], det: &Detect) -> Learned {
    let mut out = Learned::default();
    if bins.is_empty() {
        return out;
    }
    let pts: Vec<(f64, f64)> = bins.iter().map(|b| (b.size(), b.env)).collect();
    let idx = detect_changes(&pts, det);
    let mut lines: Vec<(usize, usize, Option<Line>)> = vec![];
    for &(a, b) in &idx {
        let seg = &bins[a..=b];
        let distinct = seg.first().map(|x| x.smallest) != seg.last().map(|x| x.largest);
        let line = if distinct && seg.len() >= 2 {
            robust_line(&pts[a..=b])
        } else {
            None
        };
        let samples: u64 = seg.iter().map(|x| x.count).sum();
        let o = seg[0].env;
        let mut notes: Vec<String> = vec![];
        let (send_o, recv_o) = if is_receive(mode) {
            notes.push("o_r: lower envelope (10th percentile) of the receive calls; an upper bound if few messages had arrived before their receive".into());
            (None, Some(o))
        } else if mode == Mode::Sendrecv {
            notes.push("sendrecv: o_s and o_r are not separable from one call".into());
            (None, None)
        } else {
            notes.push(
                "o_s: lower envelope (10th percentile) of the send calls at the smallest size"
                    .into(),
            );
            (Some(o), None)
        };
        let gap_bins: Vec<&BinEnv> = seg.iter().filter(|x| x.gap.is_some()).collect();
        let gap = gap_bins.first().and_then(|x| x.gap);
        if gap.is_none() {
            notes.push("g: not observed (no back-to-back sends to one peer in these sizes)".into());
        }
        if line.is_none() {
            notes.push("G: not observed (one size only in this range)".into());
        }
        notes.push("L: needs both ends' clocks, not estimated passively".into());
        let rms = line.map(|l| {
            (pts[a..=b]
                .iter()
                .map(|&(x, y)| (l.at(x) - y).powi(2))
                .sum::<f64>()
                / (b - a + 1) as f64)
                .sqrt()
        });
        out.ranges.push(Range {
            size_lo_bytes: seg[0].smallest,
            size_hi_bytes: seg[seg.len() - 1].largest,
            send_overhead_ns: send_o,
            recv_overhead_ns: recv_o,
            gap_ns: gap,
            gap_per_byte_ns: line.map(|l| l.slope),
            latency_ns: None,
            fit_rms_ns: rms,
            samples: Some(samples),
            note: Some(notes.join("; ")),
            protocol: None,
        });
        lines.push((a, b, line));
    }
    // Brackets at each boundary the change detection found.
    for w in idx.windows(2) {
        out.brackets
            .push((bins[w[0].1].largest, bins[w[1].0].smallest));
    }
    // The main bracket is where the envelope jumps most, in ns, between neighbouring bins:
    // an eager-to-rendezvous switch adds a handshake (a round trip) to every call, other
    // switches (a change of copy path) far less. It is looked for between every pair of
    // neighbours, not only at the detected boundaries, so that a noisy range (one the
    // detection could not split) cannot hide it. A jump counts when the right side is at
    // least 1.5 × the prediction. The right side is the smaller of the next
    // two bins (one slow bin is not a switch); the left side is what its range's line
    // predicts at the right bin's size, or the left bin's own envelope if more.
    let line_of = |i: usize| {
        lines
            .iter()
            .find(|(a, b, _)| (*a..=*b).contains(&i))
            .and_then(|x| x.2)
    };
    let mut best = (0.0, None);
    for i in 0..bins.len().saturating_sub(1) {
        let right = match bins.get(i + 2) {
            Some(n) => bins[i + 1].env.min(n.env),
            None => bins[i + 1].env,
        };
        let predicted = line_of(i)
            .map(|l| l.at(bins[i + 1].size()))
            .unwrap_or(0.0)
            .max(bins[i].env);
        let jump = right - predicted;
        // A protocol switch, not noise: at least half as much again as predicted, and
        // above the timer's resolution.
        let significant = right > 1.5 * predicted && jump > 2.0 * det.abs_noise;
        if significant && jump > best.0 {
            best = (jump, Some((bins[i].largest, bins[i + 1].smallest)));
        }
    }
    out.main_bracket = best.1;
    // Model check: the fitted line of each bin's range against the bin's median.
    let mut errs: Vec<(f64, u64)> = vec![];
    for (a, b, line) in &lines {
        for x in &bins[*a..=*b] {
            let pred = match line {
                Some(l) => l.at(x.size()),
                None => bins[*a].env,
            };
            if x.p50 > 0.0 {
                errs.push(((pred - x.p50).abs() / x.p50, x.count));
            }
        }
    }
    let calls: u64 = bins.iter().map(|b| b.count).sum();
    errs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let half = errs.iter().map(|e| e.1).sum::<u64>().div_ceil(2);
    let mut seen = 0;
    let median = errs.iter().find(|e| {
        seen += e.1;
        seen >= half
    });
    out.model_check = Some((calls, median.map(|e| e.0)));
    out
}

/// Model check entries of all learned sets.
pub fn model_checks(learned: &BTreeMap<(Class, Mode), Learned>) -> Vec<ModelCheck> {
    learned
        .iter()
        .filter_map(|(&(c, m), l)| {
            l.model_check.map(|(calls, err)| ModelCheck {
                peer_class: c.name().into(),
                mode: m.name().into(),
                calls,
                median_relative_error: err,
            })
        })
        .collect()
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::calib::fit::tests::Rng;
    use loggp_report::bins::{hist_index, size_bin};

    /// Calls of a LogGP machine (ground-truth §3): an eager protocol up to `switch`
    /// (o_s + (s−1)·copy) and a rendezvous above (o_rdv + (s−1)·G), ±2 % jitter, 5 %
    /// outliers 2–10× slower, and, if `burst_gap`, back-to-back spacing max(o_s, g).
    pub struct Machine {
        pub o_s: f64,
        pub copy_per_byte: f64,
        pub o_rdv: f64,
        pub g_per_byte: f64,
        pub switch: u64,
        pub gap: f64,
        /// Receive side: o_r + (s−1)·recv_copy_per_byte for messages that had arrived.
        pub o_r: f64,
        pub recv_copy_per_byte: f64,
    }

    impl Machine {
        pub fn duration(&self, s: u64) -> f64 {
            if s <= self.switch {
                self.o_s + (s as f64 - 1.0) * self.copy_per_byte
            } else {
                self.o_rdv + (s as f64 - 1.0) * self.g_per_byte
            }
        }
    }

    fn add(cells: &mut BTreeMap<CellKey, Cell>, key: CellKey, s: u64, ns: f64) {
        let c = cells.entry(key).or_default();
        let first = c.count == 0;
        c.count += 1;
        c.bytes += s;
        c.time_ns += ns;
        c.min_ns = if first { ns } else { c.min_ns.min(ns) };
        c.min_size = if first { s } else { c.min_size.min(s) };
        c.max_size = c.max_size.max(s);
        let i = hist_index(ns as u64) as u16;
        match c.hist.iter_mut().find(|(b, _)| *b == i) {
            Some(e) => e.1 += 1,
            None => {
                c.hist.push((i, 1));
                c.hist.sort();
            }
        }
    }

    pub fn traffic(
        m: &Machine,
        sizes: &[u64],
        per_size: usize,
        bursts: bool,
        seed: u64,
    ) -> BTreeMap<CellKey, Cell> {
        let mut rng = Rng(seed);
        let mut cells = BTreeMap::new();
        let (f, md, cl) = (
            Func::MPI_Send as u8,
            Mode::Send as u8,
            Class::IntraNode as u8,
        );
        for &s in sizes {
            for _ in 0..per_size {
                let mut d = m.duration(s) * (1.0 + 0.02 * rng.sym());
                if rng.uniform() < 0.05 {
                    d *= 2.0 + 8.0 * rng.uniform();
                }
                add(&mut cells, (f, md, cl, size_bin(s)), s, d);
                // The receiver: o_r for a message that had arrived; 5 % waited longer.
                let mut r =
                    (m.o_r + (s as f64 - 1.0) * m.recv_copy_per_byte) * (1.0 + 0.02 * rng.sym());
                if rng.uniform() < 0.05 {
                    r *= 2.0 + 8.0 * rng.uniform();
                }
                let rkey = (Func::MPI_Recv as u8, Mode::Recv as u8, cl, size_bin(s));
                add(&mut cells, rkey, s, r);
                if bursts && s <= m.switch {
                    let spacing = m.duration(s).max(m.gap) * (1.0 + 0.02 * rng.sym());
                    add(&mut cells, (BURST_GAP, md, cl, size_bin(s)), s, spacing);
                }
            }
        }
        cells
    }

    fn sizes() -> Vec<u64> {
        // An application's sizes: not powers of two, several per bin, across the switch.
        let mut v = vec![];
        let mut s = 8.0f64;
        while s < 300_000.0 {
            v.push(s as u64);
            s *= 1.13;
        }
        v
    }

    const M: Machine = Machine {
        o_s: 300.0,
        copy_per_byte: 0.09,
        o_rdv: 2500.0,
        g_per_byte: 0.075,
        switch: 4040,
        gap: 900.0,
        o_r: 120.0,
        recv_copy_per_byte: 0.05,
    };

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b
    }

    #[test]
    fn recovers_o_s_g_big_g_and_brackets_the_switch() {
        for seed in 1..8 {
            let cells = traffic(&M, &sizes(), 200, true, seed);
            let env = envelopes(&cells);
            let bins = &env[&(Class::IntraNode, Mode::Send)];
            let l = learn(
                Mode::Send,
                bins,
                &Detect {
                    rel_noise: 0.05,
                    ..Default::default()
                },
            );
            let (lo, hi) = l.main_bracket.expect("a switch");
            assert!(
                lo <= M.switch && hi > M.switch,
                "seed {seed}: bracket {lo}..{hi}"
            );
            let first = &l.ranges[0];
            assert!(
                rel(
                    first.send_overhead_ns.unwrap(),
                    M.duration(first.size_lo_bytes)
                ) < 0.05,
                "o_s {:?}",
                first.send_overhead_ns
            );
            assert!(
                rel(first.gap_ns.unwrap(), M.gap) < 0.05,
                "g {:?}",
                first.gap_ns
            );
            let above = l
                .ranges
                .iter()
                .find(|r| r.size_lo_bytes > M.switch)
                .expect("a range above the switch");
            assert!(
                rel(above.gap_per_byte_ns.unwrap(), M.g_per_byte) < 0.05,
                "G {:?}",
                above.gap_per_byte_ns
            );
            let recv = learn(
                Mode::Recv,
                &env[&(Class::IntraNode, Mode::Recv)],
                &Detect {
                    rel_noise: 0.05,
                    ..Default::default()
                },
            );
            let r0 = &recv.ranges[0];
            let want = M.o_r + (r0.size_lo_bytes as f64 - 1.0) * M.recv_copy_per_byte;
            assert!(
                rel(r0.recv_overhead_ns.unwrap(), want) < 0.05,
                "o_r {:?} vs {want}",
                r0.recv_overhead_ns
            );
            assert_eq!(r0.send_overhead_ns, None);
            assert!(
                rel(
                    recv.ranges.last().unwrap().gap_per_byte_ns.unwrap(),
                    M.recv_copy_per_byte
                ) < 0.05,
                "receive-side per-byte cost {:?}",
                recv.ranges.last().unwrap().gap_per_byte_ns
            );
            let (calls, err) = l.model_check.unwrap();
            assert_eq!(calls, 200 * sizes().len() as u64);
            assert!(err.unwrap() < 0.05, "model error {err:?}");
        }
    }

    #[test]
    fn what_the_traffic_does_not_show_is_null() {
        // No bursts: no g. Sizes on one side of the switch only: no bracket.
        let small: Vec<u64> = sizes().into_iter().filter(|&s| s < 3000).collect();
        let cells = traffic(&M, &small, 100, false, 3);
        let bins = &envelopes(&cells)[&(Class::IntraNode, Mode::Send)];
        let l = learn(
            Mode::Send,
            bins,
            &Detect {
                rel_noise: 0.05,
                ..Default::default()
            },
        );
        assert_eq!(l.main_bracket, None);
        for r in &l.ranges {
            assert_eq!(r.gap_ns, None);
            assert_eq!(r.latency_ns, None);
            assert!(r.note.as_deref().unwrap().contains("g: not observed"));
        }
        // One size only: no G.
        let cells = traffic(&M, &[100], 100, false, 4);
        let bins = &envelopes(&cells)[&(Class::IntraNode, Mode::Send)];
        let l = learn(Mode::Send, bins, &Detect::default());
        assert_eq!(l.ranges.len(), 1);
        assert_eq!(l.ranges[0].gap_per_byte_ns, None);
    }
}
