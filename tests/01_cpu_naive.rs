//! Lesson 01's grader: the reference passes; the cases of lessons/01_cpu_naive.rs (files
//! wrong on purpose, and a right one that prints) are graded as they expect. The student's
//! Rust is built as a crate of its own, so these also prove what that crate can and cannot
//! do.

mod common;

use lab::ladder;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 01` grades it, with the same report:
/// `cargo test --test 01_cpu_naive -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("01")
}

#[test]
fn solution_passes() {
    g().solution_passes("01");
}

#[test]
fn cases() {
    g().assert_cases(ladder::cases("01"));
}
