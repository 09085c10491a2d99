//! Lesson 04's grader: the reference passes; the cases of lessons/04_naive_kernel.rs
//! (kernels wrong on purpose, and correct ones in other styles) are graded as they expect.

mod common;

use lab::ladder;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 04` grades it, with the same report:
/// `cargo test --test 04_naive_kernel -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("04")
}

#[test]
fn solution_passes() {
    g().solution_passes("04");
}

#[test]
fn cases() {
    g().assert_cases(ladder::cases("04"));
}
