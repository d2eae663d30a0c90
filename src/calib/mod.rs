pub mod engine;
pub mod knob;
pub mod mpit;
pub mod report;
pub mod run;
