//! The shm channel as a calibration transport, and how the pair sets it up.
use super::ring::*;
use super::segment::*;
use crate::calib::engine::{Control, Transport};

/// The transport over a mapped segment.
pub struct ShmTransport {
    pub(super) seg: Segment,
    pub(super) out: usize,
    pub(super) writer: Writer,
    pub(super) reader: Reader,
    /// A message was received since this side last sent: the peer has answered, so the
    /// outgoing ring may be empty and the next message may start at its beginning.
    pub(super) answered: bool,
    pub(super) stop: bool,
    /// Messages of this size and more are copied once (both sides can read each other's
    /// buffers, and that was the faster way at connection); `usize::MAX`: none.
    pub(super) single_copy_from: usize,
    /// How large messages go, and why (for the raw set's note).
    pub choice: String,
    /// Where the rings lie, and why (for the raw set's note; empty on the server).
    pub placed: String,
    /// Each choice made (at connection and before each pass).
    pub(super) choices: Vec<String>,
    /// Both sides can read each other's buffers.
    pub(super) can_single_copy: bool,
    pub(super) sbuf: Vec<u8>,
    pub(super) rbuf: Vec<u8>,
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
            placed: String::new(),
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
    /// `TRIALS` round trips each, compared by their medians (the fastest of them favoured
    /// the ring, whose round trips spread widely in a slow phase: fastest 2.5–3.3 µs at 4
    /// KiB where its median in the calibration was 7 µs, single copies steady at 4.5);
    /// single copies from the smallest trial size on which they win there and at every
    /// larger one. The server follows (`choose_server`) and gets
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
                let mut round_trips = [0u64; TRIALS];
                for t in round_trips.iter_mut() {
                    let t0 = crate::base::clock::monotonic_raw_ns();
                    if !self.send(size) || !self.recv(size) {
                        return Err("the single-copy trial failed".into());
                    }
                    *t = crate::base::clock::monotonic_raw_ns() - t0;
                }
                round_trips.sort_unstable();
                took[k][i] = round_trips[TRIALS / 2];
            }
        }
        let from = (0..sizes.len())
            .find(|&k| took[k..].iter().all(|x| x[1] < x[0]))
            .map(|k| crossover(&sizes, &took, k).max(SINGLE_COPY_FROM));
        self.single_copy_from = from.unwrap_or(usize::MAX);
        let how = match from {
            Some(f) => format!("{} KiB on by a single copy", f.div_ceil(1024)),
            None => "through the ring".into(),
        };
        self.choices.push(how.clone());
        self.choice = format!(
            "chosen again before every pass by round trips through the ring and by a single copy (process_vm_readv) at {} KiB: large messages {} ({}); the last choice: {how} ({})",
            sizes.iter().map(|s| (s >> 10).to_string()).collect::<Vec<_>>().join(", "),
            summary(&self.choices),
            self.choices.len(),
            trials_text(&sizes, &took)
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

    /// The client's side of choosing where the rings lie (`PLACES`): at each place,
    /// `PLACE_WARMUP` round trips of 8 bytes, then `PLACE_TRIALS` timed; the place of the
    /// smallest median is kept. A control word moves both sides to each place and gives
    /// the server the choice (`place_server`). Returns each place's median (ns).
    fn place_client<C: Control>(&mut self, ctl: &mut C) -> Result<[u64; PLACES], String> {
        let mut took = [0u64; PLACES];
        for (j, median) in took.iter_mut().enumerate() {
            if !ctl.send_words(&[j as u64, 0, 0, 0]) {
                return Err("control message failed".into());
            }
            self.seg.place(j);
            let mut round_trips = [0u64; PLACE_TRIALS];
            for i in 0..PLACE_WARMUP + PLACE_TRIALS {
                let t0 = crate::base::clock::monotonic_raw_ns();
                if !self.send(8) || !self.recv(8) {
                    return Err("the placement trial failed".into());
                }
                if let Some(x) = i.checked_sub(PLACE_WARMUP) {
                    round_trips[x] = crate::base::clock::monotonic_raw_ns() - t0;
                }
            }
            round_trips.sort_unstable();
            *median = round_trips[PLACE_TRIALS / 2];
        }
        let best = (0..PLACES).min_by_key(|&j| took[j]).unwrap_or(0);
        if !ctl.send_words(&[best as u64, 0, 0, 0]) {
            return Err("control message failed".into());
        }
        self.seg.place(best);
        Ok(took)
    }

    /// What the raw set's note says of this transport: where its rings lie and how
    /// large messages go.
    pub fn note(&self) -> String {
        format!("shm: {}; {}", self.placed, self.choice)
    }

    /// The server's side of `place_client`.
    fn place_server<C: Control>(&mut self, ctl: &mut C) -> Result<(), String> {
        for _ in 0..PLACES {
            let w = ctl.recv_words().ok_or("control message failed")?;
            self.seg.place(w[0] as usize);
            for _ in 0..PLACE_WARMUP + PLACE_TRIALS {
                if !self.recv(8) || !self.send(8) {
                    return Err("the placement trial failed".into());
                }
            }
        }
        let w = ctl.recv_words().ok_or("control message failed")?;
        self.seg.place(w[0] as usize);
        Ok(())
    }

    /// Where the peer is process `pid` whose buffer lies at `addr`: single copies are
    /// used where one test read of it works (cross-memory attach may be forbidden).
    pub(super) fn meet(&mut self, pid: i32, addr: u64) -> bool {
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
pub(super) struct DynControl<'a>(&'a mut dyn Control);
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
    let places = t.place_client(ctl)?;
    let best = places.iter().min().copied().unwrap_or(0);
    t.placed = format!(
        "its rings at the fastest of {PLACES} pages (8-byte round trips {} ns; see PLACES)",
        places
            .iter()
            .map(|x| if *x == best {
                format!("[{x}]")
            } else {
                x.to_string()
            })
            .collect::<Vec<_>>()
            .join("/")
    );
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

/// Two ways' median round trips per trial size, "4 KiB 5.1/4.3 µs, …" (the first way's
/// over the second's): for the notes of the transports that choose between two ways.
pub(crate) fn trials_text(sizes: &[usize], took: &[[u64; 2]]) -> String {
    sizes
        .iter()
        .zip(took)
        .map(|(s, x)| {
            format!(
                "{} KiB {:.1}/{:.1} µs",
                s >> 10,
                x[0] as f64 / 1e3,
                x[1] as f64 / 1e3
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where single copies start, given that they win at trial `k` and every larger one:
/// trial k's size where it is the first, else where the lines through the two ways' round
/// trips at trials k − 1 and k cross (both ways cost a fixed part and a part per byte).
/// Starting at trial k's size left the sizes between the trials to the ring's two copies
/// where they lost: in a CI run at f150d53 that made raw shm 1.11–1.22 × vader's single
/// copy at 39–55 KB in 2 of 10 runs, single copies having won from 64 KiB and lost at 16.
pub(crate) fn crossover(sizes: &[usize], took: &[[u64; 2]], k: usize) -> usize {
    if k == 0 {
        return sizes[0];
    }
    // Ring minus single copy: not positive at k − 1 (the ring won or tied), positive at k.
    let d = |i: usize| took[i][0] as f64 - took[i][1] as f64;
    let (a, b) = (sizes[k - 1] as f64, sizes[k] as f64);
    let t = (-d(k - 1)) / (d(k) - d(k - 1));
    (a + (b - a) * t.clamp(0.0, 1.0)).ceil() as usize
}

/// The sizes and number of the round trips that choose between a single copy and two at
/// connection: which is faster depends on the size and on the machine's state (two copies
/// move twice the bytes, and lost in a phase of this VM where memory was slow; a single
/// copy needs a handshake, and lost where it was not).
/// 2 KiB, where single copies may begin (`SINGLE_COPY_FROM`), 4 KiB (in a slow phase the
/// lines crossed between 4 and 8 KiB), and 32 KiB since the two ways' lines are straight
/// only roughly: with trials at 16, 64 and 256 KiB alone, raw shm lost to vader at 11–14
/// KB in a slow phase, the ring's two copies used below 16 KiB.
pub(super) const SINGLE_COPY_TRIALS: [usize; 7] = [
    2 << 10,
    4 << 10,
    8 << 10,
    16 << 10,
    32 << 10,
    64 << 10,
    256 << 10,
];
pub(crate) const TRIALS: usize = 5;
/// Round trips per place (`ShmTransport::place_client`): untimed, then timed. 4 × 96
/// round trips of about 0.5 µs: 0.2 ms of the connection.
const PLACE_WARMUP: usize = 32;
const PLACE_TRIALS: usize = 64;

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
    t.place_server(ctl)?;
    t.can_single_copy = mine && theirs[1] == 1;
    if t.can_single_copy {
        t.choose_server(ctl)?;
    }
    Ok(t)
}
