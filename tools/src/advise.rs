//! `loggp advise`: what moving a protocol switch would save this job, as text or JSON
//! (the model is `loggp_model::advise`).
use loggp_model::advise::{advise, Advice};
use loggp_report::Report;

fn ns(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.2} s", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.2} ms", v / 1e6)
    } else if a >= 1e3 {
        format!("{:.2} µs", v / 1e3)
    } else {
        format!("{v:.0} ns")
    }
}

fn ci(c: Option<[f64; 2]>) -> String {
    c.map(|[a, b]| format!(" [{} … {}]", ns(a), ns(b)))
        .unwrap_or_default()
}

/// The advice as JSON: `{"advice": [...], "notes": [...]}`.
pub fn json(r: &Report) -> String {
    let (advice, notes) = advise(r, &loggp_model::Settings::for_report(r));
    serde_json::to_string_pretty(&serde_json::json!({ "advice": advice, "notes": notes }))
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// The advice as text (also a section of `show`).
pub fn text(r: &Report) -> String {
    let (advice, notes) = advise(r, &loggp_model::Settings::for_report(r));
    let mut o = String::from("== advice: protocol switches, priced by the calibration\n");
    for a in &advice {
        o += &one(a);
    }
    for n in notes {
        o += &format!("note: {n}\n");
    }
    if advice.is_empty() {
        o += "no (class, mode) with both a calibration and traffic\n";
    }
    o
}

fn one(a: &Advice) -> String {
    let mut o = format!(
        "{} {}: {} messages, {} in this mode; {} above the switch at {} B ({})\n",
        a.peer_class,
        a.mode,
        a.observed_messages,
        ns(a.observed_ns),
        a.rendezvous_messages,
        a.current_switch_bytes.map_or("?".into(), |b| b.to_string()),
        ns(a.rendezvous_observed_ns),
    );
    if let (true, Some(s)) = (a.advised, &a.setting) {
        o += &format!(
            "  advice: {} = {} (now {}): {} messages turn eager, predicted saving {}{} ({} per message)\n",
            s.name,
            s.value.map_or("?".into(), |v| v.to_string()),
            a.current.map_or("?".into(), |v| v.to_string()),
            a.messages,
            ns(a.predicted_saving_ns.unwrap_or(0.0)),
            ci(a.predicted_saving_ns_ci),
            ns(a.predicted_saving_per_message_ns.unwrap_or(0.0)),
        );
        for c in &a.commands {
            o += &format!("    {c}\n");
        }
    }
    if a.candidates.len() > 1 {
        o += "  candidates:";
        for c in &a.candidates {
            o += &format!(
                " {} → {}{};",
                c.value,
                ns(c.predicted_saving_ns),
                ci(c.predicted_saving_ns_ci)
            );
        }
        o += "\n";
    }
    for n in &a.notes {
        o += &format!("  note: {n}\n");
    }
    o
}
