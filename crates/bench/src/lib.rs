//! The course's bench: every rung measured beside its peers (`lab-bench ladder`), the top
//! rung tuned for a device (`lab-bench tune`), the book's tables and charts regenerated from
//! `results/` (`lab-bench results`), the references' accuracy and the compilers' evidence.
//! It measures through the course's library (`lab`) and its one timing protocol; its heavy
//! dependencies (plotters, the CPU peers) stay out of what a student builds.
//!
//! Floors: [`peers`] below [`tools`]; tests/layout.rs checks them and that nothing here
//! reaches past the course library's public API.

pub mod peers;

pub mod tools;
