//! `shm`: a shared-memory channel between the two ranks of a pair on one host — two
//! single-producer single-consumer rings in one POSIX segment, busy-polled. A message is
//! a 24-byte header (its position, kind and length, and how far its sender has read the
//! other ring) and its payload, copied in by the sender and out by the receiver: the
//! floor of a copy-based intra-node MPI (bell2003 §5 sets MPI beside the lowest API of
//! the same hardware).
//!
//! The receiver polls the next message's header itself, so a small message costs one
//! cache line crossing per direction, as a shared-memory MPI's "fast box" does; the
//! sender learns how far the peer has read from the header of the peer's answer, not from
//! a line of its own. Where the peer has read everything, the next message starts at the
//! beginning of the data area again, so round trips reuse the same few lines.
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

/// One direction of the segment. The writer publishes a message by storing its header's
/// tag (its position + 1) last, with Release; the reader polls the tag at its own
/// position. A large message's header is published first and its payload follows in
/// chunks, each published through `tail` (the writer's line), so the reader copies out
/// while the writer still copies in (a two-copy pipeline, as a copy-based MPI's
/// fragments make it). `head` (the reader's line) says how far the reader has read: the
/// writer reads it only when its view (the last header from the peer) shows too little
/// room.
struct Ring {
    head: *const AtomicU64,
    tail: *const AtomicU64,
    data: *mut u8,
    cap: usize,
}

/// Header: tag (position + 1), kind and length, the sender's read position of the other
/// ring, and (single copy) the address of the sender's buffer; messages start 32-aligned,
/// so a header never straddles the end of the area.
const HEADER: usize = 32;
const ALIGN: usize = 32;
const KIND_DATA: u64 = 0;
const KIND_STOP: u64 = 1;
/// Sends the reader to the start of the data area (the rest of the lap is skipped).
const KIND_WRAP: u64 = 2;
/// The payload stays in the sender's buffer: the reader copies it from there, once, with
/// process_vm_readv (cross-memory attach, as Open MPI's shared memory and UCX's cma do
/// above their eager sizes), and the sender waits until it has.
const KIND_SINGLE_COPY: u64 = 3;

/// No message below this size is copied once (`KIND_SINGLE_COPY`): a copy through the
/// ring costs less than the handshake a single copy needs. Above it, the trials at
/// connection decide: two copies move twice the bytes, and in a slow phase of this VM
/// (every cost 2.3 × the usual) they made this "floor" 1.1–1.8 × Open MPI's single-copy
/// rendezvous from 11 KB on; elsewhere they were 0.4–0.6 × it.
const SINGLE_COPY_FROM: usize = 8 << 10;

/// How much of a large message the writer copies before it publishes it.
const CHUNK: usize = 4 << 10;

/// Bytes a message of `size` takes in the ring.
fn footprint(size: usize) -> usize {
    (HEADER + size).next_multiple_of(ALIGN)
}

impl Ring {
    fn head(&self) -> &AtomicU64 {
        // SAFETY: points into the live mapping, 8-aligned.
        unsafe { &*self.head }
    }
    fn tail(&self) -> &AtomicU64 {
        // SAFETY: as above.
        unsafe { &*self.tail }
    }
    fn word(&self, pos: u64, i: usize) -> &AtomicU64 {
        let off = (pos as usize) % self.cap + 8 * i;
        // SAFETY: a header's word, inside the data area (see ALIGN), 8-aligned.
        unsafe { &*(self.data.add(off) as *const AtomicU64) }
    }
    fn at(&self, pos: u64) -> *mut u8 {
        // SAFETY: inside the data area.
        unsafe { self.data.add((pos as usize) % self.cap) }
    }
}

/// The writer's side of a ring.
struct Writer {
    /// Position of the next message (bytes ever taken).
    pos: u64,
    /// How far the reader has read, as this side last saw it.
    seen_head: u64,
}

impl Writer {
    /// Waits until `need` bytes from `pos` on are free.
    fn room(&mut self, r: &Ring, need: usize) -> bool {
        let mut waited = Stall::new();
        while r.cap - ((self.pos - self.seen_head) as usize) < need {
            self.seen_head = r.head().load(Acquire);
            if r.cap - ((self.pos - self.seen_head) as usize) < need && waited.over() {
                return false;
            }
        }
        true
    }

    fn header(&self, r: &Ring, kind: u64, len: usize, ack: u64) {
        self.header_at(r, kind, len, ack, 0)
    }

    fn header_at(&self, r: &Ring, kind: u64, len: usize, ack: u64, addr: u64) {
        r.word(self.pos, 3).store(addr, Relaxed);
        r.word(self.pos, 1).store(kind << 56 | len as u64, Relaxed);
        r.word(self.pos, 2).store(ack, Relaxed);
        r.word(self.pos, 0).store(self.pos + 1, Release);
    }

    /// Skips to the start of the data area: where the message would not fit before the
    /// end, or where the reader has read everything (the answer that says so came with
    /// `restart`) and the message fits before the `WRAP` header, in lines the reader has
    /// left: it is written at once, without waiting for the reader to see the jump.
    fn wrap(&mut self, r: &Ring, need: usize, restart: bool, ack: u64) -> bool {
        let off = (self.pos as usize) % r.cap;
        let empty = self.seen_head == self.pos;
        if off == 0 || !(off + need > r.cap || restart && empty && need <= off) {
            return true;
        }
        // The skipped rest of the lap must be free: the reader is past this lap's start.
        if !self.room(r, r.cap - off) {
            return false;
        }
        self.header(r, KIND_WRAP, 0, ack);
        self.pos += (r.cap - off) as u64;
        true
    }

    fn send(&mut self, r: &Ring, kind: u64, src: &[u8], restart: bool, ack: u64) -> bool {
        let need = footprint(src.len());
        if !self.wrap(r, need, restart, ack) || !self.room(r, need) {
            return false;
        }
        let body = self.pos + HEADER as u64;
        if src.len() <= CHUNK {
            // SAFETY: [body, body + len) is free (room) and contiguous (wrap).
            unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), r.at(body), src.len()) };
            r.tail().store(body + src.len() as u64, Relaxed);
            self.header(r, kind, src.len(), ack);
        } else {
            self.header(r, kind, src.len(), ack);
            for (i, c) in src.chunks(CHUNK).enumerate() {
                let at = body + (i * CHUNK) as u64;
                // SAFETY: as above; published by the tail store after it.
                unsafe { std::ptr::copy_nonoverlapping(c.as_ptr(), r.at(at), c.len()) };
                r.tail().store(at + c.len() as u64, Release);
            }
        }
        self.pos += need as u64;
        true
    }

    /// A single-copy message: its header names the buffer, and the send returns once the
    /// reader has taken it (its read position has passed the header), as a blocking send
    /// may only return once its buffer can be reused.
    fn send_single_copy(&mut self, r: &Ring, src: &[u8], restart: bool, ack: u64) -> bool {
        let need = footprint(0);
        if !self.wrap(r, need, restart, ack) || !self.room(r, need) {
            return false;
        }
        self.header_at(r, KIND_SINGLE_COPY, src.len(), ack, src.as_ptr() as u64);
        self.pos += need as u64;
        let mut waited = Stall::new();
        loop {
            self.seen_head = r.head().load(Acquire);
            if self.seen_head >= self.pos {
                return true;
            }
            if waited.over() {
                return false;
            }
        }
    }
}

/// Copies `dst.len()` bytes from address `addr` of process `pid` (cross-memory attach).
fn read_from(pid: i32, addr: u64, dst: &mut [u8]) -> bool {
    let mut done = 0;
    while done < dst.len() {
        let local = libc::iovec {
            iov_base: dst[done..].as_mut_ptr() as *mut _,
            iov_len: dst.len() - done,
        };
        let remote = libc::iovec {
            iov_base: (addr + done as u64) as *mut _,
            iov_len: dst.len() - done,
        };
        // SAFETY: `local` is our own buffer; the kernel checks the peer's range.
        let n = unsafe { libc::process_vm_readv(pid, &local, 1, &remote, 1, 0) };
        if n <= 0 {
            return false;
        }
        done += n as usize;
    }
    true
}

/// "N of M times X, K of M times Y".
fn summary(choices: &[String]) -> String {
    let mut kinds: Vec<(&String, usize)> = vec![];
    for c in choices {
        match kinds.iter_mut().find(|(k, _)| *k == c) {
            Some(e) => e.1 += 1,
            None => kinds.push((c, 1)),
        }
    }
    kinds
        .iter()
        .map(|(k, n)| format!("{n} of {} times {k}", choices.len()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the reader found.
enum Got {
    Data,
    Stop,
    Failed,
}

/// The reader's side of a ring.
struct Reader {
    pos: u64,
    /// The sender's process, for single-copy messages.
    peer: i32,
}

impl Reader {
    /// Reads the next message into `dst` (which must be its length); `ack` gets the
    /// sender's read position of the other ring.
    fn recv(&mut self, r: &Ring, dst: &mut [u8], ack: &mut u64) -> Got {
        loop {
            let mut waited = Stall::new();
            while r.word(self.pos, 0).load(Acquire) != self.pos + 1 {
                if waited.over() {
                    return Got::Failed;
                }
            }
            let w = r.word(self.pos, 1).load(Relaxed);
            *ack = r.word(self.pos, 2).load(Relaxed);
            let (kind, len) = (w >> 56, (w & ((1 << 56) - 1)) as usize);
            let next = match kind {
                KIND_WRAP => (self.pos as usize).next_multiple_of(r.cap) as u64,
                KIND_SINGLE_COPY => self.pos + footprint(0) as u64,
                _ => self.pos + footprint(len) as u64,
            };
            if kind == KIND_WRAP {
                self.pos = next;
                r.head().store(next, Release);
                continue;
            }
            if kind == KIND_STOP {
                self.pos = next;
                r.head().store(next, Release);
                return Got::Stop;
            }
            if len != dst.len() {
                return Got::Failed;
            }
            let body = self.pos + HEADER as u64;
            if kind == KIND_SINGLE_COPY {
                let addr = r.word(self.pos, 3).load(Relaxed);
                if !read_from(self.peer, addr, dst) {
                    return Got::Failed;
                }
            } else if len <= CHUNK {
                // SAFETY: published before the tag (Release/Acquire).
                unsafe { std::ptr::copy_nonoverlapping(r.at(body), dst.as_mut_ptr(), len) };
            } else {
                let mut done = 0;
                let mut waited = Stall::new();
                while done < len {
                    let upto = r.tail().load(Acquire);
                    let avail = (upto.saturating_sub(body) as usize).min(len) - done;
                    if avail == 0 {
                        if waited.over() {
                            return Got::Failed;
                        }
                        continue;
                    }
                    // SAFETY: published by the writer's tail store.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            r.at(body + done as u64),
                            dst[done..].as_mut_ptr(),
                            avail,
                        )
                    };
                    done += avail;
                }
            }
            self.pos = next;
            r.head().store(next, Release);
            return Got::Data;
        }
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

/// The mapped segment: two position lines (one per side: the client's and the server's),
/// then the data of ring 0 (client → server) and of ring 1 (server → client).
pub struct Segment {
    base: *mut u8,
    len: usize,
    cap: usize,
}

impl Segment {
    /// Bytes of a segment with rings of `cap` bytes each.
    fn bytes(cap: usize) -> usize {
        2 * LINE + 2 * cap
    }

    /// Ring `i` (0: client → server): its tail on the writer's line, its head on the
    /// reader's (offset 8 in that line).
    fn ring(&self, i: usize) -> Ring {
        let line = |side: usize| -> *mut u8 {
            // SAFETY: both lines lie at the start of the mapping.
            unsafe { self.base.add(side * LINE) }
        };
        let (writer, reader) = (i, 1 - i);
        Ring {
            tail: line(writer) as *const AtomicU64,
            // SAFETY: 8 bytes into the reader's 64-byte line.
            head: unsafe { line(reader).add(8) } as *const AtomicU64,
            // SAFETY: ring i's data follows the two lines and ring i−1's data.
            data: unsafe { self.base.add(2 * LINE + i * self.cap) },
            cap: self.cap,
        }
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

/// Ring size for messages up to `max` bytes: room for two whole messages (a message that
/// would not fit before the end starts the next lap, so two always make progress), a
/// power of two. The size does not make the footprint: round trips restart at the
/// beginning (see `Writer::wrap`).
pub fn ring_bytes(max: usize) -> usize {
    (2 * footprint(max)).next_power_of_two().max(64 << 10)
}

/// The transport over a mapped segment.
pub struct ShmTransport {
    seg: Segment,
    out: usize,
    writer: Writer,
    reader: Reader,
    /// A message was received since this side last sent: the peer has answered, so the
    /// outgoing ring may be empty and the next message may start at its beginning.
    answered: bool,
    stop: bool,
    /// Messages of this size and more are copied once (both sides can read each other's
    /// buffers, and that was the faster way at connection); `usize::MAX`: none.
    single_copy_from: usize,
    /// How large messages go, and why (for the raw set's note).
    pub choice: String,
    /// Each choice made (at connection and before each pass).
    choices: Vec<String>,
    /// Both sides can read each other's buffers.
    can_single_copy: bool,
    sbuf: Vec<u8>,
    rbuf: Vec<u8>,
}

impl ShmTransport {
    pub fn new(seg: Segment, client: bool, max: usize) -> ShmTransport {
        ShmTransport {
            seg,
            out: if client { 0 } else { 1 },
            writer: Writer {
                pos: 0,
                seen_head: 0,
            },
            reader: Reader { pos: 0, peer: 0 },
            answered: false,
            stop: false,
            single_copy_from: usize::MAX,
            choice: String::new(),
            choices: vec![],
            can_single_copy: false,
            sbuf: vec![0xA5; max],
            rbuf: vec![0; max],
        }
    }

    fn send_kind(&mut self, kind: u64, size: usize) -> bool {
        if size > self.sbuf.len() {
            return false;
        }
        let restart = std::mem::take(&mut self.answered);
        let ring = self.seg.ring(self.out);
        if kind == KIND_DATA && size >= self.single_copy_from {
            return self.writer.send_single_copy(
                &ring,
                &self.sbuf[..size],
                restart,
                self.reader.pos,
            );
        }
        self.writer
            .send(&ring, kind, &self.sbuf[..size], restart, self.reader.pos)
    }

    /// The client's side of choosing how large messages go: at each trial size both ways,
    /// `TRIALS` round trips each; single copies from the smallest trial size on which they
    /// win there and at every larger one. The server follows (`choose_server`) and gets
    /// the choice.
    fn choose_client<C: Control>(&mut self, ctl: &mut C) -> Result<(), String> {
        let max = self.sbuf.len();
        let sizes: Vec<usize> = SINGLE_COPY_TRIALS
            .iter()
            .copied()
            .filter(|&s| s <= max)
            .collect();
        let mut took = vec![[0u64; 2]; sizes.len()];
        for (k, &size) in sizes.iter().enumerate() {
            for (i, single) in [false, true].into_iter().enumerate() {
                self.single_copy_from = if single { 0 } else { usize::MAX };
                let mut best = u64::MAX;
                for _ in 0..TRIALS {
                    let t0 = crate::clock::monotonic_raw_ns();
                    if !self.send(size) || !self.recv(size) {
                        return Err("the single-copy trial failed".into());
                    }
                    best = best.min(crate::clock::monotonic_raw_ns() - t0);
                }
                took[k][i] = best;
            }
        }
        let from = (0..sizes.len())
            .find(|&k| took[k..].iter().all(|x| x[1] < x[0]))
            .map(|k| sizes[k].max(SINGLE_COPY_FROM));
        self.single_copy_from = from.unwrap_or(usize::MAX);
        let trials: Vec<String> = sizes
            .iter()
            .zip(&took)
            .map(|(s, x)| {
                format!(
                    "{} KiB {:.1}/{:.1} µs",
                    s >> 10,
                    x[0] as f64 / 1e3,
                    x[1] as f64 / 1e3
                )
            })
            .collect();
        let how = match from {
            Some(f) => format!("{} KiB on by a single copy", f >> 10),
            None => "through the ring".into(),
        };
        self.choices.push(how.clone());
        self.choice = format!(
            "chosen again before every pass by round trips through the ring and by a single copy (process_vm_readv) at {} KiB: large messages {} ({}); the last choice: {how} ({})",
            sizes.iter().map(|s| (s >> 10).to_string()).collect::<Vec<_>>().join(", "),
            summary(&self.choices),
            self.choices.len(),
            trials.join(", ")
        );
        if !ctl.send_words(&[self.single_copy_from as u64, 0, 0, 0]) {
            return Err("control message failed".into());
        }
        Ok(())
    }

    /// The server's side of `choose_client`.
    fn choose_server<C: Control>(&mut self, ctl: &mut C) -> Result<(), String> {
        let max = self.sbuf.len();
        for size in SINGLE_COPY_TRIALS.iter().copied().filter(|&s| s <= max) {
            for single in [false, true] {
                self.single_copy_from = if single { 0 } else { usize::MAX };
                for _ in 0..TRIALS {
                    if !self.recv(size) || !self.send(size) {
                        return Err("the single-copy trial failed".into());
                    }
                }
            }
        }
        let w = ctl.recv_words().ok_or("control message failed")?;
        self.single_copy_from = w[0] as usize;
        Ok(())
    }

    /// Where the peer is process `pid` whose buffer lies at `addr`: single copies are
    /// used where one test read of it works (cross-memory attach may be forbidden).
    fn meet(&mut self, pid: i32, addr: u64) -> bool {
        self.reader.peer = pid;
        let mut probe = [0u8; 8];
        read_from(pid, addr, &mut probe) && probe == [0xA5; 8]
    }
}

impl Transport for ShmTransport {
    fn send(&mut self, size: usize) -> bool {
        self.send_kind(KIND_DATA, size)
    }
    fn recv(&mut self, size: usize) -> bool {
        if size > self.rbuf.len() {
            return false;
        }
        let ring = self.seg.ring(1 - self.out);
        let mut ack = 0;
        let got = self.reader.recv(&ring, &mut self.rbuf[..size], &mut ack);
        // The peer's header says how far it has read this side's outgoing ring.
        self.writer.seen_head = self.writer.seen_head.max(ack);
        self.answered = true;
        match got {
            Got::Data => true,
            Got::Stop => {
                self.stop = true;
                true
            }
            Got::Failed => false,
        }
    }
    fn send_stop(&mut self) -> bool {
        self.send_kind(KIND_STOP, 0)
    }
    fn clear_stop(&mut self) {
        self.stop = false;
    }
    fn stopped(&self) -> bool {
        self.stop
    }
    /// Which way is faster changes with the machine's phase (in a slow one, two copies
    /// lost to MPI's single copy from 11 KB on; elsewhere they won by 2 ×): chosen again
    /// before each pass.
    fn choose(&mut self, ctl: &mut dyn Control, client: bool) -> bool {
        if !self.can_single_copy {
            return true;
        }
        let r = if client {
            self.choose_client(&mut DynControl(ctl))
        } else {
            self.choose_server(&mut DynControl(ctl))
        };
        r.is_ok()
    }
}

/// A `Control` behind a trait object.
struct DynControl<'a>(&'a mut dyn Control);
impl Control for DynControl<'_> {
    fn send_words(&mut self, w: &[u64; 4]) -> bool {
        self.0.send_words(w)
    }
    fn recv_words(&mut self) -> Option<[u64; 4]> {
        self.0.recv_words()
    }
}

/// Client side of the set-up over the MPI control channel: create, tell the server the
/// name and size, wait for its "mapped" (with its process and buffer), unlink; then each
/// side tries one single copy from the other's buffer, and single copies are used where
/// both could.
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
    let w = match reply {
        Some(w) if w[0] == 1 => w,
        Some(w) if w[0] == 2 => return Err("the peer could not map the segment".into()),
        _ => return Err("control message failed".into()),
    };
    let mut t = ShmTransport::new(seg, true, max);
    let mine = t.meet(w[1] as i32, w[2]);
    if !ctl.send_words(&[t.sbuf.as_ptr() as u64, mine as u64, 0, 0]) {
        return Err("control message failed".into());
    }
    let theirs = ctl.recv_words().ok_or("control message failed")?;
    t.can_single_copy = mine && theirs[0] == 1;
    if t.can_single_copy {
        t.choose_client(ctl)?;
    } else {
        t.choice =
            "two copies through the ring at every size (the peers cannot read each other's memory)"
                .to_string();
    }
    Ok(t)
}

/// The sizes and number of the round trips that choose between a single copy and two at
/// connection: which is faster depends on the size and on the machine's state (two copies
/// move twice the bytes, and lost in a phase of this VM where memory was slow; a single
/// copy needs a handshake, and lost where it was not).
const SINGLE_COPY_TRIALS: [usize; 3] = [16 << 10, 64 << 10, 256 << 10];
const TRIALS: usize = 5;

/// Server side: map the client's segment, say so (with this process and its buffer),
/// then agree on single copies.
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
    let seg = match Segment::open(&segment_name(pid, attempt), cap) {
        Ok(seg) => seg,
        Err(e) => {
            ctl.send_words(&[2, 0, 0, 0]);
            return Err(e);
        }
    };
    let mut t = ShmTransport::new(seg, false, max);
    let me = std::process::id() as u64;
    if !ctl.send_words(&[1, me, t.sbuf.as_ptr() as u64, 0]) {
        return Err("control message failed".into());
    }
    let theirs = ctl.recv_words().ok_or("control message failed")?;
    let mine = t.meet(pid as i32, theirs[0]);
    if !ctl.send_words(&[mine as u64, 0, 0, 0]) {
        return Err("control message failed".into());
    }
    t.can_single_copy = mine && theirs[1] == 1;
    if t.can_single_copy {
        t.choose_server(ctl)?;
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The live-name slot is one per process: these tests take turns.
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn rings_carry_messages_of_every_size_both_ways() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let name = segment_name(std::process::id(), 900);
        let max = 300_000;
        let a = Segment::create(&name, ring_bytes(max)).unwrap();
        let b = Segment::open(&name, ring_bytes(max)).unwrap();
        unlink(&name);
        assert!(!std::path::Path::new("/dev/shm/loggp").exists());
        let mut c = ShmTransport::new(a, true, max);
        let mut s = ShmTransport::new(b, false, max);
        let t = std::thread::spawn(move || {
            for size in SIZES {
                assert!(s.recv(size), "server recv {size}");
                assert!(s.rbuf[..size].iter().all(|&x| x == 0xA5));
                assert!(s.send(size));
            }
            // A burst larger than the ring waits for the reader (no reply in between).
            for _ in 0..8 {
                assert!(s.recv(300_000));
            }
            assert!(s.send(1));
        });
        const SIZES: [usize; 7] = [0, 1, 7, 65536, 200_000, 300_000, 5];
        for size in SIZES {
            assert!(c.send(size));
            assert!(c.recv(size), "client recv {size}");
        }
        for _ in 0..8 {
            assert!(c.send(300_000));
        }
        assert!(c.recv(1));
        t.join().unwrap();
        assert!(
            !std::path::Path::new(&format!("/dev/shm/loggp.{}.900", std::process::id())).exists()
        );
    }

    /// Round trips reuse the start of the data area (the footprint stays one message),
    /// where walking the whole ring made 2–8 KB messages miss the cache every time.
    #[test]
    fn round_trips_restart_at_the_beginning_of_the_ring() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let name = segment_name(std::process::id(), 903);
        let max = 512 << 10;
        let a = Segment::create(&name, ring_bytes(max)).unwrap();
        let b = Segment::open(&name, ring_bytes(max)).unwrap();
        unlink(&name);
        let mut c = ShmTransport::new(a, true, max);
        let mut s = ShmTransport::new(b, false, max);
        let t = std::thread::spawn(move || {
            for _ in 0..2000 {
                assert!(s.recv(2048));
                assert!(s.send(2048));
            }
            for _ in 0..16 {
                assert!(s.recv(3001));
            }
            assert!(s.send(1));
        });
        let cap = ring_bytes(max) as u64;
        let mut furthest = 0;
        for _ in 0..2000 {
            assert!(c.send(2048));
            furthest = furthest.max(c.writer.pos % cap);
            assert!(c.recv(2048));
        }
        // A burst without answers goes on in the ring, then restarts after the reply.
        for _ in 0..16 {
            assert!(c.send(3001));
        }
        assert!(c.recv(1));
        t.join().unwrap();
        assert!(
            furthest <= 2 * 2080,
            "messages reached offset {furthest} of {cap}"
        );
        assert_eq!(c.writer.pos % ALIGN as u64, 0);
    }

    /// Large messages go by a single copy from the sender's buffer where both sides can
    /// read each other's (here: one process, so both can).
    #[test]
    fn single_copies_carry_large_messages() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let name = segment_name(std::process::id(), 904);
        let max = 300_000;
        let a = Segment::create(&name, ring_bytes(max)).unwrap();
        let b = Segment::open(&name, ring_bytes(max)).unwrap();
        unlink(&name);
        let mut c = ShmTransport::new(a, true, max);
        let mut s = ShmTransport::new(b, false, max);
        let pid = std::process::id() as i32;
        let (ca, sa) = (c.sbuf.as_ptr() as u64, s.sbuf.as_ptr() as u64);
        assert!(c.meet(pid, sa) && s.meet(pid, ca));
        c.single_copy_from = SINGLE_COPY_FROM;
        s.single_copy_from = SINGLE_COPY_FROM;
        s.sbuf.fill(0x3C);
        let t = std::thread::spawn(move || {
            for size in [8192, 100_000, 300_000, 100] {
                assert!(s.recv(size));
                assert!(s.rbuf[..size].iter().all(|&x| x == 0xA5), "{size}");
                assert!(s.send(size));
            }
        });
        for size in [8192, 100_000, 300_000, 100] {
            assert!(c.send(size));
            assert!(c.recv(size));
            assert!(c.rbuf[..size].iter().all(|&x| x == 0x3C), "{size}");
        }
        t.join().unwrap();
    }

    #[test]
    fn a_size_mismatch_is_a_failure_not_a_hang() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let name = segment_name(std::process::id(), 901);
        let a = Segment::create(&name, ring_bytes(100)).unwrap();
        let b = Segment::open(&name, ring_bytes(100)).unwrap();
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
