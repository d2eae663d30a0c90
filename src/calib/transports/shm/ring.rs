//! The two rings of a segment: a writer and a reader each, with the message header, the
//! restart at the beginning, the chunked pipeline and the single copy for large messages.
use std::sync::atomic::{AtomicU64, Ordering::*};

/// How long a send or receive waits for its peer before it gives up (the peer died).
pub(super) const STALL_NS: u64 = 30_000_000_000;
pub(super) const LINE: usize = 64;

/// One direction of the segment. The writer publishes a message by storing its header's
/// tag (its position + 1) last, with Release; the reader polls the tag at its own
/// position. A large message's header is published first and its payload follows in
/// chunks, each published through `tail` (the writer's line), so the reader copies out
/// while the writer still copies in (a two-copy pipeline, as a copy-based MPI's
/// fragments make it). `head` (the reader's line) says how far the reader has read: the
/// writer reads it only when its view (the last header from the peer) shows too little
/// room.
pub(super) struct Ring {
    pub(super) head: *const AtomicU64,
    pub(super) tail: *const AtomicU64,
    pub(super) data: *mut u8,
    pub(super) cap: usize,
}

/// Header: tag (position + 1), kind and length, the sender's read position of the other
/// ring, and (single copy) the address of the sender's buffer; messages start 32-aligned,
/// so a header never straddles the end of the area.
pub(super) const HEADER: usize = 32;
pub(super) const ALIGN: usize = 32;
pub(super) const KIND_DATA: u64 = 0;
pub(super) const KIND_STOP: u64 = 1;
/// Sends the reader to the start of the data area (the rest of the lap is skipped).
pub(super) const KIND_WRAP: u64 = 2;
/// The payload stays in the sender's buffer: the reader copies it from there, once, with
/// process_vm_readv (cross-memory attach, as Open MPI's shared memory and UCX's cma do
/// above their eager sizes), and the sender waits until it has.
pub(super) const KIND_SINGLE_COPY: u64 = 3;

/// No message below this size is copied once (`KIND_SINGLE_COPY`): a copy through the
/// ring costs less than the handshake a single copy needs. Above it, the trials at
/// connection decide: two copies move twice the bytes, and in a slow phase of this VM
/// (every cost 3 × the usual) they made this "floor" 1.1–1.8 × Open MPI's single-copy
/// rendezvous from 11 KB on, and (CI at 8c0aee4, single copies then from 8 KiB) 1.17–1.56
/// × it at 4.9–6.9 KB; elsewhere they were 0.3–0.6 × it. In that phase single copies won
/// from 4–7 KiB (trials of 2026-11-25).
pub(super) const SINGLE_COPY_FROM: usize = 2 << 10;

/// How much of a large message the writer copies before it publishes it: the reader
/// copies one chunk out while the writer copies the next in. 2 KiB: with 4 KiB (no
/// pipeline up to 4 KiB) raw shm was 0.8–1.25 × vader's eager round trip at 2.9–3.4 KB
/// and above the floor's bound in both phases of this VM; ten quick runs each with 2 KiB
/// gave 0.65–0.90 × there (1 KiB: 0.64–1.07, 512 B: 0.81–1.07).
pub(super) const CHUNK: usize = 2 << 10;

/// Bytes a message of `size` takes in the ring.
pub(super) fn footprint(size: usize) -> usize {
    (HEADER + size).next_multiple_of(ALIGN)
}

impl Ring {
    pub(super) fn head(&self) -> &AtomicU64 {
        // SAFETY: points into the live mapping, 8-aligned.
        unsafe { &*self.head }
    }
    pub(super) fn tail(&self) -> &AtomicU64 {
        // SAFETY: as above.
        unsafe { &*self.tail }
    }
    pub(super) fn word(&self, pos: u64, i: usize) -> &AtomicU64 {
        let off = (pos as usize) % self.cap + 8 * i;
        // SAFETY: a header's word, inside the data area (see ALIGN), 8-aligned.
        unsafe { &*(self.data.add(off) as *const AtomicU64) }
    }
    pub(super) fn at(&self, pos: u64) -> *mut u8 {
        // SAFETY: inside the data area.
        unsafe { self.data.add((pos as usize) % self.cap) }
    }
}

/// The writer's side of a ring.
pub(super) struct Writer {
    /// Position of the next message (bytes ever taken).
    pub(super) pos: u64,
    /// How far the reader has read, as this side last saw it.
    pub(super) seen_head: u64,
}

impl Writer {
    /// Waits until `need` bytes from `pos` on are free.
    pub(super) fn room(&mut self, r: &Ring, need: usize) -> bool {
        let mut waited = Stall::new();
        while r.cap - ((self.pos - self.seen_head) as usize) < need {
            self.seen_head = r.head().load(Acquire);
            if r.cap - ((self.pos - self.seen_head) as usize) < need && waited.over() {
                return false;
            }
        }
        true
    }

    pub(super) fn header(&self, r: &Ring, kind: u64, len: usize, ack: u64) {
        self.header_at(r, kind, len, ack, 0)
    }

    pub(super) fn header_at(&self, r: &Ring, kind: u64, len: usize, ack: u64, addr: u64) {
        r.word(self.pos, 3).store(addr, Relaxed);
        r.word(self.pos, 1).store(kind << 56 | len as u64, Relaxed);
        r.word(self.pos, 2).store(ack, Relaxed);
        r.word(self.pos, 0).store(self.pos + 1, Release);
    }

    /// Skips to the start of the data area: where the message would not fit before the
    /// end, or where the reader has read everything (the answer that says so came with
    /// `restart`) and the message fits before the `WRAP` header, in lines the reader has
    /// left: it is written at once, without waiting for the reader to see the jump.
    pub(super) fn wrap(&mut self, r: &Ring, need: usize, restart: bool, ack: u64) -> bool {
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

    pub(super) fn send(
        &mut self,
        r: &Ring,
        kind: u64,
        src: &[u8],
        restart: bool,
        ack: u64,
    ) -> bool {
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
    pub(super) fn send_single_copy(
        &mut self,
        r: &Ring,
        src: &[u8],
        restart: bool,
        ack: u64,
    ) -> bool {
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
pub(super) fn read_from(pid: i32, addr: u64, dst: &mut [u8]) -> bool {
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
pub(crate) fn summary(choices: &[String]) -> String {
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
pub(super) enum Got {
    Data,
    Stop,
    Failed,
}

/// The reader's side of a ring.
pub(super) struct Reader {
    pub(super) pos: u64,
    /// The sender's process, for single-copy messages.
    pub(super) peer: i32,
}

impl Reader {
    /// Reads the next message into `dst` (which must be its length); `ack` gets the
    /// sender's read position of the other ring.
    pub(super) fn recv(&mut self, r: &Ring, dst: &mut [u8], ack: &mut u64) -> Got {
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
/// No `spin_loop` hint: PAUSE takes up to ~140 cycles on recent x86, which a vader or UCX
/// progress loop does not pay, and the raw round trip is to be a floor beneath MPI's
/// (with it, raw shm's smallest half round trip read 229–252 ns and 2 of 10 runs of
/// tests/repeat.rs were above MPI; without, 212–248 ns in 48 of 50, 3 of 50 above).
pub(super) struct Stall {
    pub(super) spins: u32,
    pub(super) since: u64,
}
impl Stall {
    pub(super) fn new() -> Stall {
        Stall { spins: 0, since: 0 }
    }
    pub(super) fn over(&mut self) -> bool {
        self.spins += 1;
        if !self.spins.is_multiple_of(4096) {
            return false;
        }
        // A peer silent for 4096 spins (~10 µs or more) may be waiting for this core:
        // on an oversubscribed node (64 ranks on 2 cores) a pure spin held it for the
        // whole time slice. On a dedicated core the yield returns at once.
        std::thread::yield_now();
        let now = crate::base::clock::monotonic_raw_ns();
        if self.since == 0 {
            self.since = now;
        }
        now - self.since > STALL_NS
    }
}
