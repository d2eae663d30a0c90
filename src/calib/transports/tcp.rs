//! `tcp`: kernel sockets with TCP_NODELAY between the two ranks of a pair — the floor of
//! MPI over TCP. A message is an 8-byte length header and its payload in one write. The
//! receiver polls its socket without blocking and yields between polls, as Open MPI's TCP
//! path does with `mpi_yield_when_idle`: on a loaded node a spinning receiver would starve
//! the softirq that delivers the packets.
//!
//! Set-up over the MPI control channel: the server listens on an ephemeral port of every
//! address and sends the port and up to three of its IPv4 addresses; the client connects
//! to the first that answers and says which.
use crate::calib::engine::{Control, Transport};
use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::time::Duration;

const STALL: Duration = Duration::from_secs(30);

pub struct TcpTransport {
    sock: TcpStream,
    sbuf: Vec<u8>,
    rbuf: Vec<u8>,
}

impl TcpTransport {
    pub fn new(sock: TcpStream, max: usize) -> std::io::Result<TcpTransport> {
        sock.set_nodelay(true)?;
        sock.set_nonblocking(true)?;
        Ok(TcpTransport {
            sock,
            sbuf: vec![0xA5; max + 8],
            rbuf: vec![0; max + 8],
        })
    }

    fn read_exact(&mut self, lo: usize, hi: usize) -> bool {
        let (sock, buf) = (&mut self.sock, &mut self.rbuf);
        all_of(hi - lo, |at| sock.read(&mut buf[lo + at..hi]))
    }
}

/// Runs a non-blocking transfer of `len` bytes to its end: `step(done)` moves some and
/// says how many; would-block yields the CPU; the peer silent for `STALL` is a failure.
fn all_of(len: usize, mut step: impl FnMut(usize) -> std::io::Result<usize>) -> bool {
    let mut at = 0;
    let t0 = std::time::Instant::now();
    while at < len {
        match step(at) {
            Ok(0) => return false,
            Ok(n) => at += n,
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if t0.elapsed() > STALL {
                    return false;
                }
                std::thread::yield_now();
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    true
}

impl Transport for TcpTransport {
    fn send(&mut self, size: usize) -> bool {
        if size + 8 > self.sbuf.len() {
            return false;
        }
        self.sbuf[..8].copy_from_slice(&(size as u64).to_le_bytes());
        let (sock, buf) = (&mut self.sock, &self.sbuf);
        all_of(size + 8, |at| sock.write(&buf[at..size + 8]))
    }
    fn recv(&mut self, size: usize) -> bool {
        if size + 8 > self.rbuf.len() || !self.read_exact(0, 8) {
            return false;
        }
        let header = u64::from_le_bytes(self.rbuf[..8].try_into().unwrap_or([0; 8]));
        header == super::STOP_HEADER || (header == size as u64 && self.read_exact(8, 8 + size))
    }
    fn send_stop(&mut self) -> bool {
        let (sock, head) = (&mut self.sock, super::STOP_HEADER.to_le_bytes());
        all_of(8, |at| sock.write(&head[at..]))
    }
    fn clear_stop(&mut self) {
        self.rbuf[..8].fill(0);
    }
    fn stopped(&self) -> bool {
        self.rbuf[..8] == super::STOP_HEADER.to_le_bytes()
    }
}

/// This host's IPv4 addresses, non-loopback first (loopback last, for a pair on one host).
pub fn local_ipv4() -> Vec<Ipv4Addr> {
    let mut out = vec![];
    let mut ifa: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills a list we free below; we only read it.
    if unsafe { libc::getifaddrs(&mut ifa) } == 0 {
        let mut p = ifa;
        while !p.is_null() {
            // SAFETY: p is a node of the list.
            let i = unsafe { &*p };
            let up = i.ifa_flags & libc::IFF_UP as u32 != 0;
            if up && !i.ifa_addr.is_null() {
                // SAFETY: ifa_addr points to a sockaddr of family sa_family.
                if unsafe { (*i.ifa_addr).sa_family } as i32 == libc::AF_INET {
                    let sin = unsafe { &*(i.ifa_addr as *const libc::sockaddr_in) };
                    out.push(Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr)));
                }
            }
            p = i.ifa_next;
        }
        // SAFETY: the list getifaddrs returned.
        unsafe { libc::freeifaddrs(ifa) };
    }
    out.sort_by_key(|a| a.is_loopback());
    out.dedup();
    out
}

/// Packs the port and up to three addresses into the four control words.
pub fn encode_addrs(port: u16, addrs: &[Ipv4Addr]) -> [u64; 4] {
    let mut w = [port as u64 | ((addrs.len().min(3) as u64) << 16), 0, 0, 0];
    for (i, a) in addrs.iter().take(3).enumerate() {
        w[1 + i] = u32::from(*a) as u64;
    }
    w
}

pub fn decode_addrs(w: &[u64; 4]) -> (u16, Vec<Ipv4Addr>) {
    let n = ((w[0] >> 16) & 0xff).min(3) as usize;
    let addrs = (0..n).map(|i| Ipv4Addr::from(w[1 + i] as u32)).collect();
    ((w[0] & 0xffff) as u16, addrs)
}

/// Server side: listen, publish, accept the client.
pub fn connect_server<C: Control>(
    ctl: &mut C,
    max: usize,
    same_host: bool,
) -> Result<TcpTransport, String> {
    let l = TcpListener::bind("0.0.0.0:0").map_err(|e| format!("bind: {e}"));
    let (l, port) = match l.and_then(|l| {
        l.local_addr()
            .map(|a| (l, a.port()))
            .map_err(|e| e.to_string())
    }) {
        Ok(x) => x,
        Err(e) => {
            ctl.send_words(&[0, 0, 0, 0]);
            return Err(e);
        }
    };
    let mut addrs = local_ipv4();
    if same_host {
        addrs.retain(|a| a.is_loopback());
        addrs.insert(0, Ipv4Addr::LOCALHOST);
        addrs.dedup();
    } else {
        addrs.retain(|a| !a.is_loopback());
    }
    if addrs.is_empty() || !ctl.send_words(&encode_addrs(port, &addrs)) {
        return Err("no IPv4 address to offer".into());
    }
    // The client reports whether it connected before we wait in accept.
    let w = ctl.recv_words().ok_or("control message failed")?;
    if w[0] != 1 {
        return Err("the peer could not connect".into());
    }
    let (s, _) = l.accept().map_err(|e| format!("accept: {e}"))?;
    TcpTransport::new(s, max).map_err(|e| e.to_string())
}

/// Client side: connect to the first address that answers.
pub fn connect_client<C: Control>(ctl: &mut C, max: usize) -> Result<TcpTransport, String> {
    let w = ctl.recv_words().ok_or("control message failed")?;
    let (port, addrs) = decode_addrs(&w);
    if port == 0 || addrs.is_empty() {
        return Err("the peer could not listen".into());
    }
    let mut last = String::from("no address");
    for a in addrs {
        match TcpStream::connect_timeout(&SocketAddrV4::new(a, port).into(), Duration::from_secs(2))
        {
            Ok(s) => {
                ctl.send_words(&[1, u32::from(a) as u64, 0, 0]);
                return TcpTransport::new(s, max).map_err(|e| e.to_string());
            }
            Err(e) => last = format!("connect {a}:{port}: {e}"),
        }
    }
    ctl.send_words(&[0, 0, 0, 0]);
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip_through_the_control_words() {
        let a = [
            Ipv4Addr::new(10, 77, 0, 2),
            Ipv4Addr::new(192, 168, 1, 9),
            Ipv4Addr::LOCALHOST,
            Ipv4Addr::new(1, 2, 3, 4),
        ];
        let (port, back) = decode_addrs(&encode_addrs(40123, &a));
        assert_eq!(port, 40123);
        assert_eq!(back, a[..3]);
        assert_eq!(decode_addrs(&[0, 0, 0, 0]), (0, vec![]));
    }

    #[test]
    fn loopback_pair_carries_framed_messages() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let t = std::thread::spawn(move || {
            let (s, _) = l.accept().unwrap();
            let mut s = TcpTransport::new(s, 1 << 20).unwrap();
            for size in [0, 1, 1000, 1 << 20] {
                assert!(s.recv(size));
                assert!(s.send(size));
            }
            // A size the sender did not send: refused, not misread.
            assert!(!s.recv(5));
        });
        let mut c = TcpTransport::new(TcpStream::connect(addr).unwrap(), 1 << 20).unwrap();
        for size in [0, 1, 1000, 1 << 20] {
            assert!(c.send(size));
            assert!(c.recv(size));
        }
        assert!(c.send(4));
        t.join().unwrap();
    }
}
