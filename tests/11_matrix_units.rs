//! Lesson 11's grader: the reference passes through the model of the matrix unit at sizes
//! with partial blocks, K and N not multiples of 4, and a long K where it must be at least as
//! accurate as FP32; the cases of lessons/11_matrix_units.rs are graded as they expect.

mod common;

use lab::harness::matrix::{Problem, Shape};
use lab::ladder;
use lab::ladder::l11_matrix_units::unit;
use lab::lesson::defines;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 11` grades it, with the same report:
/// `cargo test --test 11_matrix_units -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("11")
}

#[test]
fn solution_passes() {
    let v = g().solution_passes("11");
    assert!(
        v.notes.iter().any(|n| n.contains("matrix unit:")),
        "the verdict names the path the unit took: {:?}",
        v.notes
    );
}

#[test]
fn cases() {
    g().assert_cases(ladder::cases("11"));
}

#[test]
fn launches_any_size_and_refuses_bad_defines() {
    let ocl = ladder::get("11").ocl().unwrap();
    let d = defines(&[
        ("BM", "128"),
        ("BN", "64"),
        ("BK", "16"),
        ("WM", "64"),
        ("WN", "32"),
        ("STAGES", "3"),
    ]);
    let l = (ocl.launch)(Shape::new(131, 97, 150), &d).unwrap();
    // Two blocks of rows and two of columns, four warps each.
    assert_eq!(l.global, [2 * 128, 2]);
    assert_eq!(l.local, Some([128, 1]));
    assert!((ocl.launch)(Shape::new(0, 5, 5), &d).is_err());
    for (name, bad, words) in [
        ("WM", "24", "multiple of 16"),
        ("WN", "12", "multiple of 8"),
        ("BK", "12", "multiple of 8"),
        ("STAGES", "1", "2, 3 or 4"),
        ("BN", "48", "multiple of WN"),
        ("BK", "24", "copies per row must divide"),
    ] {
        let d = lab::lesson::with_overrides(d.clone(), &defines(&[(name, bad)]));
        let why = (ocl.check_defines)(&d).unwrap_err();
        assert!(why.contains(words), "{name}={bad}: {why}");
    }
}

#[test]
fn accuracy_is_judged_against_fp32_on_the_same_inputs() {
    let p = Problem::random(Shape::new(8, 6, 2048), 5);
    let exact = lab::harness::matrix::reference(&p).c;
    // The exact product rounded to f32: better than FP32's loop, accepted.
    let good: Vec<f32> = exact.iter().map(|&x| x as f32).collect();
    assert_eq!(unit::accuracy(&p, &good, false), None);
    let (e, e32) = unit::errors(&p, &good);
    assert!(e < e32, "{e} {e32}");
    // Every element off by one part in 2¹²: TF32-sized, rejected with TF32's explanation.
    let tf32: Vec<f32> = exact
        .iter()
        .map(|&x| (x * (1.0 + 1.0 / 4096.0)) as f32)
        .collect();
    let why = unit::accuracy(&p, &tf32, false).expect("rejected");
    assert!(why.contains("TF32 keeps 10 bits"), "{why}");
    // Off by one part in 2¹⁸: the split summed inside the unit.
    let drift: Vec<f32> = exact
        .iter()
        .map(|&x| (x * (1.0 - 1.0 / 262144.0)) as f32)
        .collect();
    let why = unit::accuracy(&p, &drift, false).expect("rejected");
    assert!(why.contains("kept inside the unit"), "{why}");
    // A short K is not judged against FP32 unless the allowance already failed it.
    let short = Problem::random(Shape::new(8, 6, 16), 5);
    let ok: Vec<f32> = lab::harness::matrix::reference(&short)
        .c
        .iter()
        .map(|&x| (x * (1.0 + 1.0 / 4096.0)) as f32)
        .collect();
    assert_eq!(unit::accuracy(&short, &ok, false), None);
    assert!(unit::accuracy(&short, &ok, true).is_some());
    // A wrong product is not a rounding matter: the generic message stays.
    let wrong: Vec<f32> = exact.iter().map(|&x| (x + 1.0) as f32).collect();
    assert_eq!(unit::accuracy(&p, &wrong, true), None);
}
