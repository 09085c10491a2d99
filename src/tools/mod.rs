//! The course's tools, as subcommands of `lab`: the ladder measurement, lesson 10's
//! autotuner, and the generator of the book's tables and charts.

pub mod accuracy;
pub mod evidence;
pub mod ladder;
pub mod results;
pub mod tune;
