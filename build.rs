//! Builds the shim against the MPI whose compiler wrapper is `$MPICC` (default `mpicc`).
//!
//! * bindgen reads that MPI's real `mpi.h`, so handle types (pointers in Open MPI, ints in
//!   MPICH), `MPI_Status` and every `PMPI_*` prototype come from the library we link.
//! * `src/base/consts.c`, compiled with the same include path, exports the link-time constants
//!   (`MPI_COMM_WORLD`, `MPI_STATUS_IGNORE`, ...) that are macros over addresses or casts and
//!   so cannot be taken from bindgen reliably.
//! * The flavour (`mpi_openmpi` / `mpi_mpich`) becomes a cfg for the few places that differ.
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

struct MpiFlags {
    include_dirs: Vec<PathBuf>,
    lib_dirs: Vec<PathBuf>,
    libs: Vec<String>,
}

fn run(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Asks the wrapper compiler for its flags: Open MPI understands `--showme:*`, MPICH `-show`.
fn mpi_flags(mpicc: &str) -> MpiFlags {
    let text = run(mpicc, &["--showme:compile"])
        .and_then(|c| run(mpicc, &["--showme:link"]).map(|l| format!("{c} {l}")))
        .or_else(|| run(mpicc, &["-show"]))
        .unwrap_or_else(|| {
            panic!(
                "loggp: cannot run `{mpicc} --showme` or `{mpicc} -show`; install an MPI \
                 (apt install libopenmpi-dev or libmpich-dev) or set MPICC"
            )
        });
    let mut flags = MpiFlags {
        include_dirs: vec![],
        lib_dirs: vec![],
        libs: vec![],
    };
    for tok in text.split_whitespace() {
        if let Some(p) = tok.strip_prefix("-I") {
            flags.include_dirs.push(PathBuf::from(p));
        } else if let Some(p) = tok.strip_prefix("-L") {
            flags.lib_dirs.push(PathBuf::from(p));
        } else if let Some(l) = tok.strip_prefix("-l") {
            flags.libs.push(l.to_string());
        }
    }
    flags
}

fn main() {
    println!("cargo:rerun-if-env-changed=MPICC");
    println!("cargo:rerun-if-changed=src/base/consts.c");
    println!("cargo:rerun-if-changed=include/loggp_consts.def");
    println!("cargo:rerun-if-changed=include/loggp_mpi.h");
    println!("cargo:rustc-check-cfg=cfg(mpi_openmpi)");
    println!("cargo:rustc-check-cfg=cfg(mpi_mpich)");
    println!("cargo:rustc-check-cfg=cfg(mpi_large_count)");
    println!("cargo:rustc-check-cfg=cfg(mpi_isendrecv)");
    println!("cargo:rustc-check-cfg=cfg(mpi_persistent_coll)");
    // Call sites are read from the entry points' frame records: only where every function
    // keeps one (`.cargo/config.toml` sets the flag; a RUSTFLAGS that drops it turns call
    // sites off rather than reading a word that is not a return address).
    println!("cargo:rustc-check-cfg=cfg(loggp_call_sites)");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let rustflags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let frame_pointers = rustflags
        .split('\x1f')
        .collect::<Vec<_>>()
        .windows(2)
        .any(|w| w[0] == "-C" && w[1] == "force-frame-pointers=yes")
        || rustflags
            .split('\x1f')
            .any(|f| f == "-Cforce-frame-pointers=yes");
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if frame_pointers && (arch == "x86_64" || arch == "aarch64") {
        println!("cargo:rustc-cfg=loggp_call_sites");
    }
    let mpicc = env::var("MPICC").unwrap_or_else(|_| "mpicc".to_string());
    let flags = mpi_flags(&mpicc);
    let mpi_h = flags
        .include_dirs
        .iter()
        .map(|d| d.join("mpi.h"))
        .find(|p| p.exists())
        .or_else(|| Some(PathBuf::from("/usr/include/mpi.h")).filter(|p| p.exists()))
        .expect("loggp: mpi.h not found in the include path of the MPI compiler wrapper");
    // Rebuild when the MPI changes: the header itself and the resolved wrapper.
    println!("cargo:rerun-if-changed={}", mpi_h.display());
    if let Ok(p) = std::fs::canonicalize(which(&mpicc)) {
        println!("cargo:rerun-if-changed={}", p.display());
    }
    let mpi_h_text = std::fs::read_to_string(&mpi_h).unwrap_or_default();
    let header_text = header_with_includes(&mpi_h);
    let flavor = if mpi_h_text.contains("OPEN_MPI") || mpi_h_text.contains("OMPI_") {
        "openmpi"
    } else if mpi_h_text.contains("MPICH") {
        "mpich"
    } else {
        panic!("loggp: {} is neither Open MPI nor MPICH", mpi_h.display())
    };
    println!("cargo:rustc-cfg=mpi_{flavor}");
    // MPI-4 calls exist only where this MPI's own header declares them (MPICH 4.0 does,
    // Open MPI 4.1 does not): each becomes a cfg, so a shim never names a symbol its
    // libmpi lacks (no link or load failure, unlike Caliper #548).
    let large_count = header_text.contains("PMPI_Send_c(");
    if large_count {
        println!("cargo:rustc-cfg=mpi_large_count");
    }
    if header_text.contains("PMPI_Isendrecv(") {
        println!("cargo:rustc-cfg=mpi_isendrecv");
    }
    if header_text.contains("PMPI_Allreduce_init(") {
        println!("cargo:rustc-cfg=mpi_persistent_coll");
    }
    println!("cargo:rustc-env=LOGGP_MPI_FLAVOR={flavor}");
    println!("cargo:rustc-env=LOGGP_MPICC={mpicc}");

    for d in &flags.lib_dirs {
        println!("cargo:rustc-link-search=native={}", d.display());
    }
    for l in &flags.libs {
        println!("cargo:rustc-link-lib=dylib={l}");
    }

    let mut cc_build = cc::Build::new();
    cc_build
        .file("src/base/consts.c")
        .include("include")
        .warnings(true);
    for d in &flags.include_dirs {
        cc_build.include(d);
    }
    cc_build.compile("loggp_consts");

    // The raw UCT transport (issue 12) is compiled where UCX's headers are found; libuct is
    // loaded at run time, so the shim carries no link-time dependency on UCX.
    println!("cargo:rerun-if-changed=src/calib/transports/uct.c");
    println!("cargo:rerun-if-env-changed=UCX_HOME");
    println!("cargo:rustc-check-cfg=cfg(have_uct)");
    if let Some(dir) = uct_include_dir(&flags.include_dirs) {
        println!(
            "cargo:rerun-if-changed={}",
            dir.join("uct/api/uct.h").display()
        );
        cc::Build::new()
            .file("src/calib/transports/uct.c")
            .include(&dir)
            .warnings(true)
            .compile("loggp_uct");
        println!("cargo:rustc-cfg=have_uct");
    }

    let mut bg = bindgen::Builder::default()
        .header("include/loggp_mpi.h")
        .allowlist_function("PMPI_.*")
        .allowlist_type("MPI_.*")
        .allowlist_var("loggp_.*")
        .allowlist_function("loggp_.*")
        .layout_tests(false)
        .generate_comments(false)
        .derive_default(true)
        .derive_debug(false);
    if !large_count {
        bg = bg.blocklist_function("PMPI_.*_c$");
    }
    for d in &flags.include_dirs {
        bg = bg.clang_arg(format!("-I{}", d.display()));
    }
    bg = bg.clang_arg("-Iinclude");
    let bindings = bg.generate().expect("loggp: bindgen failed on mpi.h");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("mpi_bindings.rs");
    bindings.write_to_file(&out).expect("write bindings");
    write_constants(Path::new("include/loggp_consts.def"));
}

/// The Rust accessors of the constants in `include/loggp_consts.def` (the one list, also
/// compiled into `src/base/consts.c`): `pub fn comm_world() -> MPI_Comm` and so on.
fn write_constants(def: &Path) {
    let text = std::fs::read_to_string(def).expect("include/loggp_consts.def");
    let mut out = String::new();
    for line in text.lines() {
        let Some(args) = line
            .trim()
            .strip_prefix("LOGGP_CONST(")
            .and_then(|l| l.strip_suffix(')'))
        else {
            continue;
        };
        let parts: Vec<&str> = args.split(',').map(str::trim).collect();
        let [c_type, name, rust] = parts[..] else {
            panic!("loggp_consts.def: expected LOGGP_CONST(type, name, rust): {line}")
        };
        let ty = match c_type {
            "int" => "i32".to_string(),
            "void *" => "*mut ::std::os::raw::c_void".to_string(),
            t if t.ends_with('*') => format!("*mut {}", t.trim_end_matches('*').trim()),
            t => t.to_string(),
        };
        out.push_str(&format!(
            "/// `{name}`.\n#[inline(always)]\n#[allow(dead_code, clippy::unnecessary_cast)]\npub fn {rust}() -> {ty} {{\n    // SAFETY: an immutable constant of consts.c, initialised at load time.\n    unsafe {{ ffi::loggp_{name} as {ty} }}\n}}\n"
        ));
    }
    let path = PathBuf::from(env::var("OUT_DIR").unwrap()).join("mpi_constants.rs");
    std::fs::write(path, out).expect("write mpi_constants.rs");
}

/// Where `uct/api/uct.h` is: `$UCX_HOME/include`, pkg-config's ucx, the MPI's include
/// path, the system's.
fn uct_include_dir(mpi_dirs: &[PathBuf]) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = vec![];
    if let Ok(h) = env::var("UCX_HOME") {
        dirs.push(Path::new(&h).join("include"));
    }
    if let Ok(o) = Command::new("pkg-config")
        .args(["--cflags-only-I", "ucx"])
        .output()
    {
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        dirs.extend(
            text.split_whitespace()
                .filter_map(|f| f.strip_prefix("-I"))
                .map(PathBuf::from),
        );
    }
    dirs.extend(mpi_dirs.iter().cloned());
    dirs.push("/usr/include".into());
    dirs.push("/usr/local/include".into());
    dirs.into_iter()
        .find(|d| d.join("uct/api/uct.h").exists() && d.join("ucs/async/async_fwd.h").exists())
}

/// mpi.h and the headers it includes from its own directory (MPICH declares its
/// prototypes in `mpi_proto.h`).
fn header_with_includes(mpi_h: &Path) -> String {
    let text = std::fs::read_to_string(mpi_h).unwrap_or_default();
    let dir = mpi_h.parent().unwrap_or(Path::new("."));
    let mut all = text.clone();
    for line in text.lines() {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix("#include") {
            let name = rest
                .trim()
                .trim_matches(|c| c == '"' || c == '<' || c == '>');
            let p = dir.join(name);
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
                all.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }
    all
}

fn which(cmd: &str) -> PathBuf {
    if cmd.contains('/') {
        return PathBuf::from(cmd);
    }
    env::var_os("PATH")
        .map(|paths| {
            env::split_paths(&paths)
                .map(|p| p.join(cmd))
                .find(|p| Path::new(p).exists())
                .unwrap_or_else(|| PathBuf::from(cmd))
        })
        .unwrap_or_else(|| PathBuf::from(cmd))
}
