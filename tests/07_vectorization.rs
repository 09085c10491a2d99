//! Lesson 07's grader: the reference passes at every vector width and with small tiles; the
//! cases of lessons/07_vectorization.rs (kernels wrong on purpose, and correct ones in
//! other styles) are graded as they expect; sizes that are not tile multiples are refused.

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

/// Your own kernels/ file, graded as `cargo lab 07` grades it, with the same report:
/// `cargo test --test 07_vectorization -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("07")
}

fn passes_with(d: Vec<Define>) {
    let opts = grade::Options {
        defines: d,
        ..g().opts
    };
    let v = grade::grade(
        ladder::get("07"),
        &Source::Folder(g().opts.course.solutions()),
        &opts,
    );
    assert!(v.passed(), "{}", report::verdict(&v));
}

#[test]
fn solution_passes() {
    g().solution_passes("07");
}

#[test]
fn solution_passes_at_every_width() {
    for w in [1, 2, 8] {
        passes_with(vec![Define::new("WIDTH", w)]);
    }
}

#[test]
fn solution_passes_with_small_tiles() {
    passes_with(vec![
        Define::new("TSM", 32),
        Define::new("TSN", 32),
        Define::new("TSK", 8),
        Define::new("WPTM", 8),
        Define::new("WPTN", 8),
        Define::new("WIDTH", 4),
    ]);
}

#[test]
fn cases() {
    g().assert_cases(ladder::cases("07"));
}

#[test]
fn refuses_sizes_that_are_not_tile_multiples() {
    let ocl = ladder::get("07").ocl().unwrap();
    let d = [
        Define::new("TSM", 128),
        Define::new("TSN", 128),
        Define::new("TSK", 16),
        Define::new("WPTM", 8),
        Define::new("WPTN", 8),
        Define::new("WIDTH", 4),
    ];
    let why = (ocl.launch)(Shape::new(128, 128, 40), &d).unwrap_err();
    assert!(why.contains("K of 16"), "{why}");
    assert!((ocl.launch)(Shape::new(256, 128, 48), &d).is_ok());
}

#[test]
fn variants_give_right_answers() {
    let gpu = Gpu::open(g().opts.device.as_deref()).expect("an OpenCL device");
    let ocl = ladder::get("07").ocl().unwrap();
    for v in ocl.variants {
        let t = (v.measure)(&gpu, &g().opts.course, Shape::new(256, 128, 48))
            .unwrap_or_else(|e| panic!("{}: {e:#}", v.name))
            .expect("the size applies");
        assert!(t.device_ms > 0.0, "{}: {t:?}", v.name);
    }
}
