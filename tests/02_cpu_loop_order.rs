//! Lesson 02's grader: the reference passes; the cases of lessons/02_cpu_loop_order.rs are
//! graded as they expect; and the technique is judged by behaviour (files under
//! tests/wrong/02_cpu_loop_order and tests/right/02_cpu_loop_order).

mod common;

use lab::ladder;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 02` grades it, with the same report:
/// `cargo test --test 02_cpu_loop_order -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("02")
}

#[test]
fn solution_passes() {
    g().solution_passes("02");
}

#[test]
fn cases() {
    g().assert_cases(ladder::cases("02"));
}
