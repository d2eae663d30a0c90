//! `verbs`: what of the ibverbs transport this version has — finding an RDMA device,
//! loading rdma-core at run time (dlopen: no link-time dependency), the connection
//! information two RC queue pairs exchange over the MPI control channel, the queue-pair
//! state machine (RESET → INIT → RTR → RTS) and the memory-registration bookkeeping.
//!
//! The data path (posting sends with inline data, RDMA writes, polling the completion
//! queue) is not in this version: where a device exists the status says so, rather than
//! calibrating something unverified. None of this ran on RDMA hardware (the development
//! machine has none); the pure parts are unit-tested.
use std::ffi::CString;

/// RDMA devices the kernel lists (`/sys/class/infiniband`).
pub fn devices() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("/sys/class/infiniband")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Loads libibverbs and resolves the entry points the transport needs; the library stays
/// loaded only while the handle lives.
pub struct Library {
    handle: *mut libc::c_void,
}

/// Symbols the RC transport calls.
pub const SYMBOLS: [&str; 14] = [
    "ibv_get_device_list",
    "ibv_free_device_list",
    "ibv_open_device",
    "ibv_close_device",
    "ibv_alloc_pd",
    "ibv_dealloc_pd",
    "ibv_reg_mr",
    "ibv_dereg_mr",
    "ibv_create_cq",
    "ibv_destroy_cq",
    "ibv_create_qp",
    "ibv_destroy_qp",
    "ibv_modify_qp",
    "ibv_query_port",
];

impl Library {
    pub fn load(name: &str) -> Result<Library, String> {
        let c = CString::new(name).map_err(|_| "bad library name".to_string())?;
        // SAFETY: dlopen with a NUL-terminated name; the handle is closed in Drop.
        let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return Err(format!("{name} not found (rdma-core is not installed)"));
        }
        let lib = Library { handle };
        if let Some(missing) = SYMBOLS.iter().find(|s| lib.symbol(s).is_none()) {
            return Err(format!("{name} lacks {missing}"));
        }
        Ok(lib)
    }
    pub fn symbol(&self, name: &str) -> Option<*mut libc::c_void> {
        let c = CString::new(name).ok()?;
        // SAFETY: a live handle and a NUL-terminated name.
        let p = unsafe { libc::dlsym(self.handle, c.as_ptr()) };
        (!p.is_null()).then_some(p)
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        // SAFETY: the handle dlopen gave us.
        unsafe { libc::dlclose(self.handle) };
    }
}

/// Why verbs cannot run here, or None when it could.
pub fn unavailable() -> Option<String> {
    let devs = devices();
    if devs.is_empty() {
        return Some(
            "unavailable: no RDMA device (/sys/class/infiniband is empty or absent)".into(),
        );
    }
    if let Err(e) = Library::load("libibverbs.so.1") {
        return Some(format!("unavailable: {e}"));
    }
    Some(format!(
        "unavailable: the verbs data path is not implemented in this version (device {} found, libibverbs loaded)",
        devs[0]
    ))
}

/// What one side of an RC connection tells the other (Netgauge's ib module exchanges the
/// same): port LID, QP number, initial packet sequence number, GID (RoCE), and the remote
/// key and address of the buffer RDMA writes target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnInfo {
    pub lid: u16,
    pub qpn: u32,
    pub psn: u32,
    pub gid: [u8; 16],
    pub rkey: u32,
    pub addr: u64,
}

impl ConnInfo {
    /// Two control messages of four words: [lid|qpn|psn, gid lo, gid hi, rkey], [addr, …].
    pub fn to_words(&self) -> [[u64; 4]; 2] {
        let w0 = self.lid as u64
            | ((self.qpn as u64 & 0xff_ffff) << 16)
            | ((self.psn as u64 & 0xff_ffff) << 40);
        let g0 = u64::from_le_bytes(self.gid[..8].try_into().unwrap_or([0; 8]));
        let g1 = u64::from_le_bytes(self.gid[8..].try_into().unwrap_or([0; 8]));
        [[w0, g0, g1, self.rkey as u64], [self.addr, 0, 0, 0]]
    }
    pub fn from_words(w: &[[u64; 4]; 2]) -> Result<ConnInfo, String> {
        if w[0][3] >> 32 != 0 {
            return Err("rkey out of range".into());
        }
        let mut gid = [0u8; 16];
        gid[..8].copy_from_slice(&w[0][1].to_le_bytes());
        gid[8..].copy_from_slice(&w[0][2].to_le_bytes());
        let c = ConnInfo {
            lid: w[0][0] as u16,
            qpn: ((w[0][0] >> 16) & 0xff_ffff) as u32,
            psn: ((w[0][0] >> 40) & 0xff_ffff) as u32,
            gid,
            rkey: w[0][3] as u32,
            addr: w[1][0],
        };
        if c.qpn == 0 {
            return Err("QP number 0 is reserved".into());
        }
        Ok(c)
    }
}

/// The states of an RC queue pair that set-up walks through (IB spec ch. 10.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QpState {
    Reset,
    Init,
    /// Ready to receive: needs the peer's QPN, PSN and address.
    Rtr,
    /// Ready to send.
    Rts,
    Error,
}

impl QpState {
    /// The next state, or an error naming the transition that is not allowed. Any state
    /// may go to Error, and Error only back to Reset.
    pub fn to(self, next: QpState) -> Result<QpState, String> {
        use QpState::*;
        let ok = matches!(
            (self, next),
            (Reset, Init) | (Init, Rtr) | (Rtr, Rts) | (_, Error) | (Error, Reset) | (_, Reset)
        );
        if ok {
            Ok(next)
        } else {
            Err(format!("queue pair cannot go from {self:?} to {next:?}"))
        }
    }
}

/// Registered memory regions: each buffer once, looked up by any address inside it.
#[derive(Default, Debug)]
pub struct Registrations {
    regions: Vec<(u64, u64, u32, u32)>, // start, len, lkey, rkey
}

impl Registrations {
    pub fn add(&mut self, start: u64, len: u64, lkey: u32, rkey: u32) -> Result<(), String> {
        if len == 0 {
            return Err("empty region".into());
        }
        let end = start.checked_add(len).ok_or("region wraps")?;
        if self
            .regions
            .iter()
            .any(|&(s, l, _, _)| start < s + l && s < end)
        {
            return Err(format!("region {start:#x}+{len} overlaps a registered one"));
        }
        self.regions.push((start, len, lkey, rkey));
        Ok(())
    }
    /// The keys for [addr, addr+len), which must lie inside one region.
    pub fn keys(&self, addr: u64, len: u64) -> Option<(u32, u32)> {
        self.regions
            .iter()
            .find(|&&(s, l, _, _)| addr >= s && addr.saturating_add(len) <= s + l)
            .map(|&(_, _, lk, rk)| (lk, rk))
    }
    pub fn remove(&mut self, start: u64) -> bool {
        let n = self.regions.len();
        self.regions.retain(|r| r.0 != start);
        self.regions.len() < n
    }
    pub fn len(&self) -> usize {
        self.regions.len()
    }
    pub fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_info_round_trips_and_rejects_nonsense() {
        let c = ConnInfo {
            lid: 0x1234,
            qpn: 0xab_cdef,
            psn: 0x12_3456,
            gid: *b"fe80::0123456789",
            rkey: 0xdead_beef,
            addr: 0x7f00_1234_5678,
        };
        assert_eq!(ConnInfo::from_words(&c.to_words()), Ok(c));
        let mut w = c.to_words();
        w[0][0] &= !(0xff_ffff << 16);
        assert!(ConnInfo::from_words(&w).is_err(), "QPN 0");
        let mut w = c.to_words();
        w[0][3] |= 1 << 40;
        assert!(ConnInfo::from_words(&w).is_err(), "rkey > 32 bits");
    }

    #[test]
    fn queue_pair_walks_reset_init_rtr_rts_only_in_order() {
        use QpState::*;
        let s = Reset
            .to(Init)
            .and_then(|s| s.to(Rtr))
            .and_then(|s| s.to(Rts));
        assert_eq!(s, Ok(Rts));
        assert!(Reset.to(Rtr).is_err());
        assert!(Init.to(Rts).is_err());
        assert!(Rts.to(Rtr).is_err());
        assert_eq!(Rtr.to(Error), Ok(Error));
        assert!(Error.to(Rts).is_err());
        assert_eq!(Error.to(Reset), Ok(Reset));
    }

    #[test]
    fn registrations_cover_addresses_and_refuse_overlaps() {
        let mut r = Registrations::default();
        r.add(0x1000, 0x1000, 1, 2).unwrap();
        r.add(0x3000, 0x100, 3, 4).unwrap();
        assert!(r.add(0x1800, 0x1000, 5, 6).is_err());
        assert!(r.add(0, 0, 5, 6).is_err());
        assert!(r.add(u64::MAX - 1, 4, 5, 6).is_err());
        assert_eq!(r.keys(0x1000, 0x1000), Some((1, 2)));
        assert_eq!(r.keys(0x1ff0, 0x20), None, "crosses the end");
        assert_eq!(r.keys(0x3010, 0x10), Some((3, 4)));
        assert!(r.remove(0x1000));
        assert!(!r.remove(0x1000));
        assert_eq!(r.len(), 1);
    }

    #[test]
    fn without_a_device_the_status_says_so() {
        if devices().is_empty() {
            let s = unavailable().unwrap();
            assert!(s.starts_with("unavailable: no RDMA device"), "{s}");
        } else {
            eprintln!(
                "RDMA device present: {:?} -> {:?}",
                devices(),
                unavailable()
            );
        }
        assert!(Library::load("libloggp-no-such-library.so").is_err());
    }
}
