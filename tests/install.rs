//! Installs like an HPC tool (issue 15): scripts/install.sh into a prefix, the module
//! file loaded with Debian's environment-modules, and `loggp run` from another directory
//! finds the installed shims with no variable set by hand.
mod common;
use common::*;
use std::process::Command;

#[test]
fn install_into_a_prefix_and_module_load() {
    let prefix = scratch("install_prefix");
    let o = Command::new(root().join("scripts/install.sh"))
        .args(["--prefix", prefix.to_str().unwrap(), "--no-build"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let version = env!("CARGO_PKG_VERSION");
    for f in [
        "bin/loggp".to_string(),
        "lib/loggp/openmpi/libloggp.so".into(),
        "lib/loggp/mpich/libloggp.so".into(),
        "share/loggp/loggp-1.schema.json".into(),
        "share/bash-completion/completions/loggp".into(),
        format!("share/modulefiles/loggp/{version}"),
    ] {
        assert!(prefix.join(&f).is_file(), "{f} not installed");
    }
    let init = std::path::Path::new("/usr/share/modules/init/bash");
    if !init.is_file() {
        panic!("environment-modules is missing: run scripts/setup.sh");
    }
    // From another directory, with a PATH that has no build tree on it.
    let work = scratch("install_elsewhere");
    let prog = compile(Mpi::OpenMpi, "forever.c", &[]);
    let script = format!(
        "source {init}; module use {mods}; module load loggp; \
         command -v loggp; echo LIB=$LOGGP_LIB_DIR; loggp --version; \
         loggp run -- mpirun.openmpi --oversubscribe -np 2 {prog} busy 1; \
         unset LOGGP_LIB_DIR; \
         loggp run -- mpirun.openmpi --oversubscribe -np 2 {prog} busy 1; \
         module unload loggp; command -v loggp || echo UNLOADED",
        init = init.display(),
        mods = prefix.join("share/modulefiles").display(),
        prog = prog.display(),
    );
    let o = Command::new("bash")
        .args(["-c", &script])
        .current_dir(&work)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env_remove("LOGGP_LIB_DIR")
        .env("LOGGP_CALIBRATE", "off")
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .output()
        .unwrap();
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(o.status.success(), "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        prefix.join("bin/loggp").to_str().unwrap(),
        "{out}"
    );
    assert_eq!(
        lines[1],
        format!("LIB={}", prefix.join("lib/loggp").display()),
        "{out}"
    );
    assert!(lines[2].contains("report schema loggp/1"), "{out}");
    assert!(out.contains("UNLOADED"), "{out}");
    // Both runs used the installed shim and wrote a complete report here.
    let shim = prefix.join("lib/loggp/openmpi/libloggp.so");
    assert_eq!(err.matches(&*shim.to_string_lossy()).count(), 2, "{err}");
    let reports: Vec<_> = std::fs::read_dir(&work)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    assert!(!reports.is_empty(), "{err}");
    for r in &reports {
        assert!(read_report(r).job.complete);
    }
}
