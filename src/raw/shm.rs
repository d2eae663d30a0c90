//! `shm`: a shared-memory channel between the two ranks of a pair on one host — two
//! single-producer single-consumer byte rings in one POSIX segment, busy-polled. A message
//! is an 8-byte length header and its payload, copied in by the sender and out by the
//! receiver: the floor of a copy-based intra-node MPI (bell2003 §5 sets MPI beside the
//! lowest API of the same hardware).
//!
//! The segment's name exists in /dev/shm only between its creation by the client and the
//! server's confirmation that it has mapped it; the client unlinks it then (and the signal
//! handler unlinks it if the job is killed inside that window).
use crate::calib::engine::{Control, Transport};
use std::ffi::CString;
use std::sync::atomic::{AtomicU64, Ordering::*};

/// How long a send or receive waits for its peer before it gives up (the peer died).
const STALL_NS: u64 = 30_000_000_000;
const LINE: usize = 64;

/// 1 while a segment's name is linked and held in `LIVE_NAME`, for the signal handler.
static LIVE_FOR_SIGNAL: AtomicU64 = AtomicU64::new(0);
/// The name's bytes for the signal handler (no allocation or lock there).
static mut LIVE_NAME: [u8; 64] = [0; 64];

/// Unlinks a segment the calibration left linked (from the signal and exit paths).
pub fn cleanup() {
    if LIVE_FOR_SIGNAL.load(Acquire) == 1 {
        // SAFETY: LIVE_NAME is NUL-terminated and only written while the flag is 0.
        unsafe { libc::shm_unlink(std::ptr::addr_of!(LIVE_NAME) as *const libc::c_char) };
        LIVE_FOR_SIGNAL.store(0, Release);
    }
}

fn set_live(name: Option<&CString>) {
    LIVE_FOR_SIGNAL.store(0, Release);
    if let Some(n) = name {
        let b = n.as_bytes_with_nul();
        if b.len() <= 64 {
            // SAFETY: the flag is 0, so the handler does not read the buffer now.
            unsafe {
                let dst = std::ptr::addr_of_mut!(LIVE_NAME) as *mut u8;
                std::ptr::copy_nonoverlapping(b.as_ptr(), dst, b.len());
            }
            LIVE_FOR_SIGNAL.store(1, Release);
        }
    }
}

/// One direction: write and read positions (bytes ever written / read) on their own cache
/// lines, then the data.
struct Ring {
    head: *const AtomicU64,
    tail: *const AtomicU64,
    data: *mut u8,
    cap: usize,
}

impl Ring {
    fn at(base: *mut u8, cap: usize) -> Ring {
        Ring {
            head: base as *const AtomicU64,
            // SAFETY (both): inside the mapping; the layout is fixed by `Segment::bytes`.
            tail: unsafe { base.add(LINE) } as *const AtomicU64,
            data: unsafe { base.add(2 * LINE) },
            cap,
        }
    }
    fn head(&self) -> &AtomicU64 {
        // SAFETY: points into the live mapping, 8-aligned (page + 64).
        unsafe { &*self.head }
    }
    fn tail(&self) -> &AtomicU64 {
        // SAFETY: as above.
        unsafe { &*self.tail }
    }

    /// Copies `src` into the ring, waiting for room as the reader frees it. `head` is the
    /// writer's last view of the reader's position: reloaded (a cache miss on the peer's
    /// line) only when it shows too little room, as single-producer rings do.
    fn write(&self, mut src: &[u8], head: &mut u64) -> bool {
        let mut tail = self.tail().load(Relaxed);
        let mut waited = Stall::new();
        while !src.is_empty() {
            if self.cap - ((tail - *head) as usize) < src.len() {
                *head = self.head().load(Acquire);
            }
            let free = self.cap - (tail - *head) as usize;
            if free == 0 {
                if waited.over() {
                    return false;
                }
                continue;
            }
            let off = (tail as usize) % self.cap;
            let n = free.min(src.len()).min(self.cap - off);
            // SAFETY: [off, off+n) is inside the data area and not readable by the peer
            // until the tail is published below.
            unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.data.add(off), n) };
            tail += n as u64;
            self.tail().store(tail, Release);
            src = &src[n..];
        }
        true
    }

    /// Fills `dst` from the ring, waiting for the writer. `tail` is the reader's last view
    /// of the writer's position, reloaded only when it shows too little data.
    fn read(&self, mut dst: &mut [u8], tail: &mut u64) -> bool {
        let mut head = self.head().load(Relaxed);
        let mut waited = Stall::new();
        while !dst.is_empty() {
            if ((*tail - head) as usize) < dst.len() {
                *tail = self.tail().load(Acquire);
            }
            let avail = (*tail - head) as usize;
            if avail == 0 {
                if waited.over() {
                    return false;
                }
                continue;
            }
            let off = (head as usize) % self.cap;
            let n = avail.min(dst.len()).min(self.cap - off);
            // SAFETY: [off, off+n) was published by the writer's Release store.
            unsafe { std::ptr::copy_nonoverlapping(self.data.add(off), dst.as_mut_ptr(), n) };
            head += n as u64;
            self.head().store(head, Release);
            dst = &mut dst[n..];
        }
        true
    }
}

/// Spins, and says when a peer has been silent for too long (checked every 4096 spins).
struct Stall {
    spins: u32,
    since: u64,
}
impl Stall {
    fn new() -> Stall {
        Stall { spins: 0, since: 0 }
    }
    fn over(&mut self) -> bool {
        std::hint::spin_loop();
        self.spins += 1;
        if !self.spins.is_multiple_of(4096) {
            return false;
        }
        // A peer silent for 4096 spins (~10 µs or more) may be waiting for this core:
        // on an oversubscribed node (64 ranks on 2 cores) a pure spin held it for the
        // whole time slice. On a dedicated core the yield returns at once.
        std::thread::yield_now();
        let now = crate::clock::monotonic_raw_ns();
        if self.since == 0 {
            self.since = now;
        }
        now - self.since > STALL_NS
    }
}

/// The mapped segment: ring 0 carries client → server, ring 1 server → client.
pub struct Segment {
    base: *mut u8,
    len: usize,
    cap: usize,
}

impl Segment {
    /// Bytes of a segment with rings of `cap` bytes each.
    fn bytes(cap: usize) -> usize {
        2 * (2 * LINE + cap)
    }

    fn ring(&self, i: usize) -> Ring {
        // SAFETY: ring i starts at i × (2·LINE + cap), inside the mapping.
        Ring::at(
            unsafe { self.base.add(i * (2 * LINE + self.cap)) },
            self.cap,
        )
    }

    fn map(fd: libc::c_int, cap: usize) -> Result<Segment, String> {
        let len = Self::bytes(cap);
        // SAFETY: a shared mapping of a descriptor we own; checked below.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        // SAFETY: the mapping keeps the object alive; the descriptor is no longer needed.
        unsafe { libc::close(fd) };
        if p == libc::MAP_FAILED {
            return Err(format!("mmap: {}", std::io::Error::last_os_error()));
        }
        Ok(Segment {
            base: p as *mut u8,
            len,
            cap,
        })
    }

    /// Creates and maps a new segment (client side); the name stays linked until
    /// `unlink`.
    pub fn create(name: &CString, cap: usize) -> Result<Segment, String> {
        // SAFETY: plain POSIX calls with a NUL-terminated name.
        let fd = unsafe {
            libc::shm_open(
                name.as_ptr(),
                libc::O_CREAT | libc::O_EXCL | libc::O_RDWR,
                0o600,
            )
        };
        if fd < 0 {
            return Err(format!("shm_open: {}", std::io::Error::last_os_error()));
        }
        set_live(Some(name));
        // SAFETY: fd is ours.
        if unsafe { libc::ftruncate(fd, Self::bytes(cap) as libc::off_t) } != 0 {
            let e = std::io::Error::last_os_error();
            unsafe { libc::close(fd) };
            unlink(name);
            return Err(format!("ftruncate: {e}"));
        }
        Segment::map(fd, cap).inspect_err(|_| unlink(name))
    }

    /// Maps the peer's segment (server side).
    pub fn open(name: &CString, cap: usize) -> Result<Segment, String> {
        // SAFETY: as above.
        let fd = unsafe { libc::shm_open(name.as_ptr(), libc::O_RDWR, 0) };
        if fd < 0 {
            return Err(format!("shm_open: {}", std::io::Error::last_os_error()));
        }
        Segment::map(fd, cap)
    }
}

// SAFETY: the mapping belongs to the process; the segment owns it and moves as a whole.
unsafe impl Send for Segment {}

impl Drop for Segment {
    fn drop(&mut self) {
        // SAFETY: our own mapping.
        unsafe { libc::munmap(self.base as *mut _, self.len) };
    }
}

/// Removes the name from /dev/shm (the mappings stay valid).
pub fn unlink(name: &CString) {
    // SAFETY: a NUL-terminated name.
    unsafe { libc::shm_unlink(name.as_ptr()) };
    set_live(None);
}

/// The segment's name for this client: unique per process and attempt.
pub fn segment_name(pid: u32, attempt: u64) -> CString {
    // Digits and dots only: never a NUL, so never the empty fallback.
    CString::new(format!("/loggp.{pid}.{attempt}")).unwrap_or_default()
}

/// Ring size for messages up to `max` bytes: room for two whole messages, a power of two.
/// (A 64 or 256 KiB ring, streaming larger messages through it, was tried against the
/// phases below where raw o_s reads above MPI's: it did not remove them, and the sends
/// that wait for ring space then look like a protocol switch that costs bisection time.)
pub fn ring_bytes(max: usize) -> usize {
    (2 * (max + 8)).next_power_of_two().max(64 << 10)
}

/// The transport over a mapped segment.
pub struct ShmTransport {
    seg: Segment,
    out: usize,
    /// The reader's position as this side last saw it (outgoing ring), and the writer's
    /// (incoming ring).
    seen_head: u64,
    seen_tail: u64,
    sbuf: Vec<u8>,
    rbuf: Vec<u8>,
}

impl ShmTransport {
    pub fn new(seg: Segment, client: bool, max: usize) -> ShmTransport {
        ShmTransport {
            seg,
            out: if client { 0 } else { 1 },
            seen_head: 0,
            seen_tail: 0,
            sbuf: vec![0xA5; max + 8],
            rbuf: vec![0; max + 8],
        }
    }
}

impl Transport for ShmTransport {
    fn send(&mut self, size: usize) -> bool {
        if size + 8 > self.sbuf.len() {
            return false;
        }
        self.sbuf[..8].copy_from_slice(&(size as u64).to_le_bytes());
        self.seg
            .ring(self.out)
            .write(&self.sbuf[..8 + size], &mut self.seen_head)
    }
    fn recv(&mut self, size: usize) -> bool {
        if size + 8 > self.rbuf.len() {
            return false;
        }
        // The header first, so that a size the sender did not send fails at once; the
        // payload then usually needs no new look at the writer's position.
        let r = self.seg.ring(1 - self.out);
        if !r.read(&mut self.rbuf[..8], &mut self.seen_tail) {
            return false;
        }
        let header = u64::from_le_bytes(self.rbuf[..8].try_into().unwrap_or([0; 8]));
        header == super::STOP_HEADER
            || (header == size as u64 && r.read(&mut self.rbuf[8..8 + size], &mut self.seen_tail))
    }
    fn send_stop(&mut self) -> bool {
        self.seg
            .ring(self.out)
            .write(&super::STOP_HEADER.to_le_bytes(), &mut self.seen_head)
    }
    fn clear_stop(&mut self) {
        self.rbuf[..8].fill(0);
    }
    fn stopped(&self) -> bool {
        self.rbuf[..8] == super::STOP_HEADER.to_le_bytes()
    }
}

/// Client side of the set-up over the MPI control channel: create, tell the server the
/// name and size, wait for its "mapped", unlink.
pub fn connect_client<C: Control>(
    ctl: &mut C,
    max: usize,
    attempt: u64,
) -> Result<ShmTransport, String> {
    let cap = ring_bytes(max);
    let pid = std::process::id();
    let name = segment_name(pid, attempt);
    let seg = Segment::create(&name, cap);
    let ok = seg.is_ok() as u64;
    let sent = ctl.send_words(&[ok, pid as u64, attempt, cap as u64]);
    let reply = if sent && ok == 1 {
        ctl.recv_words()
    } else {
        None
    };
    unlink(&name);
    let seg = seg?;
    match reply {
        Some(w) if w[0] == 1 => Ok(ShmTransport::new(seg, true, max)),
        Some(w) if w[0] == 2 => Err("the peer could not map the segment".into()),
        _ => Err("control message failed".into()),
    }
}

/// Server side: map the client's segment, say so.
pub fn connect_server<C: Control>(ctl: &mut C, max: usize) -> Result<ShmTransport, String> {
    let w = ctl.recv_words().ok_or("control message failed")?;
    if w[0] != 1 {
        return Err("the peer could not create a segment".into());
    }
    let (pid, attempt, cap) = (w[1] as u32, w[2], w[3] as usize);
    if cap != ring_bytes(max) {
        ctl.send_words(&[2, 0, 0, 0]);
        return Err("segment size mismatch".into());
    }
    match Segment::open(&segment_name(pid, attempt), cap) {
        Ok(seg) => {
            ctl.send_words(&[1, 0, 0, 0]);
            Ok(ShmTransport::new(seg, false, max))
        }
        Err(e) => {
            ctl.send_words(&[2, 0, 0, 0]);
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The live-name slot is one per process: these tests take turns.
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn rings_carry_messages_larger_than_themselves_both_ways() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let name = segment_name(std::process::id(), 900);
        let max = 300_000;
        let a = Segment::create(&name, 64 << 10).unwrap();
        let b = Segment::open(&name, 64 << 10).unwrap();
        unlink(&name);
        assert!(!std::path::Path::new("/dev/shm/loggp").exists());
        let mut c = ShmTransport::new(a, true, max);
        let mut s = ShmTransport::new(b, false, max);
        let t = std::thread::spawn(move || {
            for size in [0, 1, 7, 65536, 200_000, 300_000] {
                assert!(s.recv(size), "server recv {size}");
                assert!(s.rbuf[8..8 + size].iter().all(|&x| x == 0xA5));
                assert!(s.send(size));
            }
        });
        for size in [0, 1, 7, 65536, 200_000, 300_000] {
            assert!(c.send(size));
            assert!(c.recv(size), "client recv {size}");
        }
        t.join().unwrap();
        assert!(
            !std::path::Path::new(&format!("/dev/shm/loggp.{}.900", std::process::id())).exists()
        );
    }

    #[test]
    fn a_size_mismatch_is_a_failure_not_a_hang() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let name = segment_name(std::process::id(), 901);
        let a = Segment::create(&name, 64 << 10).unwrap();
        let b = Segment::open(&name, 64 << 10).unwrap();
        unlink(&name);
        let mut c = ShmTransport::new(a, true, 100);
        let mut s = ShmTransport::new(b, false, 100);
        assert!(c.send(10));
        assert!(!s.recv(11));
        // Larger than the buffers: refused at once.
        assert!(!c.send(1000));
    }

    #[test]
    fn cleanup_unlinks_a_live_segment() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let name = segment_name(std::process::id(), 902);
        let _a = Segment::create(&name, 64 << 10).unwrap();
        let path = format!("/dev/shm/loggp.{}.902", std::process::id());
        assert!(std::path::Path::new(&path).exists());
        cleanup();
        assert!(!std::path::Path::new(&path).exists());
    }
}
