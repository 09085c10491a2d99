//! The graders' own test: every lesson's cases (each declared in its grader test,
//! `tests/NN_name.rs`, `pub mod cases`, and listed in tests/suite/lessons.rs, which
//! `cargo run -- layout --write` writes from the ladder), graded together.
//!
//! The tables are checked for consistency here on every `cargo test`; grading them all and
//! recording the result is slower, and runs on request:
//!
//!     cargo test --release --features course-checks --test suite -- --ignored --nocapture
//!
//! which writes results/grader-suite.csv (one row per case: what the case expects, what the
//! grader said, whether they agree) and prints, per lesson, how many wrong kernels were
//! rejected and how many correct ones accepted, as the table the book's grading chapter
//! shows.
//!
//! The suite is built without the test harness (`harness = false` in Cargo.toml), so that it
//! takes in the lessons' grader tests for their cases and not for their tests; its `main` runs
//! its checks as the harness would, by name, the slow one only with `--ignored`.

mod common;
#[path = "suite/lessons.rs"]
mod lessons;

use std::collections::BTreeSet;
use std::path::Path;

#[cfg(feature = "course-checks")]
use crate::common::Outcome;
use crate::common::{Case, Class, Code, Expect};
#[cfg(feature = "course-checks")]
use serde::{Deserialize, Serialize};

/// Every graded lesson's cases, in ladder order (tests/suite/lessons.rs, written from the
/// ladder: a lesson added to the ladder is in the suite).
fn tables() -> Vec<(&'static str, &'static [Case])> {
    lessons::TABLES.to_vec()
}

/// A check of the suite: its name, whether it runs only on request (`--ignored`), itself.
type Check = (&'static str, bool, fn());

const CHECKS: &[Check] = &[
    (
        "every_graded_lesson_has_its_table",
        false,
        every_graded_lesson_has_its_table,
    ),
    ("tables_are_well_formed", false, tables_are_well_formed),
    (
        "every_mutant_fits_its_solution",
        false,
        every_mutant_fits_its_solution,
    ),
    (
        "every_file_of_the_cases_exists_and_is_used",
        false,
        every_file_of_the_cases_exists_and_is_used,
    ),
    #[cfg(feature = "course-checks")]
    ("record", true, record),
];

/// Runs the checks the arguments select, as the test harness would: names or parts of names
/// (`--exact` for whole names, `--skip NAME`), `--ignored` or `--include-ignored` for the slow
/// ones, `--list`; the harness's other options are accepted and change nothing.
fn main() -> std::process::ExitCode {
    let mut filters = Vec::new();
    let mut skips = Vec::new();
    let (mut ignored, mut included, mut exact, mut list) = (false, false, false, false);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--ignored" => ignored = true,
            "--include-ignored" => included = true,
            "--exact" => exact = true,
            "--list" => list = true,
            "--skip" => skips.extend(args.next()),
            "--test-threads" | "--format" | "--color" | "--logfile" | "-Z" => {
                args.next();
            }
            _ if a.starts_with('-') => {}
            _ => filters.push(a),
        }
    }
    let matches = |name: &str, pattern: &str| {
        if exact {
            name == pattern
        } else {
            name.contains(pattern)
        }
    };
    let selected: Vec<&Check> = CHECKS
        .iter()
        .filter(|(name, _, _)| filters.is_empty() || filters.iter().any(|f| matches(name, f)))
        .filter(|(name, _, _)| !skips.iter().any(|s| matches(name, s)))
        .collect();
    if list {
        for (name, _, _) in &selected {
            println!("{name}: test");
        }
        return std::process::ExitCode::SUCCESS;
    }
    println!("\nrunning {} tests", selected.len());
    let (mut passed, mut failed, mut skipped) = (Vec::new(), Vec::new(), 0);
    for (name, slow, check) in selected {
        if *slow != ignored && !included {
            println!("test {name} ... ignored");
            skipped += 1;
            continue;
        }
        if std::panic::catch_unwind(check).is_ok() {
            println!("test {name} ... ok");
            passed.push(*name);
        } else {
            println!("test {name} ... FAILED");
            failed.push(*name);
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed; {skipped} ignored",
        if failed.is_empty() { "ok" } else { "FAILED" },
        passed.len(),
        failed.len()
    );
    if failed.is_empty() {
        std::process::ExitCode::SUCCESS
    } else {
        println!("failures: {}", failed.join(", "));
        std::process::ExitCode::FAILURE
    }
}

fn g() -> common::Grader {
    common::grader()
}

/// Every graded lesson of the ladder has its table of cases, not empty, and no other lesson
/// has one.
fn every_graded_lesson_has_its_table() {
    let graded: Vec<&str> = lab::ladder::ALL
        .iter()
        .filter(|l| l.graded())
        .map(|l| l.key)
        .collect();
    let listed: Vec<&str> = tables().iter().map(|(k, _)| *k).collect();
    assert_eq!(
        listed,
        graded,
        "tests/suite/lessons.rs lists the graded lessons of the ladder: run `{}`",
        lab::layout::WRITE
    );
    for (key, cases) in tables() {
        assert!(
            !cases.is_empty(),
            "lesson {key}: a graded lesson declares cases"
        );
    }
    let tables: Vec<&str> = tables().iter().map(|(k, _)| *k).collect();
    println!(
        "the suite counts {} lessons: {}",
        tables.len(),
        tables.join(", ")
    );
}

fn tables_are_well_formed() {
    let mut problems = Vec::new();
    for (key, cases) in &tables() {
        let mut names = BTreeSet::new();
        for c in cases.iter() {
            if c.lesson != *key {
                problems.push(format!(
                    "{key} {}: the case names lesson {}",
                    c.name, c.lesson
                ));
            }
            if !names.insert(c.name) {
                problems.push(format!("{key} {}: two cases have this name", c.name));
            }
            if (c.class == Class::Alternative) != matches!(c.expect, Expect::Accept) {
                problems.push(format!(
                    "{key} {}: a correct alternative is accepted, and only an alternative",
                    c.name
                ));
            }
            if let Code::Solution(other) = c.code {
                if other == *key {
                    problems.push(format!("{key} {}: the lesson's own solution", c.name));
                }
            }
        }
        // A tiled lesson proves its grader on at least one race, one decoy, one
        // alternative and a handful of other mistakes.
        let lesson = lab::ladder::get(key);
        if lesson.ocl().is_some() && *key != "04" {
            for class in [Class::Race, Class::Decoy, Class::Alternative, Class::Edge] {
                if !cases.iter().any(|c| c.class == class) {
                    problems.push(format!("{key}: no case of class {}", class.name()));
                }
            }
        }
        if lesson.ocl().is_some() && cases.len() < 8 {
            problems.push(format!("{key}: {} cases, fewer than 8", cases.len()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every mutant's edits fit the solution as it is now, each exactly once: a change to a
/// solution that leaves a mutant behind fails here, on a plain `cargo test`, before any
/// grading.
fn every_mutant_fits_its_solution() {
    let g = g();
    let mut problems = Vec::new();
    for (key, cases) in &tables() {
        let lesson = lab::ladder::get(key);
        let solution = g.opts.course.solutions().join(lesson.file_name());
        let original = std::fs::read_to_string(&solution).unwrap();
        for c in cases.iter() {
            let Code::Mutant(edits) = c.code else {
                continue;
            };
            let mut text = original.clone();
            for (i, (from, to)) in edits.iter().enumerate() {
                let found = text.matches(from).count();
                if found != 1 {
                    problems.push(format!(
                        "{key} {}: edit {} finds its text {found} time(s) in {}",
                        c.name,
                        i + 1,
                        solution.display()
                    ));
                    break;
                }
                text = text.replacen(from, to, 1);
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn every_file_of_the_cases_exists_and_is_used() {
    let g = g();
    let tests = g.opts.course.tests();
    let mut named = BTreeSet::new();
    let mut problems = Vec::new();
    for (_, cases) in &tables() {
        for c in cases.iter() {
            if let Code::File(_) = c.code {
                let file = g.case_file(c);
                if !file.is_file() {
                    problems.push(format!(
                        "{} {}: {} is missing",
                        c.lesson,
                        c.name,
                        file.display()
                    ));
                }
                named.insert(file);
            }
        }
    }
    // Other tests may use a file directly (a flood of printf graded at two sizes only, the
    // CPU lessons' technique checks): they name it by its stem.
    let other_tests: String = files_under(&tests)
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    for folder in ["wrong", "right"] {
        for lesson in files_under(&tests.join(folder)) {
            for file in files_under(&lesson) {
                let stem = file.file_stem().unwrap_or_default().to_string_lossy();
                if !named.contains(&file) && !other_tests.contains(&format!("\"{stem}\"")) {
                    problems.push(format!("{} belongs to no case and no test", file.display()));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// One row of results/grader-suite.csv.
#[cfg(feature = "course-checks")]
#[derive(Clone, Serialize, Deserialize)]
struct Row {
    date: String,
    device: String,
    lesson: String,
    case: String,
    class: String,
    expected: String,
    got: String,
    agreed: bool,
}

/// Per lesson: wrong cases rejected, wrong cases in all, correct cases accepted, correct
/// cases in all, and the cases whose verdict is not what they expect.
#[cfg(feature = "course-checks")]
#[derive(Default)]
struct Tally {
    rejected: usize,
    wrong: usize,
    accepted: usize,
    right: usize,
    disagreed: Vec<String>,
}

/// Grades every case of every lesson (minutes) and writes results/grader-suite.csv.
#[cfg(feature = "course-checks")]
fn record() {
    let g = g();
    let cpu = format!(
        "{} ({} threads)",
        lab::run::cpu_model(),
        lab::run::default_threads()
    );
    let date = lab::harness::record::today();
    let mut rows = Vec::new();
    let mut tallies = Vec::new();
    for (key, cases) in &tables() {
        let outcomes: Vec<Outcome> = g.outcomes(cases);
        let mut t = Tally::default();
        for o in &outcomes {
            let c = &o.case;
            if c.is_wrong() {
                t.wrong += 1;
                t.rejected += usize::from(!o.verdict.passed());
            } else {
                t.right += 1;
                t.accepted += usize::from(o.verdict.passed());
            }
            if !o.agreed() {
                t.disagreed.push(c.name.to_string());
            }
            println!(
                "{} {:<40} {:<20} expected {:<32} got {:<28} {:>5.1} s{}",
                c.lesson,
                c.name,
                c.class.name(),
                common::expected(c),
                o.got(),
                o.seconds,
                if o.agreed() { "" } else { "   DISAGREES" }
            );
            rows.push(Row {
                date: date.clone(),
                device: o.verdict.device.clone().unwrap_or_else(|| cpu.clone()),
                lesson: lab::ladder::get(key).name(),
                case: c.name.to_string(),
                class: c.class.name().to_string(),
                expected: common::expected(c),
                got: o.got(),
                agreed: o.agreed(),
            });
        }
        tallies.push((*key, t));
    }

    let path = g.opts.course.results().join("grader-suite.csv");
    std::fs::write(&path, "").expect("results/grader-suite.csv can be written");
    lab::harness::record::append(&path, &rows).expect("results/grader-suite.csv is written");

    println!("\n| lesson | wrong kernels rejected | correct kernels accepted |");
    println!("|---|---|---|");
    let (mut rejected, mut wrong, mut accepted, mut right) = (0, 0, 0, 0);
    for (key, t) in &tallies {
        println!(
            "| {} | {} of {} | {} of {} |",
            lab::ladder::get(key).name(),
            t.rejected,
            t.wrong,
            t.accepted,
            t.right
        );
        rejected += t.rejected;
        wrong += t.wrong;
        accepted += t.accepted;
        right += t.right;
    }
    println!("| all | {rejected} of {wrong} | {accepted} of {right} |");
    println!("\nwritten: {}", path.display());
    let disagreed: Vec<String> = tallies
        .iter()
        .filter(|(_, t)| !t.disagreed.is_empty())
        .map(|(key, t)| format!("{key}: {}", t.disagreed.join(", ")))
        .collect();
    assert!(
        disagreed.is_empty(),
        "cases graded otherwise than they expect:\n{}",
        disagreed.join("\n")
    );
}
