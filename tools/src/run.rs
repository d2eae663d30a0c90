//! `loggp run [--mpi openmpi|mpich] -- <launcher> <app…>`: runs a job with the shim
//! preloaded into every rank, carried the launcher's own way (Open MPI `-x`, hydra
//! `-genv`, Slurm `srun --export=ALL,…`), and says where the report went.
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    OpenMpi,
    Mpich,
}

impl Flavor {
    pub fn name(self) -> &'static str {
        match self {
            Flavor::OpenMpi => "openmpi",
            Flavor::Mpich => "mpich",
        }
    }
    pub fn parse(s: &str) -> Option<Flavor> {
        match s {
            "openmpi" | "ompi" | "open-mpi" => Some(Flavor::OpenMpi),
            "mpich" | "hydra" => Some(Flavor::Mpich),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launcher {
    OpenMpi,
    Hydra,
    Slurm,
}

/// The launcher's kind from its name, else from what it is a link to.
pub fn launcher_kind(launcher: &str) -> Option<Launcher> {
    let kind = |n: &str| {
        let n = n.rsplit('/').next().unwrap_or(n);
        if n.starts_with("srun") {
            Some(Launcher::Slurm)
        } else if n.contains("openmpi") || n.starts_with("orterun") || n.starts_with("prterun") {
            Some(Launcher::OpenMpi)
        } else if n.contains("mpich") || n.contains("hydra") {
            Some(Launcher::Hydra)
        } else {
            None
        }
    };
    kind(launcher).or_else(|| {
        let path = which(launcher)?;
        let real = std::fs::canonicalize(path).ok()?;
        kind(&real.to_string_lossy())
    })
}

fn which(cmd: &str) -> Option<PathBuf> {
    if cmd.contains('/') {
        return Some(PathBuf::from(cmd));
    }
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(cmd))
        .find(|p| p.is_file())
}

/// The MPI an executable links: Open MPI's libmpi.so.40, MPICH's libmpich.so.12 / libmpi.so.12.
pub fn linked_flavor(app: &str) -> Option<Flavor> {
    let path = which(app)?;
    let out = Command::new("ldd").arg(path).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    if text.contains("libmpich") || text.contains("libmpi.so.12") {
        Some(Flavor::Mpich)
    } else if text.contains("libmpi.so.40") || text.contains("openmpi") {
        Some(Flavor::OpenMpi)
    } else {
        None
    }
}

/// Where the shim for `f` lives: $LOGGP_LIB_DIR/<flavor>/libloggp.so, else beside this
/// binary's build (target/release/loggp → target/shim/<flavor>/libloggp.so).
pub fn shim_for(f: Flavor) -> Result<PathBuf, String> {
    let mut tried = vec![];
    if let Some(d) = std::env::var_os("LOGGP_LIB_DIR") {
        tried.push(PathBuf::from(d).join(f.name()).join("libloggp.so"));
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe.parent() {
            tried.push(dir.join("../shim").join(f.name()).join("libloggp.so"));
            tried.push(dir.join("../lib/loggp").join(f.name()).join("libloggp.so"));
        }
    }
    tried
        .iter()
        .find(|p| p.is_file())
        .and_then(|p| std::fs::canonicalize(p).ok())
        .ok_or_else(|| {
            format!(
                "no libloggp.so for {} (looked in {}); build it with scripts/build.sh or set LOGGP_LIB_DIR",
                f.name(),
                tried.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
            )
        })
}

/// The launcher command with the environment inserted after the launcher's name.
pub fn command_line(launcher: Launcher, cmd: &[String], env: &[(String, String)]) -> Vec<String> {
    let mut out = vec![cmd[0].clone()];
    match launcher {
        Launcher::OpenMpi => {
            for (k, v) in env {
                out.push("-x".into());
                out.push(format!("{k}={v}"));
            }
        }
        Launcher::Hydra => {
            for (k, v) in env {
                out.extend(["-genv".into(), k.clone(), v.clone()]);
            }
        }
        Launcher::Slurm => {
            let list: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
            out.push(format!("--export=ALL,{}", list.join(",")));
        }
    }
    out.extend(cmd[1..].iter().cloned());
    out
}

/// The application: the first argument after the launcher's options that is a file.
pub(crate) fn app_of(cmd: &[String]) -> Option<&String> {
    cmd.iter()
        .skip(1)
        .find(|a| !a.starts_with('-') && which(a).is_some_and(|p| p.is_file()))
}

pub fn run(args: &[String]) -> Result<i32, String> {
    let mut mpi = None;
    let mut i = 0;
    while i < args.len() && args[i] != "--" {
        match args[i].as_str() {
            "--mpi" => {
                let v = args.get(i + 1).ok_or("--mpi needs openmpi or mpich")?;
                mpi = Some(
                    Flavor::parse(v)
                        .ok_or_else(|| format!("--mpi {v}: expected openmpi or mpich"))?,
                );
                i += 2;
            }
            a => return Err(format!("unknown option {a}")),
        }
    }
    let cmd: Vec<String> = args.get(i + 1..).unwrap_or(&[]).to_vec();
    if cmd.is_empty() {
        return Err("usage: loggp run [--mpi openmpi|mpich] -- <launcher> <app…>".into());
    }
    let launcher = launcher_kind(&cmd[0]);
    let app = app_of(&cmd).cloned();
    let flavor = mpi
        .or_else(|| app.as_deref().and_then(linked_flavor))
        .or(match launcher {
            Some(Launcher::OpenMpi) => Some(Flavor::OpenMpi),
            Some(Launcher::Hydra) => Some(Flavor::Mpich),
            _ => None,
        })
        .ok_or("cannot tell which MPI the job uses: give --mpi openmpi or --mpi mpich")?;
    let launcher = launcher.unwrap_or(match flavor {
        Flavor::OpenMpi => Launcher::OpenMpi,
        Flavor::Mpich => Launcher::Hydra,
    });
    let shim = shim_for(flavor)?;
    let report = match std::env::var("LOGGP_REPORT") {
        Ok(p) if !p.is_empty() => p,
        _ => {
            let name = app
                .as_deref()
                .map(|a| a.rsplit('/').next().unwrap_or(a))
                .unwrap_or("job");
            // The batch system's job id, as the shim names its reports; else the time.
            let id = [
                "SLURM_JOB_ID",
                "PBS_JOBID",
                "LSB_JOBID",
                "JOB_ID",
                "FLUX_JOB_ID",
            ]
            .iter()
            .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
            .map(|v| v.replace(|c: char| !c.is_ascii_alphanumeric() && c != '.', "_"))
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or(0)
                    .to_string()
            });
            let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
            cwd.join(format!("loggp-{name}-{id}.json"))
                .display()
                .to_string()
        }
    };
    let mut env: Vec<(String, String)> = vec![
        ("LD_PRELOAD".into(), shim.display().to_string()),
        ("LOGGP_REPORT".into(), report.clone()),
    ];
    for (k, v) in std::env::vars() {
        if k.starts_with("LOGGP_") && k != "LOGGP_REPORT" && k != "LOGGP_LIB_DIR" {
            env.push((k, v));
        }
    }
    let line = command_line(launcher, &cmd, &env);
    eprintln!("loggp: {} job, shim {}", flavor.name(), shim.display());
    let status = Command::new(&line[0])
        .args(&line[1..])
        .status()
        .map_err(|e| format!("cannot start {}: {e}", line[0]))?;
    if Path::new(&report).is_file() {
        eprintln!("loggp: report: {report}");
    } else {
        let stem = report.strip_suffix(".json").unwrap_or(&report);
        eprintln!("loggp: no report at {report} (see the job's output; rank files, if any, are {stem}.rank<N>.json)");
    }
    Ok(status.code().unwrap_or(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn each_launcher_gets_the_environment_its_own_way() {
        let env = vec![
            ("LD_PRELOAD".to_string(), "/x/libloggp.so".to_string()),
            ("LOGGP_REPORT".into(), "r.json".into()),
        ];
        assert_eq!(
            command_line(Launcher::OpenMpi, &s(&["mpirun", "-np", "2", "./a"]), &env),
            s(&[
                "mpirun",
                "-x",
                "LD_PRELOAD=/x/libloggp.so",
                "-x",
                "LOGGP_REPORT=r.json",
                "-np",
                "2",
                "./a"
            ])
        );
        assert_eq!(
            command_line(Launcher::Hydra, &s(&["mpiexec", "-n", "2", "./a"]), &env),
            s(&[
                "mpiexec",
                "-genv",
                "LD_PRELOAD",
                "/x/libloggp.so",
                "-genv",
                "LOGGP_REPORT",
                "r.json",
                "-n",
                "2",
                "./a"
            ])
        );
        assert_eq!(
            command_line(Launcher::Slurm, &s(&["srun", "-n", "2", "./a"]), &env),
            s(&[
                "srun",
                "--export=ALL,LD_PRELOAD=/x/libloggp.so,LOGGP_REPORT=r.json",
                "-n",
                "2",
                "./a"
            ])
        );
    }

    #[test]
    fn launchers_are_recognised_by_name() {
        assert_eq!(launcher_kind("mpirun.openmpi"), Some(Launcher::OpenMpi));
        assert_eq!(
            launcher_kind("/usr/bin/mpiexec.hydra"),
            Some(Launcher::Hydra)
        );
        assert_eq!(launcher_kind("mpirun.mpich"), Some(Launcher::Hydra));
        assert_eq!(launcher_kind("srun"), Some(Launcher::Slurm));
        assert_eq!(Flavor::parse("ompi"), Some(Flavor::OpenMpi));
        assert_eq!(Flavor::parse("lam"), None);
    }
}
