//! The function table (`src/table/`) against the built libraries (issue 23): for every
//! row, each MPI's shim exports the C symbol and the Fortran symbols of its bindings
//! (Open MPI: mpi_x_, mpi_x__, mpi_x, MPI_X, ompi_x_f; MPICH: mpi_x_f08ts_ or
//! mpi_x_f08_), rows under a cfg exactly where that MPI's library has the PMPI_ function,
//! each Fortran entry point's routine exists in the MPI's Fortran library; and no MPI entry
//! point is exported that the table does not list.
mod common;
use common::{root, Mpi};
use std::collections::BTreeSet;
use std::process::Command;

/// One row as the table writes it.
#[derive(Debug)]
struct Row {
    name: String,
    cfg: Option<String>,
    /// Short name and style (`ts` / `plain`).
    fortran: Option<(String, String)>,
}

/// Reads the rows from the table's source (independently of the macros that consume it).
fn rows() -> Vec<Row> {
    let text: String = ["p2p.rs", "coll.rs", "rma.rs", "io.rs"]
        .iter()
        .map(|f| std::fs::read_to_string(root().join("src/table").join(f)).unwrap())
        .collect();
    let mut rows: Vec<Row> = Vec::new();
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with("MPI_") && l.contains("{ role:") {
            let name = l.split_whitespace().next().unwrap().to_string();
            let cfg = l
                .split("cfg: ")
                .nth(1)
                .map(|c| c.trim_end_matches(',').trim().to_string());
            rows.push(Row {
                name,
                cfg,
                fortran: None,
            });
        } else if let Some(f) = l.strip_prefix("fortran: ") {
            let mut w = f.split_whitespace();
            let (short, style) = (w.next().unwrap(), w.next().unwrap());
            rows.last_mut().unwrap().fortran = Some((short.into(), style.into()));
        }
    }
    rows
}

fn defined_symbols(lib: &std::path::Path) -> BTreeSet<String> {
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(lib)
        .output()
        .expect("nm (binutils)");
    assert!(out.status.success(), "nm -D {}", lib.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(|s| s.split('@').next().unwrap().to_string())
        .collect()
}

/// The libmpi the shim links, as the dynamic linker resolves it.
fn libmpi(shim: &std::path::Path) -> std::path::PathBuf {
    let out = Command::new("ldd").arg(shim).output().expect("ldd");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let path = text
        .lines()
        .find(|l| {
            l.trim_start().starts_with("libmpi.so") || l.trim_start().starts_with("libmpich.so")
        })
        .and_then(|l| l.split("=>").nth(1))
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no libmpi in ldd {}:\n{text}", shim.display()));
    path.into()
}

/// Whether a row's cfg holds for this MPI: its PMPI_ functions exist in its library.
fn cfg_holds(cfg: &str, mpi_syms: &BTreeSet<String>) -> bool {
    let has = |flag: &str| match flag.trim() {
        "mpi_large_count" => mpi_syms.contains("PMPI_Send_c"),
        "mpi_isendrecv" => mpi_syms.contains("PMPI_Isendrecv"),
        "mpi_persistent_coll" => mpi_syms.contains("PMPI_Allreduce_init"),
        other => panic!("a cfg this test does not know: {other}"),
    };
    match cfg.strip_prefix("all(").and_then(|c| c.strip_suffix(')')) {
        Some(list) => list.split(',').all(has),
        None => has(cfg),
    }
}

fn expected_fortran(mpi: Mpi, short: &str, style: &str) -> Vec<String> {
    match mpi {
        // `procarg`, `f08direct`: Open MPI's `use mpi_f08` routine calls `pmpi_x_`, past the
        // others.
        Mpi::OpenMpi => [
            format!("mpi_{short}_"),
            format!("mpi_{short}__"),
            format!("mpi_{short}"),
            format!("MPI_{}", short.to_uppercase()),
            format!("ompi_{short}_f"),
        ]
        .into_iter()
        .chain(matches!(style, "procarg" | "f08direct").then(|| format!("mpi_{short}_f08_")))
        .collect(),
        Mpi::Mpich => vec![match style {
            "ts" => format!("mpi_{short}_f08ts_"),
            _ => format!("mpi_{short}_f08_"),
        }],
    }
}

/// The MPI's Fortran library beside its libmpi (Open MPI's `mpif.h` and `use mpi`
/// routines, MPICH's `use mpi_f08` ones), whose routines the shim's Fortran entry points
/// call.
fn fortran_library(libmpi: &std::path::Path) -> std::path::PathBuf {
    let prefix = if libmpi.to_string_lossy().contains("mpich") {
        "libmpichfort.so"
    } else {
        "libmpi_mpifh.so"
    };
    let dir = libmpi.parent().unwrap();
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
        })
        .unwrap_or_else(|| panic!("no {prefix}* in {}", dir.display()))
}

/// The routine a Fortran entry point calls (`entry::fortran`): Open MPI's `pmpi_x_`,
/// MPICH's `use mpi_f08` routine.
fn forwarded_to(mpi: Mpi, short: &str, style: &str) -> String {
    match mpi {
        Mpi::OpenMpi => format!("pmpi_{short}_"),
        Mpi::Mpich => expected_fortran(mpi, short, style).remove(0),
    }
}

fn check(mpi: Mpi) {
    let shim = mpi.shim();
    let syms = defined_symbols(&shim);
    let mpi_syms = defined_symbols(&libmpi(&shim));
    let fortran_syms = defined_symbols(&fortran_library(&libmpi(&shim)));
    let rows = rows();
    assert!(rows.len() >= 40, "the table's rows were not read: {rows:?}");
    let mut expected = BTreeSet::new();
    let mut missing = Vec::new();
    for r in &rows {
        let present = r.cfg.as_deref().is_none_or(|c| cfg_holds(c, &mpi_syms));
        let mut want = vec![r.name.clone()];
        if let Some((short, style)) = &r.fortran {
            want.extend(expected_fortran(mpi, short, style));
            // A style the MPI does not have would make the entry point fail every call
            // with MPI_ERR_OTHER (`entry::fortran::missing`).
            let target = forwarded_to(mpi, short, style);
            if present && !fortran_syms.contains(&target) {
                missing.push(format!("{target} (the routine {} forwards to)", r.name));
            }
        }
        for s in want {
            if present && !syms.contains(&s) {
                missing.push(s.clone());
            }
            if !present && syms.contains(&s) {
                missing.push(format!(
                    "{s} (exported, but {} has no such function)",
                    mpi.name()
                ));
            }
            expected.insert(s);
        }
    }
    assert!(missing.is_empty(), "{}: {missing:?}", mpi.name());
    // No MPI entry point outside the table.
    let entry = |s: &str| {
        s.starts_with("MPI_")
            || (s.starts_with("mpi_") && !s.starts_with("mpi_functions"))
            || (s.starts_with("ompi_") && s.ends_with("_f"))
    };
    let extra: Vec<&String> = syms
        .iter()
        .filter(|s| entry(s) && !expected.contains(*s))
        .collect();
    assert!(
        extra.is_empty(),
        "{}: exported but not in the table: {extra:?}",
        mpi.name()
    );
}

#[test]
fn openmpi_shim_exports_every_row() {
    check(Mpi::OpenMpi);
}

#[test]
fn mpich_shim_exports_every_row() {
    check(Mpi::Mpich);
}

/// The reading of the table can fail: a row whose symbol the library lacks is reported.
#[test]
fn a_missing_symbol_is_reported() {
    let syms: BTreeSet<String> = ["MPI_Send".to_string()].into();
    let rows = rows();
    let absent: Vec<&Row> = rows
        .iter()
        .filter(|r| r.cfg.is_none() && !syms.contains(&r.name))
        .collect();
    assert!(absent.iter().any(|r| r.name == "MPI_Recv"));
    assert!(rows.iter().any(|r| r
        .fortran
        .as_ref()
        .is_some_and(|f| f.0 == "send" && f.1 == "ts")));
}
