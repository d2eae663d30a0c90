//! `loggp`: launches a profiled job and reads loggp reports; needs no MPI.
use loggp_report::{read, Report};
use loggp_tools::{advise, diff, html, plot, ranks, run, show};
use std::process::ExitCode;

const USAGE: &str = "usage:
  loggp run [--mpi openmpi|mpich] -- <launcher> <app…>   run a job with the shim, print where the report went
  loggp show <report.json> [--json] [--bins]             tables: LogGP parameters, thresholds, MPI − raw, ranks
  loggp show <dir | a.rank0.json a.rank1.json …>         a job's rank files (interim or partial) as one job
  loggp plot <report.json> -o <dir>                      SVG figures
  loggp diff <a.json> <b.json>                           two reports side by side with the relative change
  loggp html <report.json> -o <file.html>                one self-contained page, tables and figures
  loggp refit <report.json> -o <new.json> [--penalty X] [--bootstrap N] [--rel-floor F]
              [--abs-floor-ns F] [--seed S]              redo the estimates from the stored measurements
  loggp advise <report.json> [--json]                    what moving a protocol switch would save this job";

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

fn out_arg(args: &[String]) -> Result<String, String> {
    args.iter()
        .position(|a| a == "-o")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .ok_or_else(|| "-o <path> is required".into())
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

/// The model's settings for `refit`: the report's own defaults, then the options.
fn refit_settings(r: &Report, args: &[String]) -> Result<loggp_model::Settings, String> {
    let mut s = loggp_model::Settings::for_report(r);
    let value = |flag: &str| -> Result<Option<f64>, String> {
        match args.iter().position(|a| a == flag) {
            None => Ok(None),
            Some(i) => args
                .get(i + 1)
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v >= 0.0)
                .map(Some)
                .ok_or_else(|| format!("{flag} needs a non-negative number")),
        }
    };
    if let Some(v) = value("--penalty")? {
        s.penalty_scale = v;
    }
    if let Some(v) = value("--bootstrap")? {
        s.bootstrap = (v as usize).max(10);
    }
    if let Some(v) = value("--rel-floor")? {
        s.rel_floor = v;
    }
    if let Some(v) = value("--abs-floor-ns")? {
        s.abs_floor_ns = v;
    }
    if let Some(v) = value("--seed")? {
        s.seed = v as u64;
    }
    Ok(s)
}

/// Options that take a value: their values are not positional arguments.
const VALUED: [&str; 6] = [
    "-o",
    "--penalty",
    "--bootstrap",
    "--rel-floor",
    "--abs-floor-ns",
    "--seed",
];

fn command(args: &[String]) -> Result<i32, String> {
    let pos: Vec<&String> = args
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(i, a)| !a.starts_with('-') && !VALUED.contains(&args[i - 1].as_str()))
        .map(|(_, a)| a)
        .collect();
    match args.first().map(String::as_str) {
        Some("show") if !pos.is_empty() => {
            let r = if pos.len() == 1 && !std::path::Path::new(pos[0]).is_dir() {
                load(pos[0])?
            } else {
                let mut files = vec![];
                for p in &pos {
                    for f in ranks::rank_files(p)? {
                        files.push(load(&f)?);
                    }
                }
                ranks::merge(files)?
            };
            if args.iter().any(|a| a == "--json") {
                let t = serde_json::to_string_pretty(&show::json_view(&r))
                    .map_err(|e| e.to_string())?;
                println!("{t}");
            } else {
                print!("{}", show::show(&r, args.iter().any(|a| a == "--bins")));
            }
            Ok(0)
        }
        Some("plot") if !pos.is_empty() => {
            let dir = out_arg(args)?;
            let r = load(pos[0])?;
            std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {dir}: {e}"))?;
            let figs = plot::figures(&r);
            for (name, svg) in &figs {
                write_atomic(&std::path::Path::new(&dir).join(name), svg)?;
            }
            eprintln!("loggp: {} figure(s) in {dir}", figs.len());
            Ok(0)
        }
        Some("html") if !pos.is_empty() => {
            let file = out_arg(args)?;
            let r = load(pos[0])?;
            write_atomic(std::path::Path::new(&file), &html::page(&r))?;
            eprintln!("loggp: page written to {file}");
            Ok(0)
        }
        Some("diff") if pos.len() >= 2 => {
            let (a, b) = (load(pos[0])?, load(pos[1])?);
            print!("{}", diff::diff(&a, &b, pos[0], pos[1]));
            Ok(0)
        }
        Some("refit") if !pos.is_empty() => {
            let file = out_arg(args)?;
            let mut r = load(pos[0])?;
            let s = refit_settings(&r, args)?;
            loggp_model::estimate(&mut r, &s);
            let text = serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?;
            write_atomic(std::path::Path::new(&file), &text)?;
            eprintln!("loggp: refitted {} into {file}", pos[0]);
            Ok(0)
        }
        Some("advise") if !pos.is_empty() => {
            let r = load(pos[0])?;
            if args.iter().any(|a| a == "--json") {
                println!("{}", advise::json(&r));
            } else {
                print!("{}", advise::text(&r));
            }
            Ok(0)
        }
        Some("run") => run::run(&args[1..]),
        Some("-h") | Some("--help") | Some("help") => {
            println!("{USAGE}");
            Ok(0)
        }
        _ => {
            eprintln!("{USAGE}");
            Ok(2)
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // A closed stdout (`loggp show r.json | head`) must not panic in print!.
    // SAFETY: restores the default SIGPIPE action, as C programs have it.
    unsafe { libc_sigpipe_default() };
    match command(&args) {
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
