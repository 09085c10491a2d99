//! A lesson's `your_kernel` test (`cargo test -- --ignored`) says what `cargo lab` says about
//! the same file: the same report, the same pass or fail, on a folder that holds a passing
//! kernel, a wrong one and an untouched starter, named by `LAB_KERNELS` or by `--kernels`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::student;
use lab::cli::Edge;
use lab::ladder;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A student's folder: lesson 04 answered, lesson 05 with a missing barrier, lesson 06 as
/// shipped.
fn fixture() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lab-student-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |key: &str| ladder::get(key).file_name();
    let copy = |from: &Path, key: &str| {
        std::fs::copy(from, dir.join(file(key)))
            .unwrap_or_else(|e| panic!("copying {}: {e}", from.display()));
    };
    copy(&root().join("solutions").join(file("04")), "04");
    copy(
        &root().join("tests/wrong/05_local_tiling/missing_barrier.cl"),
        "05",
    );
    copy(&root().join("kernels").join(file("06")), "06");
    dir
}

/// `lab grade 04 05 06` (what `cargo lab 04 05 06` runs), with `extra` arguments and
/// environment: its output and whether it succeeded.
fn cargo_lab(extra: &[&str], env: &[(&str, &Path)]) -> (String, bool) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lab"));
    cmd.arg("grade").args(["04", "05", "06"]).args(extra);
    cmd.env_remove("LAB_KERNELS");
    // `cargo lab` records each grading; the fixture's are not the student's progress.
    cmd.env(
        "LAB_PROGRESS",
        std::env::temp_dir().join("lab-student-test-progress.json"),
    );
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("running lab grade");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.success(),
    )
}

/// A report with every number written `#`, its sign and exponent with it: two gradings of one
/// file say the same words, but each draws its own inputs and one of its shapes (and so its
/// errors, the values of a wrong element, and its speed).
fn numberless(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let digit_at = |i: usize| chars.get(i).is_some_and(char::is_ascii_digit);
    let mut out = String::with_capacity(text.len());
    let mut in_number = false;
    for (i, &ch) in chars.iter().enumerate() {
        let sign = ch == '-' && digit_at(i + 1) && !in_number;
        let exponent = in_number
            && ((ch == 'e' && (digit_at(i + 1) || chars.get(i + 1) == Some(&'-')))
                || (ch == '-' && chars.get(i.wrapping_sub(1)) == Some(&'e')));
        if ch.is_ascii_digit() || sign || exponent || (in_number && ch == '.') {
            if !in_number {
                out.push('#');
            }
            in_number = true;
        } else {
            in_number = false;
            out.push(ch);
        }
    }
    out
}

#[test]
fn the_student_test_says_what_cargo_lab_says() {
    let dir = fixture();
    let edge = Edge {
        kernels: Some(dir.clone()),
        ..Edge::from_env().unwrap()
    };
    let by_variable = cargo_lab(&[], &[("LAB_KERNELS", &dir)]);
    let by_flag = cargo_lab(&["--kernels", dir.to_str().unwrap()], &[]);
    assert_eq!(
        (numberless(&by_variable.0), by_variable.1),
        (numberless(&by_flag.0), by_flag.1),
        "LAB_KERNELS and --kernels grade alike"
    );
    let (lab_out, lab_passed) = by_variable;
    let lab_out = numberless(&lab_out);
    assert!(!lab_passed, "two of three lessons fail:\n{lab_out}");
    for (key, passes, kind) in [
        ("04", true, ""),
        ("05", false, "data race"),
        ("06", false, "not started"),
    ] {
        let (report, result) = student::grade(&edge, key);
        let report = numberless(&report);
        assert!(
            lab_out.contains(&report),
            "lesson {key}: the student test's report is not cargo lab's.\n--- test:\n{report}\n--- cargo lab:\n{lab_out}"
        );
        assert_eq!(result.is_ok(), passes, "lesson {key}:\n{report}");
        if let Err(line) = result {
            let line = format!("{line:?}");
            assert!(
                line.starts_with(&format!("lesson {key}: {kind}")),
                "lesson {key}'s failure line: {line}"
            );
            assert!(!line.contains('\n'), "one line: {line}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_folder_that_is_not_there_is_named() {
    let missing = std::env::temp_dir().join("lab-student-no-such-folder");
    let edge = Edge {
        kernels: Some(missing.clone()),
        ..Edge::from_env().unwrap()
    };
    let (_, result) = student::grade(&edge, "05");
    let line = format!("{:?}", result.unwrap_err());
    assert!(
        line.contains("LAB_KERNELS") && line.contains("lab-student-no-such-folder"),
        "{line}"
    );
}
