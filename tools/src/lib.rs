//! The `loggp` command's parts: reading is in loggp-report; here the tables (`show`,
//! `diff`), the SVG figures (`plot`), the page (`html`) and the launcher wrapper (`run`).
pub mod advise;
pub mod csv;
pub mod diff;
pub mod export;
pub mod html;
pub mod measure;
pub mod plot;
pub mod ranks;
pub mod repeat;
pub mod run;
pub mod show;
pub mod synth;
pub mod table;
pub mod trace;
