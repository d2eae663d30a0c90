//! MPI point-to-point between the two ranks of a pair, on the private communicator: the
//! probes' data in one of MPI's send modes, and the control channel that carries the
//! client's commands.
use crate::base::mpi::{self, MPI_Comm};
use crate::calib::engine::{Control, Transport};
use std::os::raw::c_int;

pub const CTRL_TAG: c_int = 0x1067;
pub const DATA_TAG: c_int = 0x1068;

/// The send modes a calibration probes, in the order of their channel numbers.
pub const MODES: [&str; 3] = ["send", "isend", "ssend"];

/// First byte of the client's stop mark (probe data is 0xA5).
const STOP_BYTE: u8 = 0x5A;

/// MPI point-to-point in one send mode (of `MODES`) on the private communicator.
pub struct MpiTransport {
    comm: MPI_Comm,
    peer: c_int,
    pub mode: &'static str,
    sbuf: Vec<u8>,
    rbuf: Vec<u8>,
    /// The refill exchange's two buffers of its own (allocated at its first use), so
    /// that the other probes find `sbuf` and `rbuf` as they left them; its next turn
    /// sends the second and receives into the first.
    refill: Vec<Vec<u8>>,
    refill_turn: bool,
    /// The peer runs on this host (`Transport::shares_clock`).
    same_host: bool,
}

impl MpiTransport {
    pub fn new(comm: MPI_Comm, peer: u32, max_size: usize, same_host: bool) -> MpiTransport {
        MpiTransport {
            comm,
            peer: peer as c_int,
            mode: MODES[0],
            sbuf: vec![0xA5; max_size],
            // Written, not only allocated: a zeroed allocation maps its pages lazily.
            rbuf: vec![0x5B; max_size],
            refill: vec![],
            refill_turn: false,
            same_host,
        }
    }

    /// One MPI_Sendrecv of `size` bytes each way with the peer, from `from` into `into`.
    fn sendrecv(&self, size: usize, from: *const u8, into: *mut u8) -> bool {
        let (n, dt) = (size as c_int, mpi::dt_byte());
        crate::record::matrix::own_sent(self.peer, size as u64);
        // SAFETY: both buffers hold at least `size` bytes (callers pass this
        // transport's buffers, each of its largest size); private communicator.
        unsafe {
            mpi::PMPI_Sendrecv(
                from as *const _,
                n,
                dt,
                self.peer,
                DATA_TAG,
                into as *mut _,
                n,
                dt,
                self.peer,
                DATA_TAG,
                self.comm,
                mpi::status_ignore(),
            ) == mpi::success()
        }
    }
}

impl Transport for MpiTransport {
    fn send(&mut self, size: usize) -> bool {
        let buf = self.sbuf.as_ptr() as *const _;
        let (n, dt) = (size as c_int, mpi::dt_byte());
        // SAFETY: sbuf holds at least `size` bytes; private communicator.
        let rc = unsafe {
            match self.mode {
                "ssend" => mpi::PMPI_Ssend(buf, n, dt, self.peer, DATA_TAG, self.comm),
                "isend" => {
                    let mut r: mpi::MPI_Request = mpi::request_null();
                    mpi::PMPI_Isend(buf, n, dt, self.peer, DATA_TAG, self.comm, &mut r);
                    mpi::PMPI_Wait(&mut r, mpi::status_ignore())
                }
                _ => mpi::PMPI_Send(buf, n, dt, self.peer, DATA_TAG, self.comm),
            }
        };
        // Counted for the cross-check with a per-peer counter beneath PMPI (`matrix`).
        crate::record::matrix::own_sent(self.peer, size as u64);
        rc == mpi::success()
    }
    /// The stop mark: one byte of `STOP_BYTE` on the data tag (every probe message is at
    /// least 1 byte of 0xA5, and a receive of s ≥ 1 bytes takes a shorter message).
    fn send_stop(&mut self) -> bool {
        let mark = [STOP_BYTE];
        crate::record::matrix::own_sent(self.peer, 1);
        // SAFETY: one byte; private communicator.
        unsafe {
            mpi::PMPI_Send(
                mark.as_ptr() as *const _,
                1,
                mpi::dt_byte(),
                self.peer,
                DATA_TAG,
                self.comm,
            ) == mpi::success()
        }
    }
    fn clear_stop(&mut self) {
        if let Some(b) = self.rbuf.first_mut() {
            *b = 0;
        }
    }
    fn stopped(&self) -> bool {
        self.rbuf.first() == Some(&STOP_BYTE)
    }
    fn recv(&mut self, size: usize) -> bool {
        let buf = self.rbuf.as_mut_ptr() as *mut _;
        let (n, dt) = (size as c_int, mpi::dt_byte());
        // SAFETY: rbuf holds at least `size` bytes.
        let rc = unsafe {
            if self.mode == "isend" {
                let mut r: mpi::MPI_Request = mpi::request_null();
                mpi::PMPI_Irecv(buf, n, dt, self.peer, DATA_TAG, self.comm, &mut r);
                mpi::PMPI_Wait(&mut r, mpi::status_ignore())
            } else {
                mpi::PMPI_Recv(
                    buf,
                    n,
                    dt,
                    self.peer,
                    DATA_TAG,
                    self.comm,
                    mpi::status_ignore(),
                )
            }
        };
        rc == mpi::success()
    }
    /// MPI_Sendrecv, in the plain send mode's channel only (one exchange per pair of
    /// ranks is what the collective model needs).
    fn can_exchange(&self) -> bool {
        self.mode == MODES[0]
    }
    fn shares_clock(&self) -> bool {
        self.same_host
    }
    fn exchange(&mut self, size: usize) -> bool {
        let into = self.rbuf.as_mut_ptr();
        self.sendrecv(size, self.sbuf.as_ptr(), into)
    }
    /// Sends what the last refill exchange received, into what it sent: its two buffers
    /// swap each time (`Transport::exchange_refill`).
    fn exchange_refill(&mut self, size: usize) -> bool {
        if size > self.sbuf.len() {
            return false;
        }
        if self.refill.is_empty() {
            let len = self.sbuf.len();
            self.refill = vec![vec![0xA5; len], vec![0x5B; len]];
        }
        let turn = usize::from(self.refill_turn);
        self.refill_turn = !self.refill_turn;
        let into = self.refill[turn].as_mut_ptr();
        self.sendrecv(size, self.refill[1 - turn].as_ptr(), into)
    }
    /// One exchange through persistent requests, set up and freed each time
    /// (`Transport::exchange_persistent`).
    fn exchange_persistent(&mut self, size: usize) -> bool {
        if size > self.sbuf.len() {
            return false;
        }
        let (n, dt) = (size as c_int, mpi::dt_byte());
        crate::record::matrix::own_sent_persistent(self.peer, size as u64);
        let (from, into) = (
            self.sbuf.as_ptr() as *const _,
            self.rbuf.as_mut_ptr() as *mut _,
        );
        let mut r = [mpi::request_null(); 2];
        // SAFETY: both buffers hold at least `size` bytes and outlive the requests, which
        // complete in the Waitall and are freed before returning; private communicator.
        unsafe {
            let ok = mpi::PMPI_Recv_init(into, n, dt, self.peer, DATA_TAG, self.comm, &mut r[0])
                == mpi::success()
                && mpi::PMPI_Send_init(from, n, dt, self.peer, DATA_TAG, self.comm, &mut r[1])
                    == mpi::success()
                && mpi::PMPI_Startall(2, r.as_mut_ptr()) == mpi::success()
                && mpi::PMPI_Waitall(2, r.as_mut_ptr(), mpi::statuses_ignore()) == mpi::success();
            for q in &mut r {
                if *q != mpi::request_null() {
                    mpi::PMPI_Request_free(q);
                }
            }
            ok
        }
    }
    fn progress(&mut self) {
        let mut flag: c_int = 0;
        // SAFETY: a probe on a tag nobody sends; it only drives MPI's progress engine.
        unsafe {
            mpi::PMPI_Iprobe(
                self.peer,
                DATA_TAG + 1,
                self.comm,
                &mut flag,
                mpi::status_ignore(),
            )
        };
    }
}

pub struct MpiControl {
    pub comm: MPI_Comm,
    pub peer: c_int,
}

impl MpiControl {
    pub fn new(comm: MPI_Comm, peer: u32) -> MpiControl {
        MpiControl {
            comm,
            peer: peer as c_int,
        }
    }
}

impl Control for MpiControl {
    fn send_words(&mut self, w: &[u64; 4]) -> bool {
        crate::record::matrix::own_sent(self.peer, 32);
        // SAFETY: four u64 on the private communicator.
        unsafe {
            mpi::PMPI_Send(
                w.as_ptr() as *const _,
                4,
                mpi::dt_u64(),
                self.peer,
                CTRL_TAG,
                self.comm,
            ) == mpi::success()
        }
    }
    fn recv_words(&mut self) -> Option<[u64; 4]> {
        let mut w = [0u64; 4];
        // SAFETY: room for four u64.
        let rc = unsafe {
            mpi::PMPI_Recv(
                w.as_mut_ptr() as *mut _,
                4,
                mpi::dt_u64(),
                self.peer,
                CTRL_TAG,
                self.comm,
                mpi::status_ignore(),
            )
        };
        (rc == mpi::success()).then_some(w)
    }
}
