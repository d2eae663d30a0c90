pub mod engine;
pub mod fit;
pub mod mpit;
pub mod report;
pub mod run;
