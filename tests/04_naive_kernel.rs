//! Lesson 04's grader: the reference passes; the cases of tests/cases/04_naive_kernel.rs
//! (kernels wrong on purpose, and correct ones in other styles) are graded as they expect.

mod common;

#[path = "cases/04_naive_kernel.rs"]
mod cases;

fn g() -> common::Grader {
    common::grader()
}

#[test]
fn solution_passes() {
    g().solution_passes("04");
}

#[test]
fn cases() {
    g().assert_cases(cases::CASES);
}
