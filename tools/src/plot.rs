//! `loggp plot`: SVG figures, written by hand (no plotting library): log–log charts of
//! size against time with measured points, fitted lines and the protocol switches
//! (hoefler2007 Fig. 3/4), overheads active and passive, MPI against the raw transport
//! (bell2003 Fig. 3), and time in MPI per rank.
use crate::table::esc;
use loggp_report::{Mode, Report};

#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// Drawn as a line (a fit) rather than as markers (measurements).
    pub line: bool,
}

const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];
const W: f64 = 760.0;
const H: f64 = 440.0;
const L: f64 = 80.0;
const R: f64 = 180.0;
const T: f64 = 40.0;
const B: f64 = 50.0;

/// A log–log chart. Non-positive values cannot sit on a log axis and are left out (the
/// figure's note says how many).
pub fn chart(
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &[Series],
    switches: &[(f64, String)],
) -> String {
    let pos: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(|&(x, y)| x > 0.0 && y > 0.0 && x.is_finite() && y.is_finite())
        .collect();
    let dropped: usize = series.iter().map(|s| s.points.len()).sum::<usize>() - pos.len();
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in &pos {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if pos.is_empty() {
        (x0, x1, y0, y1) = (1.0, 10.0, 1.0, 10.0);
    }
    let (lx0, lx1) = (
        x0.log10().floor(),
        x1.log10().ceil().max(x0.log10().floor() + 1.0),
    );
    let (ly0, ly1) = (
        y0.log10().floor(),
        y1.log10().ceil().max(y0.log10().floor() + 1.0),
    );
    let px = |x: f64| L + (x.log10() - lx0) / (lx1 - lx0) * (W - L - R);
    let py = |y: f64| H - B - (y.log10() - ly0) / (ly1 - ly0) * (H - T - B);
    let mut o = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"12\">\n<title>{}</title>\n<rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>\n<text class=\"title\" x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">{}</text>\n",
        esc(title),
        (L + W - R) / 2.0,
        esc(title)
    );
    // Axes with decade ticks.
    o += &format!(
        "<g class=\"axes\" stroke=\"#444\"><line x1=\"{L}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/><line x1=\"{L}\" y1=\"{T}\" x2=\"{L}\" y2=\"{}\"/></g>\n",
        H - B, W - R, H - B, H - B
    );
    for d in lx0 as i32..=lx1 as i32 {
        let x = px(10f64.powi(d));
        o += &format!(
            "<line x1=\"{x:.1}\" y1=\"{T}\" x2=\"{x:.1}\" y2=\"{}\" stroke=\"#eee\"/><text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
            H - B,
            H - B + 16.0,
            tick(d, true)
        );
    }
    for d in ly0 as i32..=ly1 as i32 {
        let y = py(10f64.powi(d));
        o += &format!(
            "<line x1=\"{L}\" y1=\"{y:.1}\" x2=\"{}\" y2=\"{y:.1}\" stroke=\"#eee\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
            W - R,
            L - 6.0,
            y + 4.0,
            tick(d, false)
        );
    }
    o += &format!(
        "<text class=\"xlabel\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n<text class=\"ylabel\" transform=\"translate(18 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
        (L + W - R) / 2.0,
        H - 12.0,
        esc(xlabel),
        (T + H - B) / 2.0,
        esc(ylabel)
    );
    for (x, label) in switches.iter().filter(|(x, _)| *x > 0.0) {
        let sx = px(*x);
        o += &format!(
            "<g class=\"switch\"><line x1=\"{sx:.1}\" y1=\"{T}\" x2=\"{sx:.1}\" y2=\"{}\" stroke=\"#888\" stroke-dasharray=\"4 3\"/><text x=\"{:.1}\" y=\"{}\" font-size=\"10\">{}</text></g>\n",
            H - B,
            sx + 3.0,
            T + 10.0,
            esc(label)
        );
    }
    for (i, s) in series.iter().enumerate() {
        let c = COLORS[i % COLORS.len()];
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|&(x, y)| x > 0.0 && y > 0.0 && x.is_finite() && y.is_finite())
            .collect();
        o += &format!("<g class=\"series\" data-series=\"{}\">", esc(&s.name));
        if s.line {
            let d: Vec<String> = pts
                .iter()
                .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
                .collect();
            o += &format!(
                "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"1.5\" points=\"{}\"/>",
                d.join(" ")
            );
        } else {
            for &(x, y) in &pts {
                o += &format!(
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.5\" fill=\"{c}\"/>",
                    px(x),
                    py(y)
                );
            }
        }
        let ly = T + 14.0 + 16.0 * i as f64;
        o += &format!(
            "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{c}\"/><text class=\"legend\" x=\"{}\" y=\"{}\">{}</text></g>\n",
            W - R + 10.0,
            ly - 9.0,
            W - R + 24.0,
            ly,
            esc(&s.name)
        );
    }
    if dropped > 0 {
        o += &format!(
            "<text class=\"note\" x=\"{L}\" y=\"{}\" font-size=\"10\">{dropped} value(s) ≤ 0 not drawn on the log axis</text>\n",
            T - 4.0
        );
    }
    o + "</svg>\n"
}

fn tick(d: i32, bytes: bool) -> String {
    let v = 10f64.powi(d);
    if bytes {
        match d {
            d if d >= 9 => format!("{} GB", v / 1e9),
            d if d >= 6 => format!("{} MB", v / 1e6),
            d if d >= 3 => format!("{} kB", v / 1e3),
            _ => format!("{v}"),
        }
    } else {
        match d {
            d if d >= 9 => format!("{} s", v / 1e9),
            d if d >= 6 => format!("{} ms", v / 1e6),
            d if d >= 3 => format!("{} µs", v / 1e3),
            _ => format!("{v} ns"),
        }
    }
}

/// Bars: per-rank time in MPI.
pub fn bars(title: &str, ylabel: &str, bars: &[(String, f64)]) -> String {
    let max = bars.iter().map(|b| b.1).fold(0.0, f64::max).max(1e-9);
    let n = bars.len().max(1) as f64;
    let bw = (W - L - R) / n;
    let mut o = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"12\">\n<title>{}</title>\n<rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>\n<text class=\"title\" x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">{}</text>\n<text class=\"ylabel\" transform=\"translate(18 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n<g class=\"series\" data-series=\"time in MPI\">",
        esc(title),
        (L + W - R) / 2.0,
        esc(title),
        (T + H - B) / 2.0,
        esc(ylabel),
        L - 6.0,
        T + 4.0,
        crate::table::fmt_ns(Some(max))
    );
    for (i, (label, v)) in bars.iter().enumerate() {
        let h = v / max * (H - T - B);
        let x = L + i as f64 * bw;
        o += &format!(
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.2}\" height=\"{h:.1}\" fill=\"{}\"><title>{}: {}</title></rect>",
            H - B - h,
            (bw * 0.8).max(0.5),
            COLORS[0],
            esc(label),
            crate::table::fmt_ns(Some(*v))
        );
        if bars.len() <= 32 {
            o += &format!(
                "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\">{}</text>",
                x + bw * 0.4,
                H - B + 14.0,
                esc(label)
            );
        }
    }
    o + &format!(
        "</g>\n<line x1=\"{L}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#444\"/>\n</svg>\n",
        H - B,
        W - R,
        H - B
    )
}

fn line_of(lo: u64, hi: u64, at: impl Fn(f64) -> f64) -> Vec<(f64, f64)> {
    let (a, b) = (lo.max(1) as f64, hi.max(1) as f64);
    (0..=8)
        .map(|k| a * (b / a).powf(k as f64 / 8.0))
        .map(|s| (s, at(s)))
        .collect()
}

/// Every figure of a report: (file name, SVG).
pub fn figures(r: &Report) -> Vec<(String, String)> {
    let mut out = vec![];
    let file = |s: &str| s.replace(|c: char| !c.is_ascii_alphanumeric() && c != '_', "_");
    for set in &r.calibration.mpi {
        // hoefler2007 Fig. 3/4: G_all(s) = g + (s−1)G measured, and each range's line.
        let mut series = vec![Series {
            name: "measured g+(s−1)G".into(),
            points: set
                .points
                .iter()
                .filter_map(|p| Some((p.size_bytes as f64, p.gap_all_ns?)))
                .collect(),
            line: false,
        }];
        for x in &set.ranges {
            if let (Some(g), Some(gg)) = (x.gap_ns, x.gap_per_byte_ns) {
                series.push(Series {
                    name: format!("fit {}..{}", x.size_lo_bytes, x.size_hi_bytes),
                    points: line_of(x.size_lo_bytes, x.size_hi_bytes, |s| g + (s - 1.0) * gg),
                    line: true,
                });
            }
        }
        let switches: Vec<(f64, String)> = set
            .ranges
            .iter()
            .skip(1)
            .map(|x| (x.size_lo_bytes as f64, format!("{} B", x.size_lo_bytes)))
            .collect();
        out.push((
            format!(
                "gap_{}_{}.svg",
                file(set.peer_class.name()),
                file(set.mode.name())
            ),
            chart(
                &format!("g + (s−1)G — {} {}", set.peer_class, set.mode),
                "message size (bytes)",
                "time per message",
                &series,
                &switches,
            ),
        ));
        // Overheads against size: active points, passive bins of the same class.
        let mut series = vec![
            Series {
                name: "o_s active".into(),
                points: set
                    .points
                    .iter()
                    .filter_map(|p| Some((p.size_bytes as f64, p.send_overhead_ns?)))
                    .collect(),
                line: false,
            },
            Series {
                name: "o_r active".into(),
                points: set
                    .points
                    .iter()
                    .filter_map(|p| Some((p.size_bytes as f64, p.recv_overhead_ns?)))
                    .collect(),
                line: false,
            },
        ];
        for (mode, label) in [
            (set.mode, "o_s passive"),
            (
                if set.mode == Mode::Isend {
                    Mode::Irecv
                } else {
                    Mode::Recv
                },
                "o_r passive",
            ),
        ] {
            if let Some(p) = r
                .passive
                .iter()
                .find(|p| p.peer_class == set.peer_class && p.mode == mode)
            {
                series.push(Series {
                    name: label.into(),
                    points: p
                        .bins
                        .iter()
                        .filter_map(|b| {
                            Some((
                                (b.smallest_bytes as f64 + b.largest_bytes as f64) / 2.0,
                                b.p10_ns?,
                            ))
                        })
                        .collect(),
                    line: true,
                });
            }
        }
        out.push((
            format!(
                "overheads_{}_{}.svg",
                file(set.peer_class.name()),
                file(set.mode.name())
            ),
            chart(
                &format!("o_s and o_r — {} {}", set.peer_class, set.mode),
                "message size (bytes)",
                "overhead",
                &series,
                &switches,
            ),
        ));
    }
    // bell2003 Fig. 3: overheads against the end-to-end latency, MPI and raw.
    for raw in r.calibration.raw.iter().filter(|x| !x.points.is_empty()) {
        let Some(m) = loggp_model::mpi_send_set_of(r, raw) else {
            continue;
        };
        let mut series = vec![];
        for (who, pts) in [("MPI", &m.points), (raw.transport.as_str(), &raw.points)] {
            series.push(Series {
                name: format!("{who} L (PRTT(1,0,s)/2)"),
                points: pts
                    .iter()
                    .filter_map(|p| Some((p.size_bytes as f64, p.prtt_1_0_ns? / 2.0)))
                    .collect(),
                line: true,
            });
            series.push(Series {
                name: format!("{who} o_s"),
                points: pts
                    .iter()
                    .filter_map(|p| Some((p.size_bytes as f64, p.send_overhead_ns?)))
                    .collect(),
                line: false,
            });
            series.push(Series {
                name: format!("{who} o_r"),
                points: pts
                    .iter()
                    .filter_map(|p| Some((p.size_bytes as f64, p.recv_overhead_ns?)))
                    .collect(),
                line: false,
            });
        }
        out.push((
            format!(
                "mpi_vs_{}_{}.svg",
                file(&raw.transport),
                file(raw.peer_class.name())
            ),
            chart(
                &format!(
                    "MPI and raw {} — {}: overheads and latency",
                    raw.transport, raw.peer_class
                ),
                "message size (bytes)",
                "time",
                &series,
                &[],
            ),
        ));
    }
    if !r.ranks.is_empty() {
        let b: Vec<(String, f64)> = r
            .ranks
            .iter()
            .map(|k| (format!("r{}", k.rank), k.time_in_mpi_ns))
            .collect();
        out.push((
            "time_in_mpi.svg".into(),
            bars("time in MPI per rank", "time in MPI", &b),
        ));
    }
    if let Some(svg) = crate::show::split::split_svg(r) {
        out.push(("time_split.svg".into(), svg));
    }
    if let Some(svg) = crate::show::matrix::heat_map_svg(r) {
        out.push(("matrix.svg".into(), svg));
    }
    out
}
