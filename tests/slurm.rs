//! A real Slurm (issue 15): a single-node Slurm started by the test
//! (scripts/slurm-local.sh: munged, slurmctld, slurmd from a scratch directory), then
//! - MPICH ranks launched by `srun --mpi=pmi2` directly with the shim: the report is named
//!   by SLURM_JOB_ID, as the shim names reports by default;
//! - `loggp run -- srun …` inside an `salloc` allocation: the variables reach every rank
//!   through `srun --export`, and the report is named by the allocation's job id;
//! - Open MPI's `mpirun` inside an `salloc` allocation.
//!
//! Skipped, with the reason, where the daemons cannot start (no slurm-wlm, no munge).
mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Slurm {
    dir: PathBuf,
    conf: String,
}

impl Slurm {
    fn start() -> Result<Slurm, String> {
        let dir = scratch("slurm_daemons");
        let o = Command::new(root().join("scripts/slurm-local.sh"))
            .arg("start")
            .arg(&dir)
            .output()
            .map_err(|e| e.to_string())?;
        if !o.status.success() {
            return Err(stderr(&o).trim().to_string());
        }
        let conf = stdout(&o)
            .lines()
            .find_map(|l| l.strip_prefix("SLURM_CONF=").map(String::from))
            .ok_or("no SLURM_CONF line")?;
        Ok(Slurm { dir, conf })
    }

    /// A command run with this Slurm's configuration, in `cwd`, with a timeout.
    fn run(&self, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut c = Command::new("timeout");
        c.arg("120")
            .args(args)
            .current_dir(cwd)
            .env("SLURM_CONF", &self.conf)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .env_remove("SLURM_JOB_ID");
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        let _ = Command::new(root().join("scripts/slurm-local.sh"))
            .arg("stop")
            .arg(&self.dir)
            .output();
    }
}

fn reports_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    v.sort();
    v
}

/// The job id Slurm printed ("salloc: Granted job allocation 7").
fn granted_job_id(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        l.split_once("Granted job allocation ")
            .map(|(_, id)| id.trim().to_string())
    })
}

#[test]
fn jobs_under_a_real_slurm() {
    let slurm = match Slurm::start() {
        Ok(s) => s,
        Err(why) => {
            return cannot_run(
                "slurm",
                &format!("a single-node Slurm could not start here: {why}"),
            );
        }
    };
    let prog_mpich = compile(Mpi::Mpich, "forever.c", &[]);
    let prog_ompi = compile(Mpi::OpenMpi, "forever.c", &[]);

    // 1. srun direct launch of MPICH ranks (PMI-2), the shim preloaded with --export.
    let dir = scratch("slurm_srun");
    let export = format!(
        "--export=ALL,LD_PRELOAD={},LOGGP_CALIBRATE=off",
        Mpi::Mpich.shim().display()
    );
    let o = slurm.run(
        &dir,
        &[
            "srun",
            "-n",
            "2",
            "--mpi=pmi2",
            &export,
            prog_mpich.to_str().unwrap(),
            "busy",
            "1",
        ],
        &[],
    );
    let text = stdout(&o) + &stderr(&o);
    assert!(o.status.success(), "srun: {text}");
    let reports = reports_in(&dir);
    assert_eq!(reports.len(), 1, "{reports:?} {text}");
    let name = reports[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let r = read_report(&reports[0]);
    assert!(r.job.complete && r.job.ranks == 2, "{name}");
    assert!(
        name == format!("loggp-forever-{}.json", r.job.job_id) && !r.job.job_id.is_empty(),
        "the report is named by SLURM_JOB_ID: {name}, job id {:?}",
        r.job.job_id
    );
    assert!(
        r.job.job_id.chars().all(|c| c.is_ascii_digit()),
        "{}",
        r.job.job_id
    );

    // 2. `loggp run -- srun …` inside an allocation: LOGGP_* variables reach the ranks
    //    through --export, the report is named by the allocation's id.
    let dir = scratch("slurm_loggp_run");
    let tool = root().join("target/release/loggp");
    let o = slurm.run(
        &dir,
        &[
            "salloc",
            "-n",
            "2",
            tool.to_str().unwrap(),
            "run",
            "--",
            "srun",
            "--mpi=pmi2",
            prog_mpich.to_str().unwrap(),
            "busy",
            "1",
        ],
        &[
            ("LOGGP_CALIBRATE", "off"),
            (
                "LOGGP_LIB_DIR",
                root().join("target/shim").to_str().unwrap(),
            ),
        ],
    );
    let text = stdout(&o) + &stderr(&o);
    assert!(o.status.success(), "salloc loggp run srun: {text}");
    let id = granted_job_id(&text).unwrap_or_else(|| panic!("no job id in: {text}"));
    let report = dir.join(format!("loggp-forever-{id}.json"));
    let r = read_report(&report);
    assert!(r.job.complete && r.job.ranks == 2);
    assert_eq!(r.job.job_id, id);
    assert_eq!(
        r.job.settings.get("LOGGP_CALIBRATE").map(String::as_str),
        Some("off"),
        "LOGGP_CALIBRATE did not reach the ranks"
    );
    assert!(
        r.calibration.status.starts_with("off"),
        "{}",
        r.calibration.status
    );

    // 3. Open MPI's mpirun inside an allocation.
    let dir = scratch("slurm_mpirun");
    let o = slurm.run(
        &dir,
        &[
            "salloc",
            "-n",
            "2",
            "mpirun.openmpi",
            "-x",
            &format!("LD_PRELOAD={}", Mpi::OpenMpi.shim().display()),
            "-x",
            "LOGGP_CALIBRATE=off",
            prog_ompi.to_str().unwrap(),
            "busy",
            "1",
        ],
        &[],
    );
    let text = stdout(&o) + &stderr(&o);
    assert!(o.status.success(), "salloc mpirun: {text}");
    let id = granted_job_id(&text).unwrap_or_else(|| panic!("no job id in: {text}"));
    let r = read_report(&dir.join(format!("loggp-forever-{id}.json")));
    assert!(r.job.complete && r.job.ranks == 2);
}
