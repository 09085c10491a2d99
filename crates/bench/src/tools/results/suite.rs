//! The graders' own results: `results/grader-suite.csv`, written by
//! `cargo test --release --features course-checks --test suite -- --ignored`, as the table of the grading chapter.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use serde::Deserialize;

use lab::harness::record;
use lab::ladder;

/// One case as graded: a row of `results/grader-suite.csv`.
#[derive(Clone, Debug, Deserialize)]
pub struct Graded {
    pub date: String,
    pub device: String,
    pub lesson: String,
    pub case: String,
    pub expected: String,
    pub got: String,
    pub agreed: bool,
}

impl Graded {
    /// A wrong kernel (to be rejected, known gaps included), not a correct alternative.
    fn is_wrong(&self) -> bool {
        self.expected.starts_with("reject")
    }

    fn passed(&self) -> bool {
        self.got == "passed"
    }
}

/// The page: per lesson, wrong kernels rejected and correct ones accepted; then the known
/// gaps and any case whose verdict was not the one expected.
pub fn page(results: &Path, note: &str) -> Result<String> {
    let path = results.join("grader-suite.csv");
    let mut s = String::from(note);
    if !path.is_file() {
        s.push_str("\n*The graders' suite has not been recorded yet: `cargo test --release --features course-checks --test suite -- --ignored --nocapture` writes `results/grader-suite.csv`.*\n");
        return Ok(s);
    }
    let rows: Vec<Graded> = record::read(&path)?;
    let mut dates: Vec<&str> = rows.iter().map(|r| r.date.as_str()).collect();
    dates.sort_unstable();
    dates.dedup();
    let mut devices: Vec<&str> = rows.iter().map(|r| r.device.as_str()).collect();
    devices.sort_unstable();
    devices.dedup();
    let _ = writeln!(
        s,
        "\nGraded on {} ({}), `results/grader-suite.csv`:\n",
        devices.join("; "),
        dates.join(", ")
    );
    s.push_str("| lesson | wrong kernels rejected | correct kernels accepted |\n|---|--:|--:|\n");
    let (mut rejected, mut wrong, mut accepted, mut right) = (0, 0, 0, 0);
    for lesson in ladder::ALL.iter() {
        let name = lesson.name();
        let of: Vec<&Graded> = rows.iter().filter(|r| r.lesson == name).collect();
        if of.is_empty() {
            continue;
        }
        let w: Vec<&&Graded> = of.iter().filter(|r| r.is_wrong()).collect();
        let r: Vec<&&Graded> = of.iter().filter(|r| !r.is_wrong()).collect();
        let rej = w.iter().filter(|x| !x.passed()).count();
        let acc = r.iter().filter(|x| x.passed()).count();
        let _ = writeln!(
            s,
            "| {name} | {rej} of {} | {acc} of {} |",
            w.len(),
            r.len()
        );
        rejected += rej;
        wrong += w.len();
        accepted += acc;
        right += r.len();
    }
    let _ = writeln!(
        s,
        "| **all** | **{rejected} of {wrong}** | **{accepted} of {right}** |"
    );
    let gaps: Vec<String> = rows
        .iter()
        .filter(|r| r.expected.contains("known gap") && r.passed())
        .map(|r| format!("`{}` ({})", r.case, r.lesson))
        .collect();
    let _ = writeln!(
        s,
        "\n{}",
        if gaps.is_empty() {
            "No known gap: every wrong kernel of the suite is rejected.".to_string()
        } else {
            format!(
                "Known gaps, wrong kernels the graders pass: {}.",
                gaps.join(", ")
            )
        }
    );
    let odd: Vec<String> = rows
        .iter()
        .filter(|r| !r.agreed)
        .map(|r| {
            format!(
                "`{}` ({}): expected {}, got {}",
                r.case, r.lesson, r.expected, r.got
            )
        })
        .collect();
    if !odd.is_empty() {
        let _ = writeln!(
            s,
            "\nNot as expected in this recording: {}.",
            odd.join("; ")
        );
    }
    Ok(s)
}
