//! Who talks to whom: the communication matrix (`matrix[]`) and the cross-check of its
//! counts against a counter beneath PMPI (`coverage`).
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One ordered pair of world ranks in the communication matrix (point-to-point only).
/// `messages` and `bytes` are counted by the sender (as Open MPI's monitoring does), at
/// the call that sends (or starts) the message; the times are the sender's sending calls
/// and the receiver's receiving calls with this peer (initiation, completion of one
/// request, probes; a send-receive counts on both).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct MatrixEntry {
    pub from: u32,
    pub to: u32,
    pub messages: u64,
    pub bytes: u64,
    pub send_time_ns: f64,
    pub recv_time_ns: f64,
    /// Of `messages`, those started by a persistent request (MPI_Start, MPI_Startall).
    #[serde(skip_serializing_if = "is_zero")]
    pub persistent_messages: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub persistent_bytes: u64,
}

/// Sums entries of the same (from, to); sorted by (from, to). Rank fragments add up
/// exactly: a rank contributes its sends (its row) and its receiving time (its column).
pub fn merge_matrix<'a>(parts: impl IntoIterator<Item = &'a MatrixEntry>) -> Vec<MatrixEntry> {
    let mut by: BTreeMap<(u32, u32), MatrixEntry> = BTreeMap::new();
    for e in parts {
        let m = by.entry((e.from, e.to)).or_insert_with(|| MatrixEntry {
            from: e.from,
            to: e.to,
            ..Default::default()
        });
        m.messages += e.messages;
        m.bytes += e.bytes;
        m.send_time_ns += e.send_time_ns;
        m.recv_time_ns += e.recv_time_ns;
        m.persistent_messages += e.persistent_messages;
        m.persistent_bytes += e.persistent_bytes;
    }
    by.into_values().collect()
}

/// Messages loggp itself sent between two world ranks on its private communicator
/// (calibration probes, the Finalize merge): beneath PMPI they look like the
/// application's, so a per-peer counter there is compared after taking them away.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct OwnTraffic {
    pub from: u32,
    pub to: u32,
    pub messages: u64,
    pub bytes: u64,
    /// Of `messages` and `bytes`, those sent through persistent requests (the
    /// calibration's persistent exchange), which Open MPI 4.1's monitoring does not count.
    #[serde(skip_serializing_if = "is_zero")]
    pub persistent_messages: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub persistent_bytes: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// Sums own-traffic entries per (from, to).
pub fn merge_own(parts: impl IntoIterator<Item = OwnTraffic>) -> Vec<OwnTraffic> {
    let mut by: BTreeMap<(u32, u32), OwnTraffic> = BTreeMap::new();
    for e in parts {
        let m = by.entry((e.from, e.to)).or_insert_with(|| OwnTraffic {
            from: e.from,
            to: e.to,
            ..Default::default()
        });
        m.messages += e.messages;
        m.bytes += e.bytes;
        m.persistent_messages += e.persistent_messages;
        m.persistent_bytes += e.persistent_bytes;
    }
    by.into_values().collect()
}

/// Whether every message the application sent was seen: the matrix against an
/// independent per-peer counter (Open MPI's monitoring PML), where there is one.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Coverage {
    /// What was compared with what, or why nothing was.
    pub status: String,
    /// True: every pair agrees in messages and bytes; false: see `differences`; null:
    /// not compared.
    pub equal: Option<bool>,
    pub differences: Vec<CoverageDifference>,
    /// loggp's own messages, taken away from the independent counter before comparing.
    pub own_traffic: Vec<OwnTraffic>,
}

/// A pair where the matrix and the independent counter disagree.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct CoverageDifference {
    pub from: u32,
    pub to: u32,
    pub matrix_messages: u64,
    pub counter_messages: u64,
    pub matrix_bytes: u64,
    pub counter_bytes: u64,
}

/// Compares the matrix with a counter's per-pair (messages, bytes) of the application
/// (own traffic already taken away): the pairs that differ, in (from, to) order. With
/// `without_persistent`, the matrix's messages of persistent requests are left out (for
/// a counter that does not see them).
pub fn compare_counts(
    matrix: &[MatrixEntry],
    counter: &PairCounts,
    without_persistent: bool,
) -> Vec<CoverageDifference> {
    // Per pair: (the matrix's, the counter's) (messages, bytes).
    type Both = ((u64, u64), (u64, u64));
    let mut pairs: BTreeMap<(u32, u32), Both> = BTreeMap::new();
    for e in matrix {
        let (m, b) = if without_persistent {
            (
                e.messages - e.persistent_messages.min(e.messages),
                e.bytes - e.persistent_bytes.min(e.bytes),
            )
        } else {
            (e.messages, e.bytes)
        };
        if (m, b) != (0, 0) {
            pairs.entry((e.from, e.to)).or_default().0 = (m, b);
        }
    }
    for (k, v) in counter {
        pairs.entry(*k).or_default().1 = *v;
    }
    pairs
        .into_iter()
        .filter(|(_, (a, b))| a != b)
        .map(|((from, to), (a, b))| CoverageDifference {
            from,
            to,
            matrix_messages: a.0,
            counter_messages: b.0,
            matrix_bytes: a.1,
            counter_bytes: b.1,
        })
        .collect()
}

/// Per ordered pair (from, to) of world ranks: (messages, bytes), as a counter beneath
/// PMPI has them.
pub type PairCounts = BTreeMap<(u32, u32), (u64, u64)>;

/// Per (from, to): (messages, bytes) of the "E" lines (point-to-point messages with the
/// application's tags) in one rank's file of Open MPI's monitoring PML, written at its
/// Finalize with `pml_monitoring_enable_output` and `pml_monitoring_filename`. A line
/// reads: `E <from> <to> <bytes> bytes <messages> msgs sent <histogram>`, tab-separated.
/// None when the text is not such a file.
pub fn parse_monitoring_prof(text: &str) -> Option<PairCounts> {
    if !text.starts_with("# POINT TO POINT") {
        return None;
    }
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("E\t")) {
        let f: Vec<&str> = line.split('\t').collect();
        let num = |i: usize, unit: &str| -> Option<u64> {
            f.get(i)?.strip_suffix(unit)?.trim().parse().ok()
        };
        let from: u32 = f.get(1)?.parse().ok()?;
        let to: u32 = f.get(2)?.parse().ok()?;
        let bytes = num(3, "bytes")?;
        let messages = num(4, "msgs sent")?;
        let e: &mut (u64, u64) = out.entry((from, to)).or_default();
        e.0 += messages;
        e.1 += bytes;
    }
    Some(out)
}

/// The application's share of a counter beneath PMPI: `counter` less loggp's own
/// messages per pair (pairs left with nothing dropped).
/// `persistent_unseen`: the counter does not see messages of persistent requests (Open
/// MPI 4.1's monitoring), so loggp's own such messages are not taken away.
pub fn without_own(
    mut counter: PairCounts,
    own: &[OwnTraffic],
    persistent_unseen: bool,
) -> PairCounts {
    for o in own {
        let (m, b) = if persistent_unseen {
            (
                o.messages.saturating_sub(o.persistent_messages),
                o.bytes.saturating_sub(o.persistent_bytes),
            )
        } else {
            (o.messages, o.bytes)
        };
        if let Some(v) = counter.get_mut(&(o.from, o.to)) {
            v.0 = v.0.saturating_sub(m);
            v.1 = v.1.saturating_sub(b);
        }
    }
    counter.retain(|_, v| *v != (0, 0));
    counter
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_fragments_add_up_and_differences_are_named() {
        let e = |from, to, messages, recv| MatrixEntry {
            from,
            to,
            messages,
            bytes: 8 * messages,
            send_time_ns: 10.0 * messages as f64,
            recv_time_ns: recv,
            ..Default::default()
        };
        // Rank 0's row (sends) and rank 1's column (receiving time) of the pair 0→1.
        let m = merge_matrix(&[e(0, 1, 3, 0.0), e(0, 1, 0, 5.0), e(1, 0, 1, 0.0)]);
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].messages, m[0].bytes, m[0].recv_time_ns), (3, 24, 5.0));
        let mut counter = BTreeMap::new();
        counter.insert((0, 1), (3, 24));
        counter.insert((1, 0), (2, 16));
        counter.insert((2, 0), (1, 1));
        let d = compare_counts(&m, &counter, false);
        assert_eq!(d.len(), 2);
        assert_eq!(
            (d[0].from, d[0].matrix_messages, d[0].counter_messages),
            (1, 1, 2)
        );
        assert_eq!((d[1].from, d[1].matrix_messages), (2, 0));
    }

    #[test]
    fn monitoring_files_parse_and_own_traffic_is_taken_away() {
        let text = "# POINT TO POINT\nE\t0\t1\t100 bytes\t3 msgs sent\t0,0,1\nI\t0\t1\t8 bytes\t1 msgs sent\t0\n# OSC\n# COLLECTIVES\n";
        let c = parse_monitoring_prof(text).unwrap();
        assert_eq!(c.get(&(0, 1)), Some(&(3, 100)));
        assert_eq!(c.len(), 1, "internal (I) lines are collectives' traffic");
        let own = [OwnTraffic {
            from: 0,
            to: 1,
            messages: 2,
            bytes: 50,
            persistent_messages: 1,
            persistent_bytes: 10,
        }];
        // A counter that sees persistent requests: both own messages go.
        assert_eq!(
            without_own(c.clone(), &own, false).get(&(0, 1)),
            Some(&(1, 50))
        );
        // One that does not (Open MPI 4.1's monitoring): only the other one.
        assert_eq!(without_own(c, &own, true).get(&(0, 1)), Some(&(2, 60)));
        assert!(parse_monitoring_prof("{}").is_none());
    }
}
