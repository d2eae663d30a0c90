//! What makes each switch a calibration finds: the component and the setting (or the
//! compiled-in limit) behind it, for the stacks loggp is tested on. A switch the table
//! does not know is said to be unnamed — never guessed.
//!
//! | stack | switch | cause |
//! |---|---|---|
//! | Open MPI, pml ob1, btl vader | 256 B | ob1's inline send (`mca_pml_ob1_send_inline` through the btl's `sendi`), a limit compiled into ob1 |
//! | Open MPI, pml ob1, btl vader | `btl_vader_eager_limit` − 56 (4040 B) | the eager limit, less ob1's match header |
//! | UCX (MPICH ch4:ucx, Open MPI pml ucx) | the transport's am_short (92 B, posix) | UCP's eager short protocol: one active message up to the UCT transport's short limit, a bounce-buffer copy (am_bcopy) above |
//! | UCX | `UCX_RNDV_THRESH` (auto: 8255 B under MPICH) | rendezvous |
//! | Open MPI pml ucx, blocking sends | `UCX_RNDV_SEND_NBR_THRESH` (256 KiB: 262143 B) | rendezvous of `ucp_tag_send_nbr` |
use loggp_report::{PeerClass, Report, Setting};

/// The cause of a switch at `bytes` of a set whose eager switch is governed by
/// `setting` (the component in use and its eager-limit variable), with `am_short` the
/// UCT short-message limit the raw UCT set of the same pair reports, if any.
pub fn cause(
    bytes: u64,
    eager: Option<u64>,
    setting: Option<&Setting>,
    am_short: Option<u64>,
) -> Option<String> {
    let component = setting.map(|s| s.component.as_str()).unwrap_or("");
    if Some(bytes) == eager {
        let s = setting?;
        return Some(format!(
            "the eager limit: {} = {} of {} ({}){}",
            s.name,
            s.text,
            s.component,
            s.source,
            s.note
                .as_deref()
                .map(|n| format!("; {n}"))
                .unwrap_or_default()
        ));
    }
    if component.contains("pml ob1") && bytes == 256 {
        return Some(
            "ob1's inline send: mca_pml_ob1_send_inline (pml_ob1_isend.c) sends payloads up to 256 B at once through the btl's sendi, without a request; a limit compiled into ob1 that no MCA variable moves".into(),
        );
    }
    if component.contains("ucx") {
        if let Some(short) = am_short.filter(|&s| bytes.abs_diff(s) <= 8) {
            return Some(format!(
                "UCX's eager short protocol: up to the UCT transport's am_short limit ({short} B here) a message goes out as one active message; above it, through a bounce buffer (am_bcopy)"
            ));
        }
    }
    None
}

/// The UCT am_short limit the raw UCT sets of a report name (their notes say "am_short to
/// N B").
pub fn am_short(r: &Report, class: PeerClass) -> Option<u64> {
    r.calibration
        .raw
        .iter()
        .filter(|s| s.peer_class == class)
        .filter_map(|s| s.note.as_deref())
        .find_map(|n| {
            let rest = n.split("am_short to ").nth(1)?;
            rest.split(' ').next()?.parse().ok()
        })
}

/// Names each switch of the report's MPI sets in the note of the range that ends there.
pub fn name_switches(r: &mut Report) {
    let mut notes = vec![];
    for (i, set) in r.calibration.mpi.iter().enumerate() {
        let t = r
            .thresholds
            .iter()
            .find(|t| t.peer_class == set.peer_class && t.mode == set.mode);
        let short = am_short(r, set.peer_class);
        for (k, x) in set.ranges.iter().enumerate() {
            if k + 1 == set.ranges.len() || !set.switches_bytes.contains(&x.size_hi_bytes) {
                continue;
            }
            let b = x.size_hi_bytes;
            let why = cause(
                b,
                t.and_then(|t| t.active_bytes),
                t.and_then(|t| t.setting.as_ref()),
                short,
            )
            .unwrap_or_else(|| {
                "a switch loggp cannot name for this stack (not in its table: model/src/causes.rs)"
                    .into()
            });
            notes.push((i, k, format!("ends at the switch at {b} B: {why}")));
        }
    }
    for (i, k, n) in notes {
        let x = &mut r.calibration.mpi[i].ranges[k];
        x.note = Some(match x.note.take() {
            Some(old) => format!("{old}; {n}"),
            None => n,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(component: &str, name: &str) -> Setting {
        Setting {
            component: component.into(),
            name: name.into(),
            text: "4096".into(),
            source: "MPI_T".into(),
            ..Default::default()
        }
    }

    #[test]
    fn the_switches_of_the_tested_stacks_are_named_and_others_are_not() {
        let vader = setting("pml ob1, btl vader", "btl_vader_eager_limit");
        assert!(cause(256, Some(4040), Some(&vader), None)
            .unwrap()
            .contains("inline send"));
        assert!(cause(4040, Some(4040), Some(&vader), None)
            .unwrap()
            .contains("btl_vader_eager_limit"));
        let ucx = setting("ucx", "UCX_RNDV_THRESH");
        assert!(cause(92, Some(8255), Some(&ucx), Some(92))
            .unwrap()
            .contains("am_short"));
        assert!(cause(8255, Some(8255), Some(&ucx), Some(92))
            .unwrap()
            .contains("UCX_RNDV_THRESH"));
        // Unknown: a vader switch elsewhere, a UCX one without a short limit to match.
        assert_eq!(cause(1333, Some(4040), Some(&vader), None), None);
        assert_eq!(cause(92, Some(8255), Some(&ucx), None), None);
    }
}
