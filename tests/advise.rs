//! `loggp advise` checked against reality (issue 14): the advice's predicted saving for a
//! ping-pong, against what the job measures when rerun with the advised value.
mod common;
use common::*;
use loggp_model::advise::{advise, Advice};
use loggp_report::Report;

fn pingpong(mpi: Mpi, bytes: u64, env: &[(&str, String)], name: &str) -> Report {
    let dir = scratch(name);
    let prog = compile(mpi, "pingpong.c", &[]);
    let report = dir.join("r.json");
    let mut r = Run::new(2, true).env("LOGGP_REPORT", report.to_str().unwrap());
    for (k, v) in env {
        r = r.env(k, v);
    }
    let o = run(mpi, &r, &prog, &[&bytes.to_string(), "20000"], &dir);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    read_report(&report)
}

/// Time in MPI_Send and MPI_Recv, both ranks.
fn send_recv_ns(r: &Report) -> f64 {
    r.ranks
        .iter()
        .flat_map(|k| ["MPI_Send", "MPI_Recv"].map(|f| k.calls.get(f).map_or(0.0, |c| c.time_ns)))
        .sum()
}

fn blocking_send(r: &Report) -> Advice {
    let (a, notes) = advise(r, &loggp_model::Settings::for_report(r));
    a.into_iter()
        .find(|a| a.peer_class == "intra_node" && a.mode == "send")
        .unwrap_or_else(|| panic!("no advice for intra_node send: {notes:?}"))
}

/// Advises, reruns with the advised value, and compares: the measured drop in the job's
/// MPI_Send + MPI_Recv time must lie within 0.5–2 × the prediction.
fn advice_holds(mpi: Mpi, bytes: u64, min_value: i64, knob: &str, env_name: &str) {
    let mut seen = vec![];
    for k in 0..3 {
        let before = pingpong(mpi, bytes, &[], &format!("advise_{}_{k}", mpi.name()));
        let a = blocking_send(&before);
        assert!(a.advised, "{}: {a:#?}", mpi.name());
        let s = a.setting.clone().unwrap();
        assert_eq!(s.name, knob);
        let value = s.value.unwrap();
        assert!(value >= min_value, "{}: advised {value}", mpi.name());
        let after = pingpong(
            mpi,
            bytes,
            &[(env_name, value.to_string())],
            &format!("advise_{}_{k}_after", mpi.name()),
        );
        let predicted = a.predicted_saving_ns.unwrap();
        let measured = send_recv_ns(&before) - send_recv_ns(&after);
        seen.push(format!(
            "{}: {knob} = {value}: predicted {:.2} ms {:?}, measured {:.2} ms ({:.2} → {:.2} ms)",
            mpi.name(),
            predicted / 1e6,
            a.predicted_saving_ns_ci.map(|[x, y]| [x / 1e6, y / 1e6]),
            measured / 1e6,
            send_recv_ns(&before) / 1e6,
            send_recv_ns(&after) / 1e6
        ));
        eprintln!("{}", seen.last().unwrap());
        assert!(
            (0.5 * predicted..=2.0 * predicted).contains(&measured),
            "{seen:#?}"
        );
    }
}

/// Open MPI over vader, 6000-byte ping-pong (eager limit 4096, 4040 B of payload): advise
/// btl_vader_eager_limit ≥ 6056 and the saving shows, in 3 of 3 runs.
#[test]
fn openmpi_advice_on_the_eager_limit_holds() {
    advice_holds(
        Mpi::OpenMpi,
        6000,
        6056,
        "btl_vader_eager_limit",
        "OMPI_MCA_btl_vader_eager_limit",
    );
}

/// MPICH ch4:ucx, 12000-byte ping-pong (above UCX's 8255): advise UCX_RNDV_THRESH.
/// Not yet true: in two trials the advice (12001) predicted 239 and 231 ms, and the rerun
/// measured 491 and 59 ms — the job's rendezvous round trip (15 µs) was twice the
/// calibration's (8.3 µs) in the first, and the setting moved little in the second.
#[test]
#[ignore = "MPICH's measured saving is outside 0.5–2 × the prediction (issue 14 note)"]
fn mpich_advice_on_ucx_rndv_thresh_holds() {
    advice_holds(
        Mpi::Mpich,
        12000,
        12001,
        "UCX_RNDV_THRESH",
        "UCX_RNDV_THRESH",
    );
}

/// At 2000 bytes every message is already eager: no change advised, and why.
#[test]
fn no_change_advised_where_the_messages_are_already_eager() {
    let r = pingpong(Mpi::OpenMpi, 2000, &[], "advise_2000");
    let a = blocking_send(&r);
    assert!(!a.advised);
    assert!(
        a.notes.iter().any(|n| n.contains("already eager")),
        "{:?}",
        a.notes
    );
}
