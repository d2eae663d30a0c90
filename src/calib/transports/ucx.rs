//! `ucx`: UCX's transport layer (UCT) beneath MPI — the raw layer both MPIs sit on where
//! they run over UCX (Open MPI's pml ucx, MPICH's ch4:ucx). On RDMA hardware its `rc_mlx5`,
//! `dc_mlx5`, `rc_verbs` and `ud_verbs` transports post straight to verbs queue pairs; here
//! it offers `posix` and `sysv` shared memory and `tcp`. One code path measures them all:
//! verbs figures come through UCT's verbs transports.
//!
//! The glue is C (`uct.c`): UCT's data path is static inline over the interface's
//! operation table. It is compiled where UCX's headers are (cfg `have_uct`); libuct is
//! loaded with dlopen when a pair first asks for it, so the shim runs unchanged where UCX
//! is absent and the raw entry says why.
//!
//! Set-up over the MPI control channel: the client names the transport it wants (or none:
//! by peer class); the server opens an interface, says which transport it opened and sends
//! its address; the client opens the same transport on a device that reaches that address,
//! connects and sends its own; the server connects back and confirms.
use crate::calib::engine::{Control, Transport};

/// RDMA devices the kernel lists (`/sys/class/infiniband`).
pub fn rdma_devices() -> Vec<String> {
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

/// Why verbs cannot be measured here, or None where a device exists and UCX loads.
pub fn verbs_unavailable() -> Option<String> {
    if rdma_devices().is_empty() {
        return Some(
            "unavailable: no RDMA device (/sys/class/infiniband is empty or absent)".into(),
        );
    }
    unavailable().map(|w| format!("unavailable: verbs is measured through UCT, and {w}"))
}

/// UCT transports by preference: inside a node shared memory first; across nodes the
/// verbs transports (RDMA), then tcp.
const INTRA: [&str; 8] = [
    "posix", "sysv", "rc_mlx5", "rc_verbs", "dc_mlx5", "ud_mlx5", "ud_verbs", "tcp",
];
const INTER: [&str; 6] = [
    "rc_mlx5", "dc_mlx5", "rc_verbs", "ud_mlx5", "ud_verbs", "tcp",
];
const VERBS: [&str; 5] = ["rc_mlx5", "dc_mlx5", "rc_verbs", "ud_mlx5", "ud_verbs"];

/// Whether a `UCX_TLS` value lets UCX use the UCT transport `tl` (UCX's own reading of the
/// variable: a comma list of names and aliases, `all`, and a leading `^` for "all but").
pub fn ucx_tls_allows(spec: &str, tl: &str) -> bool {
    let (negate, list) = match spec.trim().strip_prefix('^') {
        Some(rest) => (true, rest),
        None => (false, spec.trim()),
    };
    let names = |alias: &str| -> &'static [&'static str] {
        match alias {
            "sm" | "shm" => &["posix", "sysv", "xpmem", "cma", "knem"],
            "mm" => &["posix", "sysv", "xpmem"],
            "rc" => &["rc_verbs", "rc_mlx5"],
            "rc_v" => &["rc_verbs"],
            "rc_x" => &["rc_mlx5"],
            "ud" => &["ud_verbs", "ud_mlx5"],
            "ud_v" => &["ud_verbs"],
            "ud_x" => &["ud_mlx5"],
            "dc" | "dc_x" => &["dc_mlx5"],
            "ib" => &["rc_verbs", "rc_mlx5", "ud_verbs", "ud_mlx5", "dc_mlx5"],
            _ => &[],
        }
    };
    let listed = list.split(',').map(|n| n.trim()).any(|n| {
        // `rc:aux` and the like name the transport before the colon.
        let n = n.split(':').next().unwrap_or_default();
        n == "all" || n == tl || names(n).contains(&tl)
    });
    listed != negate
}

/// The transports the server tries, comma-separated, for what the client asked: a name as
/// given; "verbs" the verbs ones; "" (auto) the peer class's order, restricted to what the
/// MPI's own UCX may use (`UCX_TLS`), so that the raw set is the layer the MPI runs over.
pub fn order_for(want: &str, inter: bool, ucx_tls: Option<&str>) -> Result<String, String> {
    let all: &[&str] = match want {
        "" if inter => &INTER,
        "" => &INTRA,
        "verbs" => &VERBS,
        one => return Ok(one.to_string()),
    };
    let allowed: Vec<&str> = all
        .iter()
        .copied()
        .filter(|tl| !want.is_empty() || ucx_tls.is_none_or(|s| ucx_tls_allows(s, tl)))
        .collect();
    if allowed.is_empty() {
        return Err(format!(
            "unavailable: UCX_TLS={} allows none of the UCT transports measured here ({})",
            ucx_tls.unwrap_or_default(),
            all.join(", ")
        ));
    }
    Ok(allowed.join(","))
}

/// Packs a transport name (at most 16 bytes) into two control words.
pub fn pack_name(s: &str) -> [u64; 2] {
    let mut b = [0u8; 16];
    let n = s.len().min(16);
    b[..n].copy_from_slice(&s.as_bytes()[..n]);
    [
        u64::from_le_bytes(b[..8].try_into().unwrap_or_default()),
        u64::from_le_bytes(b[8..].try_into().unwrap_or_default()),
    ]
}

pub fn unpack_name(w: [u64; 2]) -> String {
    let mut b = w[0].to_le_bytes().to_vec();
    b.extend_from_slice(&w[1].to_le_bytes());
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// Sends bytes over the control channel: a length word, then 32 bytes per message.
fn send_blob<C: Control>(ctl: &mut C, bytes: &[u8]) -> bool {
    if !ctl.send_words(&[bytes.len() as u64, 0, 0, 0]) {
        return false;
    }
    bytes.chunks(32).all(|c| {
        let mut b = [0u8; 32];
        b[..c.len()].copy_from_slice(c);
        let w = [0, 1, 2, 3]
            .map(|i| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap_or_default()));
        ctl.send_words(&w)
    })
}

fn recv_blob<C: Control>(ctl: &mut C) -> Option<Vec<u8>> {
    let len = ctl.recv_words()?[0] as usize;
    if len > 1 << 16 {
        return None;
    }
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        let w = ctl.recv_words()?;
        for x in w {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out.truncate(len);
    Some(out)
}

#[cfg(have_uct)]
mod ffi {
    use std::os::raw::{c_char, c_int, c_long};
    #[repr(C)]
    pub struct LgUct {
        _opaque: [u8; 0],
    }
    /// A glue function connecting a handle to the peer's address.
    pub type ToPeer =
        unsafe extern "C" fn(*mut LgUct, *const u8, usize, *mut c_char, usize) -> c_int;
    extern "C" {
        pub fn lg_uct_load(why: *mut c_char, n: usize) -> c_int;
        pub fn lg_uct_resources(buf: *mut c_char, n: usize) -> c_int;
        pub fn lg_uct_open(
            want: *const c_char,
            inter: c_int,
            cap: usize,
            peer: *const u8,
            peer_len: usize,
            why: *mut c_char,
            n: usize,
        ) -> *mut LgUct;
        pub fn lg_uct_address(u: *mut LgUct, buf: *mut u8, n: usize) -> c_long;
        pub fn lg_uct_connect(
            u: *mut LgUct,
            peer: *const u8,
            len: usize,
            why: *mut c_char,
            n: usize,
        ) -> c_int;
        pub fn lg_uct_send(u: *mut LgUct, size: usize) -> c_int;
        pub fn lg_uct_send_stop(u: *mut LgUct) -> c_int;
        pub fn lg_uct_recv(u: *mut LgUct, size: usize) -> c_int;
        pub fn lg_uct_progress(u: *mut LgUct);
        pub fn lg_uct_stopped(u: *const LgUct) -> c_int;
        pub fn lg_uct_clear_stop(u: *mut LgUct);
        pub fn lg_uct_tl(u: *const LgUct) -> *const c_char;
        pub fn lg_uct_dev(u: *const LgUct) -> *const c_char;
        pub fn lg_uct_describe(u: *const LgUct, buf: *mut c_char, n: usize);
        pub fn lg_uct_close(u: *mut LgUct);
    }
}

/// A C string buffer's text.
#[cfg(have_uct)]
fn text(buf: &[u8]) -> String {
    let end = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// Why the raw ucx transport cannot run in this process, or None where libuct loads.
pub fn unavailable() -> Option<String> {
    #[cfg(have_uct)]
    {
        let mut why = [0u8; 256];
        // SAFETY: the buffer and its length; the glue writes a NUL-terminated text.
        let rc = unsafe { ffi::lg_uct_load(why.as_mut_ptr().cast(), why.len()) };
        (rc != 0).then(|| text(&why))
    }
    #[cfg(not(have_uct))]
    Some(
        "the shim was built without UCX's headers (uct/api/uct.h), so it has no UCT transport"
            .into(),
    )
}

/// Every `tl/device` UCX offers here (empty where it cannot be loaded).
pub fn resources() -> Vec<String> {
    #[cfg(have_uct)]
    {
        let mut buf = vec![0u8; 4096];
        // SAFETY: the buffer and its length.
        if unsafe { ffi::lg_uct_resources(buf.as_mut_ptr().cast(), buf.len()) } < 0 {
            return vec![];
        }
        text(&buf).split_whitespace().map(String::from).collect()
    }
    #[cfg(not(have_uct))]
    vec![]
}

#[cfg(have_uct)]
mod rndv;

/// One side of a connected UCT endpoint pair.
pub struct UcxTransport {
    #[cfg(have_uct)]
    u: *mut ffi::LgUct,
    /// The largest message (the buffers' size).
    #[cfg(have_uct)]
    max: usize,
    #[cfg(have_uct)]
    rndv: rndv::Rndv,
}

#[cfg(have_uct)]
impl UcxTransport {
    fn open(want: &str, inter: bool, max: usize, peer: Option<&[u8]>) -> Result<Self, String> {
        let want = std::ffi::CString::new(want).map_err(|_| "bad transport name")?;
        let mut why = [0u8; 1024];
        let (p, len) = peer.map_or((std::ptr::null(), 0), |p| (p.as_ptr(), p.len()));
        // SAFETY: NUL-terminated name, buffers with their lengths; NULL is an error.
        let u = unsafe {
            ffi::lg_uct_open(
                want.as_ptr(),
                inter as i32,
                max,
                p,
                len,
                why.as_mut_ptr().cast(),
                why.len(),
            )
        };
        if u.is_null() {
            Err(text(&why))
        } else {
            Ok(UcxTransport {
                u,
                max,
                rndv: rndv::Rndv::none("not connected"),
            })
        }
    }
    fn address(&mut self) -> Option<Vec<u8>> {
        let mut buf = vec![0u8; 4096];
        // SAFETY: a live handle and a buffer with its length.
        let n = unsafe { ffi::lg_uct_address(self.u, buf.as_mut_ptr(), buf.len()) };
        (n > 0).then(|| {
            buf.truncate(n as usize);
            buf
        })
    }
    fn connect(&mut self, peer: &[u8]) -> Result<(), String> {
        self.connect_with(ffi::lg_uct_connect, peer)
    }
    /// Calls a glue function that connects to the peer's address (0, or -1 with the
    /// reason written).
    fn connect_with(&mut self, f: ffi::ToPeer, peer: &[u8]) -> Result<(), String> {
        let mut why = [0u8; 256];
        // SAFETY: a live handle, the peer's address and a buffer for the reason.
        let rc = unsafe {
            f(
                self.u,
                peer.as_ptr(),
                peer.len(),
                why.as_mut_ptr().cast(),
                why.len(),
            )
        };
        if rc == 0 {
            Ok(())
        } else {
            Err(text(&why))
        }
    }
    fn cstr(p: *const std::os::raw::c_char) -> String {
        // SAFETY: the glue returns a NUL-terminated field of a live handle.
        unsafe { std::ffi::CStr::from_ptr(p) }
            .to_string_lossy()
            .into_owned()
    }
    /// The UCT transport in use (`posix`, `tcp`, `rc_verbs`, ...).
    pub fn tl(&self) -> String {
        // SAFETY: a live handle.
        Self::cstr(unsafe { ffi::lg_uct_tl(self.u) })
    }
    /// Its device (`memory`, `eth0`, `mlx5_0:1`, ...).
    pub fn device(&self) -> String {
        // SAFETY: a live handle.
        Self::cstr(unsafe { ffi::lg_uct_dev(self.u) })
    }
    /// Which UCT operation carries which sizes, from the interface's limits.
    pub fn describe(&self) -> String {
        let mut buf = [0u8; 256];
        // SAFETY: a live handle and a buffer with its length.
        unsafe { ffi::lg_uct_describe(self.u, buf.as_mut_ptr().cast(), buf.len()) };
        text(&buf) + &self.describe_rndv()
    }
}

#[cfg(not(have_uct))]
impl UcxTransport {
    pub fn tl(&self) -> String {
        String::new()
    }
    pub fn device(&self) -> String {
        String::new()
    }
    pub fn describe(&self) -> String {
        String::new()
    }
}

#[cfg(have_uct)]
impl Drop for UcxTransport {
    fn drop(&mut self) {
        // SAFETY: the handle is closed once, here.
        unsafe { ffi::lg_uct_close(self.u) };
    }
}

#[cfg(have_uct)]
impl Transport for UcxTransport {
    fn send(&mut self, size: usize) -> bool {
        // SAFETY: a live handle; the glue checks the size against its buffer.
        unsafe { ffi::lg_uct_send(self.u, size) == 1 }
    }
    fn recv(&mut self, size: usize) -> bool {
        // SAFETY: as above.
        unsafe { ffi::lg_uct_recv(self.u, size) == 1 }
    }
    fn progress(&mut self) {
        // SAFETY: a live handle.
        unsafe { ffi::lg_uct_progress(self.u) }
    }
    fn send_stop(&mut self) -> bool {
        // SAFETY: a live handle.
        unsafe { ffi::lg_uct_send_stop(self.u) == 1 }
    }
    fn clear_stop(&mut self) {
        // SAFETY: a live handle.
        unsafe { ffi::lg_uct_clear_stop(self.u) }
    }
    fn stopped(&self) -> bool {
        // SAFETY: a live handle.
        unsafe { ffi::lg_uct_stopped(self.u) == 1 }
    }
    fn choose(&mut self, ctl: &mut dyn Control, client: bool) -> bool {
        self.choose_rndv(ctl, client)
    }
}

#[cfg(not(have_uct))]
impl Transport for UcxTransport {
    fn send(&mut self, _: usize) -> bool {
        false
    }
    fn recv(&mut self, _: usize) -> bool {
        false
    }
    fn send_stop(&mut self) -> bool {
        false
    }
    fn clear_stop(&mut self) {}
    fn stopped(&self) -> bool {
        false
    }
}

/// Server side: open, publish, connect back. `want`: a UCT transport name, "verbs" (the
/// verbs ones) or "" (by peer class).
pub fn connect_server<C: Control>(
    ctl: &mut C,
    want: &str,
    inter: bool,
    max: usize,
) -> Result<UcxTransport, String> {
    #[cfg(have_uct)]
    {
        let ucx_tls = std::env::var("UCX_TLS").ok();
        let mut t = match order_for(want, inter, ucx_tls.as_deref())
            .and_then(|order| UcxTransport::open(&order, inter, max, None))
            .and_then(|mut t| t.address().map(|a| (t, a)).ok_or("no address".into()))
        {
            Ok((t, addr)) => {
                let n = pack_name(&t.tl());
                if !ctl.send_words(&[1, n[0], n[1], 0]) || !send_blob(ctl, &addr) {
                    return Err("control message failed".into());
                }
                t
            }
            Err(why) => {
                ctl.send_words(&[0, 0, 0, 0]);
                send_blob(ctl, why.as_bytes());
                return Err(why);
            }
        };
        let w = ctl.recv_words().ok_or("control message failed")?;
        let peer = recv_blob(ctl).ok_or("control message failed")?;
        if w[0] != 1 {
            return Err(String::from_utf8_lossy(&peer).into_owned());
        }
        let r = t.connect(&peer);
        ctl.send_words(&[r.is_ok() as u64, 0, 0, 0]);
        r?;
        if !t.connect_rndv(ctl, true, inter) {
            return Err("control message failed".into());
        }
        Ok(t)
    }
    #[cfg(not(have_uct))]
    {
        let _ = (want, inter, max);
        ctl.send_words(&[0, 0, 0, 0]);
        send_blob(ctl, b"no UCT in this shim");
        Err(unavailable().unwrap_or_default())
    }
}

/// Client side: open the transport the server opened, on a device that reaches it.
pub fn connect_client<C: Control>(
    ctl: &mut C,
    inter: bool,
    max: usize,
) -> Result<UcxTransport, String> {
    let w = ctl.recv_words().ok_or("control message failed")?;
    let blob = recv_blob(ctl).ok_or("control message failed")?;
    if w[0] != 1 {
        return Err(String::from_utf8_lossy(&blob).into_owned());
    }
    #[cfg(have_uct)]
    {
        let tl = unpack_name([w[1], w[2]]);
        let opened = UcxTransport::open(&tl, inter, max, Some(&blob)).and_then(|mut t| {
            let a = t.address().ok_or("no address")?;
            t.connect(&blob)?;
            Ok((t, a))
        });
        match opened {
            Ok((t, a)) => {
                if !ctl.send_words(&[1, 0, 0, 0]) || !send_blob(ctl, &a) {
                    return Err("control message failed".into());
                }
                match ctl.recv_words() {
                    Some(w) if w[0] == 1 => {
                        let mut t = t;
                        if !t.connect_rndv(ctl, false, inter) {
                            return Err("control message failed".into());
                        }
                        Ok(t)
                    }
                    _ => Err("the peer could not connect back".into()),
                }
            }
            Err(why) => {
                ctl.send_words(&[0, 0, 0, 0]);
                send_blob(ctl, why.as_bytes());
                Err(why)
            }
        }
    }
    #[cfg(not(have_uct))]
    {
        let _ = (inter, max);
        Err(unavailable().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{Receiver, Sender};

    /// Whether a UCT test must skip: where libuct cannot be loaded it may only where
    /// `libuct` is on the skip list (tests/skip-list.txt or LOGGP_TEST_SKIP, as for the
    /// integration tests: tests/common/skip.rs), recorded in target/test-skips.log;
    /// otherwise it fails.
    pub(super) fn skip_without_uct() -> bool {
        let Some(why) = unavailable() else {
            return false;
        };
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let list = std::fs::read_to_string(root.join("tests/skip-list.txt")).unwrap_or_default()
            + ","
            + &std::env::var("LOGGP_TEST_SKIP").unwrap_or_default();
        let listed = list
            .split([',', '\n'])
            .any(|l| l.split('#').next().unwrap_or("").trim() == "libuct");
        assert!(
            listed,
            "this test cannot run here: {why}. A test that cannot run fails; add `libuct` to tests/skip-list.txt (or LOGGP_TEST_SKIP) to skip it knowingly"
        );
        let test = std::thread::current().name().unwrap_or("?").to_string();
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(root.join("target/test-skips.log"))
        {
            use std::io::Write;
            let _ = writeln!(f, "{test}: libuct: {why}");
        }
        eprintln!("SKIPPED (libuct, on the skip list): {why}");
        true
    }

    /// A control channel between two threads (also for `rndv`'s tests).
    pub(super) struct Ch(pub(super) Sender<[u64; 4]>, pub(super) Receiver<[u64; 4]>);
    impl Control for Ch {
        fn send_words(&mut self, w: &[u64; 4]) -> bool {
            self.0.send(*w).is_ok()
        }
        fn recv_words(&mut self) -> Option<[u64; 4]> {
            self.1.recv_timeout(std::time::Duration::from_secs(20)).ok()
        }
    }

    #[test]
    fn auto_keeps_to_the_transports_ucx_tls_allows() {
        assert!(ucx_tls_allows("tcp", "tcp"));
        assert!(!ucx_tls_allows("tcp,self", "posix"));
        assert!(ucx_tls_allows("sm,self", "sysv"));
        assert!(ucx_tls_allows("^tcp", "posix") && !ucx_tls_allows("^tcp", "tcp"));
        assert!(ucx_tls_allows("all", "rc_mlx5"));
        assert!(ucx_tls_allows("rc:aux,sm", "rc_mlx5"));
        assert!(!ucx_tls_allows("rc_v", "rc_mlx5"));
        assert_eq!(order_for("", false, Some("tcp,self")).unwrap(), "tcp");
        assert_eq!(order_for("", false, Some("sm")).unwrap(), "posix,sysv");
        assert_eq!(
            order_for("", true, None).unwrap(),
            "rc_mlx5,dc_mlx5,rc_verbs,ud_mlx5,ud_verbs,tcp"
        );
        assert_eq!(order_for("posix", false, Some("tcp")).unwrap(), "posix");
        let none = order_for("", true, Some("sm,self")).unwrap_err();
        assert!(none.contains("UCX_TLS=sm,self"), "{none}");
    }

    #[test]
    fn names_round_trip_through_two_words() {
        for s in ["posix", "rc_verbs", "", "sixteen_bytes_ab"] {
            assert_eq!(unpack_name(pack_name(s)), s);
        }
    }

    /// Two threads, each its own UCT interface, over every transport UCX offers here with
    /// active messages: messages of every protocol's sizes arrive with their sizes, a size
    /// that was not sent is refused, and the stop mark is seen as one.
    #[cfg(have_uct)]
    #[test]
    fn threads_exchange_messages_over_each_uct_transport() {
        use std::sync::mpsc::channel;
        if skip_without_uct() {
            return;
        }
        let sizes = [0usize, 1, 100, 2000, 9000, 70000, 1 << 20];
        let mut tls: Vec<String> = resources()
            .iter()
            .filter_map(|r| r.split('/').next().map(String::from))
            .filter(|t| ["posix", "sysv", "tcp"].contains(&t.as_str()))
            .collect();
        tls.dedup();
        assert!(!tls.is_empty(), "{:?}", resources());
        for tl in tls {
            let (a_tx, b_rx) = channel();
            let (b_tx, a_rx) = channel();
            let server_tl = tl.clone();
            let server = std::thread::spawn(move || {
                let mut ctl = Ch(b_tx, b_rx);
                let mut t = connect_server(&mut ctl, &server_tl, false, 1 << 20).unwrap();
                for s in sizes {
                    assert!(t.recv(s), "{server_tl}: {s}");
                    assert!(t.send(s));
                }
                assert!(!t.recv(5), "{server_tl}: 4 bytes taken for 5");
                assert!(t.recv(0) && t.stopped());
                (t.tl(), t.device())
            });
            let mut ctl = Ch(a_tx, a_rx);
            let mut c = connect_client(&mut ctl, false, 1 << 20).unwrap();
            for s in sizes {
                assert!(c.send(s), "{tl}: {s}");
                assert!(c.recv(s), "{tl}: recv {s}");
            }
            assert!(c.send(4) && c.send_stop());
            let (stl, sdev) = server.join().unwrap();
            assert_eq!(stl, tl);
            assert_eq!(c.tl(), tl);
            eprintln!("{tl}/{sdev}: {}", c.describe());
        }
    }
}
