//! What a collective model row stands for in the job (`algorithm`'s advice): its
//! measured cost for the mean member and its calls.
use loggp_report::{bins, CollectiveModel, CollectiveSplit, Mode, Report};

/// The measured cost of one call of `row`'s collective for the mean member, with its
/// interval: the mean over the ranks the time split has for its (function,
/// communicator size, size bin) of their `cost_ns` (None where none has it).
pub(super) fn measured_member_mean(r: &Report, row: &CollectiveModel) -> Option<(f64, [f64; 2])> {
    let mine: Vec<_> = r
        .waits
        .collectives
        .iter()
        .filter(|c| of_size(c, row) && c.members == row.members && c.calls_matched > 0)
        .collect();
    if mine.is_empty() {
        return None;
    }
    let n = mine.len() as f64;
    let mean = |f: &dyn Fn(&CollectiveSplit) -> f64| mine.iter().map(|c| f(c)).sum::<f64>() / n;
    Some((
        mean(&|c| c.cost_ns),
        [
            mean(&|c| c.cost_ns_ci.map_or(c.cost_ns, |x| x[0])),
            mean(&|c| c.cost_ns_ci.map_or(c.cost_ns, |x| x[1])),
        ],
    ))
}

/// Calls of `row`'s collective in its size bin: the members' calls over the size.
pub(super) fn calls(r: &Report, row: &CollectiveModel) -> u64 {
    let member_calls: u64 = r
        .cells
        .iter()
        .filter(|c| {
            c.mode == Mode::Collective
                && c.function == row.function
                && c.comm_size == Some(row.comm_size)
                && bins::size_bin_range(c.size_bin).0 == row.size_lo_bytes
        })
        .map(|c| c.count)
        .sum();
    // Communicators of the same size with recorded members are rows of their own
    // (`CollectiveSplit::members`) but share the cells: each takes its matched calls' part.
    let matched = |all: bool| -> u64 {
        (r.waits.collectives.iter())
            .filter(|c| of_size(c, row) && (all || c.members == row.members))
            .map(|c| c.calls_matched)
            .sum()
    };
    let (own, all) = (matched(false), matched(true));
    let member_calls = if own < all {
        (member_calls as f64 * own as f64 / all as f64).round() as u64
    } else {
        member_calls
    };
    member_calls / u64::from(row.comm_size.max(1))
}

/// A time split's row of `row`'s function, communicator size and size bin (of any
/// communicator: `CollectiveSplit::members` tells them apart).
fn of_size(c: &CollectiveSplit, row: &CollectiveModel) -> bool {
    c.function == row.function
        && c.comm_size == row.comm_size
        && c.size_lo_bytes == row.size_lo_bytes
}
