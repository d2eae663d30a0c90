//! Synthetic truths for exchange steps (two ranks sending to each other in a round):
//! the calibration's train, isolated and refill exchanges, priced by hand; and for a
//! rendezvous message alone, the isolated one-way message.
use super::schedule::{self as s, simulate, Price};
use super::tests::{flat, local};

#[test]
fn an_allgather_after_a_reduce_scatter_pays_the_refill_exchange() {
    // Rabenseifner on 2: the reduce-scatter's exchange at 1500 ns, its reduction, then
    // the allgather's exchange into the half the partner read: the refill's 2600 ns.
    let ex = |_: u32, _: u32, _: u64| Price {
        exchange_ns: Some(1500.0),
        exchange_refill_ns: Some(2600.0),
        ..flat(1000.0, 100.0, 300.0)(0, 0, 0)
    };
    let t = simulate(2, &s::rabenseifner_allreduce(2, 200), &ex, &|b| b as f64);
    assert_eq!(t, 1500.0 + 100.0 + 2600.0);
    // The ring on 2 alike; recursive doubling receives into a buffer of its own.
    let ring = simulate(2, &s::ring_allreduce(2, 200), &ex, &|b| b as f64);
    assert_eq!(ring, 1500.0 + 100.0 + 2600.0);
    let rd = simulate(2, &s::recursive_doubling_allreduce(2, 200), &ex, &|b| {
        b as f64
    });
    assert_eq!(rd, 1500.0 + 200.0);
    // Where the refill was not measured (below 4 KiB), the plain exchange.
    let plain = |a: u32, b: u32, m: u64| Price {
        exchange_refill_ns: None,
        ..ex(a, b, m)
    };
    let t = simulate(2, &s::rabenseifner_allreduce(2, 200), &plain, &|b| b as f64);
    assert_eq!(t, 1500.0 + 100.0 + 1500.0);
}

#[test]
fn an_exchange_step_costs_the_measured_exchange() {
    // Recursive doubling on 4: two rounds, each a pairwise exchange priced at its
    // measured 1500 ns (not the one-way 1000), then the reduction.
    let ex = |_: u32, _: u32, _: u64| Price {
        exchange_ns: Some(1500.0),
        exchange_refill_ns: None,
        ..flat(1000.0, 100.0, 300.0)(0, 0, 0)
    };
    let t = simulate(4, &s::recursive_doubling_allreduce(4, 100), &ex, &|b| {
        b as f64
    });
    assert_eq!(t, 2.0 * (1500.0 + 100.0));
    // A ring on 4 ranks has no pair sending to each other: one-way prices apply.
    let ring = simulate(4, &s::ring_allreduce(4, 400), &ex, &|_| 0.0);
    let one_way = simulate(
        4,
        &s::ring_allreduce(4, 400),
        &flat(1000.0, 100.0, 300.0),
        &|_| 0.0,
    );
    assert_eq!(ring, one_way);
    // On 3 ranks recursive doubling folds rank 2 into rank 0 first: that message has no
    // partner and costs its end-to-end time. Rank 1, free 1000 ns before rank 0, has sent
    // its part of the exchange by then: the exchange ends one message (1000) after rank 0
    // is free, not the 1500 of two starting together; the fold back to rank 2 follows.
    let t = simulate(3, &s::recursive_doubling_allreduce(3, 100), &ex, &|_| 0.0);
    assert_eq!(t, 1000.0 + 1000.0 + 1000.0);
    // A partner free 200 ns early shortens the exchange by as much.
    let early = vec![s::Round {
        msgs: vec![(0, 1, 8), (1, 0, 8)],
        ..Default::default()
    }];
    let local = local(&|_| 0.0);
    let exits = crate::coll::sim::simulate_members_from(&[200.0, 0.0], &early, &ex, &local);
    assert_eq!(exits, vec![200.0 + 1300.0, 200.0 + 1300.0]);
}

#[test]
fn a_rendezvous_step_starting_together_costs_the_isolated_exchange() {
    // The train's 1500 ns per exchange, the isolated one's 1200 (measured from the later
    // side's start).
    let ex = |rendezvous: bool| {
        move |_: u32, _: u32, _: u64| Price {
            exchange_ns: Some(1500.0),
            exchange_isolated_ns: Some(1200.0),
            rendezvous,
            ..flat(1000.0, 100.0, 300.0)(0, 0, 0)
        }
    };
    let step = s::Round {
        msgs: vec![(0, 1, 8192), (1, 0, 8192)],
        ..Default::default()
    };
    let local = local(&|_| 0.0);
    let go = |rounds: usize, rendezvous: bool, entries: &[f64]| {
        let schedule = vec![step.clone(); rounds];
        crate::coll::sim::simulate_members_from(entries, &schedule, &ex(rendezvous), &local)
    };
    // One rendezvous step: from the later entry, the isolated exchange.
    assert_eq!(go(1, true, &[0.0, 300.0]), vec![1500.0, 1500.0]);
    // A second with the same partner right after runs as the train.
    assert_eq!(go(2, true, &[0.0, 0.0]), vec![2700.0, 2700.0]);
    // Eager: the train, less the partner's lead (300 ns).
    assert_eq!(go(1, false, &[0.0, 300.0]), vec![1500.0, 1500.0]);
    assert_eq!(go(1, false, &[0.0, 0.0]), vec![1500.0, 1500.0]);
    // Recursive doubling on 4 (a new partner each round): isolated both times.
    let t = simulate(
        4,
        &s::recursive_doubling_allreduce(4, 8192),
        &ex(true),
        &|_| 0.0,
    );
    assert_eq!(t, 2.0 * 1200.0);
}

#[test]
fn a_rendezvous_message_alone_costs_the_isolated_one_way() {
    // Half a ping-pong 1300 ns, o_r 900; alone, the receiver is done 600 ns after the
    // later start and the sender (the receiver's FIN) 1050.
    let one = |rendezvous: bool, one_way: Option<(f64, f64)>| {
        move |_: u32, _: u32, _: u64| Price {
            recv_overhead_ns: 900.0,
            one_way_isolated_ns: one_way,
            rendezvous,
            ..flat(1300.0, 100.0, 300.0)(0, 0, 0)
        }
    };
    let local = local(&|_| 0.0);
    let bcast = |n: u32, p: &dyn Fn(u32, u32, u64) -> Price, entries: &[f64]| {
        crate::coll::sim::simulate_members_from(entries, &s::linear_bcast(n, 8192), p, &local)
    };
    let measured = Some((600.0, 1050.0));
    // From the later entry: the receiver at 600, the root at 1050.
    assert_eq!(
        bcast(2, &one(true, measured), &[0.0, 200.0]),
        vec![200.0 + 1050.0, 200.0 + 600.0]
    );
    // Unmeasured, or eager: half the round trip to the receiver, as before.
    assert_eq!(bcast(2, &one(true, None), &[0.0, 0.0])[1], 1300.0);
    assert_eq!(bcast(2, &one(false, measured), &[0.0, 0.0])[1], 1300.0);
    // A receiver's o_r above the one-way's time to it counts as that time.
    let slow = Some((600.0, 1050.0));
    let big = |a: u32, b: u32, m: u64| Price {
        recv_overhead_ns: 2000.0,
        ..one(true, slow)(a, b, m)
    };
    assert_eq!(bcast(2, &big, &[0.0, 0.0]), vec![1050.0, 600.0]);
}
