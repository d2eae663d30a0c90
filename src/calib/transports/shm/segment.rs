//! The POSIX segment that holds a pair's rings: its name, its mapping, and the unlink the
//! signal handler may need.
use super::ring::*;
use std::ffi::CString;
use std::sync::atomic::{AtomicU64, Ordering::*};

/// 1 while a segment's name is linked and held in `LIVE_NAME`, for the signal handler.
pub(super) static LIVE_FOR_SIGNAL: AtomicU64 = AtomicU64::new(0);
/// The name's bytes for the signal handler (no allocation or lock there).
pub(super) static mut LIVE_NAME: [u8; 64] = [0; 64];

/// Unlinks a segment the calibration left linked (from the signal and exit paths).
pub fn cleanup() {
    if LIVE_FOR_SIGNAL.load(Acquire) == 1 {
        // SAFETY: LIVE_NAME is NUL-terminated and only written while the flag is 0.
        unsafe { libc::shm_unlink(std::ptr::addr_of!(LIVE_NAME) as *const libc::c_char) };
        LIVE_FOR_SIGNAL.store(0, Release);
    }
}

pub(super) fn set_live(name: Option<&CString>) {
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

/// The places the rings' data may start at, a page apart (`Segment::place`).
///
/// Why: a round trip of small messages crosses the same two lines each time (each
/// ring's first), and a line's cost to move between the cores depends on its physical
/// page: on this VM (Intel Xeon, a 480 MiB L3) one cache line ping-ponged between two
/// processes took a median 720 ticks, 620–800 by page, and 1400–1560 on about 1.5 % of
/// pages, every time on the same page (1024 pages of a shared mapping, 2026-11-29). A
/// ring on such a page put raw shm's smallest half round trip at 305–400 ns against
/// 190–250 ns (about 1 quick run in 10 of tests/repeat.rs), above MPI's at small sizes:
/// no floor. So the pair tries each place at connection and keeps the fastest
/// (`ShmTransport::place_client`).
pub(super) const PLACES: usize = 4;
const PAGE: usize = 4096;

/// The mapped segment: two position lines (one per side: the client's and the server's),
/// then the data of ring 0 (client → server) and of ring 1 (server → client), starting
/// `shift` bytes on (one of `PLACES`).
pub struct Segment {
    pub(super) base: *mut u8,
    pub(super) len: usize,
    pub(super) cap: usize,
    pub(super) shift: usize,
}

impl Segment {
    /// Bytes of a segment with rings of `cap` bytes each, at any of its places.
    pub(super) fn bytes(cap: usize) -> usize {
        2 * LINE + 2 * cap + (PLACES - 1) * PAGE
    }

    /// Moves both rings' data to place `j` (of `PLACES`). Both sides must move between
    /// the same two messages; positions go on, so no old header can pass for a new one.
    pub(super) fn place(&mut self, j: usize) {
        self.shift = j.min(PLACES - 1) * PAGE;
    }

    /// Ring `i` (0: client → server): its tail on the writer's line, its head on the
    /// reader's (offset 8 in that line).
    pub(super) fn ring(&self, i: usize) -> Ring {
        let line = |side: usize| -> *mut u8 {
            // SAFETY: both lines lie at the start of the mapping.
            unsafe { self.base.add(side * LINE) }
        };
        let (writer, reader) = (i, 1 - i);
        Ring {
            tail: line(writer) as *const AtomicU64,
            // SAFETY: 8 bytes into the reader's 64-byte line.
            head: unsafe { line(reader).add(8) } as *const AtomicU64,
            // SAFETY: ring i's data follows the two lines, the place's shift and ring
            // i−1's data, inside the mapping (`bytes`).
            data: unsafe { self.base.add(2 * LINE + self.shift + i * self.cap) },
            cap: self.cap,
        }
    }

    pub(super) fn map(fd: libc::c_int, cap: usize) -> Result<Segment, String> {
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
            shift: 0,
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

/// Ring size for messages up to `max` bytes: room for two whole messages (a message that
/// would not fit before the end starts the next lap, so two always make progress), a
/// power of two. The size does not make the footprint: round trips restart at the
/// beginning (see `Writer::wrap`).
pub fn ring_bytes(max: usize) -> usize {
    (2 * footprint(max)).next_power_of_two().max(64 << 10)
}
