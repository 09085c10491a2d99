//! The student's own lessons under `cargo test -- --ignored`: each lesson's test file has a
//! `your_kernel` test that grades the student's file exactly as `cargo lab NN` does (the same
//! [`lab::cli::grade_lesson`], the same folder: `LAB_KERNELS`, else kernels/), prints the same
//! report, and fails with one short line, without a backtrace, when the lesson does not pass.

use std::collections::BTreeSet;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Condvar, Mutex};

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
    let opts = edge.options(PathBuf::from(super::WORKER), None);
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

/// Lessons waiting to be graded, and whether one is being graded now.
struct Queue {
    busy: bool,
    waiting: BTreeSet<String>,
}

static QUEUE: Mutex<Queue> = Mutex::new(Queue {
    busy: false,
    waiting: BTreeSet::new(),
});
static TURN: Condvar = Condvar::new();

/// One lesson's turn to be graded: while it is held, no other lesson is.
struct Turn;

impl Turn {
    /// Waits until no lesson is being graded and no waiting lesson comes before `key`:
    /// lessons are graded one at a time, as `cargo lab` grades them (the test runner's threads
    /// would otherwise time lessons side by side on the same cores), and in ladder order.
    fn take(key: &str) -> Turn {
        let mut q = QUEUE.lock().unwrap_or_else(|e| e.into_inner());
        q.waiting.insert(key.to_string());
        while q.busy || q.waiting.first().map(String::as_str) != Some(key) {
            q = TURN.wait(q).unwrap_or_else(|e| e.into_inner());
        }
        q.waiting.remove(key);
        q.busy = true;
        Turn
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        QUEUE.lock().unwrap_or_else(|e| e.into_inner()).busy = false;
        TURN.notify_all();
    }
}

/// The body of a lesson's `your_kernel` test: grades the student's file, prints the report.
pub fn your_kernel(key: &str) -> Result<(), NotPassed> {
    let _turn = Turn::take(key);
    let edge = match Edge::from_env() {
        Ok(e) => e,
        Err(e) => return Err(NotPassed(format!("lesson {key}: cannot grade: {e:#}"))),
    };
    let (text, result) = grade(&edge, key);
    println!("{text}");
    result
}
