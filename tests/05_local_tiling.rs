//! Lesson 05's grader: the reference passes; the cases of lessons/05_local_tiling.rs
//! (kernels wrong on purpose, and correct ones in other styles) are graded as they expect;
//! sizes that are not tile multiples are refused with a reason.

mod common;

use lab::harness::matrix::Shape;
use lab::harness::program::Define;
use lab::ladder;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 05` grades it, with the same report:
/// `cargo test --test 05_local_tiling -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("05")
}

#[test]
fn solution_passes() {
    g().solution_passes("05");
}

#[test]
fn cases() {
    g().assert_cases(ladder::cases("05"));
}

#[test]
fn refuses_sizes_that_are_not_tile_multiples() {
    let ocl = ladder::get("05").ocl().unwrap();
    let defines = [Define::new("TS", 16)];
    let why = (ocl.launch)(Shape::new(100, 64, 48), &defines).unwrap_err();
    assert!(why.contains("M must be a multiple of 16"), "{why}");
    assert!(why.contains("Lesson 08"), "{why}");
    assert!((ocl.launch)(Shape::new(32, 64, 48), &defines).is_ok());
}
