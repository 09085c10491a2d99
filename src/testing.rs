//! Helpers for the graders under `tests/`: grade a lesson's solution, or a file that is wrong
//! on purpose, and assert what the student would read.
//!
//! A test makes its grader with [`grader!`](crate::grader), which names the course's own
//! program as the grading worker (Cargo builds it for every integration test).

use std::path::PathBuf;
use std::time::Duration;

use crate::cli::Edge;
use crate::grade::{self, FailKind, Options, Source, Verdict};
use crate::ladder;
use crate::lesson::Lesson;
use crate::report;

/// A grader for tests: the environment's device and seed, the course's program as worker.
#[derive(Clone, Debug)]
pub struct Grader {
    pub opts: Options,
}

/// `Grader` for an integration test: `let g = lab::grader!();`.
#[macro_export]
macro_rules! grader {
    () => {
        $crate::testing::Grader::new(env!("CARGO_BIN_EXE_lab"))
    };
}

impl Grader {
    /// A grader whose worker is the program at `worker`.
    pub fn new(worker: &str) -> Grader {
        let edge = Edge::from_env().expect("LAB_* variables the tests can read");
        Grader {
            opts: edge.options(PathBuf::from(worker), None),
        }
    }

    /// The same grader with other options.
    pub fn with(mut self, change: impl FnOnce(&mut Options)) -> Grader {
        change(&mut self.opts);
        self
    }

    /// The same grader with a short watchdog, for code that is meant to hang.
    pub fn impatient(self, secs: u64) -> Grader {
        self.with(|o| o.step_timeout = Duration::from_secs(secs))
    }

    /// Grades a lesson's file in a folder.
    pub fn grade_folder(&self, key: &str, dir: PathBuf) -> Verdict {
        grade::grade(ladder::get(key), &Source::Folder(dir), &self.opts)
    }

    /// Grades one file as a lesson's.
    pub fn grade_file(&self, key: &str, file: PathBuf) -> Verdict {
        assert!(file.is_file(), "missing test file {}", file.display());
        grade::grade(ladder::get(key), &Source::File(file), &self.opts)
    }

    /// Grades the reference answer and panics with the full report unless it passes.
    pub fn solution_passes(&self, key: &str) -> Verdict {
        let lesson = ladder::get(key);
        let v = self.grade_folder(key, self.opts.course.solutions());
        assert!(
            v.passed(),
            "the reference answer of lesson {} fails its own grader:\n{}",
            lesson.key,
            report::verdict(&v)
        );
        assert!(!v.cases.is_empty(), "the grader checked no case");
        v
    }

    /// A wrong-on-purpose file: `tests/wrong/<lesson name>/<name>.cl` (or `.rs`).
    pub fn wrong(&self, key: &str, name: &str) -> PathBuf {
        let lesson = ladder::get(key);
        let ext = lesson
            .file_name()
            .rsplit('.')
            .next()
            .unwrap_or("cl")
            .to_string();
        self.opts
            .course
            .tests()
            .join("wrong")
            .join(lesson.name())
            .join(format!("{name}.{ext}"))
    }

    /// Grades `tests/wrong/<lesson>/<name>` and asserts that it fails with `kind` and a
    /// message containing every one of `words`.
    pub fn rejects(&self, key: &str, name: &str, kind: FailKind, words: &[&str]) -> Verdict {
        let file = self.wrong(key, name);
        self.rejects_file(key, name, file, kind, words)
    }

    /// Grades the [`mutant`] of the lesson's solution made by `edits`, and asserts that it
    /// fails with `kind` and a message containing every one of `words`.
    pub fn rejects_mutant(
        &self,
        key: &str,
        name: &str,
        edits: &[(&str, &str)],
        kind: FailKind,
        words: &[&str],
    ) -> Verdict {
        let file = mutant(&self.opts, key, name, edits);
        self.rejects_file(key, name, file, kind, words)
    }

    /// Grades the mutant made by `edits` and asserts that it passes: a correct alternative.
    pub fn accepts_mutant(&self, key: &str, name: &str, edits: &[(&str, &str)]) -> Verdict {
        let file = mutant(&self.opts, key, name, edits);
        let v = self.grade_file(key, file);
        assert!(
            v.passed(),
            "{name} is correct and must pass:\n{}",
            report::verdict(&v)
        );
        v
    }

    /// Grades `file` and asserts that it fails with `kind` and every one of `words`.
    pub fn rejects_file(
        &self,
        key: &str,
        name: &str,
        file: PathBuf,
        kind: FailKind,
        words: &[&str],
    ) -> Verdict {
        let v = self.grade_file(key, file);
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
}

/// A mutant of a lesson's reference answer: `solutions/<lesson file>` with each `(from, to)`
/// of `edits` replaced in turn, written to `<temp dir>/lab-mutants/<lesson name>/<name>.<ext>`
/// with a first line saying which edits made it. A wrong-on-purpose kernel written this way
/// follows the solution as it changes, and a change to the solution that the edits no longer
/// fit fails loudly.
///
/// Panics unless every `from` occurs exactly once in the text it is applied to.
pub fn mutant(opts: &Options, key: &str, name: &str, edits: &[(&str, &str)]) -> PathBuf {
    let lesson: &Lesson = ladder::get(key);
    let solution = opts.course.solutions().join(lesson.file_name());
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
    let ext = lesson
        .file_name()
        .rsplit('.')
        .next()
        .unwrap_or("cl")
        .to_string();
    let file = dir.join(format!("{name}.{ext}"));
    let header = format!(
        "// Mutant {name} of {}: {}\n",
        lesson.file_name(),
        made_by.join("; ")
    );
    let body = header + &text;
    // Test processes may write the same mutant at once: each writes its own file and
    // renames it into place, so a reader never sees half a file; and an unchanged mutant is
    // not rewritten, so a CPU mutant's build stays cached.
    if std::fs::read_to_string(&file).ok().as_deref() != Some(body.as_str()) {
        let part = dir.join(format!("{name}.{ext}.{}", std::process::id()));
        std::fs::write(&part, body)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", part.display()));
        std::fs::rename(&part, &file)
            .unwrap_or_else(|e| panic!("cannot move {} into place: {e}", file.display()));
    }
    file
}

/// An edit's text on one line, for a mutant's first-line comment.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
