//! Grading a class: three student folders (one complete, one with a CPU file that does not
//! compile, one half done) graded by `lab-teacher class`, with a table, a ranking and a gradebook,
//! each verdict the one `--kernels` gives that folder alone.

#[path = "../../../tests/common/mod.rs"]
mod common;

use std::path::Path;
use std::process::Command;

use lab::harness::record;
use lab_teacher::class::GradeRow;

fn g() -> common::Grader {
    common::grader()
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

/// A class folder of students, removed when the value is dropped.
fn class_folder() -> lab::harness::child::Scratch {
    let course = g().opts.course;
    let tmp = lab::harness::child::Scratch::new("class").unwrap();
    let dir = tmp.dir.clone();
    copy(&course.solutions(), &dir.join("ada"), &FILES);
    copy(&course.solutions(), &dir.join("brian"), &FILES);
    std::fs::write(
        dir.join("brian/01_cpu_naive.rs"),
        "pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {\n    let x = \n}\n",
    )
    .unwrap();
    copy(&course.solutions(), &dir.join("chen"), &FILES[..2]);
    copy(&course.kernels(), &dir.join("chen"), &FILES[2..]);
    tmp
}

#[test]
fn a_class_is_graded_as_each_folder_alone() {
    let tmp = class_folder();
    let dir = tmp.dir.clone();
    let book = dir.join("grades.csv");
    let out = Command::new(env!("CARGO_BIN_EXE_lab-teacher"))
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
        let alone = g.grade_folder(
            lab_teacher::class::lesson_key(&row.lesson),
            dir.join(&row.student),
        );
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
    // Every passing kernel was timed with the reference beside it: a ratio, and the band
    // within which it is a tie (at least 5 %).
    for row in rows.iter().filter(|r| r.result == "pass") {
        let ratio = row.vs_reference.expect("a ratio to the reference");
        assert!(ratio > 0.0, "{row:?}");
        assert!(row.tie_band.is_some_and(|b| b >= 0.05), "{row:?}");
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
}

/// A class run killed once its first student is done, then started again: the second run
/// grades only the students the first did not finish, and the gradebook holds them all.
#[test]
fn a_class_run_killed_halfway_goes_on_where_it_stopped() {
    let course = g().opts.course;
    let dir = std::env::temp_dir().join(format!("lab-class-resume-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for name in ["ada", "brian", "chen"] {
        copy(
            &course.solutions(),
            &dir.join(name),
            &["04_naive_kernel.cl"],
        );
    }
    let book = dir.join("gradebook.csv");
    let journal = dir.join(".lab-class");
    let class = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_lab-teacher"));
        c.args(["class", "--lesson", "4", "--size", "64"])
            .arg(&dir)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        std::os::unix::process::CommandExt::process_group(&mut c, 0);
        c
    };
    let finished = || -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&journal)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().to_string())
                    .filter_map(|n| n.strip_suffix(".json").map(str::to_string))
                    .filter(|n| !n.starts_with('.'))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };

    let mut first = class().spawn().unwrap();
    let start = std::time::Instant::now();
    while finished().is_empty() {
        assert!(
            first.try_wait().unwrap().is_none(),
            "the class run ended before any student was done"
        );
        assert!(
            start.elapsed().as_secs() < 600,
            "no student done in 10 minutes"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // The whole process group: the class run and the grading worker it started.
    unsafe { libc::kill(-(first.id() as i32), libc::SIGKILL) };
    first.wait().unwrap();
    let done = finished();
    assert!(done.len() < 3, "the run finished before it could be killed");
    let kept: Vec<String> = done
        .iter()
        .map(|n| std::fs::read_to_string(journal.join(format!("{n}.json"))).unwrap())
        .collect();
    // What the killed run had written of the gradebook holds each student it finished.
    let rows: Vec<GradeRow> = record::read(&book).unwrap();
    for n in &done {
        assert!(rows.iter().any(|r| &r.student == n), "{n} missing");
    }

    let second = class().output().unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    let stdout = String::from_utf8_lossy(&second.stdout);
    assert!(second.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(&format!("{} of 3 students already graded", done.len())),
        "{stderr}"
    );
    for name in ["ada", "brian", "chen"] {
        let graded_again = stderr.contains(&format!("grading {name}, lesson"));
        assert_eq!(
            graded_again,
            !done.contains(&name.to_string()),
            "{name}:\n{stderr}"
        );
    }
    for (n, text) in done.iter().zip(&kept) {
        assert_eq!(
            &std::fs::read_to_string(journal.join(format!("{n}.json"))).unwrap(),
            text,
            "{n}'s verdict was written again"
        );
    }
    let rows: Vec<GradeRow> = record::read(&book).unwrap();
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows.iter().all(|r| r.result == "pass"), "{rows:?}");
    assert!(stdout.contains("How it ranks:"), "{stdout}");

    // An edited folder is graded again; the others are not.
    std::fs::write(
        dir.join("chen/04_naive_kernel.cl"),
        "__kernel void nothing() {}\n",
    )
    .unwrap();
    let third = class().output().unwrap();
    let stderr = String::from_utf8_lossy(&third.stderr);
    assert!(
        stderr.contains("2 of 3 students already graded"),
        "{stderr}"
    );
    assert!(stderr.contains("grading chen, lesson"), "{stderr}");
    let rows: Vec<GradeRow> = record::read(&book).unwrap();
    let chen = rows.iter().find(|r| r.student == "chen").unwrap();
    assert_eq!(chen.result, "fail");
    std::fs::remove_dir_all(dir).unwrap();
}
