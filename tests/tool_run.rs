//! `loggp run` end to end (issue 6): the command picks the shim for the job's MPI, carries
//! LD_PRELOAD and the LOGGP_* settings the launcher's own way, and says where the report
//! went — Open MPI (`-x`) and MPICH (hydra, `-genv`).
mod common;
use common::*;
use std::process::Command;

#[test]
fn loggp_run_with_both_mpis() {
    let tool = root().join("target/release/loggp");
    assert!(tool.is_file(), "build it first: scripts/build.sh");
    for (mpi, launcher) in [
        (
            Mpi::OpenMpi,
            vec!["mpirun.openmpi", "--oversubscribe", "-np", "2"],
        ),
        (Mpi::Mpich, vec!["mpirun.mpich", "-n", "2"]),
    ] {
        let dir = scratch(&format!("tool_run_{}", mpi.name()));
        let prog = compile(mpi, "p2p_all.c", &[]);
        let o = Command::new(&tool)
            .arg("run")
            .arg("--")
            .args(&launcher)
            .arg(&prog)
            .current_dir(&dir)
            .env_remove("LOGGP_REPORT")
            .env_remove("LD_PRELOAD")
            .env("LOGGP_CALIBRATE", "off")
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{}: {err}", mpi.name());
        assert!(
            err.contains(&format!("loggp: {} job, shim ", mpi.name())),
            "{err}"
        );
        let path = err
            .lines()
            .find_map(|l| l.strip_prefix("loggp: report: "))
            .unwrap_or_else(|| panic!("where the report went: {err}"));
        let r = read_report(std::path::Path::new(path));
        assert!(path.starts_with(dir.to_str().unwrap()), "{path}");
        assert_eq!(r.job.ranks, 2);
        assert_eq!(r.job.mpi_flavor, mpi.name());
        // LOGGP_CALIBRATE reached every rank.
        assert_eq!(r.calibration.status, "off");
        assert_counts(&r, &expected(&stdout(&o)), &["MPI_Init"]);
    }
}
