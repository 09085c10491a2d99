//! Lesson 10's grader: the reference passes at sizes with partial tiles and K, N not
//! multiples of 4; the cases of lessons/10_tuned.rs (kernels wrong on purpose, and
//! correct ones in other styles) are graded as they expect.

mod common;

use lab::grade::{self, Source};
use lab::harness::matrix::Shape;
use lab::ladder;
use lab::ladder::l10_tuned::tuner::Params;
use lab::report;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 10` grades it, with the same report:
/// `cargo test --test 10_tuned -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("10")
}

#[test]
fn solution_passes() {
    g().solution_passes("10");
}

#[test]
fn solution_passes_loading_a_along_k() {
    // ALONGK=1: A's float4 loads run along its rows and A's tile is stored swizzled. Two
    // asymmetric shapes, with k-steps of 16 and of 8 (different swizzles), through the whole
    // grader, sanitizer included.
    for p in [
        Params::new(64, 32, 16, 8, 4).along_k(1),
        Params::new(32, 64, 8, 4, 8).along_k(1),
    ] {
        let mut opts = g().opts;
        opts.defines = p.defines();
        let v = grade::grade(
            ladder::get("10"),
            &Source::Folder(opts.course.solutions()),
            &opts,
        );
        assert!(v.passed(), "{p}:\n{}", report::verdict(&v));
        assert!(!v.cases.is_empty(), "{p}: the grader checked no case");
    }
}

#[test]
fn cases() {
    g().assert_cases(ladder::cases("10"));
}

#[test]
fn launches_any_size_and_refuses_bad_defines() {
    let ocl = ladder::get("10").ocl().unwrap();
    let d = Params::new(128, 128, 16, 8, 8).defines();
    let l = (ocl.launch)(Shape::new(131, 97, 150), &d).unwrap();
    // Two blocks of rows and one of columns, 16×16 work-items each.
    assert_eq!(l.global, [16, 32]);
    assert_eq!(l.local, Some([16, 16]));
    assert!((ocl.launch)(Shape::new(0, 5, 5), &d).is_err());
    let bad = Params::new(128, 128, 16, 6, 8).defines();
    let why = (ocl.launch)(Shape::square(256), &bad).unwrap_err();
    assert!(why.contains("multiples of 4"), "{why}");
}
