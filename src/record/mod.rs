//! The hot path: what each intercepted call records (`hooks`), into fixed-size per-thread
//! statistics (`stats`) and the per-peer communication matrix (`matrix`), with the live
//! requests (`requests`), the call sites (`sites`), the rank translation of
//! communicators (`peers`), the call each thread is in (`progress`), each thread's memory of its recent calls (`memo`)
//! and the communicator of each one-sided window and open file (`groups`).
//! No lock, allocation, syscall or environment read here.
pub mod epochs;
pub mod groups;
pub mod hooks;
pub mod matrix;
pub mod memo;
pub mod neighbours;
pub mod peers;
pub mod progress;
pub mod requests;
pub mod samples;
pub mod sites;
pub mod stats;
