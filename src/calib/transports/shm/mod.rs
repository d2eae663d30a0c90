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
//!
//! `ring`: the rings and their messages; `segment`: the shared segment; `transport`: the
//! calibration's channel over it.
pub mod ring;
pub mod segment;
pub mod transport;

pub use segment::{cleanup, ring_bytes, segment_name, unlink, Segment};
pub use transport::{connect_client, connect_server, ShmTransport};

#[cfg(test)]
mod tests;
