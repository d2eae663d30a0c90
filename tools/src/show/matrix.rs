//! The communication matrix as a table (`show --matrix`) and as a heat map (`plot`,
//! `html`), and the coverage line.
use crate::table::*;
use loggp_report::Report;

/// Every pair of the matrix, the most bytes first.
pub fn matrix_table(r: &Report) -> Option<Table> {
    if r.matrix.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "communication matrix (point-to-point; collectives' own messages run beneath PMPI and are not in it)",
        &["from", "to", "messages", "bytes", "send time", "recv time"],
    );
    let mut m: Vec<_> = r.matrix.iter().collect();
    m.sort_by(|a, b| {
        b.bytes
            .cmp(&a.bytes)
            .then((a.from, a.to).cmp(&(b.from, b.to)))
    });
    for e in m {
        t.row(vec![
            e.from.to_string(),
            e.to.to_string(),
            e.messages.to_string(),
            fmt_bytes(e.bytes),
            fmt_ns(Some(e.send_time_ns)),
            fmt_ns(Some(e.recv_time_ns)),
        ]);
    }
    Some(t)
}

fn fmt_bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

/// The coverage section in one line, where the report has one.
pub fn coverage_line(r: &Report) -> Option<String> {
    let c = &r.coverage;
    (!c.status.is_empty()).then(|| format!("coverage: {}", c.status))
}

/// The bytes sent between ranks as an SVG heat map: sender down, receiver across, on a
/// log colour scale. Past 128 ranks, ranks are grouped into 128 blocks (sums).
pub fn heat_map_svg(r: &Report) -> Option<String> {
    if r.matrix.is_empty() {
        return None;
    }
    let n = r
        .matrix
        .iter()
        .map(|e| e.from.max(e.to) + 1)
        .max()
        .unwrap_or(1)
        .max(r.job.ranks) as usize;
    let blocks = n.min(128);
    let per = n.div_ceil(blocks);
    let mut grid = vec![0u64; blocks * blocks];
    for e in &r.matrix {
        let (i, j) = (e.from as usize / per, e.to as usize / per);
        grid[i * blocks + j] += e.bytes;
    }
    let max = grid.iter().copied().max().unwrap_or(0).max(1) as f64;
    let cell = (480 / blocks).max(3);
    let side = cell * blocks;
    let (left, top) = (60, 40);
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif" font-size="12">"#,
        side + left + 20,
        side + top + 40
    );
    s += &format!(
        r#"<text x="{left}" y="20">bytes sent, from rank (down) to rank (across){}; log scale, darkest {}</text>"#,
        if per > 1 {
            format!(", {per} ranks per cell")
        } else {
            String::new()
        },
        fmt_bytes(max as u64)
    );
    s += &format!(
        r##"<rect x="{left}" y="{top}" width="{side}" height="{side}" fill="#f8f8f8" stroke="#999"/>"##
    );
    for i in 0..blocks {
        for j in 0..blocks {
            let v = grid[i * blocks + j];
            if v == 0 {
                continue;
            }
            // Log scale from 1 byte to the largest cell.
            let f = ((v as f64).ln() / max.ln().max(1e-9)).clamp(0.05, 1.0);
            let light = (95.0 - 70.0 * f).round();
            s += &format!(
                r#"<rect x="{}" y="{}" width="{cell}" height="{cell}" fill="hsl(210,80%,{light}%)"><title>{}→{}: {}</title></rect>"#,
                left + j * cell,
                top + i * cell,
                i * per,
                j * per,
                fmt_bytes(v)
            );
        }
    }
    s += &format!(
        r#"<text x="{left}" y="{}">0</text><text x="{}" y="{}" text-anchor="end">{}</text></svg>"#,
        top + side + 16,
        left + side,
        top + side + 16,
        n - 1
    );
    Some(s)
}
