//! Lesson 03's grader: the reference passes; the cases of lessons/03_cpu_parallel.rs are
//! graded as they expect; and the technique is judged by behaviour (files under
//! tests/wrong/03_cpu_parallel and tests/right/03_cpu_parallel).

mod common;

use lab::ladder;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 03` grades it, with the same report:
/// `cargo test --test 03_cpu_parallel -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("03")
}

#[test]
fn solution_passes() {
    g().solution_passes("03");
}

#[test]
fn cases() {
    g().assert_cases(ladder::cases("03"));
}

fn right(name: &str) -> std::path::PathBuf {
    g().opts
        .course
        .tests()
        .join("right/03_cpu_parallel")
        .join(format!("{name}.rs"))
}

#[test]
fn accepts_scoped_threads_over_bands_of_rows() {
    let v = g().grade_file("03", right("scoped_threads"));
    assert!(v.passed(), "{}", lab::report::verdict(&v));
    assert!(
        v.notes.iter().any(|n| n.contains("shares its work")),
        "{v:?}"
    );
    // Judged, or said to be unjudged on a busy machine: never silent.
    assert!(
        v.notes.iter().any(|n| n.contains("ran at the same time")),
        "{v:?}"
    );
}
