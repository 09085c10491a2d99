//! Grading a class: three student folders (one complete, one with a CPU file that does not
//! compile, one half done) graded by `lab class`, with a table, a ranking and a gradebook,
//! each verdict the one `--kernels` gives that folder alone.

use std::path::{Path, PathBuf};
use std::process::Command;

use lab::class::GradeRow;
use lab::harness::record;

fn g() -> lab::testing::Grader {
    lab::grader!()
}

fn copy(from: &Path, to: &Path, files: &[&str]) {
    std::fs::create_dir_all(to).unwrap();
    for f in files {
        std::fs::copy(from.join(f), to.join(f)).unwrap();
    }
}

const FILES: [&str; 4] = [
    "01_cpu_naive.rs",
    "02_cpu_loop_order.rs",
    "04_naive_kernel.cl",
    "05_local_tiling.cl",
];

fn class_folder() -> PathBuf {
    let course = g().opts.course;
    let dir = std::env::temp_dir().join(format!("lab-class-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy(&course.solutions(), &dir.join("ada"), &FILES);
    copy(&course.solutions(), &dir.join("brian"), &FILES);
    std::fs::write(
        dir.join("brian/01_cpu_naive.rs"),
        "pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {\n    let x = \n}\n",
    )
    .unwrap();
    copy(&course.solutions(), &dir.join("chen"), &FILES[..2]);
    copy(&course.kernels(), &dir.join("chen"), &FILES[2..]);
    dir
}

#[test]
fn a_class_is_graded_as_each_folder_alone() {
    let dir = class_folder();
    let book = dir.join("grades.csv");
    let out = Command::new(env!("CARGO_BIN_EXE_lab"))
        .args([
            "class", "--lesson", "1", "--lesson", "2", "--lesson", "4", "--lesson", "5", "--size",
            "64",
        ])
        .arg(&dir)
        .arg("--out")
        .arg(&book)
        .output()
        .expect("lab runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for s in [
        "ada",
        "brian",
        "chen",
        "does not compile",
        "not started",
        "4/4",
        "3/4",
        "2/4",
    ] {
        assert!(stdout.contains(s), "`{s}` missing from:\n{stdout}");
    }
    assert!(stdout.contains("fastest in 04_naive_kernel"), "{stdout}");

    let rows: Vec<GradeRow> = record::read(&book).unwrap();
    assert_eq!(rows.len(), 12);
    let g = g();
    for row in &rows {
        let alone = g.grade_folder(lab::class::lesson_key(&row.lesson), dir.join(&row.student));
        assert_eq!(
            row.result == "pass",
            alone.passed(),
            "{} {}: the class said {}, alone: {}",
            row.student,
            row.lesson,
            row.result,
            lab::report::verdict(&alone)
        );
        assert_eq!(
            row.kind,
            alone.kind().map(lab::report::kind_word).unwrap_or_default()
        );
    }
    let brian_01 = rows
        .iter()
        .find(|r| r.student == "brian" && r.lesson == "01_cpu_naive")
        .unwrap();
    assert_eq!(brian_01.kind, "does not compile");
    // A broken CPU file fails its own lesson alone.
    assert!(rows
        .iter()
        .filter(|r| r.student == "brian" && r.lesson != "01_cpu_naive")
        .all(|r| r.result == "pass"));
    std::fs::remove_dir_all(dir).unwrap();
}
