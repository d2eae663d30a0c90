//! One table model, rendered as terminal text (`show`, `diff`) and as HTML (`html`).

#[derive(Clone, Debug, Default)]
pub struct Table {
    pub title: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// A line under the table (what the columns mean, what is missing).
    pub note: Option<String>,
    /// As text, each row a numbered block, one line per column ("evidence: …"), rather
    /// than a line: for rows of sentences (the findings), which a fixed-width line
    /// stretches past any terminal.
    pub blocks: bool,
}

impl Table {
    pub fn new(title: impl Into<String>, header: &[&str]) -> Table {
        Table {
            title: title.into(),
            header: header.iter().map(|h| h.to_string()).collect(),
            ..Default::default()
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Fixed-width text: the first column left-aligned, the others right-aligned where
    /// every value in them reads as a number (`1..256`, `668.30 ms ±6.44`, `29 % [12 … 37]`,
    /// `—`), left-aligned where some value is words (a finding, a call site, an
    /// algorithm), whose ragged left edge a right alignment would make hard to read.
    pub fn text(&self) -> String {
        let mut o = format!("\n{}\n", self.title);
        o += &if self.blocks {
            self.text_blocks()
        } else {
            self.text_lines()
        };
        if let Some(n) = &self.note {
            o += &format!("  ({n})\n");
        }
        o
    }

    /// The header and the rows, one line each, padded to the columns' widths.
    fn text_lines(&self) -> String {
        let n = self.header.len();
        let mut w: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        let mut numeric = vec![true; n];
        for r in &self.rows {
            for (i, c) in r.iter().enumerate().take(n) {
                w[i] = w[i].max(c.chars().count());
                numeric[i] &= reads_as_number(c);
            }
        }
        let line = |cells: &[String]| {
            let mut s = String::from("  ");
            for (i, c) in cells.iter().enumerate().take(n) {
                let pad = " ".repeat(w[i].saturating_sub(c.chars().count()));
                if i > 0 {
                    s += "  ";
                }
                if i == 0 || !numeric[i] {
                    s += c;
                    s += &pad;
                } else {
                    s += &pad;
                    s += c;
                }
            }
            s.trim_end().to_string() + "\n"
        };
        std::iter::once(&self.header)
            .chain(&self.rows)
            .map(|r| line(r))
            .collect()
    }

    /// Each row as a block: `N. <first column after the number>`, then one indented line
    /// per further column, `header: value` (empty values left out).
    fn text_blocks(&self) -> String {
        let mut o = String::new();
        for r in &self.rows {
            let mut cells = r.iter().zip(&self.header);
            let (Some((number, _)), Some((first, _))) = (cells.next(), cells.next()) else {
                continue;
            };
            let indent = " ".repeat(number.chars().count() + 4);
            o += &format!("  {number}. {first}\n");
            for (c, h) in cells.filter(|(c, _)| !c.is_empty()) {
                o += &format!("{indent}{h}: {c}\n");
            }
        }
        o
    }

    pub fn html(&self) -> String {
        let mut o = format!("<h2>{}</h2>\n<table>\n<tr>", esc(&self.title));
        for h in &self.header {
            o += &format!("<th>{}</th>", esc(h));
        }
        o += "</tr>\n";
        for r in &self.rows {
            o += "<tr>";
            for c in r {
                o += &format!("<td>{}</td>", esc(c));
            }
            o += "</tr>\n";
        }
        o += "</table>\n";
        if let Some(n) = &self.note {
            o += &format!("<p class=\"note\">{}</p>\n", esc(n));
        }
        o
    }
}

/// Whether a cell reads as a number (a value, a range, an interval, a share, or none):
/// it starts with a digit, a sign, `±`, `[`, `<`, `>`, `~`, `.` or `—` and holds no word
/// of more than two letters but a unit (`ns`, `µs`, `ms`, `MiB`, …).
fn reads_as_number(c: &str) -> bool {
    const UNITS: [&str; 9] = ["ns", "µs", "ms", "s", "B", "KiB", "MiB", "GiB", "x"];
    let Some(first) = c.trim_start().chars().next() else {
        return true;
    };
    (first.is_ascii_digit() || "+-−±[<>~—.".contains(first))
        && c.split(|ch: char| !ch.is_alphabetic())
            .filter(|w| !w.is_empty())
            .all(|w| w.chars().count() <= 2 || UNITS.contains(&w))
}

/// Escapes text for HTML and SVG.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

pub fn fmt_ns(v: Option<f64>) -> String {
    match v {
        None => "—".into(),
        Some(ns) if !ns.is_finite() => "—".into(),
        Some(ns) if ns.abs() >= 1e9 => format!("{:.2} s", ns / 1e9),
        Some(ns) if ns.abs() >= 1e6 => format!("{:.2} ms", ns / 1e6),
        Some(ns) if ns.abs() >= 1e3 => format!("{:.2} µs", ns / 1e3),
        Some(ns) => format!("{ns:.0} ns"),
    }
}

/// The interval beside a value: `±h` where both sides are alike (within 1.5×) and the
/// symmetric form stays inside what the interval allows, else `+up −down` — a bootstrap
/// interval can be lopsided (one slow repetition), and `±` would then suggest values the
/// interval excludes, below zero above all.
fn interval(x: f64, [lo, hi]: [f64; 2], scale: f64, digits: usize) -> String {
    let (down, up) = ((x - lo).max(0.0), (hi - x).max(0.0));
    let alike = up.max(down) <= 1.5 * up.min(down) && x - up.max(down) >= lo.min(0.0);
    if alike || up.max(down) / scale < 0.5 * 10f64.powi(-(digits as i32)) {
        format!("±{:.*}", digits, up.max(down) / scale)
    } else {
        format!("+{:.*} −{:.*}", digits, up / scale, digits, down / scale)
    }
}

/// The unit a duration of `ns` is printed in: (ns per unit, name).
fn unit_of(ns: f64) -> (f64, &'static str) {
    match ns.abs() {
        a if a >= 1e9 => (1e9, "s"),
        a if a >= 1e6 => (1e6, "ms"),
        a if a >= 1e3 => (1e3, "µs"),
        _ => (1.0, "ns"),
    }
}

/// A value with its interval, `61 ns ±4` or `180 ns +308 −25`, in the value's unit;
/// where the interval reaches 10^4 of the value's unit, its bounds in their own units,
/// `315.18 µs [0 ns, 33.69 ms]` (not `+33378.17 −315.18`, nor `0 ns +68540285 −0`);
/// a value without an interval is printed as it is.
pub fn fmt_ns_ci(v: Option<f64>, ci: Option<[f64; 2]>) -> String {
    let Some(x) = v.filter(|x| x.is_finite()) else {
        return "—".into();
    };
    let Some(ci) = ci else {
        return fmt_ns(v);
    };
    let (scale, unit) = unit_of(x);
    if ci[1] / scale >= 1e4 {
        return format!(
            "{} [{}, {}]",
            fmt_ns(Some(x)),
            fmt_ns(Some(ci[0])),
            fmt_ns(Some(ci[1]))
        );
    }
    let digits = if scale == 1.0 { 0 } else { 2 };
    format!(
        "{:.*} {unit} {}",
        digits,
        x / scale,
        interval(x, ci, scale, digits)
    )
}

pub fn fmt_per_byte_ci(v: Option<f64>, ci: Option<[f64; 2]>) -> String {
    match (v.filter(|x| x.is_finite()), ci) {
        (Some(g), Some(ci)) => format!("{g:.4} {}", interval(g, ci, 1.0, 4)),
        (Some(g), None) => format!("{g:.4}"),
        _ => "—".into(),
    }
}

pub fn fmt_per_byte(v: Option<f64>) -> String {
    match v {
        Some(g) if g.is_finite() => format!("{g:.4}"),
        _ => "—".into(),
    }
}

pub fn fmt_bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

pub fn fmt_span(lo: u64, hi: u64) -> String {
    format!("{lo}..{hi}")
}

/// A collective's communicator: its size, and its world ranks where the report records
/// them (`CollectiveSplit::members`), the first eight.
pub fn fmt_comm(size: u32, members: Option<&[u32]>) -> String {
    match members {
        Some(m) => {
            let shown: Vec<String> = m.iter().take(8).map(u32::to_string).collect();
            let more = if m.len() > 8 { ", …" } else { "" };
            format!("{size} (ranks {}{more})", shown.join(", "))
        }
        None => size.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_aligns_and_html_escapes() {
        let mut t = Table::new("T", &["size", "o_s"]);
        t.row(vec!["1..4040".into(), "<5 ns".into()]);
        t.row(vec!["4041..1048576".into(), "—".into()]);
        let s = t.text();
        assert!(s.contains("  size             o_s\n"), "{s}");
        assert!(s.contains("  1..4040        <5 ns\n"), "{s}");
        assert!(t.html().contains("<td>&lt;5 ns</td>"));
        assert_eq!(fmt_ns(Some(f64::NAN)), "—");
    }

    /// Columns of words are left-aligned (their right alignment left a ragged left edge
    /// in the findings and the call sites), columns of numbers right-aligned.
    #[test]
    fn words_align_left_and_numbers_right() {
        let mut t = Table::new("T", &["rank", "function", "time", "share"]);
        t.row(vec![
            "0".into(),
            "MPI_Send".into(),
            "668.30 ms ±6.44".into(),
            "29 % [12 … 37]".into(),
        ]);
        t.row(vec![
            "1".into(),
            "MPI_Allreduce".into(),
            "1.04 µs".into(),
            "—".into(),
        ]);
        let s = t.text();
        assert!(
            s.contains("  0     MPI_Send       668.30 ms ±6.44  29 % [12 … 37]\n"),
            "{s}"
        );
        assert!(
            s.contains("  1     MPI_Allreduce          1.04 µs               —\n"),
            "{s}"
        );
        for number in [
            "4041..524288",
            "0.5792 +0.5617 −0.2176",
            "1.08 s",
            "12",
            "—",
            "24.9 %",
        ] {
            assert!(reads_as_number(number), "{number}");
        }
        for words in [
            "eager",
            "rank 1 waits for rank 0",
            "liblammps.so.0+0x2b0caa (f())",
            "5 messages sampled",
            "#####RRRR",
        ] {
            assert!(!reads_as_number(words), "{words}");
        }
    }

    /// A table of sentences as numbered blocks, one line per column.
    #[test]
    fn blocks_put_each_column_on_its_own_line() {
        let mut t = Table::new("Findings", &["#", "finding", "time at stake", "what to do"]);
        t.row(vec![
            "1".into(),
            "rank 1 waits".into(),
            "1.00 ms ±0.10".into(),
            String::new(),
        ]);
        t.blocks = true;
        assert_eq!(
            t.text(),
            "\nFindings\n  1. rank 1 waits\n     time at stake: 1.00 ms ±0.10\n"
        );
    }

    /// An interval that reaches 10^4 of its value's unit is printed in its own units;
    /// a narrower one keeps the `±` or `+up −down` form.
    #[test]
    fn an_interval_far_above_its_value_keeps_its_own_units() {
        assert_eq!(
            fmt_ns_ci(Some(0.0), Some([0.0, 68_540_285.0])),
            "0 ns [0 ns, 68.54 ms]"
        );
        assert_eq!(
            fmt_ns_ci(Some(315_180.0), Some([0.0, 33_693_350.0])),
            "315.18 µs [0 ns, 33.69 ms]"
        );
        assert_eq!(fmt_ns_ci(Some(61.0), Some([57.0, 65.0])), "61 ns ±4");
        assert_eq!(
            fmt_ns_ci(Some(381.0), Some([0.0, 3272.0])),
            "381 ns +2891 −381"
        );
        assert_eq!(
            fmt_ns_ci(Some(180.0), Some([155.0, 488.0])),
            "180 ns +308 −25"
        );
    }
}
