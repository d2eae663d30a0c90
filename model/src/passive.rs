//! Passive LogGP estimates from the application's own calls: the merged per-bin lower
//! envelopes in (the shim reduces its histograms to `passive[].bins`), ranges, switch
//! brackets and the model check out. The same code runs in the shim at report time and
//! in `loggp refit`.
//!
//! Why each envelope measures what it claims (LogGP, and the protocols T / TA / RTA / RAT
//! of altawil-moritz §3.2):
//! * o_s — a blocking send of an eager size (protocol T) returns once the message is handed
//!   to the transport, so its duration is the sender's overhead o_s(s) plus any wait for
//!   resources; waits only add, so the lower envelope of the durations (a robust low
//!   quantile, the 10th percentile, not the single minimum) is o_s(s). For a nonblocking
//!   send, o_s(s) is the initiation call plus the completion call of a request that had
//!   already completed — the lower envelopes of both.
//! * o_r — a receive whose message had already arrived costs the receiver o_r(s) alone;
//!   one that waits costs more, so the lower envelope is o_r(s) (an upper bound when few
//!   messages had arrived before their receive).
//! * G — within one protocol range the envelope is linear in s: eager, the slope is the
//!   per-byte cost the caller pays (copying into the transport); past a rendezvous switch
//!   a blocking send waits for the whole transfer, so the slope is the path's G.
//!   Least squares over the per-bin envelopes constrained to G ≥ 0.
//! * g — consecutive sends to one peer started back to back are spaced by max(o_s, g);
//!   the lower envelope of that spacing is g where the transport limits the injection rate.
//! * ranges — the optimal segmentation of `segment` over the envelopes, each bin's σ from
//!   the interval of its 10th percentile (order statistics of its histogram).
//! * switches — each boundary is bracketed by the largest size seen on one side and the
//!   smallest seen on the other. The main bracket (the eager limit of a send mode) needs
//!   evidence: a jump to at least 1.5 × what the left side predicts that holds for the
//!   lower ends of both bins' intervals, in bins with enough calls; otherwise none.
//! * L needs both ends' clocks and is not estimated passively (null, with a note).
use crate::fit::gap_line;
use crate::model_check::{median_error, Prediction};
use crate::segment::{bic_penalty, segment, Series};
use crate::stats::{percentile_ci, Rng};
use crate::Settings;
use loggp_report::{Bin, Mode, Range, Threshold};

/// Calls a bin needs on each side of a switch before its bracket is believed.
pub const MIN_BRACKET_CALLS: u64 = 20;

/// One bin as the estimators see it.
#[derive(Clone, Copy, Debug)]
struct B {
    smallest: u64,
    largest: u64,
    count: u64,
    env: f64,
    ci: [f64; 2],
    p50: f64,
    gap: Option<(f64, [f64; 2], u64)>,
}

impl B {
    fn size(&self) -> f64 {
        (self.smallest as f64 + self.largest as f64) / 2.0
    }
    fn sd(&self) -> f64 {
        (self.ci[1] - self.ci[0]).max(0.0) / 3.92
    }
}

fn view(bins: &[Bin]) -> Vec<B> {
    let mut v: Vec<B> = bins
        .iter()
        .filter_map(|b| {
            let env = b.envelope_ns.or(b.p10_ns)?;
            // Reports before the intervals: the histogram's resolution (±3.2 %).
            let ci = b.envelope_ns_ci.unwrap_or([env * 0.968, env * 1.032]);
            Some(B {
                smallest: b.smallest_bytes,
                largest: b.largest_bytes,
                count: b.count,
                env,
                ci,
                p50: b.envelope_p50_ns.or(b.p50_ns).unwrap_or(env),
                gap: b.burst_gap_ns.map(|g| {
                    (
                        g,
                        b.burst_gap_ns_ci.unwrap_or([g * 0.968, g * 1.032]),
                        b.burst_gaps,
                    )
                }),
            })
        })
        .collect();
    v.sort_by_key(|b| b.smallest);
    v
}

/// What the traffic of one (class, mode) tells.
#[derive(Clone, Debug, Default)]
pub struct Learned {
    pub ranges: Vec<Range>,
    /// The eager limit's bracket [largest seen before, smallest seen after], where the
    /// evidence holds; else why not.
    pub main_bracket: Option<(u64, u64)>,
    pub bracket_note: Option<String>,
    /// Every jump that holds against the noise, the largest lasting part first: (ns of
    /// the jump that every larger size keeps, bracket).
    pub brackets: Vec<(f64, (u64, u64))>,
    /// (calls, count-weighted median relative error of the fitted lines).
    pub model_check: Option<(u64, Option<f64>)>,
    /// Each bin's prediction by its range's line (`model_check`).
    pub predictions: Vec<Prediction>,
}

pub fn is_receive(mode: Mode) -> bool {
    matches!(mode, Mode::Recv | Mode::Irecv | Mode::Mrecv)
}

/// The note of a range whose o comes from its line (see `METHOD`).
const POOLED: &str = "o: the range's first bin holds too few calls to bound its 10th percentile below, so o is the line through the range's bins' envelopes at its smallest size (inside the bin's interval and narrower), its interval by the bootstrap of that line";

pub const METHOD: &str = "o_s / o_r: lower envelope (10th percentile) at the range's smallest size, 95 % interval between the order statistics of its histogram whose ranks exact binomial tails give (where fewer than 36 calls cannot bound it below: the line through the range's bins' envelopes at that size, interval by the line's bootstrap, where that lies inside the bin's interval and is narrower; else reaching 0); G: least squares over the bins' envelopes constrained to G ≥ 0, interval by a parametric bootstrap of the envelopes; g: lower envelope of back-to-back send spacing";

/// Fits ranges, the main bracket and the model check of one (class, mode).
pub fn learn(mode: Mode, bins: &[Bin], s: &Settings) -> Learned {
    let bins = view(bins);
    let mut out = Learned::default();
    if bins.is_empty() {
        return out;
    }
    let x: Vec<f64> = bins.iter().map(B::size).collect();
    let y: Vec<f64> = bins.iter().map(|b| b.env).collect();
    let sigma: Vec<f64> = bins
        .iter()
        .map(|b| (b.sd().powi(2) + (s.rel_floor * b.env).powi(2) + s.abs_floor_ns.powi(2)).sqrt())
        .collect();
    let idx = segment(
        &x,
        &[Series {
            y: &y,
            sigma: &sigma,
        }],
        2,
        s.penalty_scale * bic_penalty(bins.len(), 1),
    );
    let mut rng = Rng::new(s.seed);
    // (first bin, last bin, fitted (g, G)) of each range.
    type Line = (usize, usize, Option<(f64, f64)>);
    let mut lines: Vec<Line> = vec![];
    for &(a, b) in &idx {
        let seg = &bins[a..=b];
        let distinct = seg[0].smallest != seg[seg.len() - 1].largest;
        let wide = seg.len() >= 3
            && seg[seg.len() - 1].largest as f64 >= 2.0 * seg[0].smallest.max(1) as f64;
        // Each bin weighted by 1/σ², its envelope's own noise (the σ the segmentation
        // prices it by): a bin of two calls, whose 10th percentile no order statistic
        // bounds below, cannot pull the line as a bin of thousands does. LAMMPS melt
        // (Open MPI, 2 ranks) with equal weights: two 70 KB sends that waited 81 µs for
        // their receiver took G of the 1–70 KB range to 0.36 ns/B, the line to 10.8 µs
        // at 28 KB, where 23 000 calls had their envelope at 4.0 µs and median at 4.5.
        let weights: Vec<f64> = sigma[a..=b]
            .iter()
            .map(|sd| 1.0 / sd.max(1e-9).powi(2))
            .collect();
        let fit = |ys: &[f64]| {
            gap_line(
                &seg.iter()
                    .zip(ys)
                    .zip(&weights)
                    .map(|((b, &y), &w)| (b.size(), y, w))
                    .collect::<Vec<_>>(),
            )
        };
        let line = if distinct && wide {
            fit(&y[a..=b])
        } else {
            None
        };
        // Where no slope can be fitted (too narrow a range), the flat line (G = 0) through
        // the bins' envelopes, weighted as above, serves the pooled o below and nothing
        // else: with G ≥ 0 no size of the range costs less than its smallest, so a bin of
        // one cold call cannot set o above what the range's well-determined bins show.
        // tests/c/waits.c under MPICH: a lone first send of 1600 B at 15.7 µs, [0, 15.7],
        // beside 200 sends of 64 KiB whose envelope was 3.6 µs, [3.4, 3.7].
        let weight_sum: f64 = weights.iter().sum();
        let flat = |ys: &[f64]| {
            let mean = ys.iter().zip(&weights).map(|(y, w)| y * w).sum::<f64>() / weight_sum;
            (weight_sum > 0.0).then_some((mean, 0.0))
        };
        let pool = |ys: &[f64]| if line.is_some() { fit(ys) } else { flat(ys) };
        let pool_line = line.or_else(|| (seg.len() >= 2).then(|| flat(&y[a..=b])).flatten());
        // The line's value at the range's smallest size (at 1 B for a bin of 0-byte
        // calls: the line is g + (s − 1)·G, which s = 0 would take below g).
        let first_size = |(g, gg): (f64, f64)| g + gg * (seg[0].size() - 1.0).max(0.0);
        // Parametric bootstrap of G and of the line at the smallest size: every bin's
        // envelope drawn within its interval.
        let boot: Vec<(f64, f64)> = match pool_line {
            Some(_) => (0..s.bootstrap)
                .filter_map(|_| {
                    let ys: Vec<f64> = seg
                        .iter()
                        .map(|b| (b.env + b.sd() * rng.normal()).max(0.0))
                        .collect();
                    pool(&ys).map(|l| (l.1, first_size(l)))
                })
                .collect(),
            None => vec![],
        };
        let (g_reps, o_reps): (Vec<f64>, Vec<f64>) = boot.into_iter().unzip();
        let g_ci = line.and_then(|(_, gg)| {
            percentile_ci(&g_reps).map(|[lo, hi]| [lo.min(gg).max(0.0), hi.max(gg)])
        });
        let samples: u64 = seg.iter().map(|x| x.count).sum();
        // o at the range's smallest size: its first bin's envelope, or, where that bin
        // holds too few calls to bound its 10th percentile below (fewer than 36), the
        // range's line there, which every bin's calls inform — where the line agrees with
        // the bin (inside its interval) and is better determined (a narrower interval).
        // hpcc's eager sends kept their bin ("52 ns +114 −52"): most of their calls wait
        // for the receiver, and the line through them read 2.12 µs, between 0 and 50 µs.
        let pooled = match (seg[0].ci[0] > 0.0, pool_line) {
            (false, Some(l)) => {
                let v = first_size(l);
                percentile_ci(&o_reps)
                    .map(|[lo, hi]| (v, [lo.min(v).max(0.0), hi.max(v)]))
                    .filter(|(v, [lo, hi])| {
                        *v <= seg[0].ci[1] && hi - lo < seg[0].ci[1] - seg[0].ci[0]
                    })
            }
            _ => None,
        };
        let (o, o_ci) = pooled.unwrap_or((seg[0].env, seg[0].ci));
        let mut notes: Vec<String> = vec![];
        let (send_o, recv_o) = if is_receive(mode) {
            notes.push("o_r: lower envelope (10th percentile) of the receive calls; an upper bound if few messages had arrived before their receive".into());
            (None, Some((o, o_ci)))
        } else if matches!(mode, Mode::Sendrecv | Mode::Isendrecv) {
            notes.push("sendrecv: o_s and o_r are not separable from one call".into());
            (None, None)
        } else {
            notes.push(
                "o_s: lower envelope (10th percentile) of the send calls at the smallest size"
                    .into(),
            );
            (Some((o, o_ci)), None)
        };
        if pooled.is_some() && (send_o.is_some() || recv_o.is_some()) {
            notes.push(POOLED.into());
        }
        let gap = seg.iter().find_map(|x| x.gap);
        if gap.is_none() {
            notes.push("g: not observed (no back-to-back sends to one peer in these sizes)".into());
        }
        if line.is_none() {
            notes.push(if distinct {
                "G: the range is too narrow to determine a slope (fewer than 3 bins or less than a factor 2 in size)".into()
            } else {
                "G: not observed (one size only in this range)".into()
            });
        }
        notes.push("L: needs both ends' clocks, not estimated passively".into());
        let rms = line.map(|(g, gg)| {
            (seg.iter()
                .map(|b| (g + gg * (b.size() - 1.0) - b.env).powi(2))
                .sum::<f64>()
                / seg.len() as f64)
                .sqrt()
        });
        let ci = |(v, c): (f64, [f64; 2])| [c[0].min(v).max(0.0), c[1].max(v)];
        out.ranges.push(Range {
            size_lo_bytes: seg[0].smallest,
            size_hi_bytes: seg[seg.len() - 1].largest,
            send_overhead_ns: send_o.map(|v| v.0),
            send_overhead_ns_ci: send_o.map(ci),
            recv_overhead_ns: recv_o.map(|v| v.0),
            recv_overhead_ns_ci: recv_o.map(ci),
            gap_ns: gap.map(|g| g.0),
            gap_ns_ci: gap.map(|g| ci((g.0, g.1))),
            gap_per_byte_ns: line.map(|l| l.1),
            gap_per_byte_ns_ci: g_ci,
            latency_ns: None,
            latency_ns_ci: None,
            fit_rms_ns: rms,
            method: Some(METHOD.into()),
            samples: Some(samples),
            note: Some(notes.join("; ")),
            protocol: None,
        });
        lines.push((a, b, line));
    }
    let line_of = |i: usize| {
        lines
            .iter()
            .find(|(a, b, _)| (*a..=*b).contains(&i))
            .and_then(|x| x.2)
    };
    // The main bracket: the largest lasting jump between neighbouring bins (an eager-to-rendezvous
    // switch adds a handshake, a round trip, to every call; other switches far less),
    // looked for between every pair of neighbours so that a range the segmentation left
    // whole cannot hide it. It must hold against the noise: the right side (the smaller
    // of the next two bins, so one slow bin is no switch) must stay above 1.5 × what the
    // left side predicts even at the low end of its interval against the high end of the
    // left's, exceed two timer floors, and both bins must hold enough calls.
    let mut best: Option<(f64, (u64, u64))> = None;
    let mut weak: Option<String> = None;
    for i in 0..bins.len().saturating_sub(1) {
        let r = match bins.get(i + 2) {
            Some(n) if n.env < bins[i + 1].env => *n,
            _ => bins[i + 1],
        };
        let predicted = line_of(i)
            .map(|(g, gg)| g + gg * (bins[i + 1].size() - 1.0))
            .unwrap_or(0.0)
            .max(bins[i].env);
        let predicted_hi = predicted.max(bins[i].ci[1]);
        let jump = r.env - predicted;
        if r.env <= 1.5 * predicted || jump <= 2.0 * s.abs_floor_ns {
            continue;
        }
        // Jumps are ranked by how much of them lasts: up to the lowest level of every
        // larger size. A switch raises the cost of every larger message; a slow phase of
        // the machine raises a run of sizes and lets them down again. Open MPI pml ucx,
        // tests/c/exchange.c (2026-11-27, CI): the rendezvous at 16 KiB raised the send
        // from 1.8 to 22 µs; a phase from 32.7 to 46 KiB raised it from 24 to 55 µs, and
        // 50–64 KiB were back at 32–36 µs. The phase's raw jump is the larger; what lasts
        // of it, 8 µs, is not.
        let lasting = bins[i + 1..].iter().map(|b| b.env).fold(r.env, f64::min) - predicted;
        let bracket = (bins[i].largest, bins[i + 1].smallest);
        let calls = bins[i].count.min(bins[i + 1].count);
        if calls < MIN_BRACKET_CALLS {
            weak = Some(format!(
                "a jump between {} and {} B rests on {calls} call{} (fewer than {MIN_BRACKET_CALLS}): no bracket",
                bracket.0,
                bracket.1,
                if calls == 1 { "" } else { "s" }
            ));
            continue;
        }
        if r.ci[0] <= 1.5 * predicted_hi {
            weak = Some(format!(
                "the jump between {} and {} B is within the envelopes' intervals: no bracket",
                bracket.0, bracket.1
            ));
            continue;
        }
        out.brackets.push((lasting, bracket));
        if best.is_none_or(|b| lasting > b.0) {
            best = Some((lasting, bracket));
        }
    }
    out.brackets.sort_by(|a, b| b.0.total_cmp(&a.0));
    out.main_bracket = best.map(|b| b.1);
    out.bracket_note = if best.is_some() {
        None
    } else {
        weak.or(Some("no jump of an eager-to-rendezvous switch in the traffic (sizes on one side only, or a receiver always waiting)".into()))
    };
    // Model check: the fitted line of each bin's range against the bin's median
    // (`model_check`), here over every range; the report's leaves out the ranges that end
    // up with no parameter.
    for (k, (a, b, line)) in lines.iter().enumerate() {
        for x in &bins[*a..=*b] {
            // Without a line, the range's o (its first bin's envelope, or the pooled one).
            let o = &out.ranges[k];
            let predicted_ns = match line {
                Some((g, gg)) => g + gg * (x.size() - 1.0),
                None => o
                    .send_overhead_ns
                    .or(o.recv_overhead_ns)
                    .unwrap_or(bins[*a].env),
            };
            out.predictions.push(Prediction {
                range: k,
                count: x.count,
                median_ns: x.p50,
                predicted_ns,
            });
        }
    }
    let calls: u64 = bins.iter().map(|b| b.count).sum();
    out.model_check = Some((calls, median_error(&out.predictions, |_| true)));
    out
}

/// The traffic's bracket of a calibrated switch: among the jumps that hold against the
/// noise, the one that contains the switch the calibration located; without one (no
/// calibration, or no jump contains it), the largest jump. An application's calls can
/// show other jumps than the eager limit (a pipeline or copy mechanism changing with
/// size; NetPIPE under Open MPI's vader shows its largest at 32–48 KiB), so the largest
/// is not taken for the eager limit where a smaller jump contains the calibrated one.
pub fn bracket_for(l: &Learned, t: &Threshold) -> (Option<(u64, u64)>, Option<String>) {
    let Some(&(_, largest)) = l.brackets.first() else {
        return (None, l.bracket_note.clone());
    };
    let list = || {
        l.brackets
            .iter()
            .map(|(_, (a, b))| format!("[{a}, {b}]"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some(act) = t.active_bytes else {
        return (
            Some(largest),
            (l.brackets.len() > 1).then(|| {
                format!(
                    "jumps in the traffic at {}; the largest is given (no calibrated switch to compare with)",
                    list()
                )
            }),
        );
    };
    match l
        .brackets
        .iter()
        .find(|(_, (a, b))| (*a..*b).contains(&act))
    {
        Some(&(_, b)) if b == largest => (Some(b), None),
        Some(&(_, b)) => (
            Some(b),
            Some(format!(
                "jumps in the traffic at {}; the one that contains the calibrated switch ({act} B) is given, the larger ones are other effects of the library's protocol",
                list()
            )),
        ),
        None => (
            Some(largest),
            (l.brackets.len() > 1).then(|| {
                format!(
                    "jumps in the traffic at {}; none contains the calibrated switch ({act} B); the largest is given",
                    list()
                )
            }),
        ),
    }
}

/// The share of a range's messages whose blocking calls waited for the other end (late
/// receiver for a send, late sender for a receive; for at least half of the call) at or
/// above which the range's envelopes are not fitted: the lower envelope is the 10th
/// percentile, so where at most one call in five ran without waiting the envelope can be
/// a wait (a spacing after a send that waited holds that wait too).
pub const WAITING_SHARE: f64 = 0.8;

/// Matched sampled calls a range needs before their share is believed.
pub const MIN_WAIT_SAMPLES: u64 = 10;

/// Where the waits' sample (`Waits::call_waits`) shows that nearly every blocking call of
/// a range waited for the other end, the envelopes measure the partner's delay: a send
/// range's o_s, g and G (a receiver 2 ms late before each of 200 rendezvous sends gave a
/// passive g of 2.0 ms against the calibration's 1.1 µs), a receive range's o_r and G (a
/// sender 2 ms late before each of 200 sends of 64 KiB: that bin's envelope 2.0 ms).
/// They become null with a note. Returns how many ranges it emptied.
pub fn waited_for_partner(
    class: loggp_report::PeerClass,
    mode: Mode,
    ranges: &mut [Range],
    bins: &[loggp_report::CallWaitBin],
) -> usize {
    let recv = is_receive(mode);
    let mut emptied = 0;
    for r in ranges.iter_mut() {
        let (mut calls, mut messages, mut waiting) = (0, 0, 0);
        for b in bins.iter().filter(|b| {
            b.peer_class == class
                && b.mode == mode
                && b.size_lo_bytes <= r.size_hi_bytes
                && b.size_hi_bytes >= r.size_lo_bytes
        }) {
            calls += b.calls_matched;
            messages += b.messages;
            waiting += b.messages_waiting;
        }
        if calls < MIN_WAIT_SAMPLES || messages == 0 {
            continue;
        }
        let share = waiting as f64 / messages as f64;
        if share < WAITING_SHARE {
            continue;
        }
        if recv {
            r.recv_overhead_ns = None;
            r.recv_overhead_ns_ci = None;
        } else {
            r.send_overhead_ns = None;
            r.send_overhead_ns_ci = None;
        }
        r.gap_ns = None;
        r.gap_ns_ci = None;
        r.gap_per_byte_ns = None;
        r.gap_per_byte_ns_ci = None;
        let why = if recv {
            format!(
                "o_r, G: not fitted: {:.0} % of this range's messages were received by calls that waited for their send for at least half of the call (late sender; {calls} sampled receives matched, `waits.call_waits`), so the calls' durations measure the senders, not the receiver",
                100.0 * share
            )
        } else {
            format!(
                "o_s, g, G: not fitted: {:.0} % of this range's messages were sent by calls that waited for their receive for at least half of the call (late receiver; {calls} sampled sends matched, `waits.call_waits`), so the calls' durations and spacings measure the receivers, not the sender",
                100.0 * share
            )
        };
        r.note = Some(match r.note.take() {
            Some(n) => format!("{why}; {n}"),
            None => why,
        });
        emptied += 1;
    }
    emptied
}

#[cfg(test)]
mod tests {
    use super::*;
    use loggp_report::bins::{size_bin, size_bin_range};
    use std::collections::BTreeMap;

    /// A LogGP machine's calls (ground truth §3): eager up to `switch` (o_s + (s−1)·copy),
    /// rendezvous above (o_rdv + (s−1)·G); ±2 % jitter, 5 % outliers 2–10× slower; with
    /// bursts, back-to-back spacing max(o_s, g).
    struct Machine {
        o_s: f64,
        copy_per_byte: f64,
        o_rdv: f64,
        g_per_byte: f64,
        switch: u64,
        gap: f64,
    }

    const M: Machine = Machine {
        o_s: 300.0,
        copy_per_byte: 0.09,
        o_rdv: 2500.0,
        g_per_byte: 0.075,
        switch: 4040,
        gap: 900.0,
    };

    impl Machine {
        fn duration(&self, s: u64) -> f64 {
            if s <= self.switch {
                self.o_s + (s as f64 - 1.0) * self.copy_per_byte
            } else {
                self.o_rdv + (s as f64 - 1.0) * self.g_per_byte
            }
        }
    }

    /// The bin a shim would report for these samples (exact order statistics here).
    fn bin(sizes: &[u64], d: &mut [f64], gaps: &mut [f64]) -> Bin {
        let (lo, hi) = size_bin_range(size_bin(sizes[0]));
        d.sort_by(f64::total_cmp);
        gaps.sort_by(f64::total_cmp);
        let q = |v: &[f64], p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
        let ci = |v: &[f64]| {
            let n = v.len() as f64;
            let h = 1.96 * (n * 0.1 * 0.9).sqrt();
            [
                q(v, ((n * 0.1 - h) / n).max(0.0)),
                q(v, ((n * 0.1 + h) / n).min(1.0)),
            ]
        };
        Bin {
            size_lo_bytes: lo,
            size_hi_bytes: hi,
            smallest_bytes: *sizes.iter().min().unwrap(),
            largest_bytes: *sizes.iter().max().unwrap(),
            count: d.len() as u64,
            envelope_ns: Some(q(d, 0.1)),
            envelope_ns_ci: Some(ci(d)),
            envelope_p50_ns: Some(q(d, 0.5)),
            burst_gaps: gaps.len() as u64,
            burst_gap_ns: (!gaps.is_empty()).then(|| q(gaps, 0.1)),
            burst_gap_ns_ci: (!gaps.is_empty()).then(|| ci(gaps)),
            ..Default::default()
        }
    }

    fn traffic(m: &Machine, sizes: &[u64], per_size: usize, bursts: bool, seed: u64) -> Vec<Bin> {
        let mut rng = Rng::new(seed);
        // Per size bin: sizes, call durations, burst spacings.
        type Samples = (Vec<u64>, Vec<f64>, Vec<f64>);
        let mut by_bin: BTreeMap<u16, Samples> = BTreeMap::new();
        for &s in sizes {
            for _ in 0..per_size {
                let mut d = m.duration(s) * (1.0 + 0.02 * rng.sym());
                if rng.uniform() < 0.05 {
                    d *= 2.0 + 8.0 * rng.uniform();
                }
                let e = by_bin.entry(size_bin(s)).or_default();
                e.0.push(s);
                e.1.push(d);
                if bursts && s <= m.switch {
                    e.2.push(m.duration(s).max(m.gap) * (1.0 + 0.02 * rng.sym()));
                }
            }
        }
        by_bin
            .into_values()
            .map(|(s, mut d, mut g)| bin(&s, &mut d, &mut g))
            .collect()
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

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b
    }

    /// The first range above the machine's switch.
    fn above_switch(l: &Learned) -> &Range {
        l.ranges
            .iter()
            .find(|r| r.size_lo_bytes > M.switch)
            .expect("a range above the switch")
    }

    #[test]
    fn recovers_o_s_g_big_g_and_brackets_the_switch() {
        for seed in 1..8 {
            let bins = traffic(&M, &sizes(), 200, true, seed);
            let l = learn(Mode::Send, &bins, &Settings::default());
            let (lo, hi) = l.main_bracket.expect("a switch");
            assert!(
                lo <= M.switch && hi > M.switch,
                "seed {seed}: bracket {lo}..{hi}"
            );
            let first = &l.ranges[0];
            let o = first.send_overhead_ns.unwrap();
            assert!(rel(o, M.duration(first.size_lo_bytes)) < 0.05, "o_s {o}");
            let [a, b] = first.send_overhead_ns_ci.unwrap();
            assert!(a <= o && o <= b);
            assert!(
                rel(first.gap_ns.unwrap(), M.gap) < 0.05,
                "g {:?}",
                first.gap_ns
            );
            let above = above_switch(&l);
            let g = above.gap_per_byte_ns.unwrap();
            assert!(rel(g, M.g_per_byte) < 0.05, "G {g}");
            let [a, b] = above.gap_per_byte_ns_ci.unwrap();
            assert!(a <= g && g <= b && a >= 0.0);
            let (_, err) = l.model_check.unwrap();
            assert!(err.unwrap() < 0.05, "model error {err:?}");
        }
    }

    /// A second, larger jump (here a pipeline engaging at 32 KiB, as NetPIPE shows under
    /// vader) must not displace the calibrated eager switch's bracket; with no calibrated
    /// switch, or none inside a jump, the largest is given and the note lists them all.
    #[test]
    fn the_bracket_given_is_the_jump_that_contains_the_calibrated_switch() {
        let mut bins = traffic(&M, &sizes(), 200, true, 5);
        for b in bins.iter_mut().filter(|b| b.smallest_bytes > 32768) {
            let up = |x: &mut Option<f64>| *x = x.map(|v| v + 9000.0);
            up(&mut b.envelope_ns);
            up(&mut b.envelope_p50_ns);
            b.envelope_ns_ci = b.envelope_ns_ci.map(|[a, c]| [a + 9000.0, c + 9000.0]);
        }
        let l = learn(Mode::Send, &bins, &Settings::default());
        assert!(l.brackets.len() >= 2, "{:?}", l.brackets);
        let (lo, hi) = l.main_bracket.unwrap();
        assert!(lo <= 32768 && hi > 32768, "the largest jump: {lo}..{hi}");
        let calibrated = Threshold {
            active_bytes: Some(M.switch),
            ..Default::default()
        };
        let (b, note) = bracket_for(&l, &calibrated);
        let (lo, hi) = b.unwrap();
        assert!(lo <= M.switch && hi > M.switch, "{lo}..{hi}");
        assert!(note.unwrap().contains("other effects"));
        let (b, note) = bracket_for(&l, &Threshold::default());
        assert_eq!(b, l.main_bracket);
        assert!(note.unwrap().contains("the largest is given"));
        let elsewhere = Threshold {
            active_bytes: Some(100_000),
            ..Default::default()
        };
        let (b, note) = bracket_for(&l, &elsewhere);
        assert_eq!(b, l.main_bracket);
        assert!(note.unwrap().contains("none contains"));
    }

    /// A range whose first bin holds too few calls to bound its 10th percentile below (as
    /// the shim reports it: the interval reaching 0) takes o from the range's line, which
    /// every bin informs: its interval holds the first size's true 10th percentile and is
    /// narrower than the thin bin's own.
    #[test]
    fn a_thin_first_bin_takes_o_from_the_range_line() {
        let (mut held, trials) = (0u64, 40);
        for seed in 1..=trials {
            let mut bins = traffic(&M, &sizes(), 200, true, seed);
            // The first bin as 7 calls of its smallest size leave it.
            let mut rng = Rng::new(seed + 1000);
            let s0 = bins[0].smallest_bytes;
            let mut d: Vec<f64> = (0..7)
                .map(|_| M.duration(s0) * (1.0 + 0.02 * rng.sym()))
                .collect();
            let mut thin = bin(&[s0], &mut d, &mut []);
            // The shim's interval: the exact binomial ranks, none below with 7 calls.
            let (none, u) = loggp_report::bins::quantile_ci_ranks(7, 0.1);
            assert_eq!(none, None);
            thin.envelope_ns_ci = Some([0.0, d[u.unwrap() as usize - 1]]);
            thin.burst_gap_ns = bins[0].burst_gap_ns;
            thin.burst_gap_ns_ci = bins[0].burst_gap_ns_ci;
            thin.burst_gaps = bins[0].burst_gaps;
            let thin_hi = thin.envelope_ns_ci.unwrap()[1];
            bins[0] = thin;
            let l = learn(Mode::Send, &bins, &Settings::default());
            let first = &l.ranges[0];
            let o = first.send_overhead_ns.unwrap();
            let [a, b] = first.send_overhead_ns_ci.unwrap();
            // The noise is uniform within ±2 %: the 10th percentile sits 1.6 % low.
            let truth = M.duration(s0) * (1.0 - 0.016);
            assert!(rel(o, truth) < 0.05, "seed {seed}: o_s {o} against {truth}");
            assert!(a > 0.0 && b - a < thin_hi, "seed {seed}: [{a}, {b}]");
            held += u64::from(a <= truth && truth <= b);
            let note = first.note.as_deref().unwrap_or_default();
            assert!(note.contains("too few calls"), "{note}");
        }
        assert!(
            held * 10 >= trials * 9,
            "the interval held the truth in {held} of {trials}"
        );
    }

    /// A slow phase of the machine over a run of sizes above the switch (the CI run of
    /// 2026-11-27 under pml ucx: 2.3 × for 33–46 KiB, then back) is a larger jump than
    /// the switch, but not a lasting one: the switch's bracket stays the main one.
    #[test]
    fn a_slow_phase_over_some_sizes_does_not_displace_the_switch() {
        for seed in 1..6 {
            let mut bins = traffic(&M, &sizes(), 200, true, seed);
            let phase = |b: &Bin| (9000..=16000).contains(&b.smallest_bytes);
            for b in bins.iter_mut().filter(|b| phase(b)) {
                let up = |x: &mut Option<f64>| *x = x.map(|v| v * 2.3);
                up(&mut b.envelope_ns);
                up(&mut b.envelope_p50_ns);
                b.envelope_ns_ci = b.envelope_ns_ci.map(|[a, c]| [a * 2.3, c * 2.3]);
            }
            let l = learn(Mode::Send, &bins, &Settings::default());
            assert!(
                l.brackets.iter().any(|(_, (a, _))| *a > 8000),
                "seed {seed}: the phase is a jump: {:?}",
                l.brackets
            );
            let (lo, hi) = l.main_bracket.unwrap();
            assert!(
                lo <= M.switch && hi > M.switch,
                "seed {seed}: {lo}..{hi} of {:?}",
                l.brackets
            );
        }
    }

    #[test]
    fn what_the_traffic_does_not_show_is_null_and_weak_evidence_gives_no_bracket() {
        // No bursts: no g. Sizes on one side of the switch only: no bracket.
        let small: Vec<u64> = sizes().into_iter().filter(|&s| s < 3000).collect();
        let l = learn(
            Mode::Send,
            &traffic(&M, &small, 100, false, 3),
            &Settings::default(),
        );
        assert_eq!(l.main_bracket, None);
        assert!(l.bracket_note.is_some());
        for r in &l.ranges {
            assert_eq!(r.gap_ns, None);
            assert!(r.note.as_deref().unwrap().contains("g: not observed"));
        }
        // One size only: no G.
        let l = learn(
            Mode::Send,
            &traffic(&M, &[100], 100, false, 4),
            &Settings::default(),
        );
        assert_eq!(l.ranges.len(), 1);
        assert_eq!(l.ranges[0].gap_per_byte_ns, None);
        // The switch seen in a handful of calls only: no bracket, and the note says why.
        let l = learn(
            Mode::Send,
            &traffic(&M, &sizes(), 3, false, 5),
            &Settings::default(),
        );
        assert_eq!(l.main_bracket, None, "{:?}", l.bracket_note);
        assert!(l.bracket_note.unwrap().contains("calls"));
    }

    /// A send range is emptied where at least `WAITING_SHARE` of its messages waited for
    /// their receive, and only then: not below it, not on too few samples, not by another
    /// class's or mode's bins, and not by bins outside its sizes.
    /// A thin bin far above the line (two sends that waited for their receiver, as LAMMPS
    /// melt's largest did) does not pull the range's G: each bin weighs by its envelope's
    /// noise, and two calls bound nothing. With equal weights G came out at 1.13 ns/B, 15 ×
    /// the truth.
    #[test]
    fn a_thin_bin_that_waited_does_not_pull_the_line() {
        for seed in 1..6 {
            let mut bins = traffic(&M, &sizes(), 200, true, seed);
            let mut rng = Rng::new(seed + 77);
            let s = bins.last().unwrap().largest_bytes * 2;
            let mut d: Vec<f64> = (0..2)
                .map(|_| 30.0 * M.duration(s) * (1.0 + 0.02 * rng.sym()))
                .collect();
            let mut thin = bin(&[s], &mut d, &mut []);
            thin.envelope_ns_ci = Some([0.0, d[1]]);
            bins.push(thin);
            let l = learn(Mode::Send, &bins, &Settings::default());
            let above = above_switch(&l);
            let g = above.gap_per_byte_ns.unwrap();
            assert!(rel(g, M.g_per_byte) < 0.05, "seed {seed}: G {g}");
            let (_, err) = l.model_check.unwrap();
            assert!(err.unwrap() < 0.05, "seed {seed}: model error {err:?}");
        }
    }

    #[test]
    fn a_range_of_sends_that_waited_is_not_fitted() {
        use loggp_report::{CallWaitBin, PeerClass};
        let range = || Range {
            size_lo_bytes: 16384,
            size_hi_bytes: 131072,
            send_overhead_ns: Some(2.0e6),
            send_overhead_ns_ci: Some([1.9e6, 2.1e6]),
            gap_ns: Some(2.0e6),
            gap_ns_ci: Some([1.9e6, 2.1e6]),
            gap_per_byte_ns: Some(0.1),
            gap_per_byte_ns_ci: Some([0.05, 0.15]),
            note: Some("L: needs both ends' clocks".into()),
            ..Default::default()
        };
        let bin = |class, mode, lo, sends, waiting| CallWaitBin {
            peer_class: class,
            mode,
            size_lo_bytes: lo,
            size_hi_bytes: lo + 8191,
            calls_matched: sends,
            messages: 100,
            messages_waiting: waiting,
        };
        let intra = PeerClass::IntraNode;
        let run = |bins: &[CallWaitBin]| {
            let mut v = vec![range()];
            let n = waited_for_partner(intra, Mode::Send, &mut v, bins);
            (n, v.remove(0))
        };
        let (n, r) = run(&[bin(intra, Mode::Send, 65536, 60, 80)]);
        assert_eq!(n, 1);
        assert!(r.send_overhead_ns.is_none() && r.gap_ns.is_none() && r.gap_per_byte_ns.is_none());
        assert!(r.gap_ns_ci.is_none() && r.send_overhead_ns_ci.is_none());
        let note = r.note.unwrap();
        assert!(
            note.contains("80 %") && note.ends_with("L: needs both ends' clocks"),
            "{note}"
        );
        for (what, bins) in [
            (
                "below the share",
                vec![bin(intra, Mode::Send, 65536, 60, 79)],
            ),
            (
                "too few samples",
                vec![bin(intra, Mode::Send, 65536, 9, 100)],
            ),
            (
                "another class",
                vec![bin(PeerClass::InterNode, Mode::Send, 65536, 60, 100)],
            ),
            (
                "another mode",
                vec![bin(intra, Mode::Ssend, 65536, 60, 100)],
            ),
            ("other sizes", vec![bin(intra, Mode::Send, 262144, 60, 100)]),
        ] {
            let (n, r) = run(&bins);
            assert_eq!((n, r), (0, range()), "{what}");
        }
        // Two bins of the range pooled: 60 of 100 and 100 of 100 waiting is 80 %.
        let (n, _) = run(&[
            bin(intra, Mode::Send, 16384, 30, 60),
            bin(intra, Mode::Send, 65536, 30, 100),
        ]);
        assert_eq!(n, 1);
    }

    /// A receive range whose receives waited for their senders loses o_r and G, and says
    /// late sender; a send's bins do not touch it.
    #[test]
    fn a_range_of_receives_that_waited_is_not_fitted() {
        use loggp_report::{CallWaitBin, PeerClass};
        let range = || Range {
            size_lo_bytes: 65536,
            size_hi_bytes: 65536,
            recv_overhead_ns: Some(2.0e6),
            recv_overhead_ns_ci: Some([1.9e6, 2.1e6]),
            gap_per_byte_ns: Some(0.1),
            gap_per_byte_ns_ci: Some([0.05, 0.15]),
            ..Default::default()
        };
        let bin = |mode| CallWaitBin {
            peer_class: PeerClass::IntraNode,
            mode,
            size_lo_bytes: 65536,
            size_hi_bytes: 73727,
            calls_matched: 114,
            messages: 200,
            messages_waiting: 200,
        };
        let mut v = vec![range()];
        assert_eq!(
            waited_for_partner(PeerClass::IntraNode, Mode::Recv, &mut v, &[bin(Mode::Send)]),
            0
        );
        assert_eq!(v[0], range());
        assert_eq!(
            waited_for_partner(PeerClass::IntraNode, Mode::Recv, &mut v, &[bin(Mode::Recv)]),
            1
        );
        assert!(v[0].recv_overhead_ns.is_none() && v[0].gap_per_byte_ns.is_none());
        assert!(v[0].note.as_deref().unwrap().contains("late sender"));
    }
}
