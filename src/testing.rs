//! Helpers for the graders under `tests/`: grade a lesson's solution, a student's folder, or
//! a kernel that is wrong on purpose, and assert what the student would read.

use std::path::PathBuf;
use std::time::Duration;

use crate::grade::{self, FailKind, Options, Source, Verdict};
use crate::lessons::{self, Lesson};
use crate::paths;
use crate::report;

/// Grading options for tests: the device from `LAB_DEVICE`, the lesson's own sizes.
pub fn options() -> Options {
    Options::default()
}

/// A wrong-on-purpose kernel: `tests/wrong/<lesson name>/<name>.cl`.
pub fn wrong(lesson: &Lesson, name: &str) -> PathBuf {
    paths::root()
        .join("tests")
        .join("wrong")
        .join(lesson.name())
        .join(format!("{name}.cl"))
}

/// Grades the reference answer and panics with the full report unless it passes.
pub fn assert_solution_passes(number: u32) -> Verdict {
    let lesson = lessons::get(number);
    let v = grade::grade(lesson, &Source::Solution, &options());
    assert!(
        v.passed(),
        "the reference answer of lesson {} fails its own grader:\n{}",
        lesson.id(),
        report::verdict(&v)
    );
    assert!(!v.cases.is_empty(), "the grader checked no case");
    v
}

/// Grades a wrong-on-purpose kernel with the given options, and asserts that it fails with
/// `kind` and a message containing every one of `words`.
pub fn assert_rejected_with(
    number: u32,
    name: &str,
    kind: FailKind,
    words: &[&str],
    opts: &Options,
) -> Verdict {
    let lesson = lessons::get(number);
    let file = wrong(lesson, name);
    assert!(file.is_file(), "missing test kernel {}", file.display());
    let v = grade::grade(lesson, &Source::File(file), opts);
    let text = report::verdict(&v);
    assert_eq!(
        v.kind(),
        Some(kind),
        "{name}: expected a {kind:?} failure, got:\n{text}"
    );
    for w in words {
        assert!(
            v.message().contains(w),
            "{name}: the message should mention `{w}`:\n{text}"
        );
    }
    v
}

/// [`assert_rejected_with`] with the default options.
pub fn assert_rejected(number: u32, name: &str, kind: FailKind, words: &[&str]) -> Verdict {
    assert_rejected_with(number, name, kind, words, &options())
}

/// Grades the student's folder (`LAB_KERNELS` or `kernels/`) and panics with the full
/// report unless the lesson passes: this is what `cargo lab` runs.
pub fn assert_student(number: u32) {
    let lesson = lessons::get(number);
    let v = grade::grade(lesson, &Source::student(), &options());
    if !v.passed() {
        panic!("\n{}", report::verdict(&v));
    }
    println!("{}", report::verdict(&v));
}

/// Options with a short watchdog, for kernels that are meant to hang.
pub fn impatient(secs: u64) -> Options {
    Options {
        step_timeout: Duration::from_secs(secs),
        ..options()
    }
}
