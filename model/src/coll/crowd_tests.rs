//! Synthetic truths for rounds where more than two ranks of a host copy at once
//! (`crowd::crowd_factor`, `sim::copies_at_once`): priced by hand.
use super::crowd::{crowd_factor, Crowd};
use super::schedule::{self as s, simulate, Price};
use super::sim::copies_at_once;
use super::sim::exchanges;

/// A rendezvous price whose exchange takes 1000 ns and whose copy (o_r) 400 ns, with the
/// concurrent exchange at `ratio` × the pair's on `ranks` ranks, where given.
fn rendezvous(crowd: Option<(f64, f64)>) -> impl Fn(u32, u32, u64) -> Price {
    move |_, _, _| Price {
        send_overhead_ns: 50.0,
        recv_overhead_ns: 400.0,
        gap_ns: 50.0,
        end_to_end_ns: 600.0,
        exchange_ns: Some(1000.0),
        rendezvous: true,
        crowd: crowd.map(|(ratio, ranks)| Crowd { ratio, ranks }),
        ..Price::default()
    }
}

#[test]
fn copies_at_once_counts_ranks_copying_from_different_buffers() {
    let p = rendezvous(None);
    let count = |sch: &s::Schedule, n: usize| -> Vec<usize> {
        (sch.iter())
            .map(|r| copies_at_once(r, &exchanges(r), n, &p))
            .collect()
    };
    // Recursive doubling: every rank in an exchange at each step.
    assert_eq!(
        count(&s::recursive_doubling_allgather(8, 1 << 18), 8),
        [8, 8, 8]
    );
    // A linear Alltoall: every rank receives, from every other.
    assert_eq!(count(&s::linear_alltoall(8, 1 << 18), 8), [8]);
    // A linear Bcast: seven readers of the root's one buffer take turns at it.
    assert_eq!(count(&s::linear_bcast(8, 1 << 18), 8), [1]);
    // A binomial Bcast: one sender, then two, then four.
    assert_eq!(count(&s::binomial_bcast(8, 1 << 18), 8), [1, 2, 4]);
    // Eager messages copy nothing of the receiver's.
    let eager = |a: u32, b: u32, m: u64| Price {
        rendezvous: false,
        ..p(a, b, m)
    };
    let r = &s::linear_alltoall(8, 64)[0];
    assert_eq!(copies_at_once(r, &exchanges(r), 8, &eager), 0);
}

#[test]
fn the_factor_runs_from_two_copies_to_the_concurrent_exchanges_ranks() {
    let p = rendezvous(Some((2.2, 16.0)))(0, 1, 1 << 18);
    assert_eq!(crowd_factor(p.crowd, p.rendezvous, 2), 1.0);
    assert_eq!(crowd_factor(p.crowd, p.rendezvous, 16), 2.2);
    assert_eq!(crowd_factor(p.crowd, p.rendezvous, 32), 2.2);
    assert!((crowd_factor(p.crowd, p.rendezvous, 9) - 1.6).abs() < 1e-12);
    // Not measured, or eager: 1.
    assert_eq!(crowd_factor(None, true, 16), 1.0);
    let eager = Price {
        rendezvous: false,
        ..p
    };
    assert_eq!(crowd_factor(eager.crowd, eager.rendezvous, 16), 1.0);
}

#[test]
fn a_crowded_round_is_priced_by_the_concurrent_exchange() {
    let m = 1 << 18;
    let sch = s::recursive_doubling_allgather(8, m);
    let plain = simulate(8, &sch, &rendezvous(None), &|_| 0.0);
    // Each of the three steps: the pair's exchange, 1000 ns (the later steps as trains).
    assert_eq!(plain, 3000.0);
    // Eight ranks at once, where the concurrent exchange of eight took twice the pair's.
    let crowded = simulate(8, &sch, &rendezvous(Some((2.0, 8.0))), &|_| 0.0);
    assert_eq!(crowded, 6000.0);
    // Four ranks at once, where eight took twice: a third more (one copy is 2 → 8).
    let four = simulate(
        4,
        &s::recursive_doubling_allgather(4, m),
        &rendezvous(Some((2.0, 8.0))),
        &|_| 0.0,
    );
    let four_plain = simulate(
        4,
        &s::recursive_doubling_allgather(4, m),
        &rendezvous(None),
        &|_| 0.0,
    );
    assert!(
        (four / four_plain - 4.0 / 3.0).abs() < 1e-9,
        "{four} {four_plain}"
    );
    // Two ranks: the pair's own exchange, as measured.
    let two = simulate(
        2,
        &s::recursive_doubling_allgather(2, m),
        &rendezvous(Some((2.0, 8.0))),
        &|_| 0.0,
    );
    assert_eq!(two, 1000.0);
}

#[test]
fn readers_of_one_buffer_are_not_crowded() {
    let m = 1 << 18;
    for n in [4, 8, 16] {
        let sch = s::linear_bcast(n, m);
        let plain = simulate(n, &sch, &rendezvous(None), &|_| 0.0);
        let crowded = simulate(n, &sch, &rendezvous(Some((2.0, 16.0))), &|_| 0.0);
        assert_eq!(plain, crowded, "{n} ranks");
    }
    // A linear Alltoall's receivers copy from different buffers: crowded.
    let sch = s::linear_alltoall(8, m);
    let plain = simulate(8, &sch, &rendezvous(None), &|_| 0.0);
    let crowded = simulate(8, &sch, &rendezvous(Some((2.0, 8.0))), &|_| 0.0);
    assert!(crowded > 1.5 * plain, "{crowded} {plain}");
}
