//! What moving a protocol switch would save this job (issue 14): the job's own messages
//! (the passive bins: per size, how many) priced by the calibration's round trips.
//!
//! Model. A message of s bytes that two ranks wait on costs the pair PRTT(1,0,s) of time
//! inside MPI (a ping-pong round trip is one message each way with the other side
//! waiting: each message keeps both ranks in MPI for half the round trip). Moving the
//! switch from T to T' turns the job's messages in (T, T'] from rendezvous to eager, and
//! saves per message what they cost now minus what they would cost eager.
//!
//! Now: the job's own time in MPI_Send + MPI_Recv for those messages, where the passive
//! bins have it (send mode, every message received by MPI_Recv); else the calibration's
//! rendezvous round trips above T, interpolated linearly between measured sizes, never
//! past the largest (then the saving assumes the receiver waits, and is an upper bound
//! where it does not). Eager: the line g + (s−1)·G (non-negative) through the PRTT(1,0,s)
//! of the eager range's top two octaves, extrapolated past T to at most twice the largest
//! eager size measured — the calibration cannot measure eager sends above the switch in
//! use; what lies further is not predicted and the note says so — times what the job's
//! own eager messages in those sizes cost the pair over what the line says (in an exchange
//! both ranks' eager sends overlap, and a message costs the pair less than its round
//! trip). Interval: the bootstrap over the calibration's passes (as for the ranges), 95 %.
//!
//! `switch`: the advice on each switch; `pricing`: what it prices beside the saving;
//! `raw_share`: the raw transport's share of MPI's round trip; `standout`: ranks far from
//! the others.
pub mod algorithm;
pub mod pricing;
pub mod raw_share;
mod row_calls;
pub mod standout;
pub mod switch;
pub mod types;

pub use algorithm::{algorithm_advice, AlgorithmAdvice};
pub use pricing::{pair_ns_per_message, refill_over_plain};
pub use raw_share::{raw_share, RawShare};
pub use standout::{standout_ranks, Standout};
pub use switch::advise;
pub use types::{Advice, Candidate, SettingValue};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_rows;
