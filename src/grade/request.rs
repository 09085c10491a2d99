//! What the parent asks of a grading worker (`lab worker REQUEST EVENTS`): a grading, or one
//! run under the simulator. Its own room, so that the worker and the simulator's parent side
//! both speak it without importing each other.

use serde::{Deserialize, Serialize};

use super::{Options, Source};

/// What the parent asks of a worker.
#[derive(Serialize, Deserialize)]
pub struct Request {
    pub lesson: String,
    pub source: Source,
    pub opts: Options,
    /// A run under the simulator instead of a grading.
    #[serde(default)]
    pub look: Option<Look>,
}

/// Which run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Look {
    /// The sanitizer's probe number `i`.
    Sanitize(usize),
    /// The behaviour probe, with instruction counts.
    Metrics,
}
