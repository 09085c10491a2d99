//! Running kernels under Oclgrind, the OpenCL device simulator, and reading what it says.
//!
//! PoCL runs a work-group's work-items in lock-step between barriers, so a missing or
//! misplaced barrier still gives the right numbers there. Oclgrind checks every access: data
//! races, reads and writes outside a buffer or array, uninitialised values, barriers that only
//! some work-items reach. It also counts the instructions a kernel executes, which tells what
//! the kernel does (global loads per multiply-add, vector or image accesses) whatever way it
//! is written.
//!
//! Three rooms: [`icd`] finds Oclgrind's ICD library and prepares the environment of a child
//! process that sees Oclgrind as its only OpenCL platform; [`findings`] is what Oclgrind
//! reports; [`parse`] reads its output into those. Telling the student about a finding is
//! the report layer's work (`crate::grade::words::oclgrind`, the words a student reads).
//! The course's own plugins ([`plugin`]) see what Oclgrind does not report: the banks a
//! warp's local accesses meet in ([`banks`]), where a kernel reads a pointer's value
//! ([`addresses`]), and which of its global accesses ran ([`coverage`]). Written against Oclgrind 21.10.

pub mod addresses;
pub mod banks;
pub mod coverage;
pub mod findings;
pub mod icd;
pub mod lower;
pub mod parse;
pub mod plugin;

pub use findings::*;
pub use icd::*;
pub use parse::parse;
