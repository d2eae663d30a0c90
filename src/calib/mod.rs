pub mod fit;
pub mod engine;
pub mod mpit;
pub mod run;
pub mod report;
