//! The bench's tools, as subcommands of `lab-bench`: the ladder measurement, the top
//! rung's autotuner, the generator of the book's tables and charts, accuracy and evidence.

pub mod accuracy;
pub mod evidence;
pub mod ladder;
pub mod results;
pub mod tune;
