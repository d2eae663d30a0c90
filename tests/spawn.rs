//! A job that starts processes (MPI 4.0 §11.8): the spawned world inherits the job's
//! environment, LOGGP_REPORT among it, and must not replace the job's report. Both worlds
//! keep a report of their own, the spawned one named beside the job's and saying whose
//! it stands beside; MPI_Comm_spawn and MPI_Comm_disconnect are counted and split as
//! collectives over the communicator they are called on; the program's output is as
//! without the shim. Open MPI ob1 and pml ucx, from C and from Fortran. MPICH 4.0.2
//! (ch4:ucx) here fails MPI_Comm_spawn without loggp too ("MPID_Comm_spawn_multiple(86):
//! Error in spawn call"), so it is not run there.
mod common;
use common::*;
use loggp_report::Report;

fn calls(r: &Report, rank: u32, f: &str) -> u64 {
    (r.ranks.iter())
        .find(|k| k.rank == rank)
        .and_then(|k| k.calls.get(f))
        .map_or(0, |c| c.count)
}

/// Rank `rank`'s one matched call of `f` in the waits' split (a collective over the
/// communicator it is called on).
fn split_row(r: &Report, name: &str, rank: u32, f: &str) {
    assert!(
        (r.waits.collectives.iter())
            .any(|c| c.rank == rank && c.function == f && c.calls_matched == 1),
        "{name}: rank {rank}: no split row of {f}: {:?}",
        r.waits.collectives
    );
}

/// The job of `prog` (the C program, or the Fortran one given its own path).
fn spawning_job(name: &str, prog: &std::path::Path, extra: &[(&str, &str)]) {
    let mpi = Mpi::OpenMpi;
    let me = prog.display().to_string();
    let args: &[&str] = if me.contains("_f_") { &[&me] } else { &[] };
    let plain_dir = scratch(&format!("{name}_plain"));
    let plain = run(mpi, &Run::new(2, false), prog, args, &plain_dir);
    assert!(
        plain.status.success(),
        "{name} without the shim: {}",
        stderr(&plain)
    );
    let dir = scratch(name);
    let report = dir.join("r.json");
    let r = extra.iter().fold(
        Run::new(2, true)
            .env("LOGGP_REPORT", report.to_str().unwrap())
            .env("LOGGP_CALIBRATE", "off"),
        |r, (k, v)| r.env(k, v),
    );
    let o = run(mpi, &r, prog, args, &dir);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    assert_eq!(stdout(&o), stdout(&plain), "{name}: output");
    assert_eq!(stdout(&o).trim(), "parent got 43", "{name}");

    // The job's report: both ranks spawned once and disconnected once; rank 0 sent and
    // received one message over the intercommunicator.
    let job = read_report(&report);
    validate_against_schema(&[&report]);
    assert!(job.job.complete, "{name}");
    assert!(!job.job.spawned, "{name}");
    assert_eq!(job.job.spawned_from_report, None, "{name}");
    assert_eq!(job.job.ranks, 2, "{name}");
    for rank in 0..2 {
        assert_eq!(
            calls(&job, rank, "MPI_Comm_spawn"),
            1,
            "{name}: rank {rank}"
        );
        assert_eq!(
            calls(&job, rank, "MPI_Comm_disconnect"),
            1,
            "{name}: rank {rank}"
        );
        for f in ["MPI_Comm_spawn", "MPI_Comm_disconnect"] {
            split_row(&job, name, rank, f);
        }
    }
    assert_eq!(calls(&job, 0, "MPI_Send"), 1, "{name}");
    assert_eq!(calls(&job, 0, "MPI_Recv"), 1, "{name}");

    // The spawned world's report, beside the job's, pointing at it.
    let spawned: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            n.starts_with("r.spawned-") && n.ends_with(".json")
        })
        .collect();
    assert_eq!(spawned.len(), 1, "{name}: spawned reports {spawned:?}");
    let child = read_report(&spawned[0]);
    validate_against_schema(&[&spawned[0]]);
    assert!(child.job.complete, "{name}");
    assert!(child.job.spawned, "{name}");
    assert_eq!(
        child.job.spawned_from_report.as_deref(),
        report.to_str(),
        "{name}"
    );
    assert_eq!(child.job.ranks, 2, "{name}");
    for rank in 0..2 {
        assert_eq!(
            calls(&child, rank, "MPI_Comm_spawn"),
            0,
            "{name}: rank {rank}"
        );
        assert_eq!(
            calls(&child, rank, "MPI_Comm_disconnect"),
            1,
            "{name}: rank {rank}"
        );
        split_row(&child, name, rank, "MPI_Comm_disconnect");
    }
    assert_eq!(calls(&child, 0, "MPI_Recv"), 1, "{name}");
    assert_eq!(calls(&child, 0, "MPI_Send"), 1, "{name}");
    let shown = tool_show(&spawned[0]);
    assert!(
        shown.contains("started by MPI_Comm_spawn from the job whose report is"),
        "{name}: {shown}"
    );
}

#[test]
fn a_spawned_world_keeps_its_own_report_beside_the_jobs_under_ob1() {
    let prog = compile(Mpi::OpenMpi, "spawn.c", &[]);
    spawning_job("spawn_ob1", &prog, &[("OMPI_MCA_pml", "ob1")]);
}

#[test]
fn a_spawned_world_keeps_its_own_report_beside_the_jobs_under_pml_ucx() {
    let prog = compile(Mpi::OpenMpi, "spawn.c", &[]);
    spawning_job("spawn_ucx", &prog, &PML_UCX);
}

/// From Fortran, through `use mpi` and `use mpi_f08`: MPI_COMM_SPAWN's two CHARACTER
/// arguments pass their hidden lengths on (style `chars2`), and Open MPI's Fortran,
/// which calls PMPI_ itself, is counted by the Fortran entry points.
#[test]
fn a_spawned_world_keeps_its_own_report_from_fortran() {
    for binding in ["USEMPI", "F08"] {
        let prog = compile_fortran(Mpi::OpenMpi, "spawn.F90", binding);
        spawning_job(
            &format!("spawn_f_{binding}"),
            &prog,
            &[("OMPI_MCA_pml", "ob1")],
        );
    }
}

/// Without LOGGP_REPORT (and no batch job id), each world's default name holds its own
/// rank 0's pid: two reports again, the spawned one marked as such, and the spawning
/// job's report not named (this world cannot know its name).
#[test]
fn a_spawned_world_keeps_its_own_report_under_the_default_name() {
    let mpi = Mpi::OpenMpi;
    let prog = compile(mpi, "spawn.c", &[]);
    let dir = scratch("spawn_default_name");
    let r = Run::new(2, true).env("LOGGP_CALIBRATE", "off");
    let o = run(mpi, &r, &prog, &[], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut reports: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    reports.sort_by_key(|p| p.to_string_lossy().contains(".spawned-"));
    assert_eq!(reports.len(), 2, "{reports:?}");
    let (job, child) = (read_report(&reports[0]), read_report(&reports[1]));
    assert!(!job.job.spawned && child.job.spawned, "{reports:?}");
    assert_eq!(calls(&job, 0, "MPI_Comm_spawn"), 1);
    assert_eq!(child.job.spawned_from_report, None);
    assert!(tool_show(&reports[1]).contains("its report's name is not known here"));
}
