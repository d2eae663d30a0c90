//! LogGP ranges from the calibration's PRTT points (hoefler2007 §3).
//!
//! Per size s: `G_all(s) = (PRTT(n,0,s) − PRTT(1,0,s)) / (n − 1)` (Eq. 7),
//! `o_s(s) = (PRTT(n,d,s) − PRTT(1,0,s)) / (n − 1) − d` (Eq. 6), o_r(s) timed on the
//! server, and `L = PRTT(1,0,s)/2` at a range's smallest size (the EEL of bell2003).
//!
//! Intervals. The calibration measures every size once per pass, over several passes
//! spread across its whole run (see the shim's `calib::passes`). The bootstrap resamples
//! whole passes — the same draw of passes for every size and probe — so a replicate keeps
//! what one moment of the machine did to all sizes at once, and a range's parameters
//! (fits and medians over many sizes) vary as much as the machine did while the
//! calibration ran; resampling each size's repetitions on its own averaged that away. The
//! 2.5th and 97.5th percentiles of the replicates are then widened into the interval a
//! *repeat run* falls in (`repeat_interval`): the next run's estimate has its own error,
//! and moves with the machine's level between runs (`Settings::between_run_rel`, measured
//! here). An estimate outside its own bootstrap interval is bias: it is said in the
//! range's note and the interval is not stretched to hide it. Reports written before the
//! passes get the bootstrap over each probe's repetitions; before the repetitions were
//! kept, a parametric stand-in (the median plus normal noise of the size its IQR implies).
//!
//! `boot`: the bootstrap; `ranges`: the ranges and their fits; `intervals`: what a repeat
//! run covers.
pub mod boot;
pub mod intervals;
pub mod ranges;

pub use boot::{bootstrap, Boot, Quantities, GALL, LAT, OR, OS};
pub use intervals::{interval_method, repeat_interval, z_of, METHOD};
pub use ranges::{
    eager_split, first_of_waiting_suffix, fit_set, gall_sigmas, gap_fit, line_fit, quantity_sigmas,
    segments, RangeParams, SetFit, SetInput,
};

#[cfg(test)]
pub mod tests;
