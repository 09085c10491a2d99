//! The harness: everything a grader or a measurement stands on, and nothing that knows which
//! lessons exist. No module here imports `crate::ladder`, `crate::lesson` or anything above
//! them (tests/layout.rs checks this).

pub mod callgrind;
pub mod child;
pub mod cpu_crate;
pub mod cpu_driver;
pub mod cpu_facts;
pub mod cpu_freeze;
pub mod cpu_session;
pub mod cpu_spin;
pub mod cpu_watch;
pub mod device;
pub mod exec;
pub mod groups;
pub mod lead;
pub mod matrix;
pub mod oclgrind;
pub mod pad;
pub mod paths;
pub mod peak;
pub mod poison;
pub mod pool;
pub mod program;
pub mod ptx_patch;
pub mod record;
pub mod rng;
pub mod sandbox;
pub mod timing;
pub mod unit_scale;
pub mod unordered;
