//! Lesson 03b's grader: the reference passes, with its thread check run; the cases of
//! lessons/03b_cpu_packed.rs (edits of the solution wrong on purpose, and correct ones
//! in other styles) are graded as they expect.

mod common;

use lab::ladder;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 03b` grades it, with the same report:
/// `cargo test --test 03b_cpu_packed -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("03b")
}

#[test]
fn solution_passes() {
    let v = g().solution_passes("03b");
    assert!(
        v.notes.iter().any(|n| n.contains("shares its work")),
        "the thread check ran: {v:?}"
    );
}

#[test]
fn cases() {
    g().assert_cases(ladder::cases("03b"));
}
