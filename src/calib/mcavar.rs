//! Open MPI's own variable registry (opal's `mca_base_var`, which libopen-pal exports and
//! MPI_T reads from), read in place of an MPI_T session where this Open MPI has it.
//!
//! Why: Open MPI 4.1's first MPI_T session (MPI_T_init_thread) registers every
//! framework's variables, opening each of its 120 components here: 205–207 ms on this
//! machine. loggp needs a few variables of frameworks MPI_Init has already opened (the
//! btl's eager limits, the coll selection and coll tuned's rules), which the registry
//! holds from MPI_Init on: read there, all of them took 0.1–0.25 ms (2 ranks, ob1 and pml
//! ucx alike). The values are the ones MPI_T reports, which reads the same registry
//! (ompi/mpi/tool/cvar_read.c).
//!
//! Two functions, looked up by name (`dlsym`), with the prototypes of
//! opal/mca/base/mca_base_var.h, unchanged since Open MPI 1.9: `mca_base_var_find_by_name`
//! and `mca_base_var_dump`, whose parsable form prints each variable as lines
//! `mca:<framework>:<component>:param:<name>:value:<v>` (an enumerator's label for `v`,
//! with a line `…:enumerator:value:<n>:<label>` for each label; `true`/`false` for a
//! boolean). Where either is missing (another MPI, or an Open MPI without them), the
//! caller opens MPI_T as before.
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int};
use std::sync::OnceLock;

type FindByName = unsafe extern "C" fn(full_name: *const c_char, vari: *mut c_int) -> c_int;
type Dump = unsafe extern "C" fn(vari: c_int, out: *mut *mut *mut c_char, kind: c_int) -> c_int;

/// `MCA_BASE_VAR_DUMP_PARSABLE` of `mca_base_var_dump_type_t`.
const DUMP_PARSABLE: c_int = 1;

/// OPAL_SUCCESS.
const OPAL_SUCCESS: c_int = 0;

struct Registry {
    find_by_name: FindByName,
    dump: Dump,
}

/// The registry's two functions, if this process has them (looked up once).
fn registry() -> Option<&'static Registry> {
    static R: OnceLock<Option<Registry>> = OnceLock::new();
    R.get_or_init(|| {
        let sym = |name: &CStr| {
            // SAFETY: dlsym with a NUL-terminated name; RTLD_DEFAULT searches the
            // process's global scope, where libopen-pal lies as libmpi's dependency.
            let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
            (!p.is_null()).then_some(p)
        };
        let find = sym(c"mca_base_var_find_by_name")?;
        let dump = sym(c"mca_base_var_dump")?;
        // SAFETY: the symbols are opal's functions of these prototypes (see the module's
        // doc), found only in an Open MPI's libopen-pal.
        Some(unsafe {
            Registry {
                find_by_name: std::mem::transmute::<*mut libc::c_void, FindByName>(find),
                dump: std::mem::transmute::<*mut libc::c_void, Dump>(dump),
            }
        })
    })
    .as_ref()
}

/// Whether the registry can be read (Open MPI with opal's functions exported;
/// `LOGGP_INJECT_FAULT=mca_registry` takes them as missing, so that the tests reach the
/// MPI_T session the shim falls back to).
pub fn available() -> bool {
    crate::base::mpi::FLAVOR == "openmpi"
        && !crate::base::settings::inject("mca_registry")
        && registry().is_some()
}

/// A variable as the registry prints it: its value, and its enumerator's labels.
#[derive(Debug, Default, PartialEq)]
pub struct Var {
    pub value: String,
    pub labels: Vec<(i64, String)>,
}

impl Var {
    /// The value as an integer: a number, a boolean (1 or 0), or an enumerator's label
    /// (its number), as MPI_T reads it.
    pub fn int(&self) -> Option<i64> {
        let v = self.value.trim();
        if let Ok(n) = v.parse::<i64>() {
            return Some(n);
        }
        match v {
            "true" => return Some(1),
            "false" => return Some(0),
            _ => {}
        }
        self.labels.iter().find(|(_, l)| l == v).map(|(n, _)| *n)
    }
}

/// Reads one variable by its full name (`btl_vader_eager_limit`); None where the
/// registry has no such variable (its component was never registered) or cannot be
/// read.
pub fn read(name: &str) -> Option<Var> {
    if !available() {
        return None;
    }
    let r = registry()?;
    let cname = CString::new(name).ok()?;
    let mut vari: c_int = -1;
    // SAFETY: a NUL-terminated name and an int for the index.
    if unsafe { (r.find_by_name)(cname.as_ptr(), &mut vari) } != OPAL_SUCCESS || vari < 0 {
        return None;
    }
    let mut out: *mut *mut c_char = std::ptr::null_mut();
    // SAFETY: `out` receives a calloc'd, null-terminated array of malloc'd strings.
    if unsafe { (r.dump)(vari, &mut out, DUMP_PARSABLE) } != OPAL_SUCCESS || out.is_null() {
        return None;
    }
    let mut lines = vec![];
    // SAFETY: walks the array to its null entry, copying each string, and frees what
    // mca_base_var_dump allocated with the C library's free, as its callers do.
    unsafe {
        let mut i = 0;
        loop {
            let s = *out.add(i);
            if s.is_null() {
                break;
            }
            lines.push(CStr::from_ptr(s).to_string_lossy().into_owned());
            libc::free(s as *mut libc::c_void);
            i += 1;
        }
        libc::free(out as *mut libc::c_void);
    }
    parse(&lines)
}

/// The value and labels in a parsable dump (see the module's doc).
fn parse(lines: &[String]) -> Option<Var> {
    let mut var: Option<Var> = None;
    let mut labels = vec![];
    for line in lines {
        // `…:param:<name>:<key>`: the name has no ':', a value may.
        let Some((_, rest)) = line.split_once(":param:") else {
            continue;
        };
        let Some((_, key)) = rest.split_once(':') else {
            continue;
        };
        if let Some(v) = key.strip_prefix("value:") {
            var.get_or_insert_with(Var::default).value = v.to_string();
        } else if let Some(e) = key.strip_prefix("enumerator:value:") {
            if let Some((n, label)) = e.split_once(':') {
                if let Ok(n) = n.parse::<i64>() {
                    labels.push((n, label.to_string()));
                }
            }
        }
    }
    var.map(|v| Var { labels, ..v })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A variable parsed from its dump's lines.
    fn var(v: &[&str]) -> Var {
        parse(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap_or_default()
    }

    /// As Open MPI 4.1.4 printed them here (2 ranks, `--mca coll_tuned_allreduce_algorithm
    /// ring`).
    #[test]
    fn reads_numbers_booleans_labels_and_strings_as_mpi_t_would() {
        let p = "mca:coll:tuned:param:coll_tuned";
        let eager = var(&[
            "mca:btl:vader:param:btl_vader_eager_limit:value:4096",
            "mca:btl:vader:param:btl_vader_eager_limit:source:default",
        ]);
        assert_eq!(eager.int(), Some(4096));
        let dynamic = var(&[
            &format!("{p}_use_dynamic_rules:value:true"),
            &format!("{p}_use_dynamic_rules:enumerator:value:0:false"),
            &format!("{p}_use_dynamic_rules:enumerator:value:1:true"),
        ]);
        assert_eq!(dynamic.int(), Some(1));
        let forced = var(&[
            &format!("{p}_allreduce_algorithm:value:ring"),
            &format!("{p}_allreduce_algorithm:enumerator:value:0:ignore"),
            &format!("{p}_allreduce_algorithm:enumerator:value:4:ring"),
        ]);
        assert_eq!(forced.int(), Some(4));
        let btl = var(&[
            "mca:btl:base:param:btl:value:^uct,openib,ofi",
            "mca:btl:base:param:btl:source:file (/etc/openmpi/openmpi-mca-params.conf:68)",
        ]);
        assert_eq!((btl.value.as_str(), btl.int()), ("^uct,openib,ofi", None));
        assert_eq!(var(&["mca:coll:base:param:coll:value:"]).value, "");
        assert_eq!(parse(&["nothing here".to_string()]), None);
    }
}
