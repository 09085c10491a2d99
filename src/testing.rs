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

/// A mutant of a lesson's reference answer: `solutions/<lesson>.cl` with each `(from, to)` of
/// `edits` replaced in turn, written to
/// `<temp dir>/lab-mutants/<lesson name>/<name>.cl` with a first line saying which edits
/// made it. A wrong-on-purpose kernel written this way follows the solution as it changes,
/// and a change to the solution that the edits no longer fit fails loudly.
///
/// Panics unless every `from` occurs exactly once in the text it is applied to.
pub fn mutant(number: u32, name: &str, edits: &[(&str, &str)]) -> PathBuf {
    let lesson = lessons::get(number);
    let solution = Source::Solution.path(lesson);
    let mut text = std::fs::read_to_string(&solution)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", solution.display()));
    let mut made_by = Vec::new();
    for (i, (from, to)) in edits.iter().enumerate() {
        let found = text.matches(from).count();
        assert!(
            found == 1,
            "mutant {name} of {}: edit {} expects `{from}` exactly once, found it {found} time(s); \
             the solution changed, update the mutant",
            solution.display(),
            i + 1
        );
        text = text.replacen(from, to, 1);
        made_by.push(format!("`{}` -> `{}`", one_line(from), one_line(to)));
    }
    let dir = std::env::temp_dir().join("lab-mutants").join(lesson.name());
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    let file = dir.join(format!("{name}.cl"));
    let header = format!(
        "// Mutant {name} of {}: {}\n",
        lesson.file_name(),
        made_by.join("; ")
    );
    // Test processes may write the same mutant at once: each writes its own file and
    // renames it into place, so a reader never sees half a kernel and nothing piles up.
    let part = dir.join(format!("{name}.cl.{}", std::process::id()));
    std::fs::write(&part, header + &text)
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", part.display()));
    std::fs::rename(&part, &file)
        .unwrap_or_else(|e| panic!("cannot move {} into place: {e}", file.display()));
    file
}

/// An edit's text on one line, for a mutant's first-line comment.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Grades one kernel file with the given options, and asserts that it fails with `kind` and
/// a message containing every one of `words`. `name` labels the assertion messages.
fn assert_file_rejected(
    number: u32,
    name: &str,
    file: PathBuf,
    kind: FailKind,
    words: &[&str],
    opts: &Options,
) -> Verdict {
    let lesson = lessons::get(number);
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

/// Grades a wrong-on-purpose kernel (`tests/wrong/<lesson>/<name>.cl`) with the given options,
/// and asserts that it fails with `kind` and a message containing every one of `words`.
pub fn assert_rejected_with(
    number: u32,
    name: &str,
    kind: FailKind,
    words: &[&str],
    opts: &Options,
) -> Verdict {
    let file = wrong(lessons::get(number), name);
    assert_file_rejected(number, name, file, kind, words, opts)
}

/// [`assert_rejected_with`] with the default options.
pub fn assert_rejected(number: u32, name: &str, kind: FailKind, words: &[&str]) -> Verdict {
    assert_rejected_with(number, name, kind, words, &options())
}

/// Grades the [`mutant`] of the lesson's solution made by `edits` with the given options, and
/// asserts that it fails with `kind` and a message containing every one of `words`.
pub fn assert_mutant_rejected_with(
    number: u32,
    name: &str,
    edits: &[(&str, &str)],
    kind: FailKind,
    words: &[&str],
    opts: &Options,
) -> Verdict {
    let file = mutant(number, name, edits);
    assert_file_rejected(number, name, file, kind, words, opts)
}

/// [`assert_mutant_rejected_with`] with the default options.
pub fn assert_mutant_rejected(
    number: u32,
    name: &str,
    edits: &[(&str, &str)],
    kind: FailKind,
    words: &[&str],
) -> Verdict {
    assert_mutant_rejected_with(number, name, edits, kind, words, &options())
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
