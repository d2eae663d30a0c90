//! `loggp html`: one self-contained page — the tables of `show` and the figures of
//! `plot`, inline (no script, no external file), readable offline.
use crate::table::esc;
use loggp_report::Report;

pub fn page(r: &Report) -> String {
    let mut o = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    o += &format!("<title>loggp — {}</title>\n", esc(&r.job.executable));
    o += "<style>body{font-family:sans-serif;margin:2em;color:#222;max-width:1200px}\
table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}\
td:first-child,th:first-child{text-align:left}th{background:#f0f4f8}h2{font-size:1.05em;margin-top:1.6em}\
.note{color:#666;font-size:0.9em}.warn{color:#a40}figure{margin:1em 0}svg{border:1px solid #ddd}</style>\n</head><body>\n";
    let h = crate::show::header(r);
    o += &format!("<h1>{}</h1>\n", esc(&h[0]));
    for l in &h[1..] {
        o += &format!("<p>{}</p>\n", esc(l));
    }
    for t in crate::show::tables(r, false) {
        o += &t.html();
    }
    let figs = crate::plot::figures(r);
    if !figs.is_empty() {
        o += "<h2>Figures</h2>\n";
    }
    for (name, svg) in figs {
        o += &format!(
            "<figure id=\"{}\">{}<figcaption class=\"note\">{}</figcaption></figure>\n",
            esc(&name),
            svg,
            esc(&name)
        );
    }
    for l in crate::show::footer(r) {
        o += &format!("<p class=\"warn\">{}</p>\n", esc(&l));
    }
    o + "</body></html>\n"
}
