//! Which lessons' references pass on which OpenCL implementation: `lab --kernels solutions
//! --record-compat` appends the scoreboard's verdicts to `results/compat.csv`, and the bench
//! (`lab-bench results`) makes the book's compatibility table from that file alone, so the
//! table says only what a recorded run showed.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

use crate::grade::Verdict;
use crate::harness::device::DeviceInfo;
use crate::harness::record;
use crate::scoreboard::Row;

/// One lesson's reference graded on one device: a row of `results/compat.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Compat {
    pub date: String,
    /// The OpenCL platform, as its driver names it ("Portable Computing Language").
    pub platform: String,
    pub device: String,
    /// "GPU", "CPU", ...
    pub kind: String,
    pub driver: String,
    /// The OpenCL C version the kernels were built as (`1.2`), or empty: the compiler's own.
    #[serde(default)]
    pub cl_std: String,
    /// The lesson's key: `04`, `03b`.
    pub lesson: String,
    /// What grading said, without the speed: `passes`, `passes (unchecked: races)`,
    /// `failing (wrong result)`, `device unsupported`.
    pub verdict: String,
}

/// The file the rows are kept in.
pub fn file(results: &Path) -> PathBuf {
    results.join("compat.csv")
}

/// A verdict in the table's words: whether the reference passed, and what could not be
/// checked on this device.
pub fn words(v: &Verdict) -> String {
    let unchecked = v.unchecked_words();
    match v.kind() {
        None if unchecked.is_empty() => "passes".into(),
        None => format!("passes ({unchecked})"),
        // A failing status names no speed: the scoreboard's words as they are.
        Some(_) => crate::scoreboard::status(v, crate::harness::matrix::Shape::square(1)),
    }
}

/// The rows a scoreboard of the course's references makes, for the OpenCL lessons only (CPU
/// lessons do not depend on the OpenCL implementation).
pub fn rows(board: &[Row], info: &DeviceInfo, cl_std: Option<&str>) -> Vec<Compat> {
    board
        .iter()
        .filter(|r| matches!(r.lesson.kind, crate::lesson::Kind::OpenCl(_)))
        .filter_map(|r| {
            let v = r.student.as_ref()?;
            Some(Compat {
                date: record::today(),
                platform: info.platform.clone(),
                device: info.name.clone(),
                kind: info.kind.clone(),
                driver: info.driver.clone(),
                cl_std: cl_std.unwrap_or_default().to_string(),
                lesson: r.lesson.key.to_string(),
                verdict: words(v),
            })
        })
        .collect()
}

/// Appends the rows; a scoreboard of anything but the course's own references is refused,
/// since the table is about the course, not about a student's files.
pub fn save(results: &Path, graded: &Path, solutions: &Path, rows: &[Compat]) -> Result<()> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same(graded, solutions) {
        bail!(
            "--record-compat records how the course's references fare on this device: run it \
             with --kernels solutions (it graded {})",
            graded.display()
        );
    }
    record::append(&file(results), rows)
}

/// Every recorded row, oldest first.
pub fn all(results: &Path) -> Result<Vec<Compat>> {
    let path = file(results);
    if !path.is_file() {
        return Ok(Vec::new());
    }
    record::read(&path)
}
