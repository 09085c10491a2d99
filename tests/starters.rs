//! Keeps the starters honest: each differs from its solution only inside EXERCISE regions,
//! and each fails its grader as "not started". Both tests read kernels/, which students edit,
//! so they are ignored by a plain `cargo test` and run by `.ci/run` on a clean checkout:
//!
//!     cargo test --release --test starters -- --ignored

use std::path::Path;

use lab::grade::{self, FailKind, Source};
use lab::ladder::ALL;

fn g() -> lab::testing::Grader {
    lab::grader!()
}

/// The file with every EXERCISE region's body removed (marker lines kept), or why the
/// regions are malformed.
fn outside_exercises(path: &Path) -> Result<Vec<(usize, String)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.contains("EXERCISE(") && line.contains("BEGIN") {
            if let Some((at, _)) = &open {
                return Err(format!(
                    "{}:{n}: an EXERCISE region opens inside the one opened at line {at}",
                    path.display()
                ));
            }
            open = Some((n, line.trim().to_string()));
            out.push((n, line.trim_end().to_string()));
        } else if line.contains("EXERCISE END") {
            if open.take().is_none() {
                return Err(format!(
                    "{}:{n}: EXERCISE END without a BEGIN",
                    path.display()
                ));
            }
            out.push((n, line.trim_end().to_string()));
        } else if open.is_none() {
            out.push((n, line.trim_end().to_string()));
        }
    }
    if let Some((at, _)) = open {
        return Err(format!(
            "{}:{at}: this EXERCISE region is never closed",
            path.display()
        ));
    }
    Ok(out)
}

fn graded_lessons() -> impl Iterator<Item = &'static lab::lesson::Lesson> {
    ALL.iter().copied().filter(|l| l.graded())
}

#[test]
#[ignore = "checks the pristine starters in kernels/: run by .ci/run"]
fn starters_differ_from_solutions_only_inside_exercises() {
    let mut problems = Vec::new();
    for lesson in graded_lessons() {
        let course = &g().opts.course;
        let starter = course.kernels().join(lesson.file_name());
        let solution = course.solutions().join(lesson.file_name());
        let (s, r) = match (outside_exercises(&starter), outside_exercises(&solution)) {
            (Ok(s), Ok(r)) => (s, r),
            (Err(e), _) | (_, Err(e)) => {
                problems.push(e);
                continue;
            }
        };
        if !s.iter().any(|(_, l)| l.contains("EXERCISE(")) {
            problems.push(format!("{}: no EXERCISE region", starter.display()));
        }
        let body = std::fs::read_to_string(&starter).unwrap_or_default();
        if !body.contains("TODO") {
            problems.push(format!("{}: no TODO for the student", starter.display()));
        }
        for (a, b) in s.iter().zip(&r) {
            if a.1 != b.1 {
                problems.push(format!(
                    "{} differs from its solution outside the exercises:\n  kernels/{}:{}: {}\n  solutions/{}:{}: {}",
                    lesson.name(), lesson.file_name(), a.0, a.1, lesson.file_name(), b.0, b.1
                ));
                break;
            }
        }
        if s.len() != r.len() {
            problems.push(format!(
                "{}: starter and solution have different lines outside the exercises ({} vs {})",
                lesson.name(),
                s.len(),
                r.len()
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
#[ignore = "grades the pristine starters in kernels/: run by .ci/run"]
fn every_starter_fails_its_grader_as_not_started() {
    let mut problems = Vec::new();
    for lesson in graded_lessons() {
        let v = grade::grade(
            lesson,
            &Source::Folder(g().opts.course.kernels()),
            &g().opts,
        );
        println!("{}", lab::report::verdict(&v));
        match v.kind() {
            Some(FailKind::NotStarted) if v.message().contains("Hint:") => {}
            Some(FailKind::Unsupported) => {}
            other => problems.push(format!(
                "{}: expected NOT STARTED with a hint, got {other:?}: {}",
                lesson.name(),
                v.message()
            )),
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn region_parser_catches_malformed_files() {
    let tmp = lab::harness::child::Scratch::new("starters").unwrap();
    let dir = tmp.dir.clone();
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.cl");
    std::fs::write(&f, "a\n// EXERCISE(1) BEGIN: x\nb\n").unwrap();
    assert!(outside_exercises(&f).unwrap_err().contains("never closed"));
    std::fs::write(&f, "a\n// EXERCISE END\n").unwrap();
    assert!(outside_exercises(&f)
        .unwrap_err()
        .contains("without a BEGIN"));
    std::fs::write(
        &f,
        "a\n// EXERCISE(1) BEGIN: x\nsecret\n// EXERCISE END\nz\n",
    )
    .unwrap();
    let kept: Vec<String> = outside_exercises(&f)
        .unwrap()
        .into_iter()
        .map(|x| x.1)
        .collect();
    assert_eq!(
        kept,
        vec!["a", "// EXERCISE(1) BEGIN: x", "// EXERCISE END", "z"]
    );
}
