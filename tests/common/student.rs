//! The student's own lessons under `cargo test -- --ignored`: each lesson's test file has a
//! `your_kernel` test that grades the student's file exactly as `cargo lab NN` does (the same
//! [`lab::cli::grade_lesson`], the same folder: `LAB_KERNELS`, else kernels/), prints the same
//! report, and fails with one short line, without a backtrace, when the lesson does not pass.

use std::fmt;
use std::path::PathBuf;

use lab::cli::{self, Edge};
use lab::ladder;
use lab::report;

/// Why a student test failed, in one line; the full report has been printed above it.
pub struct NotPassed(pub String);

// `cargo test` shows a failing test's error with `{:?}`: the line itself, not a struct.
impl fmt::Debug for NotPassed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What grading the student's file of lesson `key` in `edge`'s folder gives: the report
/// `cargo lab` prints, and the test's result.
pub fn grade(edge: &Edge, key: &str) -> (String, Result<(), NotPassed>) {
    let lesson = ladder::get(key);
    let dir = match edge.kernels(None) {
        Ok(d) => d,
        Err(e) => {
            let line = format!("lesson {key}: cannot grade: {e:#}");
            return (format!("error: {e:#}\n"), Err(NotPassed(line)));
        }
    };
    let opts = edge.options(PathBuf::from(env!("CARGO_BIN_EXE_lab")), None);
    let (v, text) = cli::grade_lesson(lesson, &dir, &opts);
    let result = match v.kind() {
        None => Ok(()),
        Some(kind) => Err(NotPassed(format!(
            "lesson {key}: {} (the report is above; `cargo lab {key}` prints the same)",
            report::kind_word(kind)
        ))),
    };
    (text, result)
}

/// The body of a lesson's `your_kernel` test: grades the student's file, prints the report.
pub fn your_kernel(key: &str) -> Result<(), NotPassed> {
    let edge = match Edge::from_env() {
        Ok(e) => e,
        Err(e) => return Err(NotPassed(format!("lesson {key}: cannot grade: {e:#}"))),
    };
    let (text, result) = grade(&edge, key);
    println!("{text}");
    result
}
