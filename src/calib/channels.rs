//! The channels a pair probes, open side by side: MPI in each send mode the calibration
//! measures, then each raw transport beneath it (bell2003 §5 sets MPI beside the lowest
//! API of the same hardware). The client directs every command to one channel (see
//! `engine::Transport::select`), so the passes interleave them in time: MPI and the raw
//! layer are measured moments apart, size by size, and a change of the machine over
//! seconds moves both alike instead of making one look faster than the other.
use super::engine::{serve, Control, Transport};
use super::transports::mpi::{MpiControl, MpiTransport, MODES};
use crate::base::mpi::MPI_Comm;
use crate::calib::transports::{
    self, shm::ShmTransport, tcp::TcpTransport, ucx::UcxTransport, Raw,
};

/// Control words of the set-up, before the probes.
pub const RAW_BEGIN: u64 = 0x300;
pub const SERVE: u64 = 0x100;
pub const FINISH: u64 = 0x200;

/// A raw transport, connected.
pub enum RawChannel {
    Shm(ShmTransport),
    Tcp(TcpTransport),
    Ucx(UcxTransport),
}

impl RawChannel {
    fn t(&mut self) -> &mut dyn Transport {
        match self {
            RawChannel::Shm(t) => t,
            RawChannel::Tcp(t) => t,
            RawChannel::Ucx(t) => t,
        }
    }
}

/// What one channel number stands for.
#[derive(Clone, Copy, Debug)]
enum Chan {
    Mpi(&'static str),
    Raw(usize),
}

/// Every channel of a pair: MPI's modes first (one transport, its mode switched), then the
/// raw transports in the order they were connected.
pub struct Mux {
    mpi: MpiTransport,
    raws: Vec<RawChannel>,
    chans: Vec<Chan>,
    cur: usize,
}

impl Mux {
    /// `modes`: the indices into `MODES` to open, in that order.
    /// `same_host`: the peer runs on this host.
    pub fn new(
        comm: MPI_Comm,
        peer: u32,
        max_size: usize,
        modes: &[usize],
        same_host: bool,
    ) -> Mux {
        Mux {
            mpi: MpiTransport::new(comm, peer, max_size, same_host),
            raws: vec![],
            chans: modes
                .iter()
                .filter_map(|&m| MODES.get(m).map(|&m| Chan::Mpi(m)))
                .collect(),
            cur: 0,
        }
    }

    pub fn add_raw(&mut self, r: RawChannel) {
        self.chans.push(Chan::Raw(self.raws.len()));
        self.raws.push(r);
    }

    /// What a raw channel says of how it carried the messages, where it says more at the
    /// end than at connection (shm: the choices of single copies, pass by pass; UCT: of
    /// its rendezvous way).
    pub fn note_of(&self, chan: usize) -> Option<String> {
        match self.chans.get(chan) {
            Some(Chan::Raw(i)) => match &self.raws[*i] {
                RawChannel::Shm(t) => Some(t.note()),
                RawChannel::Ucx(t) => {
                    Some(format!("UCT {}/{}: {}", t.tl(), t.device(), t.describe()))
                }
                _ => None,
            },
            _ => None,
        }
    }

    pub fn len(&self) -> usize {
        self.chans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chans.is_empty()
    }

    fn t(&mut self) -> &mut dyn Transport {
        match self.chans.get(self.cur) {
            Some(Chan::Raw(i)) => self.raws[*i].t(),
            _ => &mut self.mpi,
        }
    }
}

impl Transport for Mux {
    fn select(&mut self, chan: usize) {
        self.cur = chan.min(self.chans.len().saturating_sub(1));
        if let Some(Chan::Mpi(m)) = self.chans.get(self.cur) {
            self.mpi.mode = m;
        }
    }
    fn send(&mut self, size: usize) -> bool {
        self.t().send(size)
    }
    fn recv(&mut self, size: usize) -> bool {
        self.t().recv(size)
    }
    fn progress(&mut self) {
        self.t().progress()
    }
    fn send_stop(&mut self) -> bool {
        self.t().send_stop()
    }
    fn clear_stop(&mut self) {
        self.t().clear_stop()
    }
    fn choose(&mut self, ctl: &mut dyn super::engine::Control, client: bool) -> bool {
        self.t().choose(ctl, client)
    }
    fn can_exchange(&self) -> bool {
        matches!(self.chans.get(self.cur), Some(Chan::Mpi(_))) && self.mpi.can_exchange()
    }
    fn exchange(&mut self, size: usize) -> bool {
        self.t().exchange(size)
    }
    fn shares_clock(&self) -> bool {
        matches!(self.chans.get(self.cur), Some(Chan::Mpi(_))) && self.mpi.shares_clock()
    }
    fn exchange_refill(&mut self, size: usize) -> bool {
        self.t().exchange_refill(size)
    }
    fn exchange_persistent(&mut self, size: usize) -> bool {
        self.t().exchange_persistent(size)
    }
    fn stopped(&self) -> bool {
        match self.chans.get(self.cur) {
            Some(Chan::Raw(i)) => match &self.raws[*i] {
                RawChannel::Shm(t) => t.stopped(),
                RawChannel::Tcp(t) => t.stopped(),
                RawChannel::Ucx(t) => t.stopped(),
            },
            _ => self.mpi.stopped(),
        }
    }
}

/// What connecting a raw transport gave the client: the channel, or why not; and for UCT
/// the transport, device and which operation carries which sizes.
pub struct Connected {
    pub channel: Result<RawChannel, String>,
    pub tl: Option<String>,
    pub device: Option<String>,
    pub note: Option<String>,
}

/// Client side of one raw transport's set-up over the control channel.
pub fn connect_client(ctl: &mut MpiControl, raw: &Raw, inter: bool, max_size: usize) -> Connected {
    let mut c = Connected {
        channel: Err("failed: control message failed".into()),
        tl: None,
        device: None,
        note: None,
    };
    let tl = match raw {
        Raw::Ucx(tl) => transports::ucx::pack_name(tl),
        _ => [0, 0],
    };
    if !ctl.send_words(&[RAW_BEGIN, raw.id() | (inter as u64) << 8, tl[0], tl[1]]) {
        return c;
    }
    static ATTEMPT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let attempt = ATTEMPT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let failed = |e: String| format!("failed: {e}");
    c.channel = match raw {
        Raw::Shm => match transports::shm::connect_client(ctl, max_size, attempt) {
            Ok(t) => {
                c.note = Some(t.note());
                Ok(RawChannel::Shm(t))
            }
            Err(e) => Err(failed(e)),
        },
        Raw::Tcp => transports::tcp::connect_client(ctl, max_size)
            .map(RawChannel::Tcp)
            .map_err(failed),
        Raw::Ucx(_) => match transports::ucx::connect_client(ctl, inter, max_size) {
            Ok(t) => {
                c.tl = Some(t.tl());
                c.device = Some(t.device());
                c.note = Some(format!("UCT {}/{}: {}", t.tl(), t.device(), t.describe()));
                Ok(RawChannel::Ucx(t))
            }
            Err(e) => Err(failed(e)),
        },
    };
    c
}

/// Server side of one raw transport's set-up (`w`: the client's RAW_BEGIN words).
pub fn connect_server(
    ctl: &mut MpiControl,
    w: [u64; 4],
    max_size: usize,
    same_host: bool,
) -> Option<RawChannel> {
    match w[1] & 0xff {
        transports::UCX => {
            let tl = transports::ucx::unpack_name([w[2], w[3]]);
            let inter = w[1] >> 8 & 1 == 1;
            transports::ucx::connect_server(ctl, &tl, inter, max_size)
                .ok()
                .map(RawChannel::Ucx)
        }
        transports::SHM => transports::shm::connect_server(ctl, max_size)
            .ok()
            .map(RawChannel::Shm),
        _ => transports::tcp::connect_server(ctl, max_size, same_host)
            .ok()
            .map(RawChannel::Tcp),
    }
}

/// The server of one pair: connects the raw transports the client asks for, then carries
/// out the client's commands on every channel until it says FINISH.
pub fn serve_pair(comm: MPI_Comm, peer: u32, max_size: usize, same_host: bool) {
    let mut ctl = MpiControl::new(comm, peer);
    let mut raws = vec![];
    while let Some(w) = ctl.recv_words() {
        match w[0] {
            RAW_BEGIN => {
                if let Some(r) = connect_server(&mut ctl, w, max_size, same_host) {
                    raws.push(r);
                }
            }
            SERVE => {
                let modes: Vec<usize> = (0..MODES.len()).filter(|m| w[1] >> m & 1 == 1).collect();
                let mut mux = Mux::new(comm, peer, max_size, &modes, same_host);
                for r in raws.drain(..) {
                    mux.add_raw(r);
                }
                serve(&mut mux, &mut ctl);
            }
            _ => break,
        }
    }
}
