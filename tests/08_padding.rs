//! Lesson 08's grader: the reference passes for any size (1×1×1, primes, odd and non-square
//! shapes), with small tiles and without padding; the cases of lessons/08_padding.rs
//! (kernels wrong on purpose, and correct ones in other styles) are graded as they expect;
//! the variants measured beside it (no padding, zero-padded copies) give right answers.

mod common;

use lab::grade::{self, Source};
use lab::harness::device::Gpu;
use lab::harness::matrix::Shape;
use lab::harness::program::Define;
use lab::ladder;
use lab::report;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 08` grades it, with the same report:
/// `cargo test --test 08_padding -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("08")
}

fn passes_with(d: Vec<Define>) {
    let opts = grade::Options {
        defines: d,
        ..g().opts
    };
    let v = grade::grade(
        ladder::get("08"),
        &Source::Folder(g().opts.course.solutions()),
        &opts,
    );
    assert!(v.passed(), "{}", report::verdict(&v));
}

#[test]
fn solution_passes_for_any_size() {
    let v = g().solution_passes("08");
    for s in [
        Shape::new(1, 1, 1),
        Shape::new(7, 13, 5),
        Shape::new(31, 33, 17),
        Shape::new(100, 257, 1000),
    ] {
        assert!(v.cases.iter().any(|c| c.shape == s), "{s} is not graded");
    }
}

#[test]
fn solution_passes_with_small_tiles_and_widths() {
    passes_with(vec![
        Define::new("TSM", 32),
        Define::new("TSN", 32),
        Define::new("TSK", 8),
        Define::new("WPTM", 8),
        Define::new("WPTN", 8),
        Define::new("WIDTH", 8),
    ]);
    passes_with(vec![Define::new("WIDTH", 1), Define::new("PAD", 0)]);
}

#[test]
fn variants_give_right_answers() {
    let gpu = Gpu::open(g().opts.device.as_deref()).expect("an OpenCL device");
    let ocl = ladder::get("08").ocl().unwrap();
    for v in ocl.variants {
        for s in [Shape::new(131, 67, 45), Shape::new(1, 1, 1)] {
            let t = (v.measure)(&gpu, &g().opts.course, s)
                .unwrap_or_else(|e| panic!("{} at {s}: {e:#}", v.name))
                .expect("every size applies");
            assert!(t.device_ms > 0.0, "{}: {t:?}", v.name);
        }
    }
}

#[test]
fn cases() {
    g().assert_cases(ladder::cases("08"));
}

#[test]
fn launches_whole_tiles_over_any_size() {
    let ocl = ladder::get("08").ocl().unwrap();
    let d = [
        Define::new("TSM", 128),
        Define::new("TSN", 128),
        Define::new("TSK", 16),
        Define::new("WPTM", 8),
        Define::new("WPTN", 8),
        Define::new("WIDTH", 4),
        Define::new("PAD", 2),
    ];
    let l = (ocl.launch)(Shape::new(4095, 129, 7), &d).unwrap();
    assert_eq!(l.global, [32, 512]);
    assert_eq!(l.local, Some([16, 16]));
    let why = (ocl.launch)(Shape::new(0, 5, 5), &d).unwrap_err();
    assert!(why.contains("at least 1"), "{why}");
}
