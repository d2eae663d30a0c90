//! `loggp`: launches a profiled job and reads loggp reports; needs no MPI.
use clap::{CommandFactory, Parser, Subcommand};
use loggp_report::{read, Report};
use loggp_tools::{advise, csv, diff, html, plot, ranks, run, show};
use std::process::ExitCode;

/// The version line: the tool's, and the report schema it writes and reads.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (report schema ",
    "loggp/1",
    ")"
);

/// loggp: what your MPI stack really costs, measured inside your own job.
///
/// Reads the JSON reports that libloggp.so writes (on any machine, no MPI needed) and
/// runs jobs with the shim preloaded. Exit status: 0 done, 1 an error (one line on
/// stderr: a missing, foreign, truncated or newer report, a file that cannot be
/// written), 2 a usage error; `run` exits with the job's own status.
#[derive(Parser)]
#[command(name = "loggp", version = VERSION, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a job with the shim preloaded into every rank and say where the report went
    ///
    /// The shim for the job's MPI is taken from $LOGGP_LIB_DIR/<openmpi|mpich>, the
    /// installed layout (<prefix>/lib/loggp/<mpi>) or the build tree (target/shim);
    /// LD_PRELOAD and every LOGGP_* variable reach the ranks the launcher's own way
    /// (mpirun -x, mpiexec -genv, srun --export).
    Run {
        /// The job's MPI, where neither the application nor the launcher tells
        #[arg(long, value_name = "openmpi|mpich")]
        mpi: Option<String>,
        /// The launch command: `-- mpirun -np 4 ./app`
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<String>,
    },
    /// Findings, where the job's MPI time goes, then tables: LogGP parameters, thresholds,
    /// MPI − raw, ranks, waits, collectives, calls in progress
    ///
    /// Given one report, that job. Given a directory or several rank files
    /// (<report>.rank<N>.json: interim snapshots, or what the ranks of a job that died
    /// left), the job they come from, marked interim or incomplete.
    Show {
        /// A report, a directory of rank files, or rank files
        #[arg(required = true, value_name = "REPORT")]
        paths: Vec<String>,
        /// The same, filtered, as JSON for scripts (no points, no bins)
        #[arg(long, conflicts_with_all = ["csv", "bins"])]
        json: bool,
        /// Also the passive bins (call durations per size bin)
        #[arg(long)]
        bins: bool,
        /// Also the communication matrix: per pair of ranks, messages, bytes, and the
        /// time of the sending and receiving calls
        #[arg(long)]
        matrix: bool,
        /// CSV for spreadsheets and pandas: one table with --table, or every table
        /// into a directory with -o
        #[arg(long)]
        csv: bool,
        /// The CSV table to print
        #[arg(long, requires = "csv", value_parser = clap::builder::PossibleValuesParser::new(csv::TABLES))]
        table: Option<String>,
        /// With --csv: the directory for <table>.csv files
        #[arg(short = 'o', requires = "csv", value_name = "DIR")]
        out: Option<String>,
        /// After the warnings, the long explanation of each warning's cause, once
        #[arg(long, conflicts_with_all = ["csv", "json"])]
        explain: bool,
    },
    /// SVG figures: the gap line with its fits and switches, overheads, MPI against raw
    Plot {
        report: String,
        /// Directory for the figures
        #[arg(short = 'o', required = true, value_name = "DIR")]
        out: String,
    },
    /// Two reports side by side with the relative change (significant only where the
    /// repeat-run intervals do not overlap, or a switch is found in one and not the other;
    /// nothing where a calibration was disturbed), and where each job's MPI time went
    Diff {
        a: String,
        b: String,
        /// Per parameter and switch set: a, b, change, significant
        #[arg(long)]
        json: bool,
    },
    /// One self-contained page, tables and figures, readable offline
    Html {
        report: String,
        #[arg(short = 'o', required = true, value_name = "FILE")]
        out: String,
    },
    /// Redo every estimate from the measurements the report stores
    Refit {
        report: String,
        #[arg(short = 'o', required = true, value_name = "FILE")]
        out: String,
        /// Scales the segmentation's price of a protocol range (higher: fewer ranges)
        #[arg(long, value_name = "X")]
        penalty: Option<f64>,
        /// Bootstrap resamples for the intervals
        #[arg(long, value_name = "N")]
        bootstrap: Option<usize>,
        /// Relative noise floor of the change detection
        #[arg(long, value_name = "F")]
        rel_floor: Option<f64>,
        /// Absolute noise floor, ns
        #[arg(long, value_name = "NS")]
        abs_floor_ns: Option<f64>,
        /// Seed of the bootstrap
        #[arg(long, value_name = "S")]
        seed: Option<u64>,
        /// How far the machine moves between runs (1σ on the log scale): one value for
        /// every parameter, or five for o_s,o_r,g,G,L (`loggp repeat` measures them)
        #[arg(long, value_name = "SD[,SD…]")]
        between_run: Option<String>,
        /// The probability the repeat-run intervals are built to cover
        #[arg(long, value_name = "P")]
        level: Option<f64>,
    },
    /// How well reports of repeated runs of one job agree: interval coverage, half-widths,
    /// diff's verdicts, switches, raw floors, and the between-run spread to refit with
    Repeat {
        #[arg(required = true, num_args = 2.., value_name = "REPORT")]
        reports: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// What moving a protocol switch would save this job, with the knob to set
    Advise {
        report: String,
        /// {"advice": [...], "notes": [...]}
        #[arg(long)]
        json: bool,
        /// Price the switch advice by measuring: run the given 2-rank command twice with a
        /// quick calibration, as the job ran and with the knob set so that every message
        /// of the job is eager (`-- mpirun -np 2 ./app`)
        #[arg(long)]
        measure: bool,
        /// With --measure: the launch command
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            requires = "measure"
        )]
        command: Vec<String>,
    },
    /// The measured parameters for a simulator: LogGOPSim's options or Netgauge's/CODES'
    /// per-size LogGP table
    Export {
        report: String,
        #[arg(long, value_parser = ["loggopsim", "netgauge"])]
        format: String,
        /// The peer class whose calibration to export
        #[arg(long, default_value = "intra_node", value_parser = ["intra_node", "inter_node"])]
        class: String,
    },
    /// The sampled calls as a timeline (Chrome trace JSON, for Perfetto or chrome://tracing)
    Trace {
        report: String,
        #[arg(short, long, value_name = "FILE")]
        output: String,
    },
    /// Print the report's JSON Schema (the contract the shim writes)
    Schema,
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions { shell: clap_complete::Shell },
}

/// Reads a report; a large one says so while it reads (over a second on a slow disk).
fn load(path: &str) -> Result<Report, String> {
    let big = std::fs::metadata(path)
        .map(|m| m.len() > 32 << 20)
        .unwrap_or(false);
    let t0 = std::time::Instant::now();
    if big {
        eprintln!("loggp: reading {path} …");
    }
    let r = read(path).map_err(|e| e.to_string())?;
    if big {
        eprintln!("loggp: read {path} in {:.1} s", t0.elapsed().as_secs_f64());
    }
    Ok(r)
}

/// Writes through a temporary file and a rename, as the shim does.
fn write_atomic(path: &std::path::Path, text: &str) -> Result<(), String> {
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("cannot write {}: {e}", path.display())
        })
}

fn non_negative(flag: &str, v: Option<f64>) -> Result<Option<f64>, String> {
    match v {
        Some(x) if !x.is_finite() || x < 0.0 => Err(format!("{flag} needs a non-negative number")),
        v => Ok(v),
    }
}

/// One report, or a set of rank files read as one job.
fn load_job(paths: &[String]) -> Result<Report, String> {
    if paths.len() == 1 && !std::path::Path::new(&paths[0]).is_dir() {
        return load(&paths[0]);
    }
    let mut files = vec![];
    for p in paths {
        for f in ranks::rank_files(p)? {
            files.push(load(&f)?);
        }
    }
    ranks::merge(files)
}

fn command(cmd: Cmd) -> Result<i32, String> {
    match cmd {
        Cmd::Show {
            paths,
            json,
            bins,
            matrix,
            csv: as_csv,
            table,
            out,
            explain,
        } => {
            let r = load_job(&paths)?;
            if as_csv {
                match (table, out) {
                    (Some(t), None) => print!("{}", csv::table(&r, &t).unwrap_or_default()),
                    (None, Some(dir)) => {
                        std::fs::create_dir_all(&dir)
                            .map_err(|e| format!("cannot create {dir}: {e}"))?;
                        for t in csv::TABLES {
                            let p = std::path::Path::new(&dir).join(format!("{t}.csv"));
                            write_atomic(&p, &csv::table(&r, t).unwrap_or_default())?;
                        }
                        eprintln!("loggp: {} tables in {dir}", csv::TABLES.len());
                    }
                    _ => Cli::command()
                        .error(
                            clap::error::ErrorKind::MissingRequiredArgument,
                            format!(
                                "--csv needs --table <{}> or -o <DIR> (not both)",
                                csv::TABLES.join("|")
                            ),
                        )
                        .exit(),
                }
            } else if json {
                let t = serde_json::to_string_pretty(&show::json_view(&r))
                    .map_err(|e| e.to_string())?;
                println!("{t}");
            } else {
                print!("{}", show::show_with(&r, bins, matrix));
                if explain {
                    print!("{}", show::explained(&r));
                }
            }
            Ok(0)
        }
        Cmd::Plot { report, out } => {
            let r = load(&report)?;
            std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {out}: {e}"))?;
            let figs = plot::figures(&r);
            for (name, svg) in &figs {
                write_atomic(&std::path::Path::new(&out).join(name), svg)?;
            }
            eprintln!("loggp: {} figure(s) in {out}", figs.len());
            Ok(0)
        }
        Cmd::Html { report, out } => {
            let r = load(&report)?;
            write_atomic(std::path::Path::new(&out), &html::page(&r))?;
            eprintln!("loggp: page written to {out}");
            Ok(0)
        }
        Cmd::Diff { a, b, json } => {
            let (ra, rb) = (load(&a)?, load(&b)?);
            if json {
                let v = diff::compare(&ra, &rb, &a, &b);
                println!(
                    "{}",
                    serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
                );
            } else {
                print!("{}", diff::diff(&ra, &rb, &a, &b));
            }
            Ok(0)
        }
        Cmd::Refit {
            report,
            out,
            penalty,
            bootstrap,
            rel_floor,
            abs_floor_ns,
            seed,
            between_run,
            level,
        } => {
            let mut r = load(&report)?;
            let mut s = loggp_model::Settings::for_report(&r);
            if let Some(v) = non_negative("--penalty", penalty)? {
                s.penalty_scale = v;
                s.resegment = true;
            }
            if let Some(n) = bootstrap {
                s.bootstrap = n.max(10);
            }
            if let Some(v) = non_negative("--rel-floor", rel_floor)? {
                s.rel_floor = v;
                s.resegment = true;
            }
            if let Some(v) = non_negative("--abs-floor-ns", abs_floor_ns)? {
                s.abs_floor_ns = v;
            }
            if let Some(v) = seed {
                s.seed = v;
            }
            if let Some(v) = between_run {
                let xs: Vec<f64> = v
                    .split(',')
                    .map(|x| x.trim().parse::<f64>())
                    .collect::<Result<_, _>>()
                    .ok()
                    .filter(|xs: &Vec<f64>| xs.iter().all(|x| x.is_finite() && *x >= 0.0))
                    .ok_or_else(|| {
                        format!(
                            "--between-run {v:?}: one or five non-negative numbers (o_s,o_r,g,G,L)"
                        )
                    })?;
                s.between_run = match xs.len() {
                    1 => [xs[0]; 5],
                    5 => [xs[0], xs[1], xs[2], xs[3], xs[4]],
                    _ => {
                        return Err(format!(
                            "--between-run {v:?}: one or five numbers (o_s,o_r,g,G,L)"
                        ))
                    }
                };
            }
            if let Some(p) = level {
                if !(0.5..=0.999).contains(&p) {
                    return Err(format!("--level {p}: a probability from 0.5 to 0.999"));
                }
                s.repeat_level = p;
            }
            loggp_model::estimate(&mut r, &s);
            let text = serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?;
            write_atomic(std::path::Path::new(&out), &text)?;
            eprintln!("loggp: refitted {report} into {out}");
            Ok(0)
        }
        Cmd::Repeat { reports, json } => {
            let runs: Vec<Report> = reports.iter().map(|p| load(p)).collect::<Result<_, _>>()?;
            let v = loggp_tools::repeat::analyse(&runs);
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
                );
            } else {
                print!("{}", loggp_tools::repeat::text(&v));
            }
            Ok(0)
        }
        Cmd::Export {
            report,
            format,
            class,
        } => {
            let r = load(&report)?;
            let class = if class == "inter_node" {
                loggp_report::PeerClass::InterNode
            } else {
                loggp_report::PeerClass::IntraNode
            };
            let out = if format == "loggopsim" {
                loggp_tools::export::loggopsim(&r, class)?
            } else {
                loggp_tools::export::netgauge(&r, class)?
            };
            print!("{out}");
            Ok(0)
        }
        Cmd::Trace { report, output } => {
            let r = load(&report)?;
            let v = loggp_tools::trace::chrome(&r)?;
            let n = v["traceEvents"].as_array().map_or(0, |a| a.len());
            std::fs::write(&output, v.to_string()).map_err(|e| format!("{output}: {e}"))?;
            eprintln!("loggp: {n} trace events written to {output}");
            Ok(0)
        }
        Cmd::Advise {
            report,
            json,
            measure: true,
            command,
        } => {
            let r = load(&report)?;
            let cmd: Vec<String> = command.into_iter().skip_while(|a| a == "--").collect();
            let v = loggp_tools::measure::measure(&r, &cmd)?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
                );
            } else {
                print!("{}", loggp_tools::measure::text(&v));
            }
            Ok(0)
        }
        Cmd::Advise { report, json, .. } => {
            let r = load(&report)?;
            if json {
                println!("{}", advise::json(&r));
            } else {
                print!("{}", advise::text(&r));
            }
            Ok(0)
        }
        Cmd::Run { mpi, command } => {
            let mut args = vec![];
            if let Some(m) = mpi {
                args.extend(["--mpi".to_string(), m]);
            }
            args.push("--".into());
            args.extend(command.into_iter().skip_while(|a| a == "--"));
            run::run(&args)
        }
        Cmd::Schema => {
            println!("{}", loggp_report::schema_json());
            Ok(0)
        }
        Cmd::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "loggp", &mut std::io::stdout());
            Ok(0)
        }
    }
}

fn main() -> ExitCode {
    // A closed stdout (`loggp show r.json | head`) must not panic in print!.
    // SAFETY: restores the default SIGPIPE action, as C programs have it.
    unsafe { libc_sigpipe_default() };
    // Usage errors: clap's message and exit status 2; --help and --version: 0.
    let cli = Cli::parse();
    match command(cli.command) {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err(e) => {
            eprintln!("loggp: {e}");
            ExitCode::FAILURE
        }
    }
}

extern "C" {
    fn signal(sig: i32, handler: usize) -> usize;
}

unsafe fn libc_sigpipe_default() {
    // SIGPIPE = 13 on Linux, SIG_DFL = 0.
    signal(13, 0);
}
