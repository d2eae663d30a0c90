//! Issue 25 §2: each rank's clock against rank 0's, by ping-pong at MPI_Init and
//! MPI_Finalize. Ranks of one host share the invariant TSC here: their offsets must be 0
//! within the measured uncertainty, and the report must say they share the counter. With
//! rank 1's readings shifted by a known +5 ms and rank 2's by −5 ms
//! (LOGGP_INJECT_FAULT=clock_skew) the offsets must come out within their uncertainty
//! of it, and neither rank may be called shared.
mod common;
use common::*;

fn clocks(mpi: Mpi, skew: bool) -> loggp_report::Report {
    let mut env = vec![("LOGGP_CALIBRATE", "off")];
    if skew {
        env.push(("LOGGP_INJECT_FAULT", "clock_skew"));
    }
    let name = format!("clocks_{}{}", mpi.name(), if skew { "_skew" } else { "" });
    report_of(mpi, 4, "ring.c", &env, &name)
}

#[test]
fn ranks_of_one_host_share_rank_0s_counter() {
    for mpi in BOTH {
        let r = clocks(mpi, false);
        let c = &r.clocks;
        assert_eq!(c.status, "done", "{}", mpi.name());
        assert_eq!(c.ranks.len(), 3);
        for k in &c.ranks {
            for o in [&k.at_init, &k.at_finalize] {
                let o = o.as_ref().expect("both ends measured");
                assert!(
                    o.offset_ns.abs() <= o.uncertainty_ns,
                    "{}: {k:?}",
                    mpi.name()
                );
                // 4 ranks on 2 cores: under MPICH's busy-polling ranks a round trip can
                // take milliseconds (the bound then widens, honestly); a second is wrong.
                assert!(o.uncertainty_ns < 1e9, "{}: {k:?}", mpi.name());
            }
            assert!(k.same_counter_as_rank0, "{}: {k:?}", mpi.name());
            assert!(k.drift_ppm.is_some());
        }
    }
}

#[test]
fn a_shifted_clock_is_measured_and_not_called_shared() {
    let r = clocks(Mpi::OpenMpi, true);
    for k in &r.clocks.ranks {
        let want = match k.rank {
            1 => 5e6,
            2 => -5e6,
            _ => 0.0,
        };
        for o in [&k.at_init, &k.at_finalize] {
            let o = o.as_ref().unwrap();
            // Read back at rank 0's rate (the same counter here), within Cristian's bound:
            // 4 ranks on 2 cores make round trips of several µs (tests/waits.rs checks
            // the 2 µs of issue 25 on 2 ranks).
            assert!(
                (o.offset_ns - want).abs() <= o.uncertainty_ns + 1e3,
                "{k:?}"
            );
        }
        assert_eq!(k.same_counter_as_rank0, want == 0.0, "{k:?}");
    }
}
