//! The course's library. Its floors, each importing only those above it in this list:
//!
//! - [`harness`]: devices, programs, matrices and the reference, guarded runs and timing,
//!   records, child processes, student CPU crates. It knows nothing of the ladder.
//! - [`lesson`]: what a lesson is, as data.
//! - [`grade`]: the one pipeline, run → check → judge → time, and its worker process.
//! - [`report`], the text a student reads; [`measure`], checked timings; [`progress`], the
//!   lessons a student has passed.
//! - [`ladder`]: the lessons themselves, declared once each in `lessons/NN_name.rs`.
//! - [`cli`]: the edge, flags and environment.
//! - [`run`]: a lesson's standard run (check, time, compare with the previous rung).
//! - The front ends: [`program`] (every lesson's program), [`scoreboard`], [`layout`],
//!   [`watch`], [`compat`] (the references' verdicts per OpenCL implementation).
//!
//! This is what a student builds. The teacher's service (`crates/teacher`, a class's grades,
//! Gradescope, Classroom) and the bench (`crates/bench`, the ladder beside its peers, the
//! book's tables and charts) are packages of their own, built on this library's public API.
//!
//! tests/layout.rs checks these floors on every file, lessons/ included, the other packages'
//! files against their own, and that no two modules import each other, directly or around a
//! circle.

// Lesson files are compiled both as their own programs and as modules of this library;
// they name the library `lab` in both.
extern crate self as lab;

pub mod harness;

pub mod lesson;

pub mod grade;
pub mod measure;
pub mod prepared;
pub mod progress;
pub mod report;
pub mod tuner;

pub mod ladder;

pub mod cli;
pub mod compat;
pub mod layout;
pub mod program;
pub mod run;
pub mod scoreboard;
pub mod watch;
