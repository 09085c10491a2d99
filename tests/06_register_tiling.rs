//! Lesson 06's grader: the reference passes with the large-GPU tiles, with small tiles and
//! in its 1D form; the cases of lessons/06_register_tiling.rs (kernels wrong on purpose,
//! and correct ones in other styles) are graded as they expect; sizes that are not tile
//! multiples are refused with a reason.

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

/// Your own kernels/ file, graded as `cargo lab 06` grades it, with the same report:
/// `cargo test --test 06_register_tiling -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("06")
}

fn defines(tsm: usize, tsn: usize, tsk: usize, wptm: usize, wptn: usize) -> Vec<Define> {
    vec![
        Define::new("TSM", tsm),
        Define::new("TSN", tsn),
        Define::new("TSK", tsk),
        Define::new("WPTM", wptm),
        Define::new("WPTN", wptn),
    ]
}

fn assert_solution_passes_with(d: Vec<Define>) {
    let lesson = ladder::get("06");
    let opts = grade::Options {
        defines: d,
        ..g().opts
    };
    let shapes = (lesson.ocl().unwrap().shapes)(&opts.defines).unwrap();
    let v = grade::grade(lesson, &Source::Folder(g().opts.course.solutions()), &opts);
    assert!(v.passed(), "{}", report::verdict(&v));
    // Every shape the lesson names for these tiles was run, a large one among them, then one
    // more drawn for this grading, then the asked size and the round shapes near it (as whole
    // tiles), a C past 2^20 elements among them.
    let graded: Vec<Shape> = v.cases.iter().map(|c| c.shape).collect();
    assert!(graded.len() >= shapes.len() + 3, "{graded:?}");
    assert_eq!(graded[..shapes.len()], shapes[..]);
    assert!(graded.iter().any(|s| s.m * s.n > 65_536), "{graded:?}");
    assert!(graded.iter().any(|s| s.m * s.n > 1 << 20), "{graded:?}");
}

#[test]
fn solution_passes() {
    g().solution_passes("06");
}

#[test]
fn solution_passes_with_small_tiles() {
    assert_solution_passes_with(defines(32, 32, 8, 8, 8));
    assert_solution_passes_with(defines(64, 32, 16, 4, 8));
}

#[test]
fn solution_passes_in_its_1d_form() {
    assert_solution_passes_with(defines(64, 32, 16, 8, 1));
}

#[test]
fn cases() {
    g().assert_cases(ladder::cases("06"));
}

#[test]
fn refuses_sizes_that_are_not_tile_multiples() {
    let ocl = ladder::get("06").ocl().unwrap();
    let d = defines(128, 128, 16, 8, 8);
    let why = (ocl.launch)(Shape::new(128, 200, 32), &d).unwrap_err();
    assert!(why.contains("N of 128"), "{why}");
    assert!(why.contains("Lesson 08"), "{why}");
    let ok = (ocl.launch)(Shape::new(256, 128, 48), &d).unwrap();
    assert_eq!(ok.global, [16, 32]);
    assert_eq!(ok.local, Some([16, 16]));
}

#[test]
fn variants_give_right_answers() {
    let gpu = Gpu::open(g().opts.device.as_deref()).expect("an OpenCL device");
    let ocl = ladder::get("06").ocl().unwrap();
    for v in ocl.variants {
        let t = (v.measure)(&gpu, &g().opts.course, Shape::new(256, 128, 48))
            .unwrap_or_else(|e| panic!("{}: {e:#}", v.name))
            .expect("the size applies");
        assert!(t.device_ms > 0.0, "{}: {t:?}", v.name);
    }
}
