//! Harness for the integration tests: compile C programs with each MPI's compiler wrapper,
//! run them under that MPI's launcher with and without the shim, read the report.
#![allow(dead_code)]
pub mod skip;
use loggp_report::Report;
#[allow(unused_imports)]
pub use skip::cannot_run;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mpi {
    OpenMpi,
    Mpich,
}

pub const BOTH: [Mpi; 2] = [Mpi::OpenMpi, Mpi::Mpich];

/// Open MPI with pml ucx (its default on RDMA clusters); without an RDMA device it needs
/// leave to use UCX's other transports.
pub const PML_UCX: [(&str, &str); 3] = [
    ("OMPI_MCA_pml", "ucx"),
    ("OMPI_MCA_pml_ucx_tls", "any"),
    ("OMPI_MCA_pml_ucx_devices", "any"),
];

/// The cores this machine lets the job use.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

impl Mpi {
    pub fn name(self) -> &'static str {
        match self {
            Mpi::OpenMpi => "openmpi",
            Mpi::Mpich => "mpich",
        }
    }
    pub fn mpicc(self) -> &'static str {
        match self {
            Mpi::OpenMpi => "mpicc.openmpi",
            Mpi::Mpich => "mpicc.mpich",
        }
    }
    pub fn mpirun(self) -> &'static str {
        match self {
            Mpi::OpenMpi => "mpirun.openmpi",
            Mpi::Mpich => "mpirun.mpich",
        }
    }
    /// The shim built for this MPI: scripts/build.sh builds both and copies them to
    /// target/shim/<mpi>/. A copy older than the sources is refused, so a test never
    /// passes against a stale build.
    pub fn shim(self) -> PathBuf {
        let p = root()
            .join("target/shim")
            .join(self.name())
            .join("libloggp.so");
        let built = p
            .metadata()
            .and_then(|m| m.modified())
            .unwrap_or_else(|_| panic!("{} is missing: run scripts/build.sh first", p.display()));
        // Every source the shim is built from, in subfolders too.
        fn newest(dir: &Path, built: std::time::SystemTime, lib: &Path) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let path = e.path();
                if path.is_dir() {
                    newest(&path, built, lib);
                    continue;
                }
                let m = e.metadata().unwrap().modified().unwrap();
                assert!(
                    m <= built,
                    "{} is older than {}: run scripts/build.sh",
                    lib.display(),
                    path.display()
                );
            }
        }
        for dir in ["src", "include", "report/src", "model/src"] {
            newest(&root().join(dir), built, &p);
        }
        p
    }
}

/// A scratch directory per test, under target/.
pub fn scratch(name: &str) -> PathBuf {
    let d = root().join("target/it").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Compiles tests/c/<src> (C, or Fortran by extension) for `mpi`, once per process.
/// Compiles the Fortran test program `tests/f/<src>` (preprocessed, with `-D<binding>`:
/// `F08` for `use mpi_f08`, `USEMPI` for `use mpi`, or whatever the program knows) with
/// `mpi`'s compiler wrapper.
#[allow(dead_code)]
pub fn compile_fortran(mpi: Mpi, src: &str, binding: &str) -> PathBuf {
    let dir = root().join("target/it-bin").join(mpi.name());
    std::fs::create_dir_all(&dir).unwrap();
    let stem = src.split('.').next().unwrap_or(src);
    let out = dir.join(format!("{stem}_f_{binding}"));
    let fc = match mpi {
        Mpi::OpenMpi => "mpifort.openmpi",
        Mpi::Mpich => "mpif90.mpich",
    };
    // The program's own modules (tests/f/userop.F90's) go beside it, not into the
    // directory the tests run in.
    let modules = dir.join(format!("{stem}_f_{binding}.mod.d"));
    std::fs::create_dir_all(&modules).unwrap();
    let o = std::process::Command::new(fc)
        .args(["-cpp", &format!("-D{binding}"), "-O1", "-J"])
        .arg(&modules)
        .arg("-o")
        .arg(&out)
        .arg(root().join("tests/f").join(src))
        .output()
        .expect("Fortran compiler wrapper not found: run scripts/setup.sh");
    assert!(
        o.status.success(),
        "{src} ({binding}): {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

pub fn compile(mpi: Mpi, src: &str, extra: &[&str]) -> PathBuf {
    let dir = root().join("target/it-bin").join(mpi.name());
    std::fs::create_dir_all(&dir).unwrap();
    let stem = Path::new(src)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let out = dir.join(&stem);
    let srcp = root().join("tests/c").join(src);
    let fresh = out.exists()
        && out.metadata().unwrap().modified().unwrap()
            >= srcp.metadata().unwrap().modified().unwrap();
    if !fresh {
        let o = Command::new(mpi.mpicc())
            .args(["-O2", "-w", "-o"])
            .arg(&out)
            .arg(&srcp)
            .args(extra)
            .output()
            .expect("MPI compiler wrapper not found: run scripts/setup.sh");
        assert!(
            o.status.success(),
            "compile {src}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    out
}

pub struct Run {
    pub np: usize,
    pub shim: bool,
    pub env: Vec<(String, String)>,
    pub timeout_s: u32,
    /// At the timeout, one SIGTERM to the launcher alone (`timeout --foreground`), as a
    /// batch system's time limit sends it, where by default GNU timeout signals the
    /// launcher and then its whole process group. The default sends Open MPI's mpirun a
    /// second SIGTERM, and where its handler has run between the two mpirun ends the
    /// ranks at once with SIGKILL ("forcibly terminate"): a preloaded rank then writes
    /// nothing. 2 ranks, killed after 2 s, 2026-11-26: the default left no rank file in
    /// 5 of 10 jobs, and a single SIGTERM (to mpirun, or to the launcher's group once)
    /// left both in 12 of 12 — and with `--foreground` both in 7 of 8, one in 1. Two
    /// SIGTERMs to mpirun 5 ms apart left none in 6 of 6.
    pub one_signal: bool,
}

impl Run {
    pub fn new(np: usize, shim: bool) -> Run {
        Run {
            np,
            shim,
            env: vec![],
            timeout_s: 120,
            one_signal: false,
        }
    }
    pub fn env(mut self, k: &str, v: &str) -> Run {
        self.env.push((k.into(), v.into()));
        self
    }
}

/// Runs `prog args` under `mpi`'s launcher; the environment reaches every rank the
/// launcher's own way (-x for Open MPI, -genv for hydra).
pub fn run(mpi: Mpi, r: &Run, prog: &Path, args: &[&str], cwd: &Path) -> Output {
    command(mpi, r, prog, args, cwd)
        .output()
        .expect("launcher not found: run scripts/setup.sh")
}

/// The command `run` runs, for a test that starts a job and acts on it while it runs.
pub fn command(mpi: Mpi, r: &Run, prog: &Path, args: &[&str], cwd: &Path) -> Command {
    let mut env = r.env.clone();
    if r.shim {
        env.push(("LD_PRELOAD".into(), mpi.shim().display().to_string()));
    }
    let mut cmd = Command::new("timeout");
    if r.one_signal {
        cmd.arg("--foreground");
    }
    cmd.arg("-k")
        .arg("10")
        .arg(r.timeout_s.to_string())
        .arg(mpi.mpirun());
    match mpi {
        Mpi::OpenMpi => {
            cmd.args(["--oversubscribe", "-np", &r.np.to_string()]);
            for (k, v) in &env {
                cmd.env(k, v);
                cmd.args(["-x", k]);
            }
        }
        Mpi::Mpich => {
            cmd.args(["-n", &r.np.to_string()]);
            for (k, v) in &env {
                cmd.args(["-genv", k, v]);
            }
        }
    }
    cmd.arg(prog)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null());
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    cmd
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Reads a report and checks what every report must satisfy (ground truth §5): no
/// negative o_s, o_r, g, G or L anywhere (calibration, raw, passive, MPI − raw), and every
/// parameter that is not null has a 95 % interval that contains it.
/// Runs test program `src` under the shim on `np` ranks with `extra` settings (and
/// Open MPI's yield when idle, for timed runs beyond the cores), in scratch dir `name`:
/// its report and its output, the run required to succeed.
pub fn shim_job(
    mpi: Mpi,
    np: usize,
    src: &str,
    args: &[&str],
    extra: &[(&str, &str)],
    name: &str,
) -> (Report, Output) {
    let dir = scratch(name);
    let prog = compile(mpi, src, &[]);
    let report = dir.join("r.json");
    let r = extra.iter().fold(
        Run::new(np, true)
            .env("LOGGP_REPORT", report.to_str().unwrap())
            .env("OMPI_MCA_mpi_yield_when_idle", "1"),
        |r, (k, v)| r.env(k, v),
    );
    let o = run(mpi, &r, &prog, args, &dir);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    (read_report(&report), o)
}

/// Runs `run` (given the job's name) again while its report marks the calibration
/// disturbed (a rank off its CPU while probing), at most `DISTURBED_RERUNS` times, each
/// after a pause that grows, and says so: for tests that ask where a switch or parameter
/// is, which need a run the tool itself vouches for. The disturbed case has its own test
/// (`under_load_a_switch_is_right_or_marked_disturbed`). Why pauses: fresh-clone CI at
/// 0507936 had every quick calibration of a 100-second stretch off its CPU for 18–65 %
/// with nothing beside the job (the machine's host was busy), and two immediate reruns
/// fell in the same stretch.
#[allow(dead_code)]
pub fn undisturbed_run(name: &str, run: impl Fn(&str) -> Report) -> Report {
    run_again_while(name, run, |r| {
        r.calibration
            .disturbance
            .as_ref()
            .map(|d| format!("disturbed ({d:?})"))
    })
}

/// Runs `run` (given the job's name) again while `why` names a reason in its report, at
/// most `DISTURBED_RERUNS` times, each after a pause that grows, and says so.
#[allow(dead_code)]
pub fn run_again_while(
    name: &str,
    run: impl Fn(&str) -> Report,
    why: impl Fn(&Report) -> Option<String>,
) -> Report {
    let mut r = run(name);
    for again in 1..=DISTURBED_RERUNS {
        let Some(reason) = why(&r) else {
            break;
        };
        println!("{name}: {reason}, run again ({again} of {DISTURBED_RERUNS})");
        pause_after_disturbance(again);
        r = run(&format!("{name}_again{again}"));
    }
    r
}

/// Reruns of a disturbed calibration, and the pause before the k-th: 5 s × k, 50 s in all
/// over four, longer than the disturbed stretches seen here (up to about 100 s, during
/// which runs of 1–2 s each also fall in quieter moments).
pub const DISTURBED_RERUNS: u32 = 4;
#[allow(dead_code)]
pub fn pause_after_disturbance(k: u32) {
    std::thread::sleep(std::time::Duration::from_secs(5 * k as u64));
}

/// `loggp show` of a report.
#[allow(dead_code)]
pub fn tool_show(report: &Path) -> String {
    let o = Command::new(root().join("target/release/loggp"))
        .arg("show")
        .arg(report)
        .output()
        .expect("target/release/loggp: run scripts/build.sh");
    assert!(o.status.success(), "loggp show: {}", stderr(&o));
    stdout(&o)
}

pub fn read_report(p: &Path) -> Report {
    let text = std::fs::read(p).unwrap_or_else(|e| panic!("report {}: {e}", p.display()));
    let r = loggp_report::parse(&p.display().to_string(), &text).unwrap_or_else(|e| panic!("{e}"));
    let bad = loggp_model::check::physically_invalid(&r);
    assert!(bad.is_empty(), "{}: {}", p.display(), bad.join("\n"));
    validate_against_schema(&[p]);
    r
}

/// Validates reports against the shipped JSON Schema (report/loggp-1.schema.json) with
/// Python's jsonschema, a validator independent of the Rust types: every report a test
/// reads goes through it, so the contract is checked, not only described.
pub fn validate_against_schema(paths: &[&Path]) {
    let o = Command::new("python3")
        .arg(root().join("tests/validate_report.py"))
        .arg(root().join("report/loggp-1.schema.json"))
        .args(paths)
        .output()
        .expect("python3 is missing: run scripts/setup.sh");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !err.contains("ModuleNotFoundError"),
        "python3-jsonschema is missing: run scripts/setup.sh"
    );
    assert!(
        o.status.success(),
        "not valid against report/loggp-1.schema.json:\n{}{err}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// Sum of (count, bytes) per function over all ranks.
pub fn call_totals(r: &Report) -> BTreeMap<String, (u64, u64)> {
    let mut m: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for rank in &r.ranks {
        for (f, c) in &rank.calls {
            let e = m.entry(f.clone()).or_default();
            e.0 += c.count;
            e.1 += c.bytes;
        }
    }
    m
}

/// "EXPECT <function> <count> <bytes>" lines a test program printed.
pub fn expected(out: &str) -> BTreeMap<String, (u64, u64)> {
    out.lines()
        .filter_map(|l| l.strip_prefix("EXPECT "))
        .map(|l| {
            let v: Vec<&str> = l.split_whitespace().collect();
            (
                v[0].to_string(),
                (v[1].parse().unwrap(), v[2].parse().unwrap()),
            )
        })
        .collect()
}

/// "EXPECTREQ <mode> <completed> <cancelled> <freed_active>" lines.
pub fn expected_requests(out: &str) -> BTreeMap<String, (u64, u64, u64)> {
    out.lines()
        .filter_map(|l| l.strip_prefix("EXPECTREQ "))
        .map(|l| {
            let v: Vec<&str> = l.split_whitespace().collect();
            (
                v[0].to_string(),
                (
                    v[1].parse().unwrap(),
                    v[2].parse().unwrap(),
                    v[3].parse().unwrap(),
                ),
            )
        })
        .collect()
}

/// (completed, cancelled, freed_active) per request mode, summed over ranks.
pub fn request_totals(r: &Report) -> BTreeMap<String, (u64, u64, u64)> {
    let mut m: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    for rank in &r.ranks {
        for (mode, q) in &rank.requests {
            let e = m.entry(mode.clone()).or_default();
            e.0 += q.completed;
            e.1 += q.cancelled;
            e.2 += q.freed_active;
        }
    }
    m
}

/// The program's own observations (not its timing-dependent EXPECT lines), sorted.
pub fn observations(out: &str) -> Vec<String> {
    let mut v: Vec<String> = out
        .lines()
        .filter(|l| !l.starts_with("EXPECT"))
        .map(String::from)
        .collect();
    v.sort();
    v
}

/// Asserts the report's counts and bytes equal the program's, function by function. A
/// collective the program did not declare (the barriers and reductions a point-to-point
/// program synchronises and sums its own counts with) is left out: the collectives are
/// checked where a program declares them (tests/collectives.rs, mpi4py).
pub fn assert_counts(report: &Report, expect: &BTreeMap<String, (u64, u64)>, ignore: &[&str]) {
    let got = call_totals(report);
    let collective = |f: &str| {
        let mut cells = report.cells.iter().filter(|c| c.function == f).peekable();
        cells.peek().is_some() && cells.all(|c| c.mode == loggp_report::Mode::Collective)
    };
    let mut diffs = vec![];
    for f in expect.keys().chain(got.keys()) {
        if ignore.contains(&f.as_str()) || (!expect.contains_key(f) && collective(f)) {
            continue;
        }
        if expect.get(f) != got.get(f) {
            diffs.push(format!(
                "{f}: program {:?}, report {:?}",
                expect.get(f),
                got.get(f)
            ));
        }
    }
    diffs.dedup();
    assert!(diffs.is_empty(), "counts differ:\n{}", diffs.join("\n"));
}

/// Compiles `src`, runs it on `np` ranks with the shim and `env`, expects success, and
/// returns its report.
pub fn report_of(mpi: Mpi, np: usize, src: &str, env: &[(&str, &str)], name: &str) -> Report {
    let dir = scratch(name);
    let prog = compile(mpi, src, &[]);
    let report = dir.join("r.json");
    let mut r = Run::new(np, true).env("LOGGP_REPORT", report.to_str().unwrap());
    for (k, v) in env {
        r = r.env(k, v);
    }
    let o = run(mpi, &r, &prog, &[], &dir);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    read_report(&report)
}

/// The report's warnings about the run itself (faults, lost data), without the model's
/// notes where two estimates disagree ("estimates: …"), which a healthy run may carry.
#[allow(dead_code)]
pub fn run_warnings(r: &Report) -> Vec<String> {
    r.warnings
        .iter()
        .filter(|w| !w.starts_with("estimates: ") && !w.starts_with("calibration ("))
        .cloned()
        .collect()
}

/// Issue 13 §7: the calibration ended within its budget plus 5 % (10 % where it says the
/// machine disturbed it), in a state that says so ("done", "disturbed: …" or "stopped: …",
/// never a failure). `what` names the job.
#[allow(dead_code)]
pub fn assert_calibration_within(r: &Report, budget_ms: f64, what: &str) {
    let c = &r.calibration;
    let took_ms = c.duration_ns.expect("a calibration duration") / 1e6;
    println!("{what}: calibration {took_ms:.0} ms: {}", c.status);
    // Where the machine preempted the ranks while probing (the status says "disturbed"),
    // the repetition that was preempted may end past the budget, as no check before it
    // can foresee: a fresh-clone rehearsal of 1863ac3 had MPICH's 4 ranks on 2 cores at
    // 1587 ms for 1500 (5.8 % over), its last pass over 13777 bytes taking 528 ms. Held
    // to 10 % there, to 5 % otherwise.
    let slack = if c.status.contains("disturbed") {
        1.10
    } else {
        1.05
    };
    assert!(
        took_ms <= budget_ms * slack,
        "{what}: {took_ms:.0} ms for a budget of {budget_ms} ms: {}",
        c.status
    );
    assert!(
        ["done", "disturbed: ", "stopped: "]
            .iter()
            .any(|p| c.status.starts_with(p)),
        "{what}: {}",
        c.status
    );
}

/// Runs `prog` on `np` ranks without the shim, then with it (calibration off, the report
/// in `dir`/r.json); both must succeed. The two outputs, and the report.
pub fn plain_and_profiled(
    mpi: Mpi,
    np: usize,
    prog: &Path,
    dir: &Path,
    what: &str,
) -> (Output, Output, Report) {
    let plain = run(mpi, &Run::new(np, false), prog, &[], dir);
    assert!(plain.status.success(), "{what}: {}", stderr(&plain));
    let report = dir.join("r.json");
    let r = Run::new(np, true)
        .env("LOGGP_REPORT", report.to_str().unwrap())
        .env("LOGGP_CALIBRATE", "off");
    let o = run(mpi, &r, prog, &[], dir);
    assert!(o.status.success(), "{what}: {}", stderr(&o));
    (plain, o, read_report(&report))
}

/// A run's output lines, sorted (ranks print in any order).
pub fn sorted_lines(o: &Output) -> Vec<String> {
    let mut l: Vec<String> = stdout(o).lines().map(str::to_string).collect();
    l.sort();
    l
}

/// The report's calibration set of intra-node blocking sends.
pub fn intra_node_send(r: &Report) -> &loggp_report::CalibrationSet {
    r.calibration
        .mpi
        .iter()
        .find(|s| s.peer_class == "intra_node" && s.mode == "send")
        .expect("an intra-node send calibration")
}

/// The switch the calibration found for intra-node blocking sends, if it found one.
pub fn intra_node_send_switch(r: &Report) -> Option<u64> {
    r.thresholds
        .iter()
        .find(|t| t.peer_class == "intra_node" && t.mode == "send")
        .and_then(|t| t.active_bytes)
}

/// A job's level: the geometric mean of its calibrated intra-node PRTT(1,0,s) of MPI_Send
/// at the sizes up to `max_bytes` (the median of each size's repetitions). The cost of
/// the same call changes level over seconds on this VM (up to 3 × between runs), and the
/// two jobs of an advice's pair run seconds apart: the rerun's time is brought to the
/// first job's level, as `advise --measure` brings its runs to the job's. `max_bytes`
/// keeps to sizes whose protocol the advised setting does not change.
pub fn level_ns(r: &Report, max_bytes: u64) -> f64 {
    let v: Vec<f64> = intra_node_send(r)
        .points
        .iter()
        .filter(|p| p.size_bytes <= max_bytes)
        .filter_map(|p| {
            let mut reps = p.prtt_1_0_reps_ns.clone();
            reps.sort_by(f64::total_cmp);
            reps.get(reps.len() / 2).copied().or(p.prtt_1_0_ns)
        })
        .filter(|&x| x > 0.0)
        .collect();
    assert!(!v.is_empty(), "no calibrated PRTT up to {max_bytes} B");
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

/// The parts of a rank's time split, added up (`time_in_mpi_ns` when they hold).
pub fn split_parts_ns(t: &loggp_report::TimeSplit) -> f64 {
    t.cost_ns
        + t.late_sender_ns
        + t.late_receiver_ns
        + t.collective_wait_ns
        + t.collective_cost_ns
        + t.other_ns
}

/// Each rank's count of its user operation's calls and elements (`ranks[].user_op_calls`)
/// is the program's own count of its function's calls (its "user_op_calls <rank> <calls>
/// <elements>" lines), exactly, and so is the count of its histogram by cost per element
/// (`ranks[].user_op_ns_per_1024_elements`, whose median prices them).
pub fn user_op_calls_are_the_programs(name: &str, r: &Report, o: &Output) {
    let mut ranks = 0;
    for l in stdout(o).lines() {
        let Some(v) = l.strip_prefix("user_op_calls ") else {
            continue;
        };
        let v: Vec<u64> = v
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        let e = (r.ranks.iter().find(|e| u64::from(e.rank) == v[0]))
            .unwrap_or_else(|| panic!("{name}: no rank {}", v[0]));
        let counted = (e.user_op_calls.iter()).fold([0.0; 2], |a, c| [a[0] + c[0], a[1] + c[1]]);
        println!(
            "{name}: rank {}: the program counted {} calls of {} elements, loggp {counted:?}",
            v[0], v[1], v[2]
        );
        assert_eq!(counted, [v[1] as f64, v[2] as f64], "{name}: rank {}", v[0]);
        let by_rate: u64 = e.user_op_ns_per_1024_elements.iter().map(|c| c[2]).sum();
        assert_eq!(
            by_rate, v[1],
            "{name}: rank {}: calls by cost per element",
            v[0]
        );
        ranks += 1;
    }
    assert_eq!(
        ranks,
        r.ranks.len(),
        "{name}: the program's counts of its user operation's calls"
    );
}

/// A price within issue 26's ±30 % of the measured cost, as price over measured:
/// |price − measured| ≤ 0.3 × measured.
#[allow(dead_code)]
pub fn within_30_percent(price_over_measured: f64) -> bool {
    (0.7..=1.3).contains(&price_over_measured)
}
