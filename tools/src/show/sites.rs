//! Call sites symbolized: each address of the report's `call_sites` turned into function,
//! file and line with the object's own DWARF (addr2line, gimli), on the machine that
//! reads the report. Where the file is missing, differs from the one that ran (build
//! id), or has no debug information, the site keeps its object and address and says why.
use crate::table::*;
use loggp_report::Report;
use serde::Serialize;
use std::collections::BTreeMap;

/// A call site as `show` prints it and `show --json` carries it.
#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct Resolved {
    pub function: String,
    /// The enclosing function of the call (demangled), where known.
    pub symbol: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub object: String,
    pub address: u64,
    pub count: u64,
    pub bytes: u64,
    pub time_ns: f64,
    pub ranks: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Libraries whose frames are an MPI binding, not the application: a call site there
/// is the binding's own call into the C MPI_ symbol.
const BINDINGS: [(&str, &str); 6] = [
    ("libmpifort", "MPICH's Fortran binding"),
    ("libmpichfort", "MPICH's Fortran binding"),
    ("libmpi_mpifh", "Open MPI's Fortran binding"),
    ("libmpi_usempi", "Open MPI's Fortran binding"),
    ("MPI.cpython", "mpi4py"),
    ("libmpi.so", "the MPI library itself"),
];

struct Object {
    loader: Option<addr2line::Loader>,
    why: Option<String>,
    /// The object's function symbols with a size, `[start, end)` and name, sorted: a
    /// name is given only to an address inside its symbol. The nearest symbol before an
    /// address is no name for it where the object is stripped: mpi4py's module exports
    /// one symbol, PyInit_MPI, and every call site of it was named so.
    extents: Vec<(u64, u64, String)>,
}

impl Object {
    /// The symbol whose extent holds `probe`, demangled.
    fn symbol_at(&self, probe: u64) -> Option<String> {
        let i = self.extents.partition_point(|e| e.0 <= probe);
        let (start, end, name) = self.extents.get(i.checked_sub(1)?)?;
        (*start <= probe && probe < *end)
            .then(|| addr2line::demangle_auto(name.as_str().into(), None).into_owned())
    }
}

/// The function symbols of `file` with a size, from its symbol table and its dynamic
/// one, sorted by start.
fn extents(file: &object::File) -> Vec<(u64, u64, String)> {
    use object::{Object as _, ObjectSymbol as _, SymbolKind};
    let mut v: Vec<(u64, u64, String)> = file
        .symbols()
        .chain(file.dynamic_symbols())
        .filter(|s| s.kind() == SymbolKind::Text && s.size() > 0 && s.address() > 0)
        .filter_map(|s| {
            Some((
                s.address(),
                s.address() + s.size(),
                s.name().ok()?.to_string(),
            ))
        })
        .collect();
    v.sort();
    v.dedup_by_key(|e| e.0);
    v
}

fn open(path: &str, build_id: Option<&str>) -> Object {
    let data = match std::fs::read(path) {
        Ok(d) => d,
        Err(e) => {
            return Object {
                loader: None,
                why: Some(format!("{path}: {e} (symbolize on a machine that has it)")),
                extents: vec![],
            }
        }
    };
    use object::Object as _;
    let parsed = object::File::parse(&*data).ok();
    let here = parsed.as_ref().and_then(|f| {
        f.build_id()
            .ok()
            .flatten()
            .map(|b| b.iter().map(|x| format!("{x:02x}")).collect::<String>())
    });
    if let (Some(want), Some(have)) = (build_id, here.as_deref()) {
        if want != have {
            return Object {
                loader: None,
                why: Some(format!(
                    "{path} differs from the file that ran (build id {have}, not {want})"
                )),
                extents: vec![],
            };
        }
    }
    let extents = parsed.as_ref().map(extents).unwrap_or_default();
    match addr2line::Loader::new(path) {
        Ok(l) => Object {
            loader: Some(l),
            why: None,
            extents,
        },
        Err(e) => Object {
            loader: None,
            why: Some(format!("{path}: {e}")),
            extents,
        },
    }
}

/// Every call site of the report, resolved, the most time first.
pub fn resolve(r: &Report) -> Vec<Resolved> {
    let cs = &r.call_sites;
    let mut cache: BTreeMap<u32, Object> = BTreeMap::new();
    let mut out: Vec<Resolved> = cs
        .sites
        .iter()
        .map(|s| {
            let obj = cs.objects.get(s.object as usize);
            let path = obj.map(|o| o.path.clone()).unwrap_or_default();
            let mut v = Resolved {
                function: s.function.clone(),
                object: path.clone(),
                address: s.address,
                count: s.count,
                bytes: s.bytes,
                time_ns: s.time_ns,
                ranks: s.ranks,
                ..Default::default()
            };
            let Some(o) = obj else {
                v.note = Some("in no loaded object".into());
                return v;
            };
            let h = cache
                .entry(s.object)
                .or_insert_with(|| open(&o.path, o.build_id.as_deref()));
            if let Some(l) = &h.loader {
                // The return address follows the call: its last byte is the call's.
                let probe = s.address.saturating_sub(1);
                if let Ok(Some(loc)) = l.find_location(probe) {
                    v.file = loc.file.map(str::to_string);
                    v.line = loc.line;
                }
                v.symbol = h.symbol_at(probe);
                if v.line.is_none() {
                    v.note = Some("no line: the object has no debug information there (build with -g)".into());
                }
            } else {
                v.note = h.why.clone();
            }
            if let Some((_, what)) = BINDINGS.iter().find(|(k, _)| path.contains(k)) {
                v.note = Some(format!(
                    "in {what}: the application's own line is its caller's, which loggp does not see past"
                ));
            }
            v
        })
        .collect();
    out.sort_by(|a, b| b.time_ns.total_cmp(&a.time_ns));
    out
}

/// One address of an object, as a table shows it: `file:line (function)` where the
/// object's DWARF says, else `object+0xaddress`.
pub fn symbolize(path: &str, build_id: Option<&str>, address: u64) -> String {
    let short = path.rsplit('/').next().unwrap_or(path);
    let fallback = format!("{short}+{address:#x}");
    let o = open(path, build_id);
    let Some(l) = &o.loader else { return fallback };
    let probe = address.saturating_sub(1);
    let symbol = o.symbol_at(probe);
    match l.find_location(probe) {
        Ok(Some(loc)) if loc.line.is_some() => format!(
            "{}:{}{}",
            loc.file.unwrap_or("?").rsplit('/').next().unwrap_or("?"),
            loc.line.unwrap_or(0),
            symbol.map(|s| format!(" ({s})")).unwrap_or_default()
        ),
        _ => symbol
            .map(|s| format!("{fallback} ({s})"))
            .unwrap_or(fallback),
    }
}

/// The top call sites by time, as mpiP lists them.
pub fn top_table(r: &Report, n: usize) -> Option<Table> {
    let sites = resolve(r);
    if sites.is_empty() {
        return None;
    }
    let mut t = Table::new(
        format!(
            "top call sites by time ({} of {})",
            sites.len().min(n),
            sites.len()
        ),
        &["function", "where", "calls", "bytes", "time", "ranks"],
    );
    for s in sites.iter().take(n) {
        let place = match (&s.file, s.line) {
            (Some(f), Some(l)) => format!(
                "{}{}:{l}",
                s.symbol
                    .as_deref()
                    .map(|x| format!("{x} "))
                    .unwrap_or_default(),
                std::path::Path::new(f)
                    .file_name()
                    .map(|x| x.to_string_lossy().into_owned())
                    .unwrap_or_else(|| f.clone())
            ),
            _ => format!(
                "{}+{:#x}{}",
                std::path::Path::new(&s.object)
                    .file_name()
                    .map(|x| x.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                s.address,
                s.symbol
                    .as_deref()
                    .map(|x| format!(" ({x})"))
                    .unwrap_or_default()
            ),
        };
        t.row(vec![
            s.function.clone(),
            place,
            s.count.to_string(),
            s.bytes.to_string(),
            fmt_ns(Some(s.time_ns)),
            s.ranks.to_string(),
        ]);
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An address gets the name of the symbol whose extent holds it, and none past every
    /// extent (a stripped object's one exported symbol is no name for its other code).
    #[test]
    fn a_symbol_names_only_the_addresses_inside_it() {
        let o = Object {
            loader: None,
            why: None,
            extents: vec![
                (0x1000, 0x1080, "main".into()),
                (0x2000, 0x2010, "_ZN4demo4stepEv".into()),
            ],
        };
        assert_eq!(o.symbol_at(0x1000).as_deref(), Some("main"));
        assert_eq!(o.symbol_at(0x107f).as_deref(), Some("main"));
        assert_eq!(o.symbol_at(0x1080), None);
        assert_eq!(o.symbol_at(0x0fff), None);
        assert_eq!(o.symbol_at(0x2004).as_deref(), Some("demo::step()"));
        assert_eq!(o.symbol_at(0xe27d0), None);
    }

    /// On a real object: this test binary's own function holds its own address.
    #[test]
    fn extents_are_read_from_a_real_object() {
        let exe = std::env::current_exe().unwrap();
        let data = std::fs::read(&exe).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let v = extents(&file);
        assert!(v.len() > 100, "{} symbols", v.len());
        assert!(v.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(v.iter().all(|(s, e, _)| s < e));
    }
}
