//! The setting that governs each measured switch, read from the component that carries
//! the pair's traffic — never a variable of a component that is not in use.
//!
//! * Open MPI: the selected pml is found from the module itself: `mca_pml` (libmpi's
//!   selected module) starts with the component's `add_procs`, and `dladdr` names the
//!   shared object that holds it (`mca_pml_ob1.so`, `mca_pml_ucx.so`). With ob1, the btl
//!   for the peer class and its eager limit come from its control variables (see
//!   `mpit`); with ucx, from UCX.
//! * MPICH: Debian's build is ch4:ucx; UCX is in use when libucp is loaded in the process.
//! * UCX: its effective configuration as UCX itself reports it (`ucp_config_read` and
//!   `ucp_config_print`, the routine behind `ucx_info -c`), so environment variables and
//!   configuration files are both taken into account. A blocking send of Open MPI's pml ucx
//!   goes through `ucp_tag_send_nbr`, switched by the smaller of `UCX_RNDV_SEND_NBR_THRESH`
//!   and `UCX_RNDV_THRESH`; every other send by `UCX_RNDV_THRESH` ("auto": UCX derives it
//!   per transport).
use crate::base::mpi;
use loggp_report::{Mode, PeerClass, Setting};
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};

/// The pml Open MPI selected ("ob1", "ucx", "cm"), from the module's own code address.
pub fn openmpi_pml() -> Option<String> {
    // SAFETY: dlsym of a data symbol of the already loaded libmpi; the module's first
    // member is a function pointer (mca_pml_base_module_t::pml_add_procs), read once.
    unsafe {
        let sym = libc::dlsym(libc::RTLD_DEFAULT, c"mca_pml".as_ptr());
        if sym.is_null() {
            return None;
        }
        let add_procs = *(sym as *const *const c_void);
        if add_procs.is_null() {
            return None;
        }
        let mut info: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(add_procs, &mut info) == 0 {
            return None;
        }
        let names = [info.dli_fname, info.dli_sname]
            .iter()
            .filter(|p| !p.is_null())
            .map(|p| CStr::from_ptr(*p).to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ");
        ["ucx", "ob1", "cm", "yalla"]
            .iter()
            .find(|c| names.contains(&format!("pml_{c}")))
            .map(|c| c.to_string())
    }
}

/// UCX's effective configuration, `NAME=value` lines, if libucp is loaded in this process.
pub fn ucx_config() -> Option<Vec<(String, String)>> {
    type Read = unsafe extern "C" fn(*const c_char, *const c_char, *mut *mut c_void) -> c_int;
    type Print = unsafe extern "C" fn(*const c_void, *mut libc::FILE, *const c_char, c_int);
    type Release = unsafe extern "C" fn(*mut c_void);
    // SAFETY: RTLD_NOLOAD only finds a libucp that the MPI already loaded; the three
    // functions have the signatures of ucp.h (UCX ≥ 1.0); the memory stream is ours.
    unsafe {
        let lib = ["libucp.so.0", "libucp.so"].iter().find_map(|n| {
            let c = CString::new(*n).ok()?;
            let h = libc::dlopen(c.as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD);
            (!h.is_null()).then_some(h)
        })?;
        let f = |n: &CStr| libc::dlsym(lib, n.as_ptr());
        let (r, p, rel) = (
            f(c"ucp_config_read"),
            f(c"ucp_config_print"),
            f(c"ucp_config_release"),
        );
        let mut out = None;
        if !r.is_null() && !p.is_null() && !rel.is_null() {
            let (read, print, release): (Read, Print, Release) = (
                std::mem::transmute::<*mut c_void, Read>(r),
                std::mem::transmute::<*mut c_void, Print>(p),
                std::mem::transmute::<*mut c_void, Release>(rel),
            );
            let mut cfg: *mut c_void = std::ptr::null_mut();
            if read(std::ptr::null(), std::ptr::null(), &mut cfg) == 0 && !cfg.is_null() {
                let mut buf: *mut c_char = std::ptr::null_mut();
                let mut len: libc::size_t = 0;
                let stream = libc::open_memstream(&mut buf, &mut len);
                if !stream.is_null() {
                    print(
                        cfg,
                        stream,
                        std::ptr::null(),
                        1, /* UCS_CONFIG_PRINT_CONFIG */
                    );
                    libc::fclose(stream);
                    if !buf.is_null() {
                        let text = String::from_utf8_lossy(std::slice::from_raw_parts(
                            buf as *const u8,
                            len,
                        ))
                        .into_owned();
                        libc::free(buf as *mut c_void);
                        out = Some(
                            text.lines()
                                .filter_map(|l| l.split_once('='))
                                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                                .collect(),
                        );
                    }
                }
                release(cfg);
            }
        }
        libc::dlclose(lib);
        out
    }
}

/// A UCX size as UCX prints it ("8K", "256K", "8192", "auto", "inf") in bytes.
pub fn ucx_bytes(v: &str) -> Option<i64> {
    let v = v.trim();
    let (num, mult) = match v.chars().last()? {
        'K' | 'k' => (&v[..v.len() - 1], 1i64 << 10),
        'M' | 'm' => (&v[..v.len() - 1], 1 << 20),
        'G' | 'g' => (&v[..v.len() - 1], 1 << 30),
        'b' | 'B' => (&v[..v.len() - 1], 1),
        _ => (v, 1),
    };
    num.parse::<i64>().ok().map(|n| n * mult)
}

/// The UCX setting of a send mode's switch under `component` ("pml ucx" or "ucx").
/// Measured here (Open MPI 4.1.4, UCX 1.13): a blocking send of pml ucx switches at the
/// smaller of `UCX_RNDV_SEND_NBR_THRESH` (256K) and a numeric `UCX_RNDV_THRESH`
/// (16384 → 16383); every other send follows `UCX_RNDV_THRESH`.
pub fn ucx_setting(cfg: &[(String, String)], component: &str, mode: Mode) -> Setting {
    let get = |name: &str| {
        cfg.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let thresh = get("UCX_RNDV_THRESH");
    let nbr = get("UCX_RNDV_SEND_NBR_THRESH");
    let blocking_nbr = component == "pml ucx" && mode == Mode::Send;
    let use_nbr = blocking_nbr
        && match (ucx_bytes(&thresh), ucx_bytes(&nbr)) {
            (Some(t), Some(b)) => b <= t,
            (None, _) => true,
            _ => false,
        };
    let (name, text) = if use_nbr {
        ("UCX_RNDV_SEND_NBR_THRESH", nbr.clone())
    } else {
        ("UCX_RNDV_THRESH", thresh.clone())
    };
    let value = ucx_bytes(&text);
    let mut notes = vec![];
    if value.is_none() {
        notes.push(if text == "auto" {
            "auto: UCX derives the switch per transport from its own performance estimates"
                .to_string()
        } else if text.is_empty() {
            format!("{name} is not in UCX's configuration here")
        } else {
            format!("{text}: not a size")
        });
    }
    if blocking_nbr {
        notes.push(format!(
            "blocking sends of Open MPI's pml ucx (ucp_tag_send_nbr) switch at the smaller of UCX_RNDV_SEND_NBR_THRESH ({nbr}) and UCX_RNDV_THRESH ({thresh})"
        ));
    }
    Setting {
        component: component.into(),
        name: name.into(),
        value,
        text,
        source: "UCX configuration (ucp_config_print)".into(),
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    }
}

/// The component that carries this job's point-to-point traffic, as named in settings.
pub fn transport_component() -> Option<String> {
    if mpi::FLAVOR == "openmpi" {
        match openmpi_pml()?.as_str() {
            "ucx" => Some("pml ucx".into()),
            other => Some(format!("pml {other}")),
        }
    } else {
        ucx_config().map(|_| "ucx".into())
    }
}

/// Per (peer class, mode): the setting of the component in use, read on rank 0 at
/// MPI_Finalize (MPI_T sessions are not free; see `mpit`). None where nothing can be read,
/// with the reason.
pub fn settings_in_use(keys: &[(PeerClass, Mode)]) -> Vec<Result<Setting, String>> {
    let component = transport_component();
    match component.as_deref() {
        Some("pml ucx") | Some("ucx") => {
            let c = component.unwrap_or_default();
            match ucx_config() {
                Some(cfg) => keys
                    .iter()
                    .map(|&(_, m)| Ok(ucx_setting(&cfg, &c, m)))
                    .collect(),
                None => keys
                    .iter()
                    .map(|_| Err("UCX's configuration could not be read".into()))
                    .collect(),
            }
        }
        Some("pml ob1") => {
            let classes: Vec<PeerClass> = keys.iter().map(|k| k.0).collect();
            super::mpit::eager_limit_cvars(&classes)
                .into_iter()
                .map(|v| {
                    v.map(|(name, value)| Setting {
                        component: format!("pml ob1, btl {}", name.trim_start_matches("btl_").trim_end_matches("_eager_limit")),
                        name,
                        value: Some(value),
                        text: value.to_string(),
                        source: "MPI_T".into(),
                        note: Some("includes ob1's match header: the largest eager payload is a few tens of bytes less".into()),
                    })
                    .ok_or_else(|| "no btl eager limit readable through MPI_T".to_string())
                })
                .collect()
        }
        Some(other) => keys
            .iter()
            .map(|_| Err(format!("{other}: no switch setting known to loggp")))
            .collect(),
        None => keys
            .iter()
            .map(|_| {
                Err(if mpi::FLAVOR == "openmpi" {
                    "the selected pml could not be identified".into()
                } else {
                    "this MPICH does not run over UCX: its netmod's switch setting is not read"
                        .into()
                })
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ucx_sizes_and_the_blocking_send_knob() {
        assert_eq!(ucx_bytes("8K"), Some(8192));
        assert_eq!(ucx_bytes("256K"), Some(262144));
        assert_eq!(ucx_bytes("32768"), Some(32768));
        assert_eq!(ucx_bytes("auto"), None);
        assert_eq!(ucx_bytes("inf"), None);
        let cfg = vec![
            ("UCX_RNDV_THRESH".to_string(), "auto".to_string()),
            ("UCX_RNDV_SEND_NBR_THRESH".to_string(), "256K".to_string()),
        ];
        let s = ucx_setting(&cfg, "pml ucx", Mode::Send);
        assert_eq!(
            (s.name.as_str(), s.value),
            ("UCX_RNDV_SEND_NBR_THRESH", Some(262144))
        );
        let s = ucx_setting(&cfg, "pml ucx", Mode::Isend);
        assert_eq!(
            (s.name.as_str(), s.value, s.text.as_str()),
            ("UCX_RNDV_THRESH", None, "auto")
        );
        let s = ucx_setting(&cfg, "ucx", Mode::Send);
        assert_eq!(s.name, "UCX_RNDV_THRESH");
        // A numeric UCX_RNDV_THRESH below 256K governs pml ucx's blocking sends too.
        let cfg = vec![
            ("UCX_RNDV_THRESH".to_string(), "16K".to_string()),
            ("UCX_RNDV_SEND_NBR_THRESH".to_string(), "256K".to_string()),
        ];
        let s = ucx_setting(&cfg, "pml ucx", Mode::Send);
        assert_eq!((s.name.as_str(), s.value), ("UCX_RNDV_THRESH", Some(16384)));
    }
}
