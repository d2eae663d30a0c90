//! This rank's call sites for the report: each return address placed in the object the
//! dynamic linker loaded it from (dl_iterate_phdr: path, load bias, loaded segments, GNU
//! build id from the object's own notes in memory), and made relative to it, so that
//! ranks whose objects were loaded at other addresses add up and `loggp` can symbolize
//! them with the file.
use crate::base::funcs;
use crate::record::{sites, stats};
use loggp_report::{CallSite, CallSites, LoadedObject};
use std::collections::BTreeMap;
use std::ffi::CStr;
use std::os::raw::{c_int, c_void};

/// A loaded object: path, build id, load bias, and its loaded segments' address ranges.
struct Object {
    path: String,
    build_id: Option<String>,
    bias: u64,
    segments: Vec<(u64, u64)>,
}

const PT_LOAD: u32 = 1;
const PT_NOTE: u32 = 4;
const NT_GNU_BUILD_ID: u32 = 3;

/// The GNU build id in a PT_NOTE segment of `len` bytes at `at` (mapped memory).
///
/// SAFETY: `at..at+len` must be a loaded, readable note segment.
unsafe fn build_id(at: u64, len: u64) -> Option<String> {
    let mut off = 0u64;
    let word = |o: u64| unsafe { std::ptr::read_unaligned((at + o) as *const u32) };
    while off + 12 <= len {
        let (namesz, descsz, kind) = (word(off) as u64, word(off + 4) as u64, word(off + 8));
        let name_at = off + 12;
        let desc_at = name_at + namesz.next_multiple_of(4);
        if desc_at + descsz > len {
            return None;
        }
        let name =
            unsafe { std::slice::from_raw_parts((at + name_at) as *const u8, namesz as usize) };
        if kind == NT_GNU_BUILD_ID && name == b"GNU\0" {
            let desc =
                unsafe { std::slice::from_raw_parts((at + desc_at) as *const u8, descsz as usize) };
            return Some(desc.iter().map(|b| format!("{b:02x}")).collect());
        }
        off = desc_at + descsz.next_multiple_of(4);
    }
    None
}

unsafe extern "C" fn each(info: *mut libc::dl_phdr_info, _size: usize, data: *mut c_void) -> c_int {
    // SAFETY: the dynamic linker passes a valid info for the duration of the call, and
    // `data` is the Vec<Object> passed below.
    let (info, out) = unsafe { (&*info, &mut *(data as *mut Vec<Object>)) };
    let name = if info.dlpi_name.is_null() {
        String::new()
    } else {
        unsafe { CStr::from_ptr(info.dlpi_name) }
            .to_string_lossy()
            .into_owned()
    };
    let path = if name.is_empty() {
        // The main program has no name here.
        std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    } else {
        name
    };
    let bias = info.dlpi_addr;
    let phdrs = || (0..info.dlpi_phnum as usize).map(|i| unsafe { &*info.dlpi_phdr.add(i) });
    let segments: Vec<(u64, u64)> = phdrs()
        .filter(|ph| ph.p_type == PT_LOAD)
        .map(|ph| {
            let lo = bias.wrapping_add(ph.p_vaddr);
            (lo, lo.wrapping_add(ph.p_memsz))
        })
        .collect();
    // A note is read only where it lies inside a loaded segment (mapped memory).
    let id = phdrs()
        .filter(|ph| ph.p_type == PT_NOTE)
        .map(|ph| (bias.wrapping_add(ph.p_vaddr), ph.p_memsz))
        .filter(|&(at, len)| {
            segments
                .iter()
                .any(|&(lo, hi)| at >= lo && at.saturating_add(len) <= hi)
        })
        .find_map(|(at, len)| unsafe { build_id(at, len) });
    out.push(Object {
        path,
        build_id: id,
        bias,
        segments,
    });
    0
}

fn loaded_objects() -> Vec<Object> {
    let mut v: Vec<Object> = Vec::new();
    // SAFETY: `each` only reads the infos and appends to `v`.
    unsafe { libc::dl_iterate_phdr(Some(each), &mut v as *mut Vec<Object> as *mut c_void) };
    v
}

/// Call-site addresses in their objects' own addresses: (path, build id, address) each,
/// None where no loaded object holds it (issue 25's largest waits name their call site).
pub fn locate(addresses: &[u64]) -> Vec<Option<(String, Option<String>, u64)>> {
    let objects = loaded_objects();
    addresses
        .iter()
        .map(|&a| {
            let o = objects
                .iter()
                .find(|o| a != 0 && o.segments.iter().any(|&(lo, hi)| a >= lo && a < hi))?;
            Some((o.path.clone(), o.build_id.clone(), a - o.bias))
        })
        .collect()
}

/// This rank's call sites, summed over its threads.
pub fn fragment(ns_per_tick: f64) -> CallSites {
    if !cfg!(loggp_call_sites) {
        return CallSites {
            status: "not recorded: the shim was built without frame pointers (a RUSTFLAGS that replaced .cargo/config.toml's, or an architecture other than x86-64 and AArch64)".into(),
            ..Default::default()
        };
    }
    if !sites::recording() {
        return CallSites {
            status: "not recorded: the call-site tables were not mapped".into(),
            ..Default::default()
        };
    }
    let held = crate::record::memo::held(stats::threads_seen());
    let (raw, dropped) = sites::totals(stats::threads_seen(), &held.sites);
    let objects = loaded_objects();
    let mut used: BTreeMap<usize, u32> = BTreeMap::new();
    let mut out = CallSites {
        status: "done".into(),
        dropped,
        ..Default::default()
    };
    let mut by: BTreeMap<(u8, u32, u64), (u64, u64, u64)> = BTreeMap::new();
    for (func, site, count, bytes, ticks) in raw {
        let a = site as u64;
        // An address in no loaded object (unloaded since) is kept against no object.
        let found = objects
            .iter()
            .position(|o| o.segments.iter().any(|&(lo, hi)| a >= lo && a < hi));
        let (object, address) = match found {
            Some(i) => {
                let next = used.len() as u32;
                let k = *used.entry(i).or_insert(next);
                (k, a - objects[i].bias)
            }
            None => (u32::MAX, a),
        };
        let e = by.entry((func, object, address)).or_default();
        e.0 += count;
        e.1 += bytes;
        e.2 += ticks;
    }
    let mut order: Vec<(usize, u32)> = used.into_iter().collect();
    order.sort_by_key(|&(_, k)| k);
    out.objects = order
        .into_iter()
        .map(|(i, _)| LoadedObject {
            path: objects[i].path.clone(),
            build_id: objects[i].build_id.clone(),
            load_address: objects[i].bias,
        })
        .collect();
    out.sites = by
        .into_iter()
        .map(
            |((func, object, address), (count, bytes, ticks))| CallSite {
                function: funcs::name(func).to_string(),
                object,
                address,
                count,
                bytes,
                time_ns: ticks as f64 * ns_per_tick,
                ranks: 1,
            },
        )
        .collect();
    out
}
