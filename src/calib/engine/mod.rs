//! The PRTT(n, d, s) probes of Hoefler et al. 2007 §3 (Listing 1), over any transport.
//!
//! A pair is a client and a server. The client drives: before each block of probes it
//! sends the server a command over the control channel; the server carries it out and
//! waits for the next. PRTT(n,d,s): the client sends n messages of s bytes, separated by a
//! busy delay d, and receives one reply; the server receives n and replies once. The
//! receive overhead o_r is timed on the server: after the first message of a burst it
//! waits d (so the next has surely arrived) and times each of the other n−1 receives.
//! Everything is kept in ticks of the shim's clock and turned into ns for the report.
//!
//! `wire`: the channels and commands; `probes`: the probes, both sides; `client` and
//! `server`: the two roles; `points`: what each size gave and a pass over the schedule.
pub mod client;
pub mod points;
pub mod probes;
pub mod server;
pub mod wire;

pub use client::{Client, STALL_NS};
pub use points::{late_delay, measure_pass, measure_point, PointTicks, SizeProbes};
pub use probes::waits;
pub use server::serve;
pub use wire::{set_yield_margin, Control, Transport, MAX_RECV_SAMPLES};

#[cfg(test)]
mod tests;
